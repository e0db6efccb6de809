// A node:http server on Endpoint (examples/node-http.mjs's listener), on a
// loopback port, answers the official MCP clients of both protocol eras,
// and the handshake-era client's update and denied list.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { Endpoint } from "chopin-mcp";
import { listener } from "../examples/node-http.mjs";
import { clientsMissing, lifecycleCalls, runBothEras } from "./support/clients.mjs";
import { REVISION, memoryHost } from "./support/host.mjs";

test("node:http with Endpoint passes both eras' official MCP clients", { skip: clientsMissing() }, async () => {
  const host = memoryHost({ denied: ["octo/secret"] });
  const endpoint = new Endpoint({ create: true, update: true, loopbackHosts: true });
  const server = createServer(
    listener(endpoint, {
      caller: (authorization) => host.callerOf(authorization),
      list: host.reader.list,
      read: host.reader.read,
      create: host.creator.create,
      update: host.updater.update,
    }),
  );
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const [legacy, modern] = await runBothEras(`http://127.0.0.1:${server.address().port}/mcp`);
    assert.match(legacy, /ok {3}create_document \(conflict\)/);
    assert.match(modern, /ok {3}\[pin 2026-07-28\] no token: 401/);
    assert.ok(host.calls.some(([name, caller]) => name === "read" && caller === "octocat"));
    // An update and a denied list, read by the SDK client that validates results against the output schemas.
    const { updated, denied } = await lifecycleCalls(`http://127.0.0.1:${server.address().port}/mcp`, { update: REVISION, repository: "octo/secret" });
    assert.equal(updated.structuredContent.revision, REVISION.revision + 1);
    assert.deepEqual([denied.isError, denied.structuredContent], [true, { code: "repository-forbidden" }]);
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});
