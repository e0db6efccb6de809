//! The planner's end-to-end tests' pieces: planner scripts written by the
//! test, a server on a SQLite file with the planner's flags, invoke_planner
//! calls, and the `planner_turns` rows read from the file.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::{Server, temp_path};

/// A second document beside the seed's, for the tests that need two.
pub const OTHER_ID: &str = "0b9c5e2a-7d41-4c55-9a0e-3f2d1c6b8a77";

/// A planner script: `body` after `#!/bin/sh`, executable, in the target's
/// temp directory.
pub fn script(name: &str, body: &str) -> PathBuf {
    let path = temp_path(name, "sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).expect("write the planner script");
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_mode(0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    path
}

/// A fresh directory in the target's temp directory (a script's
/// `--planner-arg`: where it leaves files, and finds its `go`).
pub fn scratch(name: &str) -> PathBuf {
    let path = temp_path(name, "dir");
    std::fs::create_dir_all(&path).unwrap();
    path
}

/// An import file holding the seed document and [`OTHER_ID`].
pub fn two_documents() -> PathBuf {
    let path = temp_path("planner-import", "json");
    let documents = json!([
        {"id": super::support::DOC_ID, "repository": "githubnext/chopin",
         "title": super::support::DOC_TITLE, "source": "# Release readiness\n", "revision": 2},
        {"id": OTHER_ID, "repository": "githubnext/chopin",
         "title": "Other", "source": "# Other\n", "revision": 0},
    ]);
    std::fs::write(&path, documents.to_string()).unwrap();
    path
}

/// `name` on the SQLite file `db` with both documents imported, the
/// token `allowed` for `octocat` (who sees everything) and `extra` flags.
pub fn start(name: &str, db: &Path, extra: &[&str]) -> Server {
    start_capturing(name, db, extra, false)
}

/// [`start`], with its standard error captured when `capture`.
pub fn start_capturing(name: &str, db: &Path, extra: &[&str], capture: bool) -> Server {
    let import = two_documents();
    let mut args = vec![
        "--db",
        db.to_str().unwrap(),
        "--import",
        import.to_str().unwrap(),
        "--token",
        "allowed=octocat",
        "--grant",
        "octocat=*",
    ];
    args.extend_from_slice(extra);
    if capture {
        Server::start_capturing(name, &args, &[])
    } else {
        Server::start(name, &args)
    }
}

/// Calls invoke_planner on the document `id` with `instruction`.
pub fn invoke(server: &Server, id: &str, instruction: &str) -> Value {
    let arguments = json!({"id": id, "instruction": instruction}).to_string();
    result(&server.call("invoke_planner", &arguments))
}

/// A response's JSON-RPC `result` (or its `error`).
pub fn result(response: &str) -> Value {
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let body: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{response}"));
    match body.get("result") {
        Some(result) => result.clone(),
        None => body["error"].clone(),
    }
}

/// One row of `planner_turns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRow {
    pub document: String,
    pub caller: String,
    /// The client's name and version, a space between.
    pub client: String,
    pub instruction: String,
    pub checkout: Option<String>,
    pub state: String,
    pub exit_status: Option<i64>,
    pub output: Option<String>,
    pub server: String,
}

/// Every turn the file holds, in order.
pub fn turns(db: &Path) -> Vec<TurnRow> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT document_id, caller, client_name || ' ' || client_version, instruction,
                    checkout, state, exit_status, output, server
               FROM planner_turns ORDER BY seq",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            Ok(TurnRow {
                document: row.get(0)?,
                caller: row.get(1)?,
                client: row.get(2)?,
                instruction: row.get(3)?,
                checkout: row.get(4)?,
                state: row.get(5)?,
                exit_status: row.get(6)?,
                output: row.get(7)?,
                server: row.get(8)?,
            })
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The turns once `done` holds for them (at most 20 s).
#[allow(clippy::disallowed_methods)] // a test's own deadline
pub fn wait_for(db: &Path, done: impl Fn(&[TurnRow]) -> bool) -> Vec<TurnRow> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = turns(db);
        if done(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "turns never got there: {now:#?}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Whether every turn has ended.
pub fn all_ended(turns: &[TurnRow]) -> bool {
    turns
        .iter()
        .all(|turn| !["queued", "running"].contains(&turn.state.as_str()))
}

/// The first line of the server's captured standard error for which
/// `wanted` holds, once it has been read that far (at most 5 s).
pub fn logged(server: &Server, wanted: impl Fn(&str) -> bool) -> Option<String> {
    for _ in 0..250 {
        let logs = server.stderr.lock().unwrap().clone();
        if let Some(line) = logs.lines().find(|line| wanted(line)) {
            return Some(line.to_owned());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}
