-- wrk script: POST tools/list (no store access: the endpoint alone).
wrk.method = "POST"
wrk.path = "/mcp"
wrk.body = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
wrk.headers["Authorization"] = "Bearer allowed"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-03-26"
