//! The operator's `graph` commands (IMPLEMENTATION.md §4) run with the
//! server binary against a database servers are serving: the seed
//! document's graph (`interop/harness.rs`, revision 2) drafted and
//! approved as version 1 r1 p2, tasks `foundation` and `delivery` needing
//! it, as IMPLEMENTATION.md §5's fixture has it.
#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

use serde_json::json;

use super::support::{DOC_ID, binary, temp_path};

/// Runs `chopin-mcp-server args --db db`, which must succeed: its output.
pub fn operator(db: &str, args: &[&str]) -> Output {
    let out = Command::new(binary("chopin-mcp-server"))
        .args(args)
        .args(["--db", db])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Drafts and approves the seed document's graph on `db` (a path or URL):
/// version 1 r1 p2, base `main` at `0123abcd`.
pub fn approve_seed_graph(db: &str) {
    approve_graph(db, DOC_ID);
}

/// [`approve_seed_graph`] for document `id` (at revision 2, without
/// provenance) on `db`.
pub fn approve_graph(db: &str, id: &str) {
    let tasks = temp_path("operator-tasks", "json");
    let task = |id: &str, needs: &[&str]| {
        json!({"id": id, "title": format!("Task {id}"), "context": "Context.", "goal": "Goal.",
               "acceptance": ["First.", "Second."], "dependsOn": needs})
    };
    let definition = json!({"tasks": [task("foundation", &[]), task("delivery", &["foundation"])]});
    std::fs::write(&tasks, definition.to_string()).unwrap();
    let tasks = tasks.to_str().unwrap();
    operator(
        db,
        &[
            "graph",
            "draft",
            id,
            "--plan-revision",
            "2",
            "--tasks",
            tasks,
            "--base-branch",
            "main",
            "--base-commit",
            "0123abcd",
        ],
    );
    operator(
        db,
        &["graph", "approve", id, "--version", "1", "--revision", "1"],
    );
}
