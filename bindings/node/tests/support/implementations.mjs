// An in-memory implementations host for the tests: IMPLEMENTATION.md §5's
// fixture (D at plan revision 3, graph version 1 r1 p3 approved, tasks
// `foundation` and `delivery` needing it), each claim and report decided
// by the package's `rules` inside a "transaction", as the Rust hosts do.
import { rules } from "chopin-mcp";

export const D = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
export const REPOSITORY = "githubnext/chopin";
/** The time the host records claims at (the endpoint has no clock). */
export const STARTED_AT = "2026-12-05T16:00:00.000Z";

export function task(id, dependsOn = []) {
  return { id, title: `Task ${id}`, context: "Context.", goal: "Goal.", acceptance: ["First.", "Second."], dependsOn };
}

export const TASKS = [task("foundation"), task("delivery", ["foundation"])];

export function pr(n) {
  return `https://github.com/${REPOSITORY}/pull/${n}`;
}

/** §5's fixture state: `{ planRevision, versions, runs }`. */
export function fixtureState() {
  return {
    planRevision: 3,
    versions: [{ number: 1, revision: 1, planRevision: 3, state: "approved", definition: { tasks: TASKS } }],
    runs: [],
  };
}

/**
 * The host: `state` is the document's implementation state, `keys` its
 * idempotency keys (key → { caller, fingerprint }), `calls` every call as
 * [name, caller, input].
 */
export function implementationsHost() {
  const state = fixtureState();
  const keys = new Map();
  const calls = [];
  const snapshot = () => structuredClone(state);
  return {
    state,
    keys,
    calls,
    implementations: {
      async read(caller, id) {
        calls.push(["read", caller, id]);
        if (id !== D) return { kind: "unavailable" };
        return {
          kind: "found",
          document: { id: D, title: "Plan", source: "# Plan\n", revision: 3 },
          repository: { name: REPOSITORY, baseBranch: "main", baseCommit: "0123456" },
          ...snapshot(),
        };
      },
      async start(caller, input) {
        calls.push(["start", caller, input]);
        if (input.id !== D) return { kind: "unavailable" };
        if (input.repository !== REPOSITORY) return { kind: "forbidden" };
        const claim = rules.claim(state, input);
        if (claim.kind === "refused") return claim;
        if (claim.kind === "active") return { kind: "active", run: claim.run };
        const latest = state.versions[state.versions.length - 1];
        latest.state = rules.lock(latest).state;
        const run = {
          id: input.runId,
          user: caller,
          client: { name: input.client.name, version: input.client.version },
          session: input.client.session,
          planRevision: input.planRevision,
          graphVersion: input.graphVersion,
          graphRevision: input.graphRevision,
          repository: input.repository,
          branch: input.branch,
          commit: input.commit,
          startedAt: STARTED_AT,
        };
        state.runs.push({ run, events: [] });
        return { kind: "started", run };
      },
      async report(caller, input) {
        calls.push(["report", caller, input]);
        if (input.id !== D) return { kind: "unavailable" };
        const decision = rules.report(state, { caller, runId: input.runId, event: input.event, stored: keys.get(input.idempotencyKey) ?? null });
        if (decision.kind === "refused") return decision;
        if (decision.kind === "append") {
          const entry = state.runs.find((stored) => stored.run.id === input.runId);
          entry.events.push(decision.event);
          keys.set(input.idempotencyKey, { caller, fingerprint: decision.fingerprint });
          if (decision.ended) {
            const version = state.versions.find((v) => v.number === entry.run.graphVersion);
            version.state = rules.unlock(version).state;
          }
          return { kind: "accepted", ...snapshot() };
        }
        return { kind: "replayed", ...snapshot() };
      },
    },
  };
}
