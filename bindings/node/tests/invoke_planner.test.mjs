// invoke_planner (SURFACE.md §9, §11): offered only with `invoke`; the host
// gets { id, instruction, checkout? } as sent and the client; { kind:
// "invoked", document } is the result, { kind: "refused", code } each of the
// seven codes, anything else a TypeError; through handler() and Endpoint.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler } from "chopin-mcp";
import { call, memoryHost, post, resultOf } from "./support/host.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");
const DOCUMENT = { id: "document-id", title: "Release", url: "http://localhost/documents/octo-org/score/release" };
const CODES = [
  "document-unavailable",
  "repository-forbidden",
  "document-archived",
  "planner-owner-unavailable",
  "checkout-unverified",
  "planner-unavailable",
  "planner-queue-full",
];

/** A handler whose planner records its calls and gives `answer`. */
function planner(answer, calls = []) {
  return handler({
    caller: () => "octocat",
    documents: memoryHost().reader,
    invoke: {
      invoke(caller, input, client) {
        calls.push([caller, input, client]);
        return answer;
      },
    },
  });
}

test("without invoke the tool is neither listed nor found", async () => {
  const mcp = handler({ caller: () => "octocat", documents: memoryHost().reader });
  const listed = await (await mcp(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }))).json();
  assert.ok(!listed.result.tools.some((tool) => tool.name === "invoke_planner"));
  const called = await resultOf(mcp, call("invoke_planner", { id: "d", instruction: "Plan." }));
  assert.deepEqual(called, { code: -32601, message: "tool not found" });
});

test("the host gets the arguments as sent and its document is the result", async () => {
  const calls = [];
  const mcp = planner({ kind: "invoked", document: DOCUMENT }, calls);
  const listed = await (await mcp(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }))).json();
  assert.equal(listed.result.tools.at(-1).name, "invoke_planner");
  const args = { id: "/documents/octo-org/score/release", instruction: "  Plan this.\n", checkout: "/tmp/score" };
  const result = await resultOf(mcp, call("invoke_planner", args));
  assert.deepEqual(result.structuredContent, DOCUMENT);
  assert.equal(result.isError, undefined);
  assert.deepEqual(calls, [["octocat", args, { name: "unknown", version: "unknown" }]]);
  // Without a checkout, the input has none; a description is answered.
  const described = { ...DOCUMENT, description: "Ship it." };
  const again = await resultOf(
    planner({ kind: "invoked", document: described }, calls),
    call("invoke_planner", { id: "d", instruction: "Plan." }),
  );
  assert.deepEqual(calls[1][1], { id: "d", instruction: "Plan." });
  assert.deepEqual(again.structuredContent, { id: "document-id", title: "Release", description: "Ship it.", url: DOCUMENT.url });
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("the client named by the session id reaches the invoke step", () => {
  const endpoint = new Endpoint({ invoke: true });
  const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const encode = (body) => new TextEncoder().encode(JSON.stringify(body));
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "planner-test", version: "2" } } };
  const issued = endpoint.begin("POST", json).answer("octocat").finish(encode(initialize));
  const session = issued.headers["mcp-session-id"];
  assert.ok(session, "a session id");
  const step = endpoint
    .begin("POST", { ...json, "mcp-session-id": session })
    .answer("octocat")
    .finish(encode(call("invoke_planner", { id: "d", instruction: "Plan." })));
  assert.equal(step.kind, "invoke");
  assert.deepEqual(step.client, { name: "planner-test", version: "2" });
  step.abandon();
});

test("each refusal is its code as an error result", async () => {
  for (const code of CODES) {
    const result = await resultOf(planner({ kind: "refused", code }), call("invoke_planner", { id: "d", instruction: "Plan." }));
    assert.deepEqual(result.structuredContent, { code });
    assert.equal(result.isError, true);
  }
});

test("bad arguments are refused without asking the host", async () => {
  const calls = [];
  const mcp = planner({ kind: "invoked", document: DOCUMENT }, calls);
  for (const args of [
    {},
    { id: " ", instruction: "Plan." },
    { id: "d", instruction: " \n\t" },
    { id: "d", instruction: "a".repeat(65_537) },
    { id: "d", instruction: "é".repeat(32_769) },
    { id: "d", instruction: "Plan.", checkout: "relative/path" },
    { id: "d", instruction: "Plan.", checkout: "" },
    { id: "d", instruction: "Plan.", extra: true },
  ]) {
    const refused = await resultOf(mcp, call("invoke_planner", args));
    assert.deepEqual(refused, { code: -32602, message: "invoke_planner requires an id or URL, instruction, and optional absolute checkout" });
  }
  assert.deepEqual(calls, []);
});

test("an answer that is not what its type says rejects with a TypeError naming it", async () => {
  for (const [answer, says] of [
    [{ kind: "done" }, /invoke\.invoke must give \{ kind: "invoked" \| "refused" \}/],
    [{ kind: "refused", code: "planner-busy" }, /a "refused" answer carries a `code`, one of "document-unavailable"/],
    [{ kind: "refused" }, /a "refused" answer carries a `code`/],
    [{ kind: "invoked" }, /"invoked" answer carries a document/],
    [{ kind: "invoked", document: { id: "d", title: "T" } }, /`url` is undefined/],
    [{ kind: "invoked", document: { ...DOCUMENT, description: 7 } }, /`description` is number 7/],
  ]) {
    const mcp = planner(answer);
    const request = post(call("invoke_planner", { id: "d", instruction: "Plan." }));
    await assert.rejects(mcp(request), (error) => error instanceof TypeError && says.test(error.message), String(says));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
});

test("an Endpoint's invoke step carries the input and the client and takes each answer", () => {
  const endpoint = new Endpoint({ invoke: true });
  assert.equal(endpoint.bodyBudget, 786_432);
  assert.equal(endpoint.tools().at(-1).name, "invoke_planner");
  const args = { id: "/documents/é", instruction: " Plän 😀\n", checkout: "/srv/é" };
  const body = new TextEncoder().encode(JSON.stringify(call("invoke_planner", args)));
  const answers = [[{ kind: "invoked", document: DOCUMENT }, DOCUMENT], ...CODES.map((code) => [{ kind: "refused", code }, { code }])];
  for (const [answer, expected] of answers) {
    let step = endpoint.begin("POST", { "content-type": "application/json" }).answer("octocat").finish(body);
    assert.equal(step.kind, "invoke");
    assert.deepEqual(step.input, args);
    assert.deepEqual(step.client, { name: "unknown", version: "unknown" });
    step = step.answer(answer);
    assert.equal(step.kind, "respond");
    assert.deepEqual(JSON.parse(step.body).result.structuredContent, expected);
  }
  assert.equal(endpoint[IN_FLIGHT](), 0);
  assert.throws(() => new Endpoint({ invoke: "yes" }), /`invoke` must be true or false/);
});
