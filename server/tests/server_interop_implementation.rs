//! A whole implementation run through the official MCP clients, against
//! both servers on a SQLite file (IMPLEMENTATION.md, its issue's item 5):
//! the operator drafts and approves a graph with `graph …` on the served
//! database; then two agents, each its own client (its own session in the
//! handshake era), race `start_implementation`: one is `started`, the other
//! answered `{"state":"active","run":…}` with the winner's run. The winner
//! starts, blocks and restarts a task, reports its PR, completes it, meets
//! a failed verification, completes it again, passes, and reports every PR
//! merged: `read_implementation` reads the run back `delivered`. Every
//! answer's structured content is checked by the script:
//!
//! - the TypeScript SDK 1.32 in the handshake era (`interop/implementation.mjs`,
//!   the run's session the ULID of the winner's `mcp-session-id`);
//! - the TypeScript SDK v2 client on 2026-07-28 (`interop-v2/implementation.mjs`,
//!   the run id standing in for the session);
//! - the Python SDK in both eras (`python/implementation.py`).
//!
//! Afterwards the operator's `runs show` reads the same from the store (one
//! run for the racing claims, delivered), and `runs check` refolds its log.
//! Without an install a test prints "skipped: …" and passes, unless `CI` is
//! set.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/operator.rs"]
mod operator;

use std::path::{Path, PathBuf};

use operator::{approve_graph, operator};
use serde_json::{Value, json};
use support::{SERVERS, Server, TOKEN, temp_path};

const REPOSITORY: &str = "githubnext/chopin";

/// One document per run a client drives (a delivered graph is never
/// claimable again): the Python client drives one in each era.
const DOCUMENTS: [&str; 2] = [
    "6d1f3c2a-5b7e-4e0a-9c8d-1a2b3c4d5e01",
    "6d1f3c2a-5b7e-4e0a-9c8d-1a2b3c4d5e02",
];

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// `name` on a new SQLite file holding `documents` (imported at plan
/// revision 2), each with graph version 1 r1 p2 approved by the operator:
/// `foundation`, and `delivery` needing it.
fn approved(name: &str, documents: &[&str]) -> (Server, String) {
    let db = temp_path("interop-implementation", "db");
    let db = db.to_str().unwrap().to_owned();
    let import = temp_path("interop-implementation", "json");
    let rows: Vec<Value> = documents
        .iter()
        .map(|id| {
            json!({"id": id, "repository": REPOSITORY, "title": "Ship the release",
                   "source": "# Ship the release\n\nLay the foundation, then deliver.\n",
                   "revision": 2})
        })
        .collect();
    std::fs::write(&import, Value::Array(rows).to_string()).unwrap();
    let server = Server::on_db(name, &db, &["--import", import.to_str().unwrap()]);
    for id in documents {
        approve_graph(&db, id);
    }
    (server, db)
}

/// What the store holds after a client's run on `document`: one run (the
/// racing claims made no second), ended delivered, its log refolding.
fn assert_delivered_in_the_store(what: &str, db: &str, document: &str) {
    let out = operator(db, &["runs", "show", document]);
    let life: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: runs show: {e}"));
    assert_eq!(
        life["execution"],
        json!({"state": "idle"}),
        "{what}: {life}"
    );
    let history = life["history"].as_array().expect("a history");
    assert_eq!(history.len(), 1, "{what}: one run: {life}");
    assert_eq!(
        history[0]["outcome"],
        json!({"kind": "delivered"}),
        "{what}: {life}"
    );
    assert_eq!(history[0]["run"]["repository"], REPOSITORY, "{what}");
    let out = operator(db, &["runs", "check"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("every log folds"),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `program script URL TOKEN REPOSITORY DOCUMENT…` in `dir` against
/// each server, on `count` approved documents, then checks the store.
fn run_against_both(what: &str, program: &Path, script: &str, dir: &Path, count: usize) {
    for name in SERVERS {
        let documents = &DOCUMENTS[..count];
        let (server, db) = approved(name, documents);
        let url = format!("http://{}/mcp", server.addr);
        let what = format!("{what} against {name}");
        let mut args = vec![script, &url, TOKEN, REPOSITORY];
        args.extend_from_slice(documents);
        support::run_client(&what, program, dir, &args);
        for document in documents {
            assert_delivered_in_the_store(&what, &db, document);
        }
    }
}

#[test]
fn the_typescript_sdk_clients_race_the_claim_and_deliver_a_run_in_the_handshake_era() {
    let Some(dir) = support::npm_folder("interop", "@modelcontextprotocol/sdk") else {
        return;
    };
    run_against_both(
        "the TypeScript SDK client",
        Path::new("node"),
        "implementation.mjs",
        &dir,
        1,
    );
}

#[test]
fn the_typescript_sdk_v2_clients_race_the_claim_and_deliver_a_run_on_2026_07_28() {
    let Some(dir) = support::npm_folder("interop-v2", "@modelcontextprotocol/client") else {
        return;
    };
    run_against_both(
        "the TypeScript SDK v2 client",
        Path::new("node"),
        "implementation.mjs",
        &dir,
        1,
    );
}

#[test]
fn the_python_sdk_clients_race_the_claim_and_deliver_a_run_in_both_eras() {
    let Some(python) = support::python_sdk() else {
        return;
    };
    let dir = tests_dir().join("python");
    run_against_both(
        "the Python SDK client",
        &python,
        "implementation.py",
        &dir,
        2,
    );
}
