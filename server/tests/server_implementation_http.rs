//! Implementation runs over HTTP on both servers (IMPLEMENTATION.md §5
//! through the reference server): the operator drafts and approves a graph
//! with `graph …` while the server runs on the same SQLite file; an agent
//! reads the implementation (case 3), claims it (cases 8–9: started, then
//! active with the same run), reports a run to its delivery (cases 12–22),
//! meets `document-locked` on `update_document` while the run is active;
//! `--no-implementations` offers none of the tools; and an accepted report
//! survives a SIGKILL, its retry answered `replayed` (case 27).

#[path = "interop/harness.rs"]
mod support;

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::{DOC_ID, SERVERS, Server, TOKEN, import_file, status, temp_path};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Codex","version":"1.2.3"}}}"#;

/// Runs the server binary's operator command `args` on `db`; it must
/// succeed.
fn operator(db: &str, args: &[&str]) {
    let out = Command::new(support::binary("chopin-mcp-server"))
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
}

/// A server `name` on a new file with the seed document (revision 2), and
/// that document's graph approved by the operator (version 1 r1 p2).
fn approved(name: &str, extra: &[&str]) -> (Server, String) {
    let db = temp_path("implementation-http", "db");
    let db = db.to_str().unwrap().to_owned();
    let import = import_file();
    let mut args = vec!["--import", import.to_str().unwrap()];
    args.extend_from_slice(extra);
    let server = Server::on_db(name, &db, &args);
    let tasks = temp_path("tasks", "json");
    let task = |id: &str, needs: &[&str]| {
        json!({"id": id, "title": format!("Task {id}"), "context": "Context.", "goal": "Goal.",
               "acceptance": ["First.", "Second."], "dependsOn": needs})
    };
    let definition = json!({"tasks": [task("foundation", &[]), task("delivery", &["foundation"])]});
    std::fs::write(&tasks, definition.to_string()).unwrap();
    let tasks = tasks.to_str().unwrap();
    operator(
        &db,
        &[
            "graph",
            "draft",
            DOC_ID,
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
        &db,
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
    (server, db)
}

/// The session `initialize` issues.
fn session(server: &Server) -> String {
    let response = server.post(INITIALIZE, Some(TOKEN));
    let head = response.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no session: {response}"))
}

/// A `tools/call` in `session`: its JSON-RPC reply.
fn call(server: &Server, session: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    let headers = format!("authorization: Bearer {TOKEN}\r\nmcp-session-id: {session}\r\n");
    let response = server.post_with(&body.to_string(), &headers);
    assert_eq!(status(&response), 200, "{tool}: {response}");
    serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap()
}

/// A successful tool call's structured content.
fn ok(server: &Server, session: &str, tool: &str, arguments: Value) -> Value {
    let reply = call(server, session, tool, arguments);
    assert!(reply["result"].get("isError").is_none(), "{tool}: {reply}");
    reply["result"]["structuredContent"].clone()
}

/// A refused tool call's error code.
fn refused(server: &Server, session: &str, tool: &str, arguments: Value) -> String {
    let reply = call(server, session, tool, arguments);
    assert_eq!(reply["result"]["isError"], true, "{tool}: {reply}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let error: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    error["error"]["code"]
        .as_str()
        .or_else(|| error["code"].as_str())
        .map_or_else(|| text.to_owned(), str::to_owned)
}

fn claim() -> Value {
    json!({"id": DOC_ID, "planRevision": 2, "graphVersion": 1, "graphRevision": 1,
           "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"})
}

fn on_run(run: &str, key: &str, fields: Value) -> Value {
    let mut arguments = json!({"id": DOC_ID, "runId": run, "idempotencyKey": key});
    for (name, value) in fields.as_object().unwrap() {
        arguments[name] = value.clone();
    }
    arguments
}

fn pr(n: u32) -> String {
    format!("https://github.com/githubnext/chopin/pull/{n}")
}

#[test]
fn a_run_is_claimed_reported_and_delivered_over_http() {
    for name in SERVERS {
        let (server, _db) = approved(name, &[]);
        let s = session(&server);
        let read = ok(&server, &s, "read_implementation", json!({"id": DOC_ID}));
        assert_eq!(read["graph"]["state"], "approved", "{name}: {read}");
        assert_eq!(read["execution"], json!({"state": "idle"}), "{name}");
        assert_eq!(read["history"], json!([]), "{name}");
        assert_eq!(read["repository"]["baseBranch"], "main", "{name}");

        let started = ok(&server, &s, "start_implementation", claim());
        assert_eq!(started["state"], "started", "{name}: {started}");
        let run = started["run"]["id"].as_str().unwrap().to_owned();
        assert_eq!(
            started["run"]["client"],
            json!({"name": "Codex", "version": "1.2.3"})
        );
        let again = ok(&server, &s, "start_implementation", claim());
        assert_eq!(
            (&again["state"], &again["run"]),
            (&json!("active"), &started["run"])
        );

        let update = json!({"id": DOC_ID, "revision": 2, "plan": "# Changed\n",
                            "idempotencyKey": "u1"});
        assert_eq!(
            refused(&server, &s, "update_document", update),
            "document-locked",
            "{name}"
        );

        let r = |key: &str, fields: Value| on_run(&run, key, fields);
        assert_eq!(
            refused(
                &server,
                &s,
                "start_task",
                r("k0", json!({"taskId": "delivery"}))
            ),
            "dependency",
            "{name}"
        );
        let life = ok(
            &server,
            &s,
            "start_task",
            r("s1", json!({"taskId": "foundation"})),
        );
        assert_eq!(
            life["activity"]["tasks"][0]["state"], "in_progress",
            "{name}: {life}"
        );
        let replay = ok(
            &server,
            &s,
            "start_task",
            r("s1", json!({"taskId": "foundation"})),
        );
        assert_eq!(replay, life, "{name}: a replay answers the same projection");
        ok(
            &server,
            &s,
            "block_task",
            r("b1", json!({"taskId": "foundation", "reason": "CI."})),
        );
        ok(
            &server,
            &s,
            "start_task",
            r("s1b", json!({"taskId": "foundation"})),
        );
        ok(
            &server,
            &s,
            "report_pr",
            r(
                "p1",
                json!({"taskId": "foundation", "url": pr(1), "state": "open"}),
            ),
        );
        ok(
            &server,
            &s,
            "complete_task",
            r("c1", json!({"taskId": "foundation", "summary": "Laid."})),
        );
        ok(
            &server,
            &s,
            "start_task",
            r("s2", json!({"taskId": "delivery"})),
        );
        ok(
            &server,
            &s,
            "report_pr",
            r(
                "p2",
                json!({"taskId": "delivery", "url": pr(2), "state": "open"}),
            ),
        );
        ok(
            &server,
            &s,
            "complete_task",
            r("c2", json!({"taskId": "delivery", "summary": "Shipped."})),
        );
        let evidence = json!([{"taskId": "foundation", "evidence": ["Works."]},
                              {"taskId": "delivery", "evidence": ["Works."]}]);
        let failed = ok(
            &server,
            &s,
            "report_verification",
            r(
                "v1",
                json!({"passed": false,
            "summary": "Reviewed.", "reviewerMethod": "Read.", "evidence": evidence,
            "tasksNeedingWork": ["foundation"]}),
            ),
        );
        assert_eq!(
            failed["activity"]["tasks"][0]["state"], "in_progress",
            "{name}: {failed}"
        );
        ok(
            &server,
            &s,
            "complete_task",
            r("c1b", json!({"taskId": "foundation", "summary": "Again."})),
        );
        let passed = ok(
            &server,
            &s,
            "report_verification",
            r(
                "v2",
                json!({"passed": true,
            "summary": "Reviewed.", "reviewerMethod": "Read.", "evidence": evidence,
            "tasksNeedingWork": []}),
            ),
        );
        assert_eq!(
            passed["execution"],
            json!({"state": "idle"}),
            "{name}: {passed}"
        );
        assert_eq!(
            passed["history"][0]["outcome"]["kind"], "implemented",
            "{name}"
        );
        ok(
            &server,
            &s,
            "report_pr",
            r(
                "m1",
                json!({"taskId": "foundation", "url": pr(1), "state": "merged"}),
            ),
        );
        let delivered = ok(
            &server,
            &s,
            "report_pr",
            r(
                "m2",
                json!({"taskId": "delivery", "url": pr(2), "state": "merged"}),
            ),
        );
        assert_eq!(
            delivered["history"][0]["outcome"],
            json!({"kind": "delivered"}),
            "{name}"
        );
        assert_eq!(
            refused(&server, &s, "start_implementation", claim()),
            "already-verified",
            "{name}"
        );
        // The run ended: the plan takes updates again.
        let update = json!({"id": DOC_ID, "revision": 2, "plan": "# Changed\n",
                            "idempotencyKey": "u2"});
        ok(&server, &s, "update_document", update);
    }
}

#[test]
fn no_implementations_offers_none_of_the_tools() {
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--no-implementations"]);
        let list = server.post(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            Some(TOKEN),
        );
        assert!(!list.contains("read_implementation"), "{name}: {list}");
        let reply = server.call("read_implementation", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert!(reply.contains("-32601"), "{name}: {reply}");
        let offered = Server::seeded(name);
        let list = offered.post(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            Some(TOKEN),
        );
        assert!(list.contains("\"start_implementation\""), "{name}: {list}");
    }
}

#[test]
fn an_accepted_report_survives_a_sigkill_and_its_retry_is_replayed() {
    let (server, db) = approved("chopin-mcp-server", &[]);
    let s = session(&server);
    let started = ok(&server, &s, "start_implementation", claim());
    let run = started["run"]["id"].as_str().unwrap().to_owned();
    let arguments = on_run(&run, "k1", json!({"taskId": "foundation"}));
    let first = call(&server, &s, "start_task", arguments.clone());
    server.kill();
    let import = import_file();
    let again = Server::on_db(
        "chopin-mcp-server",
        &db,
        &["--import", import.to_str().unwrap()],
    );
    let retried = call(&again, &s, "start_task", arguments);
    assert_eq!(retried["result"], first["result"], "replayed byte for byte");
    let read = ok(&again, &s, "read_implementation", json!({"id": DOC_ID}));
    assert_eq!(
        read["activity"]["events"].as_array().map(Vec::len),
        Some(1),
        "{read}"
    );
}
