// A host function that throws or rejects makes the handler's promise reject
// with that very error; an answer that is not what its type says rejects
// with a TypeError naming it. Nothing is half-answered, no exchange is left
// behind, and the handler goes on answering.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";
import { DOCUMENT, DRAFT, REPOSITORY, REVISION, call, memoryHost, post, readWrite } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");

function failing(where, how) {
  const error = new Error(`${where} failed`);
  const fail = how === "throw" ? () => { throw error; } : async () => { throw error; };
  const options = readWrite(memoryHost());
  options.caller = () => "octocat";
  options.documents = { ...options.documents };
  if (where === "caller") options.caller = fail;
  else if (where === "list" || where === "read") options.documents[where] = fail;
  else options[where] = { [where]: fail };
  return { error, mcp: handler(options) };
}

const requests = {
  caller: () => post(call("read_document", { id: DOCUMENT.id })),
  list: () => post(call("list_documents", { repository: REPOSITORY })),
  read: () => post(call("read_document", { id: DOCUMENT.id })),
  create: () => post(call("create_document", DRAFT)),
  update: () => post(call("update_document", REVISION)),
  rename: () => post(call("rename_document", { id: DOCUMENT.id, title: "T" })),
  archive: () => post(call("archive_document", { id: DOCUMENT.id })),
  restore: () => post(call("restore_document", { id: DOCUMENT.id })),
};

test("a host function that throws or rejects rejects the handler's promise with its error", async () => {
  for (const where of Object.keys(requests)) {
    for (const how of ["throw", "reject"]) {
      const { error, mcp } = failing(where, how);
      await assert.rejects(mcp(requests[where]()), (thrown) => thrown === error, `${where} ${how}`);
      assert.equal(mcp[IN_FLIGHT](), 0, `${where} ${how}: nothing left in flight`);
      // The handler still answers (a request the failing function is not asked for).
      if (where !== "caller") assert.equal((await mcp(post({ jsonrpc: "2.0", id: 1, method: "ping" }))).status, 200);
    }
  }
});

test("an answer that is not what its type says rejects with a TypeError naming it", async () => {
  const cases = [
    ["read", { id: DOCUMENT.id }, { read: () => ({ ...DOCUMENT, revision: -1 }) }, /documents\.read gave a document whose `revision`/],
    ["read", { id: DOCUMENT.id }, { read: () => ({ ...DOCUMENT, revision: 1.5 }) }, /`revision`/],
    ["read", { id: DOCUMENT.id }, { read: () => ({ ...DOCUMENT, title: 4 }) }, /`title` is number 4, not a string/],
    ["read", { id: DOCUMENT.id }, { read: () => "a document" }, /must give a document or undefined/],
    ["read", { id: DOCUMENT.id }, { read: () => ({ ...DOCUMENT, brief: { goal: "g" } }) }, /`brief` is not \{ goal, constraints/],
    ["list", { repository: REPOSITORY }, { list: () => ({ documents: [] }) }, /documents\.list must give an array/],
    ["list", { repository: REPOSITORY }, { list: () => [{ id: "a" }] }, /at index 0/],
  ];
  for (const [tool, args, reader, says] of cases) {
    const mcp = handler({ caller: () => "octocat", documents: { ...memoryHost().reader, ...reader } });
    await assert.rejects(mcp(post(call(`${tool}_document${tool === "list" ? "s" : ""}`, args))), (error) => error instanceof TypeError && says.test(error.message), String(says));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
  for (const [answer, says] of [
    [undefined, /must give \{ kind/],
    [{ kind: "made" }, /must give \{ kind/],
    [{ kind: "toString" }, /must give \{ kind/],
    [{ kind: "created" }, /carries a document/],
    [{ kind: "created", document: { id: "x", title: "t", source: "s", revision: 0, url: "/x" } }, /`brief`/],
    [{ kind: "replayed", document: { id: "x", title: "t", brief: DRAFT.brief, source: "s", revision: 0 } }, /`url`/],
  ]) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, create: { create: async () => answer } });
    await assert.rejects(mcp(post(call("create_document", DRAFT))), (error) => error instanceof TypeError && says.test(error.message), String(says));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
});

test("a rejected request leaves no exchange behind across many", async () => {
  let calls = 0;
  const mcp = handler({
    caller: () => "octocat",
    documents: {
      list: () => [],
      read: async () => {
        if (++calls % 2) throw new Error("flaky");
        return DOCUMENT;
      },
    },
  });
  const results = await Promise.allSettled(Array.from({ length: 200 }, () => mcp(post(call("read_document", { id: DOCUMENT.id })))));
  assert.equal(results.filter((result) => result.status === "rejected").length, 100);
  assert.equal(mcp[IN_FLIGHT](), 0);
});
