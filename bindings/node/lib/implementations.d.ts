// Types of the implementation runs (IMPLEMENTATION.md) for index.d.ts,
// which re-exports them: the `implementations` host option's inputs and
// answers, the implementation state a host keeps, and `rules`.
import type { Awaitable, Brief } from "../index.js";


/** A graph task (`TASK`). */
export interface ImplementationTask {
  id: string;
  title: string;
  context: string;
  goal: string;
  /** 2 to 8 criteria. */
  acceptance: string[];
  dependsOn: string[];
}

/** A graph version (`VERSION`): `(number, revision, planRevision)` is the exact graph reference. */
export interface GraphVersion {
  number: number;
  revision: number;
  planRevision: number;
  state: "draft" | "approved" | "locked" | "superseded";
  definition: { tasks: ImplementationTask[] };
}

/** A run (`RUN`), immutable once claimed. */
export interface ImplementationRun {
  id: string;
  user: string;
  client: { name: string; version: string };
  session: string;
  planRevision: number;
  graphVersion: number;
  graphRevision: number;
  repository: string;
  branch: string;
  commit: string;
  /** RFC 3339, milliseconds, UTC: when the host recorded the claim. */
  startedAt: string;
}

/** A pull request's state. */
export type PrState = "open" | "merged" | "closed";

/** A lifecycle command: `{kind, …fields}` (an `EVENT` without its key). */
export type LifecycleCommand =
  | { kind: "start_task"; taskId: string }
  | { kind: "block_task"; taskId: string; reason: string }
  | { kind: "report_pr"; taskId: string; url: string; state: PrState }
  | { kind: "complete_task"; taskId: string; summary: string }
  | {
      kind: "report_verification";
      passed: boolean;
      summary: string;
      reviewerMethod: string;
      evidence: { taskId: string; evidence: string[] }[];
      tasksNeedingWork: string[];
    }
  | { kind: "request_revision"; reason: string };

/** A stored event (`EVENT`): a command with its idempotency key, stored as it is. */
export type ImplementationEvent = LifecycleCommand & { idempotencyKey: string };

/** A run and its stored log, oldest first. */
export interface StoredRun {
  run: ImplementationRun;
  events: ImplementationEvent[];
}

/**
 * A document's implementation state as a host keeps it: its graph versions
 * and its runs, both oldest first (the latest version last). `planRevision`
 * (the document's plan revision) is needed by `rules.claim` only.
 */
export interface ImplementationState {
  planRevision?: number;
  versions: GraphVersion[];
  runs: StoredRun[];
}

/** A refusal code of the rules (IMPLEMENTATION.md §1). */
export type RefusalCode =
  | "task" | "duplicate" | "acceptance" | "missing" | "self" | "cycle" | "root"
  | "stale-plan" | "stale-graph" | "locked" | "not-draft" | "already-verified" | "not-approved"
  | "run" | "idempotency-conflict" | "inactive" | "terminal" | "invalid-lifecycle" | "task-state"
  | "dependency" | "repository" | "pull-request-state" | "pull-request" | "verification";

/** The client an implementation effect names; `session` is the session id's ULID (a claim without a session: the run id). */
export interface ImplementationClient {
  readonly name: string;
  readonly version: string;
  readonly session?: string;
}

/** `implementations.start`'s input: the claim as the caller sent it, its client, and the core-minted run id. */
export interface StartImplementationInput {
  /** The document's id, as sent. */
  id: string;
  planRevision: number;
  graphVersion: number;
  graphRevision: number;
  repository: string;
  branch: string;
  commit: string;
  client: ImplementationClient & { readonly session: string };
  /** The new run's id (a ULID): the run the host records if it starts one. */
  runId: string;
}

/** `implementations.report`'s input: a lifecycle call. */
export interface ReportInput {
  /** The document's id, as sent. */
  id: string;
  runId: string;
  idempotencyKey: string;
  command: LifecycleCommand;
  /** The event to store if accepted (what `rules.report` takes and appends). */
  event: ImplementationEvent;
  /** Hex SHA-256 of the call: a key stored with the same caller and fingerprint is a replay. */
  fingerprint: string;
  client: ImplementationClient;
}

/** The document head `IMPL` shows. */
export interface ImplementationDocument {
  id: string;
  title: string;
  brief?: Brief;
  source: string;
  revision: number;
  archivedAt?: string;
}

