// rename_document: the host gets { id as sent, title trimmed } and each of
// its answers is the result LIFECYCLE.md §3 gives it, through handler() and
// Endpoint.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DOCUMENT, call, memoryHost, readWrite, resultOf } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");

test("a rename hands the host the locator as sent and the title trimmed, and answers { id, title }", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  const result = await resultOf(mcp, call("rename_document", { id: DOCUMENT.id, title: "  Launch plan \n" }));
  assert.deepEqual(host.calls, [["rename", "octocat", { id: DOCUMENT.id, title: "Launch plan" }]]);
  assert.deepEqual(result.structuredContent, { id: DOCUMENT.id, title: "Launch plan" });
  assert.equal(result.isError, undefined);
  const read = await resultOf(mcp, call("read_document", { id: DOCUMENT.id }));
  assert.equal(read.structuredContent.title, "Launch plan");
  assert.equal(mcp[IN_FLIGHT](), 0);
});

const CODES = [
  [{ kind: "archived" }, "document-archived"],
  [{ kind: "conflict" }, "title-conflict"],
  [{ kind: "forbidden" }, "repository-forbidden"],
  [{ kind: "unavailable" }, "document-unavailable"],
];

test("every other host answer is its code, an error result", async () => {
  for (const [answer, code] of CODES) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, rename: { rename: () => answer } });
    const result = await resultOf(mcp, call("rename_document", { id: "d", title: "T" }));
    assert.deepEqual(result.structuredContent, { code }, answer.kind);
    assert.equal(result.isError, true);
  }
});

test("a bad title is refused without asking the host", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  for (const title of ["   ", "x".repeat(121), 7]) {
    const refused = await resultOf(mcp, call("rename_document", { id: DOCUMENT.id, title }));
    assert.deepEqual(refused, { code: -32602, message: "rename_document requires an id and valid title" });
  }
  assert.deepEqual(host.calls, []);
});

test("an Endpoint's rename step carries the input and takes each answer", () => {
  const endpoint = new Endpoint({ rename: true });
  const body = new TextEncoder().encode(JSON.stringify(call("rename_document", { id: "/documents/é", title: " Tï " })));
  for (const [answer, code] of [[{ kind: "renamed", document: { id: "é", title: "Tï" } }, undefined], ...CODES]) {
    let step = endpoint.begin("POST", { "content-type": "application/json" }).answer("octocat").finish(body);
    assert.equal(step.kind, "rename");
    // The locator and title are split by their length in UTF-16 units.
    assert.deepEqual(step.input, { id: "/documents/é", title: "Tï" });
    step = step.answer(answer);
    const { structuredContent } = JSON.parse(step.body).result;
    assert.deepEqual(structuredContent, code ? { code } : { id: "é", title: "Tï" });
  }
  assert.equal(endpoint[IN_FLIGHT](), 0);
});

test("a rename answer that is not what its type says rejects with a TypeError naming it", async () => {
  for (const [answer, says] of [
    [{ kind: "locked" }, /rename\.rename must give \{ kind: "renamed" \| "unchanged" \| "archived" \| "conflict" \| "forbidden" \| "unavailable" \}/],
    [{ kind: "renamed" }, /"renamed" answer carries a document/],
    [{ kind: "renamed", document: { id: "d" } }, /`title` is undefined/],
  ]) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, rename: { rename: () => answer } });
    const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call("rename_document", { id: "d", title: "T" })) });
    await assert.rejects(mcp(request), (error) => error instanceof TypeError && says.test(error.message), String(says));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
});
