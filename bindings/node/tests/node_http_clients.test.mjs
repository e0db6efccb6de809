// A node:http server on Endpoint (examples/node-http.mjs's listener), on a
// loopback port, answers the official MCP clients of both protocol eras.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { Endpoint } from "chopin-mcp";
import { listener } from "../examples/node-http.mjs";
import { clientsMissing, runBothEras } from "./support/clients.mjs";
import { memoryHost } from "./support/host.mjs";

test("node:http with Endpoint passes both eras' official MCP clients", { skip: clientsMissing() }, async () => {
  const host = memoryHost();
  const endpoint = new Endpoint({ create: true, loopbackHosts: true });
  const server = createServer(
    listener(endpoint, {
      caller: (authorization) => host.callerOf(authorization),
      list: host.reader.list,
      read: host.reader.read,
      create: host.creator.create,
    }),
  );
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const [legacy, modern] = await runBothEras(`http://127.0.0.1:${server.address().port}/mcp`);
    assert.match(legacy, /ok {3}create_document \(conflict\)/);
    assert.match(modern, /ok {3}\[pin 2026-07-28\] no token: 401/);
    assert.ok(host.calls.some(([name, caller]) => name === "read" && caller === "octocat"));
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});
