// Each write tool is offered only when its host object is given (an
// Endpoint: its capability): tools/list leaves it out, a call is "tool not
// found" without examining its arguments, and tools(options) says the same.
// The order is LIFECYCLE.md §1's; update raises the body budget as create
// does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, TOOLS, handler, tools } from "chopin-mcp";
import { DOCUMENT, REVISION, call, memoryHost, readWrite, resultOf } from "./support/host.mjs";

const ALL = ["list_documents", "read_document", "create_document", "update_document", "rename_document", "archive_document", "restore_document"];
const HOSTS = { update: "updater", rename: "renamer", archive: "archiver", restore: "restorer" };

test("a read-write handler lists every tool in LIFECYCLE.md's order, as tools() and Endpoint say", async () => {
  const host = memoryHost();
  const options = readWrite(host);
  const listed = (await resultOf(handler(options), { jsonrpc: "2.0", id: 1, method: "tools/list" })).tools;
  assert.deepEqual(listed.map((tool) => tool.name), ALL);
  assert.deepEqual(tools(options), listed);
  assert.deepEqual(new Endpoint({ create: true, update: true, rename: true, archive: true, restore: true }).tools(), listed);
  assert.deepEqual(listed[3].annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(TOOLS.map((tool) => tool.name), ALL.slice(0, 2));
});

test("a tool whose host object is absent is not listed, and a call of it is tool not found", async () => {
  const calls = { update: ["update_document", REVISION], rename: ["rename_document", { id: DOCUMENT.id, title: "T" }], archive: ["archive_document", {}], restore: ["restore_document", { bad: 1 }] };
  for (const absent of Object.keys(HOSTS)) {
    const host = memoryHost();
    const options = { caller: () => "octocat", documents: host.reader };
    for (const [name, field] of Object.entries(HOSTS)) if (name !== absent) options[name] = host[field];
    if (absent === "restore") delete options.archive;
    const mcp = handler(options);
    const names = (await resultOf(mcp, { jsonrpc: "2.0", id: 1, method: "tools/list" })).tools.map((tool) => tool.name);
    assert.ok(!names.includes(`${absent}_document`), absent);
    assert.deepEqual(tools(options).map((tool) => tool.name), names);
    const [tool, args] = calls[absent];
    assert.deepEqual(await resultOf(mcp, call(tool, args)), { code: -32601, message: "tool not found" }, absent);
    assert.deepEqual(host.calls, []);
  }
});

test("update raises the body budget as create does; rename, archive and restore do not", () => {
  assert.equal(new Endpoint().bodyBudget, 65536);
  assert.equal(new Endpoint({ update: true }).bodyBudget, 786432);
  assert.equal(new Endpoint({ rename: true, archive: true, restore: true }).bodyBudget, 65536);
  assert.throws(() => new Endpoint({ rename: "yes" }), (error) => error instanceof TypeError && /`rename` must be true or false/.test(error.message));
  assert.throws(() => handler({ caller: () => 1, documents: memoryHost().reader, update: () => ({ kind: "unavailable" }) }), (error) => error instanceof TypeError && /`update` must be \{ update\(caller, input\) \}/.test(error.message));
});
