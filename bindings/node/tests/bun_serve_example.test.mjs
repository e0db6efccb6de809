// examples/bun-serve.mjs, the runnable Bun.serve example docs/typescript.md
// points to, serves what it says: a create, an update from the source the
// create answered, a revision conflict, the URL a create answers, and 401
// without a token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DRAFT } from "./support/host.mjs";

const isBun = typeof Bun !== "undefined";

test("the Bun.serve example creates, updates and serves its documents' URLs", { skip: !isBun && "Bun.serve needs Bun" }, async () => {
  const { serve, memoryHost } = await import("../examples/bun-serve.mjs");
  const server = serve({ port: 0, tokens: new Map([["t0ken", "octocat"]]), host: memoryHost({ newId: () => "plan-1" }) });
  const base = `http://127.0.0.1:${server.port}`;
  const post = (body, authorization = "Bearer t0ken") =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
    });
  const call = async (name, args) => {
    const response = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
    assert.equal(response.status, 200);
    return (await response.json()).result;
  };
  try {
    assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, "Bearer wrong")).status, 401);

    const created = await call("create_document", DRAFT);
    assert.equal(created.isError, undefined, JSON.stringify(created));
    assert.deepEqual(
      [created.structuredContent.id, created.structuredContent.revision, created.structuredContent.url],
      ["plan-1", 0, "/documents/plan-1"],
    );

    // An update made from the source the create answered keeps its ids.
    const update = { id: "plan-1", revision: 0, plan: `${created.structuredContent.source}\nMore prose.\n`, idempotencyKey: "u1" };
    const updated = await call("update_document", update);
    assert.equal(updated.structuredContent.revision, 1, JSON.stringify(updated));
    assert.ok(updated.structuredContent.source.endsWith("More prose.\n"));
    assert.deepEqual((await call("update_document", update)).structuredContent, updated.structuredContent);
    const stale = await call("update_document", { ...update, idempotencyKey: "u2" });
    assert.deepEqual([stale.isError, stale.structuredContent], [true, { code: "revision-conflict", revision: 1 }]);

    const listed = await call("list_documents", { repository: DRAFT.repository });
    assert.deepEqual(listed.structuredContent, { documents: [{ id: "plan-1", title: DRAFT.title }] });

    // The url the create answered resolves to the plan, for the same token.
    const page = await fetch(`${base}${created.structuredContent.url}`, { headers: { authorization: "Bearer t0ken" } });
    assert.equal(page.status, 200);
    assert.equal(await page.text(), updated.structuredContent.source);
  } finally {
    server.stop(true);
  }
});
