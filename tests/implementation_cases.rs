//! IMPLEMENTATION.md §5's cases 12–22 at the rules' level: a host in
//! memory (`tests/common/implementation.rs`) claims and reports through
//! `chopin_mcp::implementation` as a store's transaction does, and every
//! answer is the document's `LIFE` or a refusal code.

mod common;

use chopin_mcp::implementation::{ClaimRequest, PrState, Refusal, VersionState};
use common::implementation::{
    A, CALLER, Host, block, complete, pr, report_pr, revise, start, task_states, verify,
};
use serde_json::json;

fn claimed() -> Host {
    let mut host = Host::fixture();
    let (started, _) = host.claim(A).unwrap();
    assert!(started);
    host
}

/// Both tasks completed, with pull requests 1 and 2 open.
fn completed() -> Host {
    let mut host = claimed();
    host.on_run("s1", start("foundation")).unwrap();
    host.on_run("p1", report_pr("foundation", &pr(1), PrState::Open))
        .unwrap();
    host.on_run("c1", complete("foundation", "Laid.")).unwrap();
    host.on_run("s2", start("delivery")).unwrap();
    host.on_run("p2", report_pr("delivery", &pr(2), PrState::Open))
        .unwrap();
    host.on_run("c2", complete("delivery", "Shipped.")).unwrap();
    host
}

#[test]
fn case_12_unready_unknown_task_and_unknown_run_are_refused() {
    let mut host = claimed();
    assert_eq!(
        host.on_run("k", start("delivery")),
        Err(Refusal::Dependency)
    );
    assert_eq!(host.on_run("k", start("nope")), Err(Refusal::Task));
    assert_eq!(
        host.call(CALLER, "nope", "k", start("foundation")),
        Err(Refusal::Run)
    );
    assert!(host.runs[0].1.is_empty(), "nothing stored");
}

#[test]
fn case_13_a_start_replays_identically_and_its_key_conflicts_elsewhere() {
    let mut host = claimed();
    let first = host.on_run("k1", start("foundation")).unwrap();
    assert_eq!(task_states(&first), ["in_progress", "queued"]);
    let bytes = host.life_json();
    let again = host.on_run("k1", start("foundation")).unwrap();
    assert_eq!(again, first);
    assert_eq!(host.life_json(), bytes);
    assert_eq!(host.runs[0].1.len(), 1, "a replay appends nothing");
    assert_eq!(
        host.on_run("k1", start("delivery")),
        Err(Refusal::IdempotencyConflict)
    );
    assert_eq!(
        host.call(CALLER, "another-run", "k1", start("foundation")),
        Err(Refusal::IdempotencyConflict)
    );
    let run = host.run().id;
    assert_eq!(
        host.call("stranger", &run, "k1", start("foundation")),
        Err(Refusal::IdempotencyConflict)
    );
}

#[test]
fn case_14_blocking_and_restarting() {
    let mut host = claimed();
    host.on_run("k1", start("foundation")).unwrap();
    let life = host
        .on_run("b1", block("foundation", "Waiting on CI."))
        .unwrap();
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"blocked","blocker":"Waiting on CI."})
    );
    let life = host.on_run("k2", start("foundation")).unwrap();
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"in_progress"})
    );
    let life = host
        .on_run("b2", block("delivery", "Needs design."))
        .unwrap();
    assert_eq!(task_states(&life), ["in_progress", "blocked"]);
}

#[test]
fn case_15_pull_requests_are_checked_then_recorded() {
    let mut host = claimed();
    assert_eq!(
        host.on_run("p", report_pr("foundation", &pr(1), PrState::Open)),
        Err(Refusal::TaskState)
    );
    host.on_run("k1", start("foundation")).unwrap();
    for url in [
        "https://github.com/elsewhere/other/pull/9",
        "https://github.com/githubnext/chopin/pull/0",
    ] {
        assert_eq!(
            host.on_run("p", report_pr("foundation", url, PrState::Open)),
            Err(Refusal::Repository),
            "{url}"
        );
    }
    let life = host
        .on_run("p", report_pr("foundation", &pr(7), PrState::Open))
        .unwrap();
    assert_eq!(
        life["activity"]["tasks"][0]["pullRequest"],
        json!({"url": pr(7), "state": "open"})
    );
}

#[test]
fn case_16_completing_needs_a_pull_request() {
    let mut host = claimed();
    host.on_run("k1", start("foundation")).unwrap();
    assert_eq!(
        host.on_run("c", complete("foundation", "Done.")),
        Err(Refusal::PullRequest)
    );
    host.on_run("p", report_pr("foundation", &pr(1), PrState::Open))
        .unwrap();
    let life = host.on_run("c", complete("foundation", "Done.")).unwrap();
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"completed","summary":"Done.","pullRequest":{"url":pr(1),"state":"open"}})
    );
}

