//! IMPLEMENTATION.md §1.2's rules before the table: the idempotency key
//! (replayed or conflict, across the whole document), an ended run's
//! answers (`inactive`, `terminal`, a passed run's `report_pr`), the run
//! (`run`) and an unfoldable stored log (`invalid-lifecycle`), in that
//! order.

mod common;

use chopin_mcp::implementation::{
    Command, Decision, Event, KeyUse, PrState, Refusal, Report, RunLog, StoredKey, check_key,
    fingerprint, fold, report,
};
use common::implementation::{
    A, CALLER, Host, block, complete, fixture_tasks, pr, report_pr, revise, start, verify,
};

fn claimed() -> Host {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host
}

/// A run ended by a passing verification, pull requests 1 and 2 open.
fn passed() -> Host {
    let mut host = claimed();
    for (task, n) in [("foundation", 1), ("delivery", 2)] {
        host.on_run(&format!("s{n}"), start(task)).unwrap();
        host.on_run(&format!("p{n}"), report_pr(task, &pr(n), PrState::Open))
            .unwrap();
        host.on_run(&format!("c{n}"), complete(task, "Done."))
            .unwrap();
    }
    host.on_run("v", verify(true, &["foundation", "delivery"], &[]))
        .unwrap();
    host
}

#[test]
fn a_key_is_replayed_only_for_the_same_caller_and_fingerprint() {
    let stored = StoredKey {
        caller: "allowed",
        fingerprint: "f1",
    };
    assert_eq!(check_key(None, "allowed", "f1"), Ok(KeyUse::Fresh));
    assert_eq!(
        check_key(Some(stored), "allowed", "f1"),
        Ok(KeyUse::Replayed)
    );
    assert_eq!(
        check_key(Some(stored), "allowed", "f2"),
        Err(Refusal::IdempotencyConflict)
    );
    assert_eq!(
        check_key(Some(stored), "other", "f1"),
        Err(Refusal::IdempotencyConflict)
    );
}

#[test]
fn the_key_is_checked_before_the_run_has_ended() {
    let mut host = passed();
    let before = host.life_json();
    // The passing verification itself, sent again: replayed, not inactive.
    host.on_run("v", verify(true, &["foundation", "delivery"], &[]))
        .unwrap();
    assert_eq!(host.life_json(), before);
    assert_eq!(
        host.on_run("v", start("foundation")),
        Err(Refusal::IdempotencyConflict)
    );
}

#[test]
fn keys_are_unique_across_the_documents_runs() {
    let mut host = claimed();
    host.on_run("k1", start("foundation")).unwrap();
    host.on_run("r", revise("Again.")).unwrap();
    host.claim(A).unwrap();
    assert_eq!(
        host.on_run("k1", start("foundation")),
        Err(Refusal::IdempotencyConflict)
    );
    host.on_run("k2", start("foundation")).unwrap();
}

#[test]
fn a_passed_run_takes_report_pr_only() {
    let mut host = passed();
    for command in [
        start("foundation"),
        block("foundation", "r"),
        complete("foundation", "s"),
        verify(true, &["foundation", "delivery"], &[]),
        revise("r"),
    ] {
        assert_eq!(host.on_run("x", command), Err(Refusal::Inactive));
    }
}

#[test]
fn a_passed_runs_report_pr_needs_a_completed_tasks_own_url_then_repository_then_state() {
    let mut host = passed();
    assert_eq!(
        host.on_run("x", report_pr("ghost", &pr(1), PrState::Merged)),
        Err(Refusal::PullRequest)
    );
    assert_eq!(
        host.on_run("x", report_pr("foundation", &pr(2), PrState::Merged)),
        Err(Refusal::PullRequest),
        "another task's URL"
    );
    assert_eq!(
        host.on_run(
            "x",
            report_pr(
                "foundation",
                "https://github.com/x/y/pull/1",
                PrState::Merged
            )
        ),
        Err(Refusal::PullRequest),
        "a URL of no task is pull-request before repository"
    );
    host.on_run("m", report_pr("foundation", &pr(1), PrState::Merged))
        .unwrap();
    assert_eq!(
        host.on_run("x", report_pr("foundation", &pr(1), PrState::Closed)),
        Err(Refusal::PullRequestState)
    );
    let life = host
        .on_run("c", report_pr("delivery", &pr(2), PrState::Closed))
        .unwrap();
    assert_eq!(life["history"][0]["outcome"]["kind"], "implemented");
    assert_eq!(
        life["history"][0]["progress"]["tasks"][1]["pullRequest"]["state"],
        "closed"
    );
}

