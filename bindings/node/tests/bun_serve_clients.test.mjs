// Bun.serve with handler(), on a loopback port, answers the official MCP
// clients of both protocol eras: initialize (or server/discover),
// tools/list, list, read, and create (created, replayed, conflict, dialect
// issues), and a 401 without a token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";
import { clientsMissing, runBothEras } from "./support/clients.mjs";
import { isBun, memoryHost } from "./support/host.mjs";

test(
  "Bun.serve with handler() passes both eras' official MCP clients",
  { skip: !isBun ? "Bun.serve needs Bun (this file runs under bun test)" : clientsMissing() },
  async () => {
    const host = memoryHost();
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: handler({
        caller: (request) => host.callerOf(request.headers.get("authorization")),
        documents: host.reader,
        create: host.creator,
      }),
    });
    try {
      const [legacy, modern] = await runBothEras(`http://127.0.0.1:${server.port}/mcp`);
      assert.match(legacy, /ok {3}create_document \(replayed\)/);
      assert.match(modern, /ok {3}\[auto\] discover: 2026-07-28/);
      // The clients' calls reached the host with the caller the token names.
      assert.ok(host.calls.some(([name, caller]) => name === "create" && caller === "octocat"));
    } finally {
      server.stop(true);
    }
  },
);
