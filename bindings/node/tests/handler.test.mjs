// handler(): the seed's API over Web Request and Response, the crate's
// answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { handler } from "chopin-mcp";
import { DOCUMENT, DRAFT, REPOSITORY, call, memoryHost, post } from "./support/host.mjs";

function mcpOf(host) {
  return handler({
    caller: (request) => host.callerOf(request.headers.get("authorization")),
    documents: host.reader,
    create: host.creator,
  });
}

test("initialize, list and read answer as the crate does", async () => {
  const host = memoryHost();
  const mcp = mcpOf(host);
  const initialized = await (await mcp(post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }))).json();
  assert.equal(initialized.result.protocolVersion, "2025-03-26");
  assert.equal(initialized.result.serverInfo.name, "chopin");

  const listed = await mcp(post(call("list_documents", { repository: REPOSITORY }, 3)));
  assert.equal(listed.status, 200);
  assert.equal(listed.headers.get("content-type"), "application/json");
  assert.equal(listed.headers.get("cache-control"), "no-store");
  assert.deepEqual((await listed.json()).result.structuredContent, { documents: [{ id: DOCUMENT.id, title: DOCUMENT.title }] });

  const read = await (await mcp(post(call("read_document", { id: DOCUMENT.id }, 4)))).json();
  assert.deepEqual(read.result.structuredContent, DOCUMENT);
  assert.deepEqual(JSON.parse(read.result.content[0].text), DOCUMENT);

  const absent = await (await mcp(post(call("read_document", { id: "missing" }, 5)))).json();
  assert.deepEqual(absent.result, { content: [], isError: true });
  assert.deepEqual(host.calls.map(([name, , argument]) => [name, argument]), [
    ["list", REPOSITORY],
    ["read", DOCUMENT.id],
    ["read", "missing"],
  ]);
});

test("a document read with a brief is answered with it, between title and source", async () => {
  const brief = { ...DRAFT.brief, extra: "not sent" };
  const mcp = handler({ caller: () => "octocat", documents: { list: () => [], read: () => ({ ...DOCUMENT, brief }) } });
  const reply = await (await mcp(post(call("read_document", { id: DOCUMENT.id })))).json();
  assert.deepEqual(Object.keys(reply.result.structuredContent), ["id", "title", "brief", "source", "revision"]);
  assert.deepEqual(reply.result.structuredContent.brief, DRAFT.brief);
  const without = handler({ caller: () => "octocat", documents: { list: () => [], read: () => ({ ...DOCUMENT, brief: null }) } });
  assert.deepEqual((await (await without(post(call("read_document", { id: DOCUMENT.id })))).json()).result.structuredContent, DOCUMENT);
});

test("create hands the host the seed's CreateDocumentInput: canonical plan, fingerprint", async () => {
  const host = memoryHost();
  const reply = await (await mcpOf(host)(post(call("create_document", DRAFT, 6)))).json();
  const [[name, caller, input]] = host.calls;
  assert.equal(name, "create");
  assert.equal(caller, "octocat");
  assert.deepEqual(Object.keys(input), ["idempotencyKey", "repository", "baseBranch", "baseCommit", "title", "brief", "plan", "fingerprint"]);
  // DIALECT.md §11.7's vector for this draft.
  assert.equal(input.fingerprint, "76c4bab01ff1132bc2d596f03ef07d21cac77a9722f62482820689eb1d4a8dde");
  assert.match(input.plan, /^# Draft\n\n<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">\nCreated through MCP.\n<\/Callout>\n$/);
  assert.deepEqual(input.brief, DRAFT.brief);
  assert.equal(reply.result.structuredContent.url, "/documents/created-1");
  assert.equal(reply.result.structuredContent.source, input.plan);

  const again = await (await mcpOf(host)(post(call("create_document", DRAFT, 7)))).json();
  assert.equal(again.result.isError, undefined);
});

test("create's input survives any text; a source other than the plan given is the one answered", async () => {
  const title = "Plan 😀 ü \u0000 \"quoted\"";
  const plan = "# Plan 😀\n\nü and \\ backslash.\n";
  let given;
  const mcp = handler({
    caller: () => "octocat",
    documents: memoryHost().reader,
    create: {
      create(_caller, input) {
        given = input;
        return { kind: "created", document: { id: "n", title: input.title, brief: input.brief, source: `${input.plan}stored\n`, revision: 0, url: "/n" } };
      },
    },
  });
  const reply = await (await mcp(post(call("create_document", { ...DRAFT, title, plan })))).json();
  assert.equal(given.title, title);
  assert.equal(given.plan, plan);
  assert.equal(reply.result.structuredContent.source, `${plan}stored\n`);
});

test("each create answer is written as the crate writes it", async () => {
  for (const [answer, result] of [
    [{ kind: "conflict" }, { content: [{ type: "text", text: '{"code":"idempotency-conflict"}' }], structuredContent: { code: "idempotency-conflict" }, isError: true }],
    [{ kind: "unavailable" }, { content: [{ type: "text", text: '{"code":"document-unavailable"}' }], structuredContent: { code: "document-unavailable" }, isError: true }],
    [{ kind: "forbidden" }, { content: [], isError: true }],
  ]) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, create: { create: () => answer } });
    const reply = await (await mcp(post(call("create_document", DRAFT)))).json();
    assert.deepEqual(reply.result, result, answer.kind);
  }
});

test("a plan with dialect issues is answered without asking the host", async () => {
  const host = memoryHost();
  const reply = await (await mcpOf(host)(post(call("create_document", { ...DRAFT, plan: "<Chart />\n" })))).json();
  assert.equal(reply.result.isError, true);
  assert.equal(reply.result.structuredContent.issues[0].code, "unknown-component");
  assert.deepEqual(host.calls, []);
});

test("a notification is accepted with 202 and an empty body, and starts no effect", async () => {
  const host = memoryHost();
  const { id, ...notification } = call("read_document", { id: DOCUMENT.id });
  const response = await mcpOf(host)(post(notification));
  assert.equal(response.status, 202);
  assert.equal(response.body, null);
  assert.deepEqual(host.calls, []);
});

test("handlers share no state: each keeps its own settings and exchanges", async () => {
  const one = handler({ caller: () => "one", documents: memoryHost().reader, serverName: "first" });
  const two = handler({ caller: () => "two", documents: memoryHost().reader, serverName: "second" });
  const names = await Promise.all(
    [one, two, one, two].map(async (mcp) => (await (await mcp(post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }))).json()).result.serverInfo.name),
  );
  assert.deepEqual(names, ["first", "second", "first", "second"]);
});
