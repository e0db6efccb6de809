// The handler serves a document's URL, /documents/<id>, as the reference
// server does (the core decides): a reader gets the canonical plan as
// Markdown with its revision's etag, and a 304 for it; a missing or hidden
// document and a malformed id get the same 404; no caller is /mcp's 401;
// HEAD is the head alone; a read's url resolves.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";

const DOC = { id: "doc 1", title: "Plan", source: "# Plan\n\nShip it.\n", revision: 4, url: "/documents/doc%201" };

function serve(calls = []) {
  return handler({
    caller: (request) => (request.headers.get("authorization") === "Bearer allowed" ? "octocat" : undefined),
    documents: {
      list: () => [],
      read: (caller, id) => {
        calls.push([caller, id]);
        return id === DOC.id ? DOC : undefined;
      },
    },
  });
}

const get = (path, headers = {}, method = "GET") =>
  new Request(`http://127.0.0.1${path}`, { method, headers: { authorization: "Bearer allowed", ...headers } });

test("a reader gets the plan, its etag, then a 304; the url a read answers resolves", async () => {
  const calls = [];
  const mcp = serve(calls);
  const read = await mcp(new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { authorization: "Bearer allowed", "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_document", arguments: { id: DOC.id } } }),
  }));
  const url = (await read.json()).result.structuredContent.url;
  const response = await mcp(get(url));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/markdown; charset=utf-8");
  assert.equal(response.headers.get("etag"), '"4"');
  assert.equal(await response.text(), DOC.source);
  assert.deepEqual(calls.at(-1), ["octocat", "doc 1"]);
  const again = await mcp(get(url, { "if-none-match": '"4"' }));
  assert.equal(again.status, 304);
  const head = await mcp(get(url, {}, "HEAD"));
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("etag"), '"4"');
  assert.equal(await head.text(), "");
});

test("missing, hidden and malformed ids are one 404; no caller is a 401; POST is a 405", async () => {
  const mcp = serve();
  for (const path of ["/documents/missing", "/documents/%E0%A4%A", "/documents/%20"]) {
    const response = await mcp(get(path));
    assert.equal(response.status, 404, path);
    assert.equal(await response.text(), "not found", path);
  }
  const anonymous = await mcp(new Request("http://127.0.0.1/documents/doc%201"));
  assert.equal(anonymous.status, 401);
  assert.ok(anonymous.headers.get("www-authenticate").startsWith("Bearer"));
  const posted = await mcp(get("/documents/doc%201", {}, "POST"));
  assert.equal(posted.status, 405);
  assert.equal(posted.headers.get("allow"), "GET, HEAD");
});

test("other paths stay the MCP endpoint's", async () => {
  const mcp = serve();
  for (const path of ["/documents", "/documents/a/b", "/mcp?next=/documents/x"]) {
    const response = await mcp(get(path));
    assert.notEqual(response.headers.get("content-type"), "text/markdown; charset=utf-8", path);
  }
});
