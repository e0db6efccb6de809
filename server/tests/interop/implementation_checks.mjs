// A whole implementation run (IMPLEMENTATION.md) through either TypeScript
// SDK's client: `implementation.mjs` here (SDK 1.32, handshake era) and
// `../interop-v2/implementation.mjs` (v2 client, 2026-07-28) call
// `implementationChecks` with two connected clients, each its own agent.
//
// The document must hold graph version 1 r1 on plan revision 2, approved,
// with the tasks `foundation` and `delivery` (needing foundation), and no
// run yet. Both agents race the claim: one starts the run, the other is
// answered `active` with the winner's run; the winner then reports the run
// to its delivery, each answer's structuredContent checked (the SDKs
// validate it against the tool's output schema as well).
import { check, expect } from "./checks.mjs";

const show = (value) => JSON.stringify(value);
const same = (a, b) => show(a) === show(b);

// A call's structured answer; `refused` says whether it must be an error.
async function answer(client, name, args, refused = false) {
  const result = await client.callTool({ name, arguments: args });
  expect(Boolean(result.isError) === refused, `${name}: ${show(result)}`);
  expect(same(JSON.parse(result.content[0].text), result.structuredContent), `${name}: text and structuredContent differ`);
  return result.structuredContent;
}

// `agents`: two `{client, name, version, session}`, where `session` is the
// run's expected session for a claim by that agent (`null`: the run id
// stands in for it, 2026-07-28). `key` makes the idempotency keys unique.
export async function implementationChecks(prefix, agents, { documentId, repository, key }) {
  const pr = (n) => `https://github.com/${repository}/pull/${n}`;
  const claim = {
    id: documentId,
    planRevision: 2,
    graphVersion: 1,
    graphRevision: 1,
    repository,
    branch: "tq/017",
    commit: "deadbeef",
  };
  let run = null;
  let agent = agents[0];
  const report = (name, fields, k, refused = false) =>
    answer(agent.client, name, { id: documentId, runId: run?.id, ...fields, idempotencyKey: `${key}-${k}` }, refused);
  const tasks = (life) => life.activity?.tasks ?? [];
  const task = (life, id) => tasks(life).find((t) => t.id === id);

  await check(`${prefix}read_implementation (approved, idle)`, async () => {
    const impl = await answer(agents[0].client, "read_implementation", { id: documentId });
    expect(impl.document.id === documentId, show(impl.document));
    expect(same(impl.repository, { name: repository, baseBranch: "main", baseCommit: "0123abcd" }), show(impl.repository));
    const { number, revision, planRevision, state, definition } = impl.graph;
    expect(same([number, revision, planRevision, state], [1, 1, 2, "approved"]), show(impl.graph));
    expect(same(definition.tasks.map((t) => [t.id, t.dependsOn]), [["foundation", []], ["delivery", ["foundation"]]]), show(definition));
    expect(same(impl.execution, { state: "idle" }) && same(impl.history, []) && !("activity" in impl), show(impl));
    return `graph ${number} r${revision} p${planRevision} ${state}`;
  });

  await check(`${prefix}start_implementation, two agents racing (started, active with the winner's run)`, async () => {
    const claims = await Promise.all(agents.map((a) => answer(a.client, "start_implementation", claim)));
    const states = claims.map((c) => c.state);
    expect(same([...states].sort(), ["active", "started"]), `states ${states}`);
    const winner = states.indexOf("started");
    agent = agents[winner];
    run = claims[winner].run;
    expect(same(claims[1 - winner].run, run), `the loser saw ${show(claims[1 - winner].run)}, not ${show(run)}`);
    expect(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(run.id), `run id ${run.id}`);
    expect(same(run.client, { name: agent.name, version: agent.version }), `client ${show(run.client)}`);
    expect(run.session === (agent.session ?? run.id), `session ${run.session}, expected ${agent.session ?? run.id}`);
    const fields = [run.user, run.planRevision, run.graphVersion, run.graphRevision, run.repository, run.branch, run.commit];
    expect(same(fields, ["octocat", 2, 1, 1, repository, "tq/017", "deadbeef"]), show(run));
    expect(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(run.startedAt), `startedAt ${run.startedAt}`);
    return `${agent.name} won run ${run.id} (session ${run.session})`;
  });

  await check(`${prefix}read_implementation (locked, active, the run)`, async () => {
    const impl = await answer(agent.client, "read_implementation", { id: documentId });
    expect(impl.graph.state === "locked", `graph ${impl.graph.state}`);
    expect(same(impl.execution, { state: "active", run }), show(impl.execution));
    expect(same(impl.activity, { tasks: [{ id: "foundation", state: "queued" }, { id: "delivery", state: "queued" }], events: [] }), show(impl.activity));
    return "both tasks queued";
  });

  await check(`${prefix}start_task delivery (dependency)`, async () => {
    const refused = await report("start_task", { taskId: "delivery" }, "early", true);
    expect(same(refused, { code: "dependency" }), show(refused));
    return refused.code;
  });

  await check(`${prefix}start_task foundation (in_progress), its retry replayed`, async () => {
    const life = await report("start_task", { taskId: "foundation" }, "s1");
    expect(same(life.execution, { state: "active" }) && same(life.history, []), show(life));
    expect(same(tasks(life), [{ id: "foundation", state: "in_progress" }, { id: "delivery", state: "queued" }]), show(life.activity));
    expect(same(life.activity.events, [{ kind: "start_task", idempotencyKey: `${key}-s1`, taskId: "foundation" }]), show(life.activity.events));
    const again = await report("start_task", { taskId: "foundation" }, "s1");
    expect(same(again, life), `the retry answered ${show(again)}`);
    return "one event";
  });

  await check(`${prefix}block_task foundation (blocked, with its blocker)`, async () => {
    const life = await report("block_task", { taskId: "foundation", reason: "Waiting on CI." }, "b1");
    expect(same(task(life, "foundation"), { id: "foundation", state: "blocked", blocker: "Waiting on CI." }), show(life.activity));
    return "blocked";
  });

  await check(`${prefix}start_task foundation again (in_progress)`, async () => {
    const life = await report("start_task", { taskId: "foundation" }, "s2");
    expect(same(task(life, "foundation"), { id: "foundation", state: "in_progress" }), show(life.activity));
    return "in_progress";
  });

  await check(`${prefix}report_pr foundation (open)`, async () => {
    const life = await report("report_pr", { taskId: "foundation", url: pr(1), state: "open" }, "p1");
    expect(same(task(life, "foundation").pullRequest, { url: pr(1), state: "open" }), show(life.activity));
    return pr(1);
  });

  await check(`${prefix}complete_task foundation (completed, with its summary)`, async () => {
    const life = await report("complete_task", { taskId: "foundation", summary: "Laid the foundation." }, "c1");
    const expected = { id: "foundation", state: "completed", summary: "Laid the foundation.", pullRequest: { url: pr(1), state: "open" } };
    expect(same(task(life, "foundation"), expected), show(life.activity));
    return "completed";
  });

  await check(`${prefix}delivery started, its PR reported, completed`, async () => {
    await report("start_task", { taskId: "delivery" }, "s3");
    await report("report_pr", { taskId: "delivery", url: pr(2), state: "open" }, "p2");
    const life = await report("complete_task", { taskId: "delivery", summary: "Shipped it." }, "c2");
    expect(tasks(life).every((t) => t.state === "completed"), show(life.activity));
    return "every task completed";
  });

  const verification = (passed, k) =>
    report(
      "report_verification",
      {
        passed,
        summary: passed ? "Everything holds." : "The foundation leaks.",
        reviewerMethod: "Read the diffs and ran the tests.",
        evidence: [
          { taskId: "foundation", evidence: ["Tests pass."] },
          { taskId: "delivery", evidence: ["Deployed to staging."] },
        ],
        tasksNeedingWork: passed ? [] : ["foundation"],
      },
      k,
    );

  await check(`${prefix}report_verification failed (foundation back in progress, PR kept)`, async () => {
    const life = await verification(false, "v1");
    expect(same(life.execution, { state: "active" }), show(life.execution));
    const expected = { id: "foundation", state: "in_progress", pullRequest: { url: pr(1), state: "open" } };
    expect(same(task(life, "foundation"), expected), show(life.activity));
    expect(task(life, "delivery").state === "completed", show(life.activity));
    expect(life.activity.verification?.passed === false, show(life.activity.verification));
    return "active, foundation needs work";
  });

  await check(`${prefix}start_task foundation while in progress (task-state)`, async () => {
    const refused = await report("start_task", { taskId: "foundation" }, "s4", true);
    expect(same(refused, { code: "task-state" }), show(refused));
    return refused.code;
  });

  await check(`${prefix}complete_task foundation again`, async () => {
    const life = await report("complete_task", { taskId: "foundation", summary: "Sealed the leak." }, "c3");
    expect(task(life, "foundation").state === "completed" && task(life, "foundation").summary === "Sealed the leak.", show(life.activity));
    return "completed";
  });

  await check(`${prefix}report_verification passed (idle, implemented)`, async () => {
    const life = await verification(true, "v2");
    expect(same(life.execution, { state: "idle" }) && !("activity" in life), show(life));
    expect(life.history.length === 1 && same(life.history[0].run, run), show(life.history));
    expect(same(life.history[0].outcome, { kind: "implemented" }), show(life.history[0].outcome));
    expect(!("events" in life.history[0].progress) && life.history[0].progress.verification?.passed === true, show(life.history[0].progress));
    return "implemented";
  });

  await check(`${prefix}report_pr merged, one PR of two (still implemented)`, async () => {
    const life = await report("report_pr", { taskId: "foundation", url: pr(1), state: "merged" }, "m1");
    expect(same(life.history[0].outcome, { kind: "implemented" }), show(life.history[0].outcome));
    return "implemented";
  });

  await check(`${prefix}report_pr merged, the last PR (delivered)`, async () => {
    const life = await report("report_pr", { taskId: "delivery", url: pr(2), state: "merged" }, "m2");
    expect(same(life.history[0].outcome, { kind: "delivered" }), show(life.history[0].outcome));
    return "delivered";
  });

  await check(`${prefix}read_implementation (approved, idle, delivered)`, async () => {
    const impl = await answer(agents[0].client, "read_implementation", { id: documentId });
    expect(impl.graph.state === "approved" && same(impl.execution, { state: "idle" }), show(impl));
    expect(impl.history.length === 1 && same(impl.history[0].run, run), show(impl.history));
    expect(same(impl.history[0].outcome, { kind: "delivered" }), show(impl.history[0].outcome));
    const merged = impl.history[0].progress.tasks.map((t) => [t.id, t.state, t.pullRequest?.state]);
    expect(same(merged, [["foundation", "completed", "merged"], ["delivery", "completed", "merged"]]), show(merged));
    return "delivered";
  });

  await check(`${prefix}start_implementation after delivery (already-verified)`, async () => {
    const refused = await answer(agents[1].client, "start_implementation", claim, true);
    expect(same(refused, { code: "already-verified" }), show(refused));
    return refused.code;
  });
}
