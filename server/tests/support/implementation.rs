//! IMPLEMENTATION.md §5's fixture in a store: document `a` of the seed
//! (`support/engines.rs`: `acme/plans`, revision 3, caller `ann`) with
//! provenance and graph version 1 r1 p3 approved (tasks `foundation`, and
//! `delivery` needing it); claims and lifecycle calls as the host makes
//! them.
#![allow(dead_code)]

use chopin_mcp::implementation::{
    ClaimRequest, Client, Command, Definition, Event, Evidence, PrState, Task, Verification,
    fingerprint,
};
use chopin_mcp_server::store::{
    ClaimOutcome, Claimant, GraphDraft, GraphOutcome, ReportOutcome, Reported, Store,
};

/// The fixture's document, repository and caller.
pub const DOC: &str = "a";
pub const REPOSITORY: &str = "acme/plans";
pub const CALLER: &str = "ann";

/// A task with two criteria.
pub fn task(id: &str, depends_on: &[&str]) -> Task {
    Task {
        id: id.into(),
        title: format!("Task {id}"),
        context: "Context.".into(),
        goal: "Goal.".into(),
        acceptance: vec!["First.".into(), "Second.".into()],
        depends_on: depends_on.iter().map(|d| (*d).into()).collect(),
    }
}

/// `foundation`, and `delivery` needing it.
pub fn tasks() -> Definition {
    Definition {
        tasks: vec![task("foundation", &[]), task("delivery", &["foundation"])],
    }
}

/// A draft of `definition` on plan revision `plan` (with provenance).
pub fn graph(definition: Definition, plan: u64, graph_revision: Option<u64>) -> GraphDraft {
    GraphDraft {
        locator: DOC.into(),
        plan_revision: plan,
        graph_revision,
        definition,
        base: Some(("main".into(), "0123abcd".into())),
        by: "operator".into(),
    }
}

/// Drafts and approves the fixture's graph: version 1 r1 p3.
pub async fn approved(store: &Store) {
    let drafted = store.graph_draft(&graph(tasks(), 3, None)).await.unwrap();
    assert!(matches!(drafted, GraphOutcome::Stored(_)), "{drafted:?}");
    let approved = store.graph_approve(DOC, 1, 1, "operator").await.unwrap();
    assert!(matches!(approved, GraphOutcome::Stored(_)), "{approved:?}");
}

/// §5's claim A ({D, 3, 1, 1}) as run `run_id`.
pub fn claim_a(run_id: &str) -> Claimant {
    Claimant {
        locator: DOC.into(),
        request: ClaimRequest {
            plan_revision: 3,
            graph_version: 1,
            graph_revision: 1,
        },
        repository: REPOSITORY.into(),
        branch: "tq/017".into(),
        commit: "deadbeef".into(),
        run_id: run_id.into(),
        user: CALLER.into(),
        client: Client {
            name: "Codex".into(),
            version: "1.2.3".into(),
        },
        session: run_id.into(),
        started_at: "2026-12-05T16:00:00.000Z".into(),
    }
}

/// Claims as [`CALLER`]; the store must answer.
pub async fn claim(store: &Store, run_id: &str) -> ClaimOutcome {
    store.claim(CALLER, &claim_a(run_id)).await.unwrap()
}

/// A lifecycle call on `run_id` under `key`.
pub fn call(run_id: &str, key: &str, command: Command) -> Reported {
    let event = Event {
        idempotency_key: key.into(),
        command,
    };
    Reported {
        locator: DOC.into(),
        run_id: run_id.into(),
        fingerprint: fingerprint(run_id, &event),
        event,
        client: "Codex/1.2.3".into(),
        at: "2026-12-05T16:05:00.000Z".into(),
        bound: false,
    }
}

/// Reports as [`CALLER`]; the store must answer.
pub async fn report(store: &Store, run_id: &str, key: &str, command: Command) -> ReportOutcome {
    store
        .report(CALLER, &call(run_id, key, command))
        .await
        .unwrap()
}

pub fn start(task: &str) -> Command {
    Command::StartTask {
        task_id: task.into(),
    }
}

pub fn block(task: &str, reason: &str) -> Command {
    Command::BlockTask {
        task_id: task.into(),
        reason: reason.into(),
    }
}

pub fn report_pr(task: &str, n: u32, state: PrState) -> Command {
    Command::ReportPr {
        task_id: task.into(),
        url: format!("https://github.com/{REPOSITORY}/pull/{n}"),
        state,
    }
}

pub fn complete(task: &str) -> Command {
    Command::CompleteTask {
        task_id: task.into(),
        summary: "Done.".into(),
    }
}

/// A verification with evidence for `evidence`, asking work on `work`.
pub fn verify(passed: bool, evidence: &[&str], work: &[&str]) -> Command {
    Command::ReportVerification(Verification {
        passed,
        summary: "Reviewed.".into(),
        reviewer_method: "Read the diffs.".into(),
        evidence: evidence
            .iter()
            .map(|id| Evidence {
                task_id: (*id).into(),
                evidence: vec![format!("{id} works.")],
            })
            .collect(),
        tasks_needing_work: work.iter().map(|id| (*id).into()).collect(),
    })
}