/**
 * The host's answer to `read_implementation`: `found` (the document, its
 * creation provenance and its implementation state; the addon folds the
 * runs and answers `IMPL` with the latest version as its graph — only for
 * a document whose latest version is approved or locked), `forbidden`
 * (`repository-forbidden`), `unavailable` (`implementation-unavailable`).
 */
export type ReadImplementationAnswer =
  | ({
      kind: "found";
      document: ImplementationDocument;
      repository: { name: string; baseBranch: string; baseCommit: string };
    } & ImplementationState)
  | { kind: "forbidden" }
  | { kind: "unavailable" };

/** The host's answer to a claim, in IMPLEMENTATION.md §2.4's order of checks. */
export type StartImplementationAnswer =
  | { kind: "started"; run: ImplementationRun }
  | { kind: "active"; run: ImplementationRun }
  | { kind: "refused"; code: RefusalCode }
  | { kind: "forbidden" }
  | { kind: "archived" }
  | { kind: "unavailable" };

/** The host's answer to a lifecycle report: both successes give the state after (the addon answers its `LIFE`). */
export type ReportAnswer =
  | ({ kind: "accepted" } & ImplementationState)
  | ({ kind: "replayed" } & ImplementationState)
  | { kind: "refused"; code: RefusalCode }
  | { kind: "forbidden" }
  | { kind: "unavailable" };

/**
 * The host's implementation runs. With `read` alone, `read_implementation`
 * alone is offered; with `start` and `report` too, the eight tools. A
 * malformed answer makes the request's promise reject with a `TypeError`.
 */
export interface ImplementationHost<Caller = any> {
  read(caller: Caller, id: string): Awaitable<ReadImplementationAnswer>;
  /** Claim, atomically, deciding with `rules.claim` and locking with `rules.lock`. */
  start?(caller: Caller, input: StartImplementationInput): Awaitable<StartImplementationAnswer>;
  /** Record a lifecycle event exactly once per key, deciding with `rules.report`. */
  report?(caller: Caller, input: ReportInput): Awaitable<ReportAnswer>;
}

/** A refusal of a rule. */
export type Refused = { kind: "refused"; code: RefusalCode };

/** A run's progress (`PROGRESS`), as `rules.fold` and `LIFE` give it. */
export interface Progress {
  tasks: { id: string; state: "queued" | "in_progress" | "blocked" | "completed"; blocker?: string; summary?: string; pullRequest?: { url: string; state: PrState } }[];
  events?: ImplementationEvent[];
  verification?: Omit<Extract<LifecycleCommand, { kind: "report_verification" }>, "kind">;
}

/**
 * The rules of chopin_mcp::implementation, for a host's own transaction:
 * the same decisions the Rust hosts make. An argument that is not what a
 * rule takes is a `TypeError`.
 */
export declare const rules: {
  /** `null`, or the graph's first refusal and the index of the task it concerns. */
  checkGraph(definition: { tasks: ImplementationTask[] }): null | { code: RefusalCode; task?: number };
  /** The replay fingerprint of `event` in run `runId` (hex SHA-256). */
  fingerprint(runId: string, event: ImplementationEvent): string;
  /** A run's log folded: its phase and `PROGRESS`, or `invalid-lifecycle`. */
  fold(run: ImplementationRun, tasks: ImplementationTask[], events: ImplementationEvent[]): { kind: "folded"; phase: "active" | "revision_requested" | "implemented" | "delivered"; progress: Progress } | Refused;
  /** A claim: start one (then lock the latest version), answer the active run, or why not. */
  claim(state: ImplementationState & { planRevision: number }, revisions: { planRevision: number; graphVersion: number; graphRevision: number }): { kind: "start" } | { kind: "active"; run: ImplementationRun } | Refused;
  /**
   * A lifecycle call (IMPLEMENTATION.md §1.2's whole order): replayed, or the
   * event to append with its fingerprint (store the key with both; when
   * `ended`, unlock the run's version), or why not.
   */
  report(
    state: ImplementationState,
    call: { caller: string; runId: string; event: ImplementationEvent; stored: { caller: string; fingerprint: string } | null },
  ): { kind: "replayed" } | { kind: "append"; event: ImplementationEvent; fingerprint: string; ended: boolean } | Refused;
  /** A claimed version's new state. */
  lock(version: GraphVersion): { kind: "locked"; state: "locked" } | Refused;
  /** An ended run's version's new state. */
  unlock(version: GraphVersion): { kind: "unlocked"; state: GraphVersion["state"] };
  /** The document's `LIFE`. */
  life(state: ImplementationState): { execution: { state: "idle" | "active" }; activity?: Progress; history: any[] } | Refused;
};
