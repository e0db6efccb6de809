// Bun.serve with handler(), on a loopback port, answers the official MCP
// clients of both protocol eras: initialize (or server/discover),
// tools/list, list, read, and create (created, replayed, conflict, dialect
// issues), a 401 without a token; then an update and a denied list.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";
import { clientsMissing, lifecycleCalls, runBothEras } from "./support/clients.mjs";
import { REVISION, isBun, memoryHost } from "./support/host.mjs";

test(
  "Bun.serve with handler() passes both eras' official MCP clients",
  { skip: !isBun ? "Bun.serve needs Bun (this file runs under bun test)" : clientsMissing() },
  async () => {
    const host = memoryHost({ denied: ["octo/secret"] });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: handler({
        caller: (request) => host.callerOf(request.headers.get("authorization")),
        documents: host.reader,
        create: host.creator,
        update: host.updater,
      }),
    });
    try {
      const [legacy, modern] = await runBothEras(`http://127.0.0.1:${server.port}/mcp`);
      assert.match(legacy, /ok {3}create_document \(replayed\)/);
      assert.match(modern, /ok {3}\[auto\] discover: 2026-07-28/);
      // The clients' calls reached the host with the caller the token names.
      assert.ok(host.calls.some(([name, caller]) => name === "create" && caller === "octocat"));
      // An update and a denied list, read by the SDK client that validates results against the output schemas.
      const { updated, denied } = await lifecycleCalls(`http://127.0.0.1:${server.port}/mcp`, { update: REVISION, repository: "octo/secret" });
      assert.equal(updated.structuredContent.revision, REVISION.revision + 1);
      assert.deepEqual([denied.isError, denied.structuredContent], [true, { code: "repository-forbidden" }]);
    } finally {
      server.stop(true);
    }
  },
);
