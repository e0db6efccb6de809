-- wrk script: POST tools/call read_document, the same request (and headers)
-- as ../shared/peers/read_document.lua, which the floor and rmcp peer serve.
wrk.method = "POST"
wrk.path = "/mcp"
wrk.body = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}'
wrk.headers["Authorization"] = "Bearer allowed"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-03-26"
