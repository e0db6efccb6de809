//! How the planner's turns are admitted and run (SURFACE.md §9), on both
//! servers: at most `--planner-workers` running and `--planner-queue`
//! waiting, beyond which a call is `planner-queue-full` and records
//! nothing; one running turn per document, while turns of other documents
//! run beside it; and a turn past `--planner-timeout` killed with its whole
//! process group.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/planner.rs"]
mod planner;

use std::path::Path;
use std::time::Duration;

use planner::{OTHER_ID, all_ended, invoke, scratch, script, start, wait_for};
use serde_json::json;
use support::{DOC_ID, SERVERS, temp_path};

/// A planner that runs until the file `go` appears in its first argument.
fn gated() -> std::path::PathBuf {
    script(
        "planner-gated",
        "while [ ! -e \"$1/go\" ]; do sleep 0.02; done\necho released\n",
    )
}

fn invoked(answer: &serde_json::Value) -> bool {
    answer.get("isError").is_none() && answer["structuredContent"]["id"].is_string()
}

#[test]
fn beyond_the_workers_and_the_queue_a_call_is_queue_full_and_records_nothing() {
    let planner = gated();
    for name in SERVERS {
        let db = temp_path("planner-full", "db");
        let gate = scratch("planner-full-gate");
        let server = start(
            name,
            &db,
            &[
                "--planner-command",
                planner.to_str().unwrap(),
                "--planner-arg",
                gate.to_str().unwrap(),
                "--planner-queue",
                "1",
            ],
        );
        assert!(invoked(&invoke(&server, DOC_ID, "first")), "{name}");
        wait_for(&db, |turns| {
            turns.first().is_some_and(|t| t.state == "running")
        });
        assert!(invoked(&invoke(&server, OTHER_ID, "second")), "{name}");
        let full = invoke(&server, DOC_ID, "third");
        assert_eq!(
            (&full["structuredContent"], &full["isError"]),
            (&json!({"code": "planner-queue-full"}), &json!(true)),
            "{name}"
        );
        // An unseen document is unavailable even when the queue is full.
        let missing = invoke(&server, "no-such-document", "fourth");
        assert_eq!(
            missing["structuredContent"],
            json!({"code": "document-unavailable"})
        );
        let turns = planner::turns(&db);
        let states: Vec<&str> = turns.iter().map(|t| t.state.as_str()).collect();
        assert_eq!(states, ["running", "queued"], "{name}");
        std::fs::write(gate.join("go"), "").unwrap();
        let turns = wait_for(&db, |turns| turns.len() == 2 && all_ended(turns));
        assert!(
            turns
                .iter()
                .all(|t| t.output.as_deref() == Some("released\n"))
        );
        // Room again.
        assert!(invoked(&invoke(&server, DOC_ID, "fifth")), "{name}");
        wait_for(&db, |turns| turns.len() == 3 && all_ended(turns));
    }
}

/// The planner of the per-document test: notes itself running, waits, and
/// says how many turns (its own included) were running meanwhile.
fn counting() -> std::path::PathBuf {
    script(
        "planner-counting",
        "touch \"$1/running.$$\"\nsleep 0.6\nls \"$1\" | grep -c '^running'\nrm \"$1/running.$$\"\n",
    )
}

fn overlaps(db: &Path) -> Vec<String> {
    let turns = wait_for(db, |turns| turns.len() == 2 && all_ended(turns));
    turns
        .iter()
        .map(|turn| turn.output.clone().unwrap_or_default())
        .collect()
}

#[test]
fn a_documents_turns_run_one_at_a_time_while_other_documents_run_beside_them() {
    let planner = counting();
    for name in SERVERS {
        for documents in [[DOC_ID, DOC_ID], [DOC_ID, OTHER_ID]] {
            let db = temp_path("planner-per-document", "db");
            let dir = scratch("planner-per-document");
            let server = start(
                name,
                &db,
                &[
                    "--planner-command",
                    planner.to_str().unwrap(),
                    "--planner-arg",
                    dir.to_str().unwrap(),
                    "--planner-workers",
                    "2",
                ],
            );
            for document in documents {
                assert!(invoked(&invoke(&server, document, "Plan.")), "{name}");
            }
            let seen = overlaps(&db);
            if documents[0] == documents[1] {
                // Two workers, one document: never two at once.
                assert_eq!(seen, ["1\n", "1\n"], "{name}");
            } else {
                // The first to end saw the other running.
                assert!(seen.iter().any(|s| s == "2\n"), "{name}: {seen:?}");
            }
        }
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // how long the turn took
fn a_turn_past_the_timeout_is_killed_with_its_process_group() {
    let planner = script(
        "planner-slow",
        "sleep 60 &\necho $! > \"$1/child\"\necho waiting\nsleep 60\necho never\n",
    );
    for name in SERVERS {
        let db = temp_path("planner-timeout", "db");
        let dir = scratch("planner-timeout");
        let server = start(
            name,
            &db,
            &[
                "--planner-command",
                planner.to_str().unwrap(),
                "--planner-arg",
                dir.to_str().unwrap(),
                "--planner-timeout",
                "1",
            ],
        );
        let began = std::time::Instant::now();
        assert!(invoked(&invoke(&server, DOC_ID, "Plan.")), "{name}");
        let turns = wait_for(&db, all_ended);
        assert!(began.elapsed() < Duration::from_secs(15), "{name}");
        assert_eq!(
            (turns[0].state.as_str(), turns[0].exit_status),
            ("timed-out", None),
            "{name}"
        );
        assert_eq!(turns[0].output.as_deref(), Some("waiting\n"), "{name}");
        // The background child was in the group: gone too (or a zombie
        // until init reaps it).
        let child = std::fs::read_to_string(dir.join("child")).unwrap();
        let stat = format!("/proc/{}/stat", child.trim());
        let gone = (0..100).any(|_| {
            let alive = std::fs::read_to_string(&stat)
                .is_ok_and(|stat| !stat.split(") ").nth(1).is_some_and(|s| s.starts_with('Z')));
            if alive {
                std::thread::sleep(Duration::from_millis(20));
            }
            !alive
        });
        assert!(gone, "{name}: the planner's child outlived the timeout");
    }
}
