// SURFACE.md §2–§7 through the package: documents.list gets includeArchived
// (false when absent); summaries and documents carry description,
// archivedAt and url back; create's "title-taken"; rename, archive and
// restore's "unchanged" succeed; the Endpoint's list step says
// includeArchived.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DOCUMENT, DRAFT, REPOSITORY, call, resultOf } from "./support/host.mjs";

const AT = "2026-08-23T12:34:56.000Z";

function listing(calls, documents) {
  return {
    caller: () => "octocat",
    documents: {
      list: (caller, repository, includeArchived) => {
        calls.push([repository, includeArchived]);
        return documents;
      },
      read: () => undefined,
    },
  };
}

test("documents.list gets includeArchived, false when absent, and the fields come back", async () => {
  const calls = [];
  const documents = [
    { id: "a", title: "Live", description: "A generated line." },
    { id: "b", title: "Gone", archivedAt: AT },
    { id: "c", title: "Plain" },
  ];
  const mcp = handler(listing(calls, documents));
  const plain = await resultOf(mcp, call("list_documents", { repository: REPOSITORY }));
  const all = await resultOf(mcp, call("list_documents", { repository: REPOSITORY, includeArchived: true }));
  assert.deepEqual(calls, [[REPOSITORY, false], [REPOSITORY, true]]);
  for (const result of [plain, all]) {
    assert.deepEqual(result.structuredContent, { documents });
    assert.equal(result.content[0].text, JSON.stringify({ documents }));
  }
});

test("a flag that is not a boolean is refused before the host", async () => {
  const calls = [];
  const mcp = handler(listing(calls, []));
  for (const includeArchived of ["yes", null, 1]) {
    const error = await resultOf(mcp, call("list_documents", { repository: REPOSITORY, includeArchived }));
    assert.deepEqual(error, { code: -32602, message: "list_documents requires a repository" });
  }
  assert.deepEqual(calls, []);
});

test("a summary's archivedAt that is not a string is a TypeError", async () => {
  const mcp = handler(listing([], [{ id: "a", title: "T", archivedAt: 7 }]));
  await assert.rejects(mcp(new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call("list_documents", { repository: REPOSITORY })) })), TypeError);
});

test("a read answers description, archivedAt and url in order, and none when absent", async () => {
  const full = { ...DOCUMENT, description: "A generated line.", archivedAt: AT, url: "https://chopin.test/documents/o/r/s" };
  for (const [document, expected] of [
    [full, { id: DOCUMENT.id, title: DOCUMENT.title, description: full.description, archivedAt: AT, source: DOCUMENT.source, revision: DOCUMENT.revision, url: full.url }],
    [DOCUMENT, { id: DOCUMENT.id, title: DOCUMENT.title, source: DOCUMENT.source, revision: DOCUMENT.revision }],
  ]) {
    const mcp = handler({ caller: () => "octocat", documents: { list: () => [], read: () => document } });
    const result = await resultOf(mcp, call("read_document", { id: "https://chopin.test/documents/o/r/s" }));
    assert.deepEqual(result.structuredContent, expected);
    assert.equal(result.content[0].text, JSON.stringify(expected));
  }
});

test("create's title-taken is its code", async () => {
  const mcp = handler({ caller: () => "octocat", documents: { list: () => [], read: () => undefined }, create: { create: () => ({ kind: "title-taken" }) } });
  const result = await resultOf(mcp, call("create_document", DRAFT));
  assert.deepEqual(result.structuredContent, { code: "title-taken" });
  assert.equal(result.isError, true);
});

test("unchanged renames, archives and restores succeed, with a description", async () => {
  const summary = { id: "d", title: "T", description: "A generated line." };
  const archived = { ...summary, archivedAt: AT };
  const mcp = handler({
    caller: () => "octocat",
    documents: { list: () => [], read: () => undefined },
    rename: { rename: () => ({ kind: "unchanged", document: summary }) },
    archive: { archive: () => ({ kind: "unchanged", document: archived }) },
    restore: { restore: () => ({ kind: "unchanged", document: { ...summary, archivedAt: AT } }) },
  });
  const renamed = await resultOf(mcp, call("rename_document", { id: "d", title: "T" }));
  assert.deepEqual(renamed.structuredContent, summary);
  assert.equal(renamed.isError, undefined);
  const archivedResult = await resultOf(mcp, call("archive_document", { id: "/documents/d" }));
  assert.deepEqual(archivedResult.structuredContent, archived);
  assert.equal(archivedResult.content[0].text, JSON.stringify(archived));
  const restored = await resultOf(mcp, call("restore_document", { id: "d" }));
  assert.deepEqual(restored.structuredContent, summary, "a restore never answers archivedAt");
});

test("an Endpoint's list step says includeArchived", () => {
  const endpoint = new Endpoint();
  const begin = (args) => endpoint.begin("POST", ["Content-Type", "application/json"]).answer("octocat").finish(new TextEncoder().encode(JSON.stringify(call("list_documents", args))));
  const plain = begin({ repository: REPOSITORY });
  assert.equal(plain.kind, "list");
  assert.equal(plain.includeArchived, false);
  const all = begin({ repository: REPOSITORY, includeArchived: true });
  assert.equal(all.kind, "list");
  assert.equal(all.repository, REPOSITORY);
  assert.equal(all.includeArchived, true);
  const done = all.answer([{ id: "b", title: "Gone", archivedAt: AT }]);
  assert.deepEqual(JSON.parse(done.body).result.structuredContent, { documents: [{ id: "b", title: "Gone", archivedAt: AT }] });
});
