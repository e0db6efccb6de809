// The `implementations` host option (IMPLEMENTATION.md §2–3 through the
// package): a whole run through handler() against an in-memory host that
// decides with the exported rules; the session gate; the read-only
// variant; malformed host answers refused with a TypeError.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Endpoint, handler, tools } from "chopin-mcp";
import { call, memoryHost, post, resultOf } from "./support/host.mjs";
import { D, REPOSITORY, implementationsHost, pr } from "./support/implementations.mjs";

const IN_FLIGHT = Symbol.for("chopin-mcp.inFlight");

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "Codex", version: "1.2.3" } },
};

function handlerOver(implementations) {
  return handler({ caller: () => "octocat", documents: memoryHost().reader, implementations });
}

/** A session id from `initialize`. */
async function sessionOf(mcp) {
  const response = await mcp(post(initialize));
  assert.equal(response.status, 200);
  return response.headers.get("mcp-session-id");
}

const CLAIM = { id: D, planRevision: 3, graphVersion: 1, graphRevision: 1, repository: REPOSITORY, branch: "tq/017", commit: "deadbeef" };

test("a whole run: claim, start, block, report a PR, complete, verify failed then passed, merged → delivered", async () => {
  const host = implementationsHost();
  const mcp = handlerOver(host.implementations);
  const session = await sessionOf(mcp);
  const send = (name, args, id = 2) => resultOf(mcp, call(name, args, id), { "mcp-session-id": session });
  let key = 0;
  const life = async (name, args) => {
    const result = await send(name, { id: D, runId, idempotencyKey: `k${++key}`, ...args });
    assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result.structuredContent)}`);
    return result.structuredContent;
  };

  const read = await send("read_implementation", { id: D });
  assert.equal(read.structuredContent.graph.state, "approved");
  assert.deepEqual(read.structuredContent.execution, { state: "idle" });

  const claimed = await send("start_implementation", CLAIM);
  assert.equal(claimed.structuredContent.state, "started");
  const run = claimed.structuredContent.run;
  const runId = run.id;
  assert.match(runId, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  // The host got the core-minted run id and the client of the session.
  const [, caller, input] = host.calls.find(([name]) => name === "start");
  assert.equal(caller, "octocat");
  assert.equal(input.runId, runId);
  assert.deepEqual({ name: input.client.name, version: input.client.version }, { name: "Codex", version: "1.2.3" });
  assert.equal(input.client.session, session.split(".")[3]);
  assert.equal(run.session, input.client.session);
  assert.equal(host.state.versions[0].state, "locked");
  // Again, whatever the revisions: active, the same run.
  const again = await send("start_implementation", { ...CLAIM, graphRevision: 9 });
  assert.deepEqual(again.structuredContent, { state: "active", run });

  await life("start_task", { taskId: "foundation" });
  let now = await life("block_task", { taskId: "foundation", reason: "Waiting on CI." });
  assert.deepEqual(now.activity.tasks[0], { id: "foundation", state: "blocked", blocker: "Waiting on CI." });
  await life("start_task", { taskId: "foundation" });
  await life("report_pr", { taskId: "foundation", url: pr(1), state: "open" });
  await life("complete_task", { taskId: "foundation", summary: "Laid." });
  await life("start_task", { taskId: "delivery" });
  await life("report_pr", { taskId: "delivery", url: pr(2), state: "open" });
  await life("complete_task", { taskId: "delivery", summary: "Shipped." });
  const evidence = [
    { taskId: "foundation", evidence: ["foundation works."] },
    { taskId: "delivery", evidence: ["delivery works."] },
  ];
  const verdict = { summary: "Reviewed.", reviewerMethod: "Read the diffs.", evidence };
  now = await life("report_verification", { ...verdict, passed: false, tasksNeedingWork: ["delivery"] });
  assert.equal(now.activity.tasks[1].state, "in_progress");
  assert.equal(now.activity.verification.passed, false);
  await life("complete_task", { taskId: "delivery", summary: "Fixed." });
  now = await life("report_verification", { ...verdict, passed: true, tasksNeedingWork: [] });
  assert.deepEqual(now.execution, { state: "idle" });
  assert.equal(now.history[0].outcome.kind, "implemented");
  assert.equal(host.state.versions[0].state, "approved", "the run's end unlocks its version");
  await life("report_pr", { taskId: "foundation", url: pr(1), state: "merged" });
  now = await life("report_pr", { taskId: "delivery", url: pr(2), state: "merged" });
  assert.deepEqual(now.history[0].outcome, { kind: "delivered" });
  assert.equal(host.state.runs[0].events.length, key, "one event a call");

  // The host got the event to store, its fingerprint and the session's client.
  const [, , lastInput] = host.calls.at(-1);
  assert.deepEqual(lastInput.command, { kind: "report_pr", taskId: "delivery", url: pr(2), state: "merged" });
  assert.deepEqual(lastInput.event, { ...lastInput.command, idempotencyKey: `k${key}` });
  assert.equal(host.keys.get(`k${key}`).fingerprint, lastInput.fingerprint);
  assert.equal(lastInput.client.session, input.client.session);

  // A replay answers the current LIFE; the rules' refusals come back as codes.
  const replay = await send("report_pr", { id: D, runId, idempotencyKey: `k${key}`, taskId: "delivery", url: pr(2), state: "merged" });
  assert.deepEqual(replay.structuredContent, now);
  const conflict = await send("start_task", { id: D, runId, idempotencyKey: "k1", taskId: "delivery" });
  assert.deepEqual(conflict.structuredContent, { code: "idempotency-conflict" });
  assert.equal(conflict.isError, true);
  const inactive = await send("start_task", { id: D, runId, idempotencyKey: "fresh", taskId: "delivery" });
  assert.deepEqual(inactive.structuredContent, { code: "inactive" });
  // The run passed with the latest version: a new claim is already-verified.
  const verified = await send("start_implementation", CLAIM);
  assert.deepEqual(verified.structuredContent, { code: "already-verified" });

  const final = await send("read_implementation", { id: D });
  assert.deepEqual(final.structuredContent.history, now.history);
  assert.equal(mcp[IN_FLIGHT](), 0);
});

test("without the session id from initialize, every implementation tool but the read is session-required", async () => {
  const host = implementationsHost();
  const mcp = handlerOver(host.implementations);
  const runId = "01K2XQ7Z000000000000000RUN";
  for (const [name, args] of [
    ["start_implementation", CLAIM],
    ["start_task", { id: D, runId, taskId: "foundation", idempotencyKey: "k1" }],
    ["request_revision", { id: D, runId, reason: "r", idempotencyKey: "k2" }],
  ]) {
    const result = await resultOf(mcp, call(name, args));
    assert.deepEqual(result.structuredContent, { code: "session-required" }, name);
    assert.equal(result.isError, true);
  }
  assert.deepEqual(host.calls, [], "no effect reached the host");
  const read = await resultOf(mcp, call("read_implementation", { id: D }));
  assert.equal(read.structuredContent.document.id, D);
});

test("a host with read alone offers read_implementation alone; start without report is a TypeError", async () => {
  const names = tools({ implementations: { read() {} } }).map((tool) => tool.name);
  assert.deepEqual(names, ["list_documents", "read_document", "read_implementation"]);
  const host = implementationsHost();
  const mcp = handlerOver({ read: host.implementations.read });
  const session = await sessionOf(mcp);
  const refused = await resultOf(mcp, call("start_implementation", CLAIM), { "mcp-session-id": session });
  assert.equal(refused.code, -32601, "not offered: an unknown tool");
  assert.throws(() => handlerOver({ read() {}, start() {} }), TypeError);
  assert.throws(() => handlerOver({ start() {}, report() {} }), TypeError);
});

test("the other answers are their codes: forbidden, archived, unavailable", async () => {
  const cases = [
    ["read_implementation", { id: D }, { kind: "forbidden" }, "repository-forbidden"],
    ["read_implementation", { id: D }, { kind: "unavailable" }, "implementation-unavailable"],
    ["start_implementation", CLAIM, { kind: "forbidden" }, "repository-forbidden"],
    ["start_implementation", CLAIM, { kind: "archived" }, "document-archived"],
    ["start_implementation", CLAIM, { kind: "unavailable" }, "document-unavailable"],
    ["start_implementation", CLAIM, { kind: "refused", code: "stale-plan" }, "stale-plan"],
    ["start_task", { id: D, runId: "r", taskId: "t", idempotencyKey: "k" }, { kind: "forbidden" }, "repository-forbidden"],
    ["start_task", { id: D, runId: "r", taskId: "t", idempotencyKey: "k" }, { kind: "unavailable" }, "document-unavailable"],
    ["start_task", { id: D, runId: "r", taskId: "t", idempotencyKey: "k" }, { kind: "refused", code: "dependency" }, "dependency"],
  ];
  for (const [name, args, answer, code] of cases) {
    const mcp = handlerOver({ read: () => answer, start: () => answer, report: () => answer });
    const session = await sessionOf(mcp);
    const result = await resultOf(mcp, call(name, args), { "mcp-session-id": session });
    assert.deepEqual(result.structuredContent, { code }, `${name} ${answer.kind}`);
    assert.equal(result.isError, true);
  }
});

test("a malformed host answer is a TypeError, and the exchange is released", async () => {
  const run = { id: "r", user: "u", client: { name: "n", version: "v" }, session: "s", planRevision: 3, graphVersion: 1, graphRevision: 1, repository: REPOSITORY, branch: "b", commit: "c", startedAt: "t" };
  const bad = [
    ["start_implementation", CLAIM, "started"],
    ["start_implementation", CLAIM, { kind: "begun", run }],
    ["start_implementation", CLAIM, { kind: "started" }],
    ["start_implementation", CLAIM, { kind: "started", run: { ...run, extra: 1 } }],
    ["start_implementation", CLAIM, { kind: "refused", code: "nope" }],
    ["read_implementation", { id: D }, { kind: "found", document: { id: D } }],
    ["read_implementation", { id: D }, { kind: "found", document: { id: D, title: "T", source: "s", revision: 1 }, repository: { name: REPOSITORY, baseBranch: "m", baseCommit: "c" }, versions: [], runs: [] }],
    ["start_task", { id: D, runId: "r", taskId: "t", idempotencyKey: "k" }, { kind: "accepted", versions: [], runs: [{ run, events: [{ kind: "start_task" }] }] }],
  ];
  for (const [name, args, answer] of bad) {
    const mcp = handlerOver({ read: () => answer, start: () => answer, report: () => answer });
    const session = await sessionOf(mcp);
    await assert.rejects(mcp(post(call(name, args), { "mcp-session-id": session })), TypeError, JSON.stringify(answer));
    assert.equal(mcp[IN_FLIGHT](), 0);
  }
});

test("an Endpoint with implementations: true has the three steps, each with its input, answered as the handler's", () => {
  const endpoint = new Endpoint({ implementations: true });
  const send = (message, session) => {
    const headers = { "content-type": "application/json", ...(session ? { "mcp-session-id": session } : {}) };
    return endpoint.begin("POST", headers).answer("octocat").finish(new TextEncoder().encode(JSON.stringify(message)));
  };
  const session = send(initialize).headers["mcp-session-id"];
  let step = send(call("read_implementation", { id: D }), session);
  assert.equal(step.kind, "read_implementation");
  assert.equal(step.id, D);
  step = step.answer({ kind: "forbidden" });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { code: "repository-forbidden" });
  step = send(call("start_implementation", CLAIM), session);
  assert.equal(step.kind, "start_implementation");
  assert.equal(step.input.planRevision, 3);
  assert.match(step.input.runId, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  step = step.answer({ kind: "archived" });
  assert.deepEqual(JSON.parse(step.body).result.structuredContent, { code: "document-archived" });
  step = send(call("request_revision", { id: D, runId: "r", reason: "Redo.", idempotencyKey: "k" }), session);
  assert.equal(step.kind, "report");
  assert.deepEqual(step.input.command, { kind: "request_revision", reason: "Redo." });
  assert.throws(() => step.answer({ kind: "refused", code: "nope" }), TypeError);
  step.abandon();
  assert.deepEqual(new Endpoint({ implementations: "read" }).tools().map((tool) => tool.name).at(-1), "read_implementation");
  assert.throws(() => new Endpoint({ implementations: {} }), TypeError);
});
