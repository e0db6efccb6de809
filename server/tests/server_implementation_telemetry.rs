//! Logs and metrics name the implementation tools (IMPLEMENTATION.md §4 on
//! the reference server): each request line says `tool=start_task` (and the
//! other seven by name, never `other`), `requests_total` counts them by
//! tool, and the store's claim and report are timed as operations of their
//! own.

#[path = "interop/harness.rs"]
mod support;

use std::process::{Command, Stdio};

use serde_json::json;
use support::{DOC_ID, Server, TOKEN, db_args, import_file, scrape, status, temp_path};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Codex","version":"1.2.3"}}}"#;

fn operator(db: &str, args: &[&str]) {
    let out = Command::new(support::binary("chopin-mcp-server"))
        .args(args)
        .args(["--db", db])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn request_lines_and_metrics_name_the_implementation_tools() {
    let db = temp_path("implementation-telemetry", "db");
    let db = db.to_str().unwrap();
    let import = import_file();
    let extra = [
        "--import",
        import.to_str().unwrap(),
        "--metrics-listen",
        "127.0.0.1:0",
    ];
    let server = Server::start_capturing(
        "chopin-mcp-server",
        &db_args(db, &extra),
        &[("RUST_LOG", "info")],
    );
    let tasks = temp_path("tasks", "json");
    let task = json!({"id": "only", "title": "Only", "context": "C.", "goal": "G.",
                      "acceptance": ["One.", "Two."], "dependsOn": []});
    std::fs::write(&tasks, json!({"tasks": [task]}).to_string()).unwrap();
    operator(
        db,
        &[
            "graph",
            "draft",
            DOC_ID,
            "--plan-revision",
            "2",
            "--tasks",
            tasks.to_str().unwrap(),
            "--base-branch",
            "main",
            "--base-commit",
            "c0ffee",
        ],
    );
    operator(
        db,
        &[
            "graph",
            "approve",
            DOC_ID,
            "--version",
            "1",
            "--revision",
            "1",
        ],
    );

    let response = server.post(INITIALIZE, Some(TOKEN));
    let session = response
        .split("\r\n\r\n")
        .next()
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .unwrap()
        .to_owned();
    let call = |tool: &str, arguments: serde_json::Value| {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}});
        let headers = format!("authorization: Bearer {TOKEN}\r\nmcp-session-id: {session}\r\n");
        let response = server.post_with(&body.to_string(), &headers);
        assert_eq!(status(&response), 200, "{response}");
        let reply: serde_json::Value =
            serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        reply["result"]["structuredContent"].clone()
    };
    call("read_implementation", json!({"id": DOC_ID}));
    let started = call(
        "start_implementation",
        json!({"id": DOC_ID, "planRevision": 2,
        "graphVersion": 1, "graphRevision": 1, "repository": "githubnext/chopin",
        "branch": "b", "commit": "c"}),
    );
    let run = started["run"]["id"].as_str().unwrap().to_owned();
    call(
        "start_task",
        json!({"id": DOC_ID, "runId": run, "taskId": "only",
                              "idempotencyKey": "k1"}),
    );

    let lines = server.request_lines(4);
    for tool in ["read_implementation", "start_implementation", "start_task"] {
        assert!(
            lines
                .iter()
                .any(|line| line.contains(&format!("tool={tool} "))),
            "{tool}: {lines:?}"
        );
    }
    let metrics = server
        .banner_line("metrics: http://")
        .unwrap()
        .trim_end_matches("/metrics")
        .parse()
        .unwrap();
    let text = scrape(metrics);
    for tool in ["read_implementation", "start_implementation", "start_task"] {
        assert!(text.contains(&format!("tool=\"{tool}\"")), "{tool}: {text}");
    }
    for operation in ["read_implementation", "claim", "report"] {
        assert!(
            text.contains(&format!("operation=\"{operation}\"")),
            "{operation}: {text}"
        );
    }
}
