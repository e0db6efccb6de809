-- wrk script: POST tools/call read_document to an example server.
--   wrk -t1 -c16 -d10s -s tests/interop/read_document.lua http://127.0.0.1:8080/mcp
-- The token is read from the environment (CHOPIN_TOKEN, default "allowed",
-- which matches `--token allowed=octocat`); the document is the one the
-- tests import (tests/interop/harness.rs). Headers match the rmcp peer's
-- script so that both servers are measured on the same request.
local token = os.getenv("CHOPIN_TOKEN") or "allowed"
wrk.method = "POST"
wrk.path = "/mcp"
wrk.body = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}'
wrk.headers["Authorization"] = "Bearer " .. token
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-03-26"
