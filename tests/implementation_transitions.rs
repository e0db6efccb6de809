//! The transition table of IMPLEMENTATION.md §1.2 on an active run: each
//! command's states, what it keeps, and each refusal in the table's order
//! where two could apply.

mod common;

use chopin_mcp::implementation::{PrState, Refusal};
use common::implementation::{
    A, Host, block, complete, pr, report_pr, revise, start, task, task_states, verify,
};
use serde_json::json;

fn claimed_with(tasks: Vec<chopin_mcp::implementation::Task>) -> Host {
    let mut host = Host::fixture();
    host.versions[0].definition.tasks = tasks;
    host.claim(A).unwrap();
    host
}

fn claimed() -> Host {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host
}

/// `task` as completed with pull request `n` (open).
fn finish(host: &mut Host, task: &str, n: u32) {
    host.on_run(&format!("s-{task}-{n}"), start(task)).unwrap();
    host.on_run(
        &format!("p-{task}-{n}"),
        report_pr(task, &pr(n), PrState::Open),
    )
    .unwrap();
    host.on_run(&format!("c-{task}-{n}"), complete(task, "Done."))
        .unwrap();
}

#[test]
fn start_task_refuses_task_then_task_state_then_dependency() {
    let mut host = claimed();
    assert_eq!(host.on_run("k", start("ghost")), Err(Refusal::Task));
    assert_eq!(
        host.on_run("k", start("delivery")),
        Err(Refusal::Dependency)
    );
    finish(&mut host, "foundation", 1);
    finish(&mut host, "delivery", 2);
    assert_eq!(
        host.on_run("k", start("foundation")),
        Err(Refusal::TaskState)
    );
    // Reopened `foundation` leaves `delivery` completed on an unfinished
    // dependency: its state is refused before its dependency.
    host.on_run(
        "v",
        verify(false, &["foundation", "delivery"], &["foundation"]),
    )
    .unwrap();
    assert_eq!(host.on_run("k", start("delivery")), Err(Refusal::TaskState));
    assert_eq!(
        host.on_run("k", start("foundation")),
        Err(Refusal::TaskState)
    );
}

#[test]
fn start_task_resumes_a_blocked_task_clearing_its_blocker_and_keeping_its_pull_request() {
    let mut host = claimed();
    host.on_run("s", start("foundation")).unwrap();
    host.on_run("p", report_pr("foundation", &pr(4), PrState::Open))
        .unwrap();
    host.on_run("b", block("foundation", "CI is down."))
        .unwrap();
    let life = host.on_run("s2", start("foundation")).unwrap();
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"in_progress","pullRequest":{"url":pr(4),"state":"open"}})
    );
}

#[test]
fn block_task_takes_in_progress_and_queued_tasks_only() {
    let mut host = claimed();
    assert_eq!(host.on_run("b", block("ghost", "r")), Err(Refusal::Task));
    host.on_run("b1", block("delivery", "Waiting.")).unwrap();
    assert_eq!(
        host.on_run("b", block("delivery", "Again.")),
        Err(Refusal::TaskState)
    );
    finish(&mut host, "foundation", 1);
    assert_eq!(
        host.on_run("b", block("foundation", "r")),
        Err(Refusal::TaskState)
    );
}

#[test]
fn block_task_keeps_the_pull_request() {
    let mut host = claimed();
    host.on_run("s", start("foundation")).unwrap();
    host.on_run("p", report_pr("foundation", &pr(4), PrState::Closed))
        .unwrap();
    let life = host.on_run("b", block("foundation", "Rework.")).unwrap();
    assert_eq!(
        life["activity"]["tasks"][0],
        json!({"id":"foundation","state":"blocked","blocker":"Rework.","pullRequest":{"url":pr(4),"state":"closed"}})
    );
}

#[test]
fn report_pr_refuses_task_then_task_state_then_repository_then_pull_request_state() {
    let mut host = claimed();
    let elsewhere = "https://github.com/elsewhere/other/pull/9";
    assert_eq!(
        host.on_run("p", report_pr("ghost", elsewhere, PrState::Open)),
        Err(Refusal::Task)
    );
    assert_eq!(
        host.on_run("p", report_pr("foundation", elsewhere, PrState::Open)),
        Err(Refusal::TaskState)
    );
    host.on_run("s", start("foundation")).unwrap();
    host.on_run("m", report_pr("foundation", &pr(1), PrState::Merged))
        .unwrap();
    assert_eq!(
        host.on_run("p", report_pr("foundation", elsewhere, PrState::Merged)),
        Err(Refusal::Repository)
    );
    let slash = format!("{}/", pr(1));
    host.on_run("m2", report_pr("foundation", &slash, PrState::Open))
        .unwrap();
    assert_eq!(
        host.on_run("p", report_pr("foundation", &pr(1), PrState::Open)),
        Err(Refusal::PullRequestState)
    );
    assert_eq!(
        host.on_run("p", report_pr("foundation", &pr(1), PrState::Closed)),
        Err(Refusal::PullRequestState)
    );
}

