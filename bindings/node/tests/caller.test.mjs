// The caller function: sync or async; its value, any JavaScript value,
// handed back untouched (===) to every later host call; undefined or null
// is 401; scoped() grants scopes; UNAVAILABLE is 503. It is asked only once
// the request passed the checks before authentication.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UNAVAILABLE, handler, scoped } from "chopin-mcp";
import { DOCUMENT, DRAFT, REPOSITORY, call, memoryHost, post } from "./support/host.mjs";

test("the caller value reaches list, read and create as the very same value", async () => {
  for (const who of [{ login: "octocat" }, Symbol("caller"), () => "a function", 0, "", false]) {
    for (const asynchronous of [false, true]) {
      const seen = [];
      const mcp = handler({
        caller: asynchronous ? async () => who : () => who,
        documents: {
          list(caller) {
            seen.push(caller);
            return [];
          },
          read(caller) {
            seen.push(caller);
            return DOCUMENT;
          },
        },
        create: {
          create(caller) {
            seen.push(caller);
            return { kind: "conflict" };
          },
        },
      });
      for (const body of [call("list_documents", { repository: REPOSITORY }), call("read_document", { id: DOCUMENT.id }), call("create_document", DRAFT)]) {
        assert.equal((await mcp(post(body))).status, 200);
      }
      assert.equal(seen.length, 3);
      for (const caller of seen) assert.equal(caller, who);
    }
  }
});

test("undefined and null refuse with 401, a challenge, and no host call", async () => {
  for (const refusal of [undefined, null]) {
    const host = memoryHost();
    const mcp = handler({ caller: async () => refusal, documents: host.reader });
    const response = await mcp(post(call("read_document", { id: DOCUMENT.id })));
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
    const body = await response.text();
    assert.ok(!body.includes(DOCUMENT.title));
    assert.deepEqual(host.calls, []);
    const anonymous = await mcp(post(call("read_document", { id: DOCUMENT.id }), { authorization: "" }));
    assert.equal(anonymous.headers.get("www-authenticate"), "Bearer");
  }
});

test("the caller function is not asked before the request passes method, origin and host", async () => {
  let asked = 0;
  const mcp = handler({ caller: () => (asked++, "octocat"), documents: memoryHost().reader, allowedHosts: ["localhost"] });
  const preflight = new Request("http://localhost/mcp", {
    method: "OPTIONS",
    headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST", host: "localhost" },
  });
  assert.equal((await mcp(preflight)).status, 403);
  assert.equal((await mcp(new Request("http://localhost/mcp", { method: "PUT", headers: { host: "localhost" } }))).status, 405);
  assert.equal((await mcp(post({ jsonrpc: "2.0", id: 1, method: "ping" }, { host: "evil.example" }))).status, 403);
  assert.equal(asked, 0);
  assert.equal((await mcp(post({ jsonrpc: "2.0", id: 1, method: "ping" }, { host: "localhost" }))).status, 200);
  assert.equal(asked, 1);
});

test("scoped() grants the scopes named; a missing one is 403 insufficient_scope", async () => {
  const host = memoryHost();
  const mcp = handler({ caller: () => scoped("octocat", "openid chopin:read"), documents: host.reader, create: host.creator });
  const read = await mcp(post(call("read_document", { id: DOCUMENT.id })));
  assert.equal(read.status, 200);
  assert.deepEqual(host.calls, [["read", "octocat", DOCUMENT.id]]);
  const create = await mcp(post(call("create_document", DRAFT, 9)));
  assert.equal(create.status, 403);
  assert.equal(create.headers.get("www-authenticate"), 'Bearer error="insufficient_scope", scope="chopin:read chopin:create"');
  assert.deepEqual(await create.json(), { jsonrpc: "2.0", id: 9, error: { code: -32000, message: "insufficient scope" } });
  assert.equal(host.calls.length, 1);

  const both = handler({ caller: () => scoped("octocat", ["chopin:create", "chopin:read"]), documents: host.reader, create: host.creator });
  assert.equal((await (await both(post(call("create_document", DRAFT)))).json()).result.isError, undefined);
  assert.throws(() => scoped(undefined, "chopin:read"), TypeError);
  assert.throws(() => scoped("octocat", 3), TypeError);
});

test("UNAVAILABLE answers 503 with retry-after", async () => {
  const mcp = handler({ caller: async () => UNAVAILABLE, documents: memoryHost().reader });
  const response = await mcp(post(call("read_document", { id: DOCUMENT.id })));
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "5");
});
