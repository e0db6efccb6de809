-- wrk script: POST tools/call list_documents for the benchmark's repository
-- (benches/load.sh seeds it with 100 documents beside the read one).
wrk.method = "POST"
wrk.path = "/mcp"
wrk.body = '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}'
wrk.headers["Authorization"] = "Bearer allowed"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-03-26"