#[test]
fn a_revision_requested_run_answers_terminal_to_report_pr_and_inactive_to_the_rest() {
    let mut host = claimed();
    host.on_run("s", start("foundation")).unwrap();
    host.on_run("r", revise("Rethink.")).unwrap();
    assert_eq!(
        host.on_run("x", report_pr("foundation", &pr(1), PrState::Open)),
        Err(Refusal::Terminal)
    );
    assert_eq!(
        host.on_run("x", report_pr("ghost", "not a url", PrState::Open)),
        Err(Refusal::Terminal)
    );
    for command in [start("delivery"), complete("foundation", "s"), revise("r")] {
        assert_eq!(host.on_run("x", command), Err(Refusal::Inactive));
    }
}

#[test]
fn a_run_of_no_kind_here_is_refused_after_the_key() {
    let command = start("foundation");
    let call = |stored| {
        report(Report {
            stored,
            caller: CALLER,
            fingerprint: "f",
            run: None,
            idempotency_key: "k",
            command: &command,
        })
    };
    assert_eq!(call(None).unwrap_err(), Refusal::Run);
    let replay = StoredKey {
        caller: CALLER,
        fingerprint: "f",
    };
    assert!(matches!(call(Some(replay)), Ok(Decision::Replayed)));
}

#[test]
fn an_unfoldable_stored_log_is_invalid_lifecycle_before_the_table() {
    let host = claimed();
    let run = host.run();
    let tasks = fixture_tasks();
    let event = |key: &str, command: Command| Event {
        idempotency_key: key.into(),
        command,
    };
    let unfoldable = [
        vec![event("a", start("delivery"))],
        vec![
            event("a", start("foundation")),
            event("a", block("delivery", "r")),
        ],
        vec![event("a", revise("r")), event("b", revise("r"))],
        vec![event("a", complete("foundation", "s"))],
    ];
    for log in &unfoldable {
        assert_eq!(
            fold(&run, &tasks, log).unwrap_err(),
            Refusal::InvalidLifecycle
        );
        // Even for a command the table would refuse otherwise, or one an
        // ended run would.
        for command in [start("ghost"), revise("r")] {
            let next = event("fresh", command.clone());
            let refused = report(Report {
                stored: None,
                caller: CALLER,
                fingerprint: &fingerprint(&run.id, &next),
                run: Some(RunLog {
                    run: &run,
                    tasks: &tasks,
                    events: log,
                }),
                idempotency_key: "fresh",
                command: &command,
            });
            assert_eq!(refused.unwrap_err(), Refusal::InvalidLifecycle);
        }
    }
}

#[test]
fn a_key_already_in_the_runs_log_is_never_appended_twice() {
    // A host whose key lookup missed (it should not): the log holds it.
    let mut host = claimed();
    host.on_run("k1", start("foundation")).unwrap();
    let run = host.run();
    let command = block("delivery", "r");
    let refused = report(Report {
        stored: None,
        caller: CALLER,
        fingerprint: "f",
        run: Some(RunLog {
            run: &run,
            tasks: &fixture_tasks(),
            events: &host.runs[0].1,
        }),
        idempotency_key: "k1",
        command: &command,
    });
    assert_eq!(refused.unwrap_err(), Refusal::IdempotencyConflict);
}

#[test]
fn a_refused_command_changes_nothing() {
    let host = passed();
    let run = host.run();
    let mut state = fold(&run, &fixture_tasks(), &host.runs[0].1).unwrap();
    let before = state.clone();
    for command in [
        start("foundation"),
        report_pr("foundation", &pr(2), PrState::Merged),
        report_pr("delivery", "https://github.com/x/y/pull/2", PrState::Merged),
    ] {
        let event = Event {
            idempotency_key: "fresh".into(),
            command,
        };
        assert!(state.apply(&event).is_err());
        assert_eq!(state, before);
    }
}
