// `rules`: chopin_mcp::implementation for a TypeScript host. Each rule
// answers as the Rust one does on the same input (the vectors and codes of
// the crate's tests/implementation_{fingerprint,graph_checks,claim,cases}.rs),
// and an argument that is not what a rule takes is a TypeError.
import assert from "node:assert/strict";
import { test } from "node:test";
import { rules } from "chopin-mcp";
import { TASKS, fixtureState, pr, task } from "./support/implementations.mjs";

const RUN = {
  id: "01K2XQ7Z00000000000000RUN1",
  user: "allowed",
  client: { name: "Codex", version: "1.2.3" },
  session: "01K2XQ7Z0000000000000SESS1",
  planRevision: 3,
  graphVersion: 1,
  graphRevision: 1,
  repository: "githubnext/chopin",
  branch: "tq/017",
  commit: "deadbeef",
  startedAt: "2026-12-05T16:00:00.000Z",
};

test("fingerprint reproduces the spec's start_task example and the crate's vectors", () => {
  const event = { kind: "start_task", idempotencyKey: "start-claim", taskId: "claim" };
  assert.equal(rules.fingerprint("01K2XQ7Z0000000000000000R1", event), "9e6575dd4cd6ad3043af53c17ee6e791baa9c6810dff6c70dd2d325b07cc2732");
  // Keys in any order: the fingerprint writes the schema's.
  assert.equal(
    rules.fingerprint("01K2XQ7Z0000000000000000R1", { taskId: "claim", idempotencyKey: "start-claim", kind: "start_task" }),
    "9e6575dd4cd6ad3043af53c17ee6e791baa9c6810dff6c70dd2d325b07cc2732",
  );
  assert.throws(() => rules.fingerprint("R", { kind: "start_task", idempotencyKey: "k" }), TypeError);
});

test("checkGraph gives the crate's refusal and the first task it concerns", () => {
  assert.equal(rules.checkGraph({ tasks: TASKS }), null);
  assert.deepEqual(rules.checkGraph({ tasks: [task("a"), task("b", ["nope"])] }), { code: "missing", task: 1 });
  assert.deepEqual(rules.checkGraph({ tasks: [task("a"), task("b", ["b"])] }), { code: "self", task: 1 });
  const cycle = [task("root"), task("x", ["z"]), task("y", ["x"]), task("z", ["y"]), task("after", ["z"])];
  assert.deepEqual(rules.checkGraph({ tasks: cycle }), { code: "cycle", task: 1 });
  assert.deepEqual(rules.checkGraph({ tasks: [] }), { code: "root" });
  assert.deepEqual(rules.checkGraph({ tasks: [{ ...task("a"), extra: 1 }] }), { code: "task" });
});

test("claim: §5 case 10's codes, in the crate's order", () => {
  const state = fixtureState();
  const on = (planRevision, graphVersion, graphRevision) => rules.claim(state, { planRevision, graphVersion, graphRevision });
  assert.deepEqual(on(3, 2, 1), { kind: "refused", code: "run" });
  assert.deepEqual(on(3, 1, 2), { kind: "refused", code: "stale-graph" });
  assert.deepEqual(on(2, 1, 1), { kind: "refused", code: "stale-plan" });
  assert.deepEqual(on(3, 1, 1), { kind: "start" });
  assert.deepEqual(rules.claim({ ...state, versions: [] }, { planRevision: 3, graphVersion: 1, graphRevision: 1 }), { kind: "refused", code: "missing" });
  const draft = { ...state.versions[0], state: "draft" };
  assert.deepEqual(rules.claim({ ...state, versions: [draft] }, { planRevision: 3, graphVersion: 1, graphRevision: 1 }), { kind: "refused", code: "not-approved" });
  // An active run is answered whatever the revisions.
  const active = { ...state, runs: [{ run: RUN, events: [] }] };
  assert.deepEqual(rules.claim(active, { planRevision: 9, graphVersion: 9, graphRevision: 9 }), { kind: "active", run: RUN });
  assert.throws(() => rules.claim({ versions: [], runs: [] }, { planRevision: 3, graphVersion: 1, graphRevision: 1 }), TypeError, "planRevision");
});