#[test]
fn case_17_verification_reports_are_checked() {
    let mut host = claimed();
    host.on_run("s1", start("foundation")).unwrap();
    host.on_run("p1", report_pr("foundation", &pr(1), PrState::Open))
        .unwrap();
    host.on_run("c1", complete("foundation", "Laid.")).unwrap();
    let both = ["foundation", "delivery"];
    assert_eq!(
        host.on_run("v", verify(true, &both, &[])),
        Err(Refusal::TaskState),
        "a task still open"
    );
    let mut host = completed();
    for bad in [
        verify(true, &["foundation"], &[]),
        verify(true, &["foundation", "delivery", "foundation"], &[]),
        verify(true, &["foundation", "foundation"], &[]),
        verify(false, &both, &["nope"]),
        verify(false, &both, &["foundation", "foundation"]),
        verify(true, &both, &["foundation"]),
        verify(false, &both, &[]),
    ] {
        assert_eq!(host.on_run("v", bad), Err(Refusal::Verification));
    }
    host.on_run("x", report_pr("delivery", &pr(2), PrState::Closed))
        .unwrap();
    assert_eq!(
        host.on_run("v", verify(true, &both, &[])),
        Err(Refusal::PullRequest),
        "a closed pull request"
    );
}

#[test]
fn case_18_a_failed_verification_reopens_tasks_and_stays_active() {
    let mut host = completed();
    let life = host
        .on_run(
            "v",
            verify(false, &["foundation", "delivery"], &["foundation"]),
        )
        .unwrap();
    assert_eq!(life["execution"], json!({"state":"active"}));
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"in_progress","pullRequest":{"url":pr(1),"state":"open"}})
    );
    assert_eq!(life["activity"]["tasks"][1]["state"], "completed");
    assert_eq!(life["activity"]["verification"]["passed"], false);
    assert_eq!(host.latest().unwrap().state, VersionState::Locked);
}

#[test]
fn case_19_a_passing_verification_ends_the_run_implemented() {
    let mut host = completed();
    let life = host
        .on_run("v", verify(true, &["foundation", "delivery"], &[]))
        .unwrap();
    assert_eq!(life["execution"], json!({"state":"idle"}));
    assert!(life.get("activity").is_none());
    assert_eq!(life["history"][0]["outcome"], json!({"kind":"implemented"}));
    assert!(life["history"][0]["progress"].get("events").is_none());
    assert_eq!(host.latest().unwrap().state, VersionState::Approved);
    assert_eq!(
        host.on_run("k", start("foundation")),
        Err(Refusal::Inactive)
    );
}

#[test]
fn case_20_merging_every_pull_request_delivers() {
    let mut host = completed();
    host.on_run("v", verify(true, &["foundation", "delivery"], &[]))
        .unwrap();
    let life = host
        .on_run("m1", report_pr("foundation", &pr(1), PrState::Merged))
        .unwrap();
    assert_eq!(life["history"][0]["outcome"]["kind"], "implemented");
    let life = host
        .on_run("m2", report_pr("delivery", &pr(2), PrState::Merged))
        .unwrap();
    assert_eq!(life["history"][0]["outcome"], json!({"kind":"delivered"}));
    assert_eq!(
        host.on_run("o", report_pr("delivery", &pr(2), PrState::Open)),
        Err(Refusal::PullRequestState)
    );
    assert_eq!(
        host.on_run("o", report_pr("delivery", &pr(3), PrState::Merged)),
        Err(Refusal::PullRequest)
    );
}

#[test]
fn case_21_a_verified_version_is_never_claimed_again() {
    let mut host = completed();
    host.on_run("v", verify(true, &["foundation", "delivery"], &[]))
        .unwrap();
    assert_eq!(host.claim(A), Err(Refusal::AlreadyVerified));
    host.add_version(VersionState::Approved);
    let (started, run) = host
        .claim(ClaimRequest {
            graph_version: 2,
            ..A
        })
        .unwrap();
    assert!(started);
    assert_eq!(run.graph_version, 2);
    assert_eq!(host.versions[0].state, VersionState::Superseded);
    assert_eq!(host.versions[1].state, VersionState::Locked);
}

#[test]
fn case_22_a_revision_request_ends_the_run_and_frees_the_version() {
    let mut host = claimed();
    let life = host.on_run("r", revise("The plan changed.")).unwrap();
    assert_eq!(life["execution"], json!({"state":"idle"}));
    assert_eq!(
        life["history"][0]["outcome"],
        json!({"kind":"revision_requested","reason":"The plan changed."})
    );
    assert_eq!(host.latest().unwrap().state, VersionState::Approved);
    assert_eq!(
        host.on_run("p", report_pr("foundation", &pr(1), PrState::Open)),
        Err(Refusal::Terminal)
    );
    assert_eq!(
        host.on_run("s", start("foundation")),
        Err(Refusal::Inactive)
    );
    let first = host.run().id;
    let (started, run) = host.claim(A).unwrap();
    assert!(started);
    assert_ne!(run.id, first);
}