#[test]
fn a_merge_marks_every_task_with_that_url_merged() {
    let mut host = claimed_with(vec![task("a", &[]), task("b", &[]), task("c", &[])]);
    for (key, id) in [("sa", "a"), ("sb", "b"), ("sc", "c")] {
        host.on_run(key, start(id)).unwrap();
    }
    host.on_run("pa", report_pr("a", &pr(5), PrState::Open))
        .unwrap();
    host.on_run("pb", report_pr("b", &pr(5), PrState::Closed))
        .unwrap();
    host.on_run("pc", report_pr("c", &pr(6), PrState::Open))
        .unwrap();
    let life = host
        .on_run("mc", report_pr("b", &pr(5), PrState::Merged))
        .unwrap();
    let prs: Vec<_> = (0..3)
        .map(|at| life["activity"]["tasks"][at]["pullRequest"]["state"].clone())
        .collect();
    assert_eq!(prs, [json!("merged"), json!("merged"), json!("open")]);
    // Later reports of that URL must say merged, from any task.
    assert_eq!(
        host.on_run("x", report_pr("c", &pr(5), PrState::Open)),
        Err(Refusal::PullRequestState)
    );
    host.on_run("y", report_pr("c", &pr(5), PrState::Merged))
        .unwrap();
}

#[test]
fn report_pr_takes_blocked_and_completed_tasks() {
    let mut host = claimed();
    finish(&mut host, "foundation", 1);
    host.on_run("b", block("delivery", "Waiting.")).unwrap();
    host.on_run("p1", report_pr("foundation", &pr(8), PrState::Open))
        .unwrap();
    let life = host
        .on_run("p2", report_pr("delivery", &pr(9), PrState::Open))
        .unwrap();
    assert_eq!(task_states(&life), ["completed", "blocked"]);
    assert_eq!(life["activity"]["tasks"][0]["pullRequest"]["url"], pr(8));
    assert_eq!(life["activity"]["tasks"][1]["pullRequest"]["url"], pr(9));
}

#[test]
fn complete_task_refuses_task_then_task_state_then_pull_request() {
    let mut host = claimed();
    assert_eq!(host.on_run("c", complete("ghost", "s")), Err(Refusal::Task));
    assert_eq!(
        host.on_run("c", complete("foundation", "s")),
        Err(Refusal::TaskState)
    );
    host.on_run("s", start("foundation")).unwrap();
    assert_eq!(
        host.on_run("c", complete("foundation", "s")),
        Err(Refusal::PullRequest)
    );
    host.on_run("p", report_pr("foundation", &pr(1), PrState::Open))
        .unwrap();
    host.on_run("b", block("foundation", "r")).unwrap();
    assert_eq!(
        host.on_run("c", complete("foundation", "s")),
        Err(Refusal::TaskState),
        "a blocked task, pull request or not"
    );
}

#[test]
fn verification_is_checked_before_the_tasks_and_each_task_in_order() {
    let mut host = claimed_with(vec![task("a", &[]), task("b", &[]), task("c", &[])]);
    let all = ["a", "b", "c"];
    // Nothing completed, and the report inconsistent: verification first.
    assert_eq!(
        host.on_run("v", verify(true, &["a"], &[])),
        Err(Refusal::Verification)
    );
    assert_eq!(
        host.on_run("v", verify(true, &all, &[])),
        Err(Refusal::TaskState)
    );
    finish(&mut host, "a", 1);
    host.on_run("x", report_pr("a", &pr(1), PrState::Closed))
        .unwrap();
    // Task by task: `a`'s closed pull request before `b`'s state.
    assert_eq!(
        host.on_run("v", verify(true, &all, &[])),
        Err(Refusal::PullRequest)
    );
    host.on_run("y", report_pr("a", &pr(2), PrState::Open))
        .unwrap();
    assert_eq!(
        host.on_run("v", verify(true, &all, &[])),
        Err(Refusal::TaskState)
    );
    finish(&mut host, "b", 3);
    finish(&mut host, "c", 4);
    let life = host.on_run("v", verify(true, &all, &[])).unwrap();
    assert_eq!(life["history"][0]["outcome"]["kind"], "implemented");
    assert_eq!(
        life["history"][0]["progress"]["verification"]["passed"],
        true
    );
}

#[test]
fn a_failed_verification_reopens_exactly_the_tasks_needing_work() {
    let mut host = claimed_with(vec![task("a", &[]), task("b", &[]), task("c", &[])]);
    for (at, id) in ["a", "b", "c"].into_iter().enumerate() {
        finish(&mut host, id, at as u32 + 1);
    }
    let life = host
        .on_run("v", verify(false, &["c", "a", "b"], &["c", "a"]))
        .unwrap();
    assert_eq!(
        task_states(&life),
        ["in_progress", "completed", "in_progress"]
    );
    assert!(life["activity"]["tasks"][0].get("summary").is_none());
    assert_eq!(life["activity"]["tasks"][1]["summary"], "Done.");
    assert_eq!(
        life["activity"]["verification"]["tasksNeedingWork"],
        json!(["c", "a"])
    );
}

#[test]
fn request_revision_ends_an_active_run_from_any_task_state() {
    let mut host = claimed();
    host.on_run("s", start("foundation")).unwrap();
    host.on_run("b", block("delivery", "r")).unwrap();
    let life = host.on_run("r", revise("Rethink.")).unwrap();
    assert_eq!(life["execution"]["state"], "idle");
    assert_eq!(
        life["history"][0]["progress"]["tasks"],
        json!([{"id":"foundation","state":"in_progress"},{"id":"delivery","state":"blocked","blocker":"r"}])
    );
}
