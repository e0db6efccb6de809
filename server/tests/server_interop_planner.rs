//! invoke_planner through real clients, against both servers started with a
//! planner script: the official MCP TypeScript SDK client 1.32
//! (`interop/planner.mjs`, handshake era), the TypeScript SDK v2 client
//! (`interop-v2/planner.mjs`, 2026-07-28) and the Python SDK client
//! (`python/planner.py`, both eras). Each reads the answer (validated by its
//! SDK against the tool's output schema), an unknown document's error
//! result, and a relative checkout's -32602 refusal; then the script's own
//! record shows each accepted call ran one turn with its instruction on
//! standard input and the four documented variables, and the store's rows
//! hold the caller and the checkout. The refused calls ran nothing.
//!
//! Needs `npm ci` in `server/tests/interop` and `server/tests/interop-v2`,
//! and the Python venv of `server/tests/python`; without them a test says so
//! and passes, unless `CI` is set.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/planner.rs"]
mod planner;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use planner::{all_ended, scratch, script, start, wait_for};
use support::{DOC_ID, SERVERS, Server, TOKEN, temp_path};

/// A planner that records each turn in the folder its first argument names:
/// its environment in `<pid>.env`, then its standard input in `<pid>.stdin`
/// (each written aside and moved in place, so a file seen is complete).
const RECORDER: &str = "dir=\"$1\"\n\
/usr/bin/env > \"$dir/$$.env.part\"\n\
/bin/cat > \"$dir/$$.stdin.part\"\n\
/bin/mv \"$dir/$$.env.part\" \"$dir/$$.env\"\n\
/bin/mv \"$dir/$$.stdin.part\" \"$dir/$$.stdin\"\n";

/// A server on a fresh database whose planner is [`RECORDER`], and the
/// folder it records into.
fn recording_server(name: &str) -> (Server, PathBuf, PathBuf) {
    let recorder = script("interop-planner", RECORDER);
    let records = scratch("interop-planner-records");
    let db = temp_path("interop-planner", "db");
    let server = start(
        name,
        &db,
        &[
            "--planner-command",
            recorder.to_str().unwrap(),
            "--planner-arg",
            records.to_str().unwrap(),
        ],
    );
    (server, db, records)
}

/// The turns the recorder wrote, once `count` of them are there (at most
/// 20 s): each one's standard input and its `CHOPIN_*` variables, sorted.
#[allow(clippy::disallowed_methods)] // a test's own deadline
fn recorded(records: &Path, count: usize) -> Vec<(String, Vec<String>)> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut stdins: Vec<PathBuf> = std::fs::read_dir(records)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "stdin"))
            .collect();
        if stdins.len() >= count {
            stdins.sort();
            let mut turns: Vec<(String, Vec<String>)> = stdins
                .iter()
                .map(|stdin| {
                    let env = std::fs::read_to_string(stdin.with_extension("env")).unwrap();
                    let mut chopin: Vec<String> = env
                        .lines()
                        .filter(|line| line.starts_with("CHOPIN_"))
                        .map(str::to_owned)
                        .collect();
                    chopin.sort();
                    (std::fs::read_to_string(stdin).unwrap(), chopin)
                })
                .collect();
            turns.sort();
            return turns;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {count} turns recorded",
            stdins.len()
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Checks that exactly the `instructions` ran, one turn each, for the seed
/// document as octocat with the client's checkout, and that the store's
/// rows agree (the unknown document and the relative checkout left none).
fn assert_turns(name: &str, db: &Path, records: &Path, instructions: &[String]) {
    let rows = wait_for(db, |rows| {
        rows.len() >= instructions.len() && all_ended(rows)
    });
    assert_eq!(rows.len(), instructions.len(), "{name}: {rows:#?}");
    for row in &rows {
        assert_eq!(
            (row.document.as_str(), row.caller.as_str()),
            (DOC_ID, "octocat"),
            "{name}"
        );
        assert_eq!(
            row.checkout.as_deref(),
            Some("/tmp/chopin-checkout"),
            "{name}"
        );
        assert_eq!(
            (row.state.as_str(), row.exit_status),
            ("exited", Some(0)),
            "{name}: {row:#?}"
        );
    }
    let mut stored: Vec<&str> = rows.iter().map(|row| row.instruction.as_str()).collect();
    stored.sort_unstable();
    let mut sent: Vec<&str> = instructions.iter().map(String::as_str).collect();
    sent.sort_unstable();
    assert_eq!(stored, sent, "{name}");
    let turns = recorded(records, instructions.len());
    let stdins: Vec<&str> = turns.iter().map(|(stdin, _)| stdin.as_str()).collect();
    assert_eq!(stdins, sent, "{name}");
    for (_, env) in &turns {
        assert_eq!(
            env,
            &[
                "CHOPIN_CALLER=octocat".to_owned(),
                format!("CHOPIN_DOCUMENT_ID={DOC_ID}"),
                format!("CHOPIN_DOCUMENT_URL=/documents/{DOC_ID}"),
                "CHOPIN_REPOSITORY=githubnext/chopin".to_owned(),
            ],
            "{name}"
        );
    }
}

#[test]
fn the_typescript_sdk_client_invokes_the_planner_and_reads_its_refusals() {
    let Some(dir) = support::npm_folder("interop", "@modelcontextprotocol/sdk") else {
        return;
    };
    for name in SERVERS {
        let (server, db, records) = recording_server(name);
        let url = format!("http://{}/mcp", server.addr);
        let instruction = format!("Plan the release ({name}, TypeScript SDK 1.32).\n");
        support::run_client(
            &format!("the TypeScript SDK client's invoke_planner against {name}"),
            Path::new("node"),
            &dir,
            &["planner.mjs", &url, TOKEN, DOC_ID, &instruction],
        );
        assert_turns(name, &db, &records, &[instruction]);
    }
}

#[test]
fn the_typescript_v2_client_invokes_the_planner_and_reads_its_refusals() {
    let Some(dir) = support::npm_folder("interop-v2", "@modelcontextprotocol/client") else {
        return;
    };
    for name in SERVERS {
        let (server, db, records) = recording_server(name);
        let url = format!("http://{}/mcp", server.addr);
        let instruction = format!("Plan the release ({name}, TypeScript v2 client).\n");
        support::run_client(
            &format!("the TypeScript v2 client's invoke_planner against {name}"),
            Path::new("node"),
            &dir,
            &["planner.mjs", &url, TOKEN, DOC_ID, &instruction],
        );
        assert_turns(name, &db, &records, &[instruction]);
    }
}

#[test]
fn the_python_sdk_client_invokes_the_planner_in_both_eras_and_reads_its_refusals() {
    let Some(python) = support::python_sdk() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    for name in SERVERS {
        let (server, db, records) = recording_server(name);
        let url = format!("http://{}/mcp", server.addr);
        let instruction = format!("Plan the release ({name}, Python SDK)");
        support::run_client(
            &format!("the Python SDK client's invoke_planner against {name}"),
            &python,
            &dir,
            &["planner.py", &url, TOKEN, DOC_ID, &instruction],
        );
        let sent = ["legacy", "2026-07-28"].map(|mode| format!("{instruction} [{mode}]"));
        assert_turns(name, &db, &records, &sent);
    }
}
