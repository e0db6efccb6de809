// archive_document and restore_document: the host gets the locator as
// sent; archived answers { id, title, archivedAt } (the host's time),
// restored { id, title }; forbidden and unavailable are their codes. An
// archive is offered only together with restore.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler, tools } from "chopin-mcp";
import { ARCHIVED_AT, DOCUMENT, REPOSITORY, call, memoryHost, readWrite, resultOf } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");

test("archive hides a document until restore brings it back", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  const archived = await resultOf(mcp, call("archive_document", { id: DOCUMENT.id }));
  assert.deepEqual(archived.structuredContent, { id: DOCUMENT.id, title: DOCUMENT.title, archivedAt: ARCHIVED_AT });
  assert.deepEqual(Object.keys(archived.structuredContent), ["id", "title", "archivedAt"]);
  assert.deepEqual((await resultOf(mcp, call("list_documents", { repository: REPOSITORY }))).structuredContent, { documents: [] });
  assert.deepEqual((await resultOf(mcp, call("update_document", { id: DOCUMENT.id, revision: 4, plan: "# P\n", idempotencyKey: "k" }))).structuredContent, { code: "document-archived" });
  const restored = await resultOf(mcp, call("restore_document", { id: DOCUMENT.id }));
  assert.deepEqual(restored.structuredContent, { id: DOCUMENT.id, title: DOCUMENT.title });
  assert.equal((await resultOf(mcp, call("read_document", { id: DOCUMENT.id }))).structuredContent.id, DOCUMENT.id);
  assert.deepEqual(host.calls.filter(([name]) => name === "archive" || name === "restore"), [
    ["archive", "octocat", DOCUMENT.id],
    ["restore", "octocat", DOCUMENT.id],
  ]);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("the locator reaches the host as sent, untrimmed", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  const locator = ` https://plans.example/documents/${DOCUMENT.id}`;
  const result = await resultOf(mcp, call("archive_document", { id: locator }));
  assert.deepEqual(host.calls, [["archive", "octocat", locator]]);
  assert.deepEqual(result.structuredContent, { code: "document-unavailable" });
});

test("forbidden and unavailable are their codes, for both tools", async () => {
  for (const tool of ["archive", "restore"]) {
    for (const [kind, code] of [["forbidden", "repository-forbidden"], ["unavailable", "document-unavailable"]]) {
      const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, archive: { archive: () => ({ kind }) }, restore: { restore: async () => ({ kind }) } });
      const result = await resultOf(mcp, call(`${tool}_document`, { id: "d" }));
      assert.deepEqual(result.structuredContent, { code }, `${tool} ${kind}`);
      assert.equal(result.isError, true);
    }
  }
});

test("archive without restore is a TypeError when the handler or Endpoint is made", () => {
  const host = memoryHost();
  for (const make of [
    () => handler({ caller: () => "octocat", documents: host.reader, archive: host.archiver }),
    () => new Endpoint({ archive: true }),
    () => tools({ archive: true }),
  ]) {
    assert.throws(make, (error) => error instanceof TypeError && /archive_document is offered only together with restore_document/.test(error.message));
  }
  assert.deepEqual(tools({ restore: true }).map((tool) => tool.name), ["list_documents", "read_document", "restore_document"]);
});

test("an Endpoint's archive and restore steps carry the locator and take each answer", () => {
  const endpoint = new Endpoint({ archive: true, restore: true });
  const begin = (tool) => endpoint.begin("POST", ["Content-Type", "application/json"]).answer("octocat").finish(new TextEncoder().encode(JSON.stringify(call(tool, { id: "/documents/d" }))));
  let step = begin("archive_document");
  assert.equal(step.kind, "archive");
  assert.equal(step.id, "/documents/d");
  step = step.answer({ kind: "archived", document: { id: "d", title: "T", archivedAt: "yesterday" } });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { id: "d", title: "T", archivedAt: "yesterday" });
  step = begin("restore_document");
  assert.equal(step.kind, "restore");
  assert.equal(step.id, "/documents/d");
  step = step.answer({ kind: "forbidden" });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { code: "repository-forbidden" });
  assert.throws(() => begin("archive_document").answer({ kind: "restored", document: { id: "d", title: "T" } }), /answer\(archived\) must give \{ kind: "archived" \| "unchanged" \| "forbidden" \| "unavailable" \}/);
  assert.throws(() => begin("restore_document").answer({ kind: "archived" }), /answer\(restored\) must give \{ kind: "restored"/);
  assert.throws(() => begin("archive_document").answer({ kind: "archived", document: { id: "d", title: "T" } }), /`archivedAt` is undefined/);
});
