//! No replay, no silent loss (SURFACE.md §9), on both servers: the turns a
//! server left queued or running when it was killed are marked
//! `interrupted` when it starts again, said in its banner and its log,
//! and not run again.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/planner.rs"]
mod planner;

use planner::{OTHER_ID, invoke, scratch, script, start, start_capturing, wait_for};
use support::{DOC_ID, SERVERS, temp_path};

#[test]
fn turns_left_unfinished_are_interrupted_at_the_next_start() {
    let planner = script(
        "planner-restart",
        "echo ran >> \"$1/runs\"\nwhile [ ! -e \"$1/go\" ]; do sleep 0.02; done\n",
    );
    for name in SERVERS {
        let db = temp_path("planner-restart", "db");
        let dir = scratch("planner-restart");
        let flags = [
            "--planner-command",
            planner.to_str().unwrap(),
            "--planner-arg",
            dir.to_str().unwrap(),
        ];
        let server = start(name, &db, &flags);
        invoke(&server, DOC_ID, "first");
        invoke(&server, OTHER_ID, "second");
        wait_for(&db, |turns| {
            turns.len() == 2 && turns[0].state == "running" && turns[1].state == "queued"
        });
        server.kill();
        // The killed server's planner is an orphan now: let it end.
        std::fs::write(dir.join("go"), "").unwrap();

        let again = start_capturing(name, &db, &flags, true);
        let banner = again.banner.join("\n");
        assert!(
            banner.contains("planner: 2 turns left unfinished by this server's last run"),
            "{name}: {banner}"
        );
        let states: Vec<String> = planner::turns(&db).into_iter().map(|t| t.state).collect();
        assert_eq!(states, ["interrupted", "interrupted"], "{name}");
        let line = planner::logged(&again, |line| {
            line.contains("marked interrupted") && line.contains("invoke_planner")
        });
        assert!(line.is_some(), "{name}: {}", again.stderr.lock().unwrap());
        // Not run again: the first turn's one run, the second's none.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let runs = std::fs::read_to_string(dir.join("runs")).unwrap();
        assert_eq!(runs, "ran\n", "{name}");
        // A third start finds nothing left.
        drop(again);
        let third = start(name, &db, &flags);
        assert!(
            !third.banner.join("\n").contains("left unfinished"),
            "{name}"
        );
    }
}
