// update_document: the host gets UpdateDocumentInput (locator as sent,
// revision, canonical plan, key, fingerprint) and each of its answers is
// the result LIFECYCLE.md §1–2 gives it, through handler() and Endpoint.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { DOCUMENT, REVISION, REVISION_FINGERPRINT, call, memoryHost, readWrite, resultOf } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");

test("an update hands the host the input in LIFECYCLE.md's order and answers the updated document", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  const result = await resultOf(mcp, call("update_document", REVISION));
  const [[name, caller, input]] = host.calls;
  assert.equal(name, "update");
  assert.equal(caller, "octocat");
  assert.deepEqual(Object.keys(input), ["id", "revision", "plan", "idempotencyKey", "fingerprint"]);
  assert.deepEqual(input, { ...REVISION, fingerprint: REVISION_FINGERPRINT });
  const updated = { id: DOCUMENT.id, title: DOCUMENT.title, source: REVISION.plan, revision: 5, url: `/documents/${DOCUMENT.id}` };
  assert.deepEqual(result.structuredContent, updated);
  assert.deepEqual(Object.keys(result.structuredContent), ["id", "title", "source", "revision", "url"]);
  assert.equal(result.isError, undefined);
  // The same key and update again: replayed, the same document.
  assert.deepEqual((await resultOf(mcp, call("update_document", REVISION))).structuredContent, updated);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("the host gets the canonical plan and the locator as sent; a replay's own source goes back", async () => {
  let seen;
  const stored = "# Stored earlier\n";
  const mcp = handler({
    caller: () => "octocat",
    documents: memoryHost().reader,
    update: {
      update(_caller, input) {
        seen = input;
        return { kind: "replayed", document: { id: "d", title: "T", brief: null, source: stored, revision: 9, url: "/d" } };
      },
    },
  });
  const plan = '<Callout type="note">\nA note.\n</Callout>\n';
  const result = await resultOf(mcp, call("update_document", { ...REVISION, plan }));
  assert.match(seen.plan, /^<Callout id="[^"]+" type="note">\nA note\.\n<\/Callout>\n$/);
  // LIFECYCLE.md §2's vector: the submitted plan's, whatever id was minted.
  assert.equal(seen.fingerprint, "47de85ef8680e43b358506492410405c7a195b8ae0b362546cb1d6b79ef3f01d");
  assert.deepEqual(result.structuredContent, { id: "d", title: "T", source: stored, revision: 9, url: "/d" });
  const locator = `  https://plans.example/documents/${DOCUMENT.id}`;
  await resultOf(mcp, call("update_document", { ...REVISION, id: locator }));
  assert.equal(seen.id, locator);
});

test("an updated document's brief is answered between title and source", async () => {
  const brief = { goal: "G", constraints: [], settledDecisions: [], openQuestions: [], repositoryFindings: ["F"] };
  const mcp = handler({
    caller: () => "octocat",
    documents: memoryHost().reader,
    update: { update: (_caller, input) => ({ kind: "updated", document: { id: "d", title: "T", brief, source: input.plan, revision: 5, url: "/d" } }) },
  });
  const result = await resultOf(mcp, call("update_document", REVISION));
  assert.deepEqual(Object.keys(result.structuredContent), ["id", "title", "brief", "source", "revision", "url"]);
  assert.deepEqual(result.structuredContent.brief, brief);
});

const CODES = [
  [{ kind: "conflict" }, { code: "idempotency-conflict" }],
  [{ kind: "revision-conflict", revision: 7 }, { code: "revision-conflict", revision: 7 }],
  [{ kind: "locked" }, { code: "document-locked" }],
  [{ kind: "protected" }, { code: "protected-projection" }],
  [{ kind: "archived" }, { code: "document-archived" }],
  [{ kind: "forbidden" }, { code: "repository-forbidden" }],
  [{ kind: "unavailable" }, { code: "document-unavailable" }],
];

test("every other host answer is its code, an error result", async () => {
  for (const [answer, code] of CODES) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, update: { update: async () => answer } });
    const result = await resultOf(mcp, call("update_document", REVISION));
    assert.deepEqual(result.structuredContent, code, answer.kind);
    assert.equal(result.isError, true);
    assert.deepEqual(JSON.parse(result.content[0].text), code);
  }
});

test("a plan with issues and bad arguments are answered without asking the host", async () => {
  const host = memoryHost();
  const mcp = handler(readWrite(host));
  const issues = await resultOf(mcp, call("update_document", { ...REVISION, plan: "<Chart />\n" }));
  assert.equal(issues.isError, true);
  assert.ok(Array.isArray(issues.structuredContent.issues) && issues.structuredContent.issues.length > 0);
  for (const args of [{ ...REVISION, revision: -1 }, { ...REVISION, revision: "4" }, { ...REVISION, id: " " }, { ...REVISION, extra: 1 }]) {
    const refused = await resultOf(mcp, call("update_document", args));
    assert.deepEqual(refused, { code: -32602, message: "update_document requires a valid revision and plan" });
  }
  assert.deepEqual(host.calls, []);
});

test("an Endpoint's update step carries the input and takes each answer", () => {
  const endpoint = new Endpoint({ update: true });
  const raw = ["Authorization", "Bearer allowed", "Content-Type", "application/json"];
  const body = new TextEncoder().encode(JSON.stringify(call("update_document", REVISION)));
  for (const [answer, code] of [[{ kind: "updated", document: { id: "d", title: "T", source: REVISION.plan, revision: 5, url: "/d" } }, undefined], ...CODES]) {
    let step = endpoint.begin("POST", raw).answer("octocat").finish(body);
    assert.equal(step.kind, "update");
    assert.deepEqual(step.input, { ...REVISION, fingerprint: REVISION_FINGERPRINT });
    step = step.answer(answer);
    assert.equal(step.kind, "respond");
    const { structuredContent } = JSON.parse(step.body).result;
    assert.deepEqual(structuredContent, code ?? { id: "d", title: "T", source: REVISION.plan, revision: 5, url: "/d" });
  }
  assert.equal(endpoint[IN_FLIGHT](), 0);
});

test("an update answer that is not what its type says rejects with a TypeError naming it", async () => {
  for (const [answer, says] of [
    [{ kind: "made" }, /update\.update must give \{ kind: "updated" \| "replayed" \| "conflict" \| "revision-conflict"/],
    [{ kind: "revision-conflict" }, /current `revision`/],
    [{ kind: "revision-conflict", revision: -1 }, /current `revision`/],
    [{ kind: "updated" }, /"updated" answer carries a document/],
    [{ kind: "updated", document: { id: "d", title: "T", source: "s", revision: 5 } }, /`url`/],
    [{ kind: "updated", document: { id: "d", title: "T", source: "s", revision: 1.5, url: "/d" } }, /`revision`/],
    [{ kind: "updated", document: { id: "d", title: "T", brief: { goal: 1 }, source: "s", revision: 5, url: "/d" } }, /`brief`/],
  ]) {
    const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader, update: { update: async () => answer } });
    await assert.rejects(mcp(new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(call("update_document", REVISION)),
    })), (error) => error instanceof TypeError && says.test(error.message), String(says));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
});
