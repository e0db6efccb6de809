// The write scope (LIFECYCLE.md §1, AUTH.md): the four write tools need it
// beside the read scope; a caller without it gets 403 insufficient_scope
// naming both, and the host is not asked. Its name is an option
// (scopes.write), and Protected Resource Metadata lists it third.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler, scoped } from "chopin-mcp";
import { DOCUMENT, REVISION, call, memoryHost, post, readWrite } from "./support/host.mjs";

const WRITES = [
  ["update_document", REVISION],
  ["rename_document", { id: DOCUMENT.id, title: "T" }],
  ["archive_document", { id: DOCUMENT.id }],
  ["restore_document", { id: DOCUMENT.id }],
];

test("each write tool without the write scope is 403 naming the read and write scopes, the host not asked", async () => {
  const host = memoryHost();
  const mcp = handler({ ...readWrite(host), caller: () => scoped("octocat", "chopin:read chopin:create") });
  for (const [tool, args] of WRITES) {
    const response = await mcp(post(call(tool, args, 7)));
    assert.equal(response.status, 403, tool);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer error="insufficient_scope", scope="chopin:read chopin:write"');
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 7, error: { code: -32000, message: "insufficient scope" } });
  }
  assert.deepEqual(host.calls, []);
  const granted = handler({ ...readWrite(host), caller: () => scoped("octocat", ["chopin:read", "chopin:write"]) });
  for (const [tool, args] of WRITES) {
    assert.equal((await granted(post(call(tool, args)))).status, 200, tool);
  }
  assert.deepEqual(host.calls.map(([name]) => name), ["update", "rename", "archive", "restore"]);
});

test("scopes.write renames the write scope, in challenges and in metadata", async () => {
  const host = memoryHost();
  const scopes = { read: "plans:read", create: "plans:create", write: "plans:write" };
  const oauth = { resource: "https://mcp.example/mcp", issuer: "https://login.example" };
  const mcp = handler({ ...readWrite(host), caller: () => scoped("octocat", ["plans:read", "chopin:write"]), scopes, oauth });
  const refused = await mcp(post(call("rename_document", { id: DOCUMENT.id, title: "T" })));
  assert.equal(refused.status, 403);
  assert.match(refused.headers.get("www-authenticate"), /scope="plans:read plans:write"/);
  const allowed = handler({ ...readWrite(host), caller: () => scoped("octocat", "plans:read plans:write"), scopes });
  assert.equal((await allowed(post(call("rename_document", { id: DOCUMENT.id, title: "T" })))).status, 200);
  const metadata = new Endpoint({ oauth, scopes }).metadata("GET", "/.well-known/oauth-protected-resource/mcp", {});
  assert.deepEqual(JSON.parse(metadata.body).scopes_supported, ["plans:read", "plans:create", "plans:write"]);
});

test("a bad write scope is a TypeError when the handler is made", () => {
  const base = { caller: () => "octocat", documents: memoryHost().reader };
  for (const [write, says] of [[7, /`scopes` must be \{ read: string, create: string, write\?: string \}/], ["plans read", /write scope/], ["r", /write scope \(it equals the read or create scope\)/]]) {
    assert.throws(() => handler({ ...base, scopes: { read: "r", create: "c", write } }), (error) => error instanceof TypeError && says.test(error.message), String(says));
  }
});