test("lock and unlock: an approved version locks, a locked one unlocks; a draft does not lock", () => {
  const approved = fixtureState().versions[0];
  assert.deepEqual(rules.lock(approved), { kind: "locked", state: "locked" });
  assert.deepEqual(rules.unlock({ ...approved, state: "locked" }), { kind: "unlocked", state: "approved" });
  assert.equal(rules.lock({ ...approved, state: "draft" }).kind, "refused");
});

test("report: §5 case 12's refusals, then append, replay and conflict as the crate decides", () => {
  const state = { ...fixtureState(), runs: [{ run: RUN, events: [] }] };
  const call = (event, stored = null, caller = "allowed", runId = RUN.id) => rules.report(state, { caller, runId, event, stored });
  const start = (taskId, key) => ({ kind: "start_task", idempotencyKey: key, taskId });
  assert.deepEqual(call(start("delivery", "k0")), { kind: "refused", code: "dependency" });
  assert.deepEqual(call(start("nope", "k0")), { kind: "refused", code: "task" });
  assert.deepEqual(call(start("foundation", "k0"), null, "allowed", "nope"), { kind: "refused", code: "run" });
  const appended = call(start("foundation", "k1"));
  assert.equal(appended.kind, "append");
  assert.deepEqual(appended.event, start("foundation", "k1"));
  assert.equal(appended.fingerprint, rules.fingerprint(RUN.id, start("foundation", "k1")));
  assert.equal(appended.ended, false);
  state.runs[0].events.push(appended.event);
  const stored = { caller: "allowed", fingerprint: appended.fingerprint };
  assert.deepEqual(call(start("foundation", "k1"), stored), { kind: "replayed" });
  assert.deepEqual(call(start("delivery", "k1"), stored), { kind: "refused", code: "idempotency-conflict" });
  assert.deepEqual(call(start("foundation", "k1"), stored, "someone-else"), { kind: "refused", code: "idempotency-conflict" });
  // A PR of another repository, then a request_revision that ends the run.
  assert.deepEqual(call({ kind: "report_pr", idempotencyKey: "k2", taskId: "foundation", url: "https://github.com/other/repo/pull/1", state: "open" }), {
    kind: "refused",
    code: "repository",
  });
  const revision = call({ kind: "request_revision", idempotencyKey: "k3", reason: "Redo." });
  assert.equal(revision.ended, true);
  state.runs[0].events.push(revision.event);
  assert.deepEqual(call(start("delivery", "k4")), { kind: "refused", code: "inactive" });
  assert.deepEqual(call({ kind: "report_pr", idempotencyKey: "k5", taskId: "foundation", url: pr(1), state: "open" }), { kind: "refused", code: "terminal" });
});

test("fold and life: a stored log folds to its PROGRESS; one that does not is invalid-lifecycle", () => {
  const events = [
    { kind: "start_task", idempotencyKey: "k1", taskId: "foundation" },
    { kind: "block_task", idempotencyKey: "k2", taskId: "foundation", reason: "CI." },
  ];
  const folded = rules.fold(RUN, TASKS, events);
  assert.equal(folded.kind, "folded");
  assert.equal(folded.phase, "active");
  assert.deepEqual(folded.progress.tasks, [
    { id: "foundation", state: "blocked", blocker: "CI." },
    { id: "delivery", state: "queued" },
  ]);
  assert.deepEqual(folded.progress.events, events);
  assert.deepEqual(rules.fold(RUN, TASKS, [events[0], events[0]]), { kind: "refused", code: "invalid-lifecycle" });
  assert.deepEqual(rules.fold(RUN, TASKS, [{ ...events[0], runId: RUN.id }]), { kind: "refused", code: "invalid-lifecycle" });
  const life = rules.life({ ...fixtureState(), runs: [{ run: RUN, events }] });
  assert.deepEqual(life.execution, { state: "active" });
  assert.deepEqual(life.activity, folded.progress);
  assert.deepEqual(life.history, []);
  assert.throws(() => rules.fold({ ...RUN, extra: 1 }, TASKS, []), TypeError);
});
