//! Read-only grants over HTTP (IMPLEMENTATION.md §4 "Read-only grants",
//! §5 case 11), on both servers, SQLite in memory and in a file, and
//! PostgreSQL: a caller given a repository with `--grant-read` lists it,
//! reads its documents (the tool, the document's URL, its images) and its
//! implementation; every document-addressed write tool answers it
//! `repository-forbidden` (the seven implementation writes too, before the
//! run is looked at) and changes nothing, read back by a writer after;
//! `create_document` answers it the absent result a caller without a grant
//! gets. A caller with no grant on the repository is still told
//! `document-unavailable`, never forbidden, and a caller named by both
//! flags reads and writes.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/planner.rs"]
mod planner;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::{DOC_ID, SERVERS, Server, TOKEN, import_file, status, temp_path};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Codex","version":"1.2.3"}}}"#;

/// Caller `reader`: `--grant-read` on the seed's repository.
const READER: &str = "reader-token";
/// Caller `stranger`: a grant on another repository only.
const STRANGER: &str = "stranger-token";
/// Caller `both`: `--grant-read` and `--grant` on the seed's repository.
const BOTH: &str = "both-token";

/// PNG12 (SURFACE.md §12), uploaded by the writer, and its path.
const PNG12: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d";
const PNG12_PATH: &str =
    "/images/218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86.png";
/// Another PNG (one byte more), which the reader tries to upload.
const PNG13: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d\x00";

/// The flags beside the harness's own (the writer `octocat`, `*`).
fn grants(planner: &str) -> Vec<&str> {
    vec![
        "--token",
        "reader-token=reader",
        "--grant-read",
        "reader=githubnext/chopin",
        "--token",
        "stranger-token=stranger",
        "--grant",
        "stranger=acme/plans",
        "--token",
        "both-token=both",
        "--grant-read",
        "both=githubnext/chopin",
        "--grant",
        "both=githubnext/chopin",
        "--planner-command",
        planner,
    ]
}

/// `name` on `db` (a path, a URL or `--memory`) with the seed document.
fn serve(name: &str, db: &str, planner: &str) -> Server {
    let import = import_file();
    let mut extra = vec!["--import", import.to_str().unwrap()];
    extra.extend(grants(planner));
    Server::on_db(name, db, &extra)
}

/// Drafts and approves the seed's graph with the operator's commands on
/// `db` (version 1 r1 p2: tasks `foundation`, `delivery`).
fn approve_graph(db: &str) {
    let tasks = temp_path("grant-read-tasks", "json");
    let task = |id: &str, needs: &[&str]| {
        json!({"id": id, "title": format!("Task {id}"), "context": "Context.", "goal": "Goal.",
               "acceptance": ["First.", "Second."], "dependsOn": needs})
    };
    let definition = json!({"tasks": [task("foundation", &[]), task("delivery", &["foundation"])]});
    std::fs::write(&tasks, definition.to_string()).unwrap();
    for args in [
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
            "0123abcd",
        ][..],
        &[
            "graph",
            "approve",
            DOC_ID,
            "--version",
            "1",
            "--revision",
            "1",
        ],
    ] {
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
}

/// One caller's session on a server.
struct Caller<'a> {
    server: &'a Server,
    token: &'a str,
    session: String,
}

impl<'a> Caller<'a> {
    fn new(server: &'a Server, token: &'a str) -> Caller<'a> {
        let response = server.post(INITIALIZE, Some(token));
        let head = response.split("\r\n\r\n").next().unwrap_or_default();
        let session = head
            .lines()
            .find_map(|line| line.strip_prefix("mcp-session-id: "))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no session: {response}"));
        Caller {
            server,
            token,
            session,
        }
    }

    /// A `tools/call`'s `result`.
    fn call(&self, tool: &str, arguments: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let headers = format!(
            "authorization: Bearer {}\r\nmcp-session-id: {}\r\n",
            self.token, self.session
        );
        let response = self.server.post_with(&body.to_string(), &headers);
        assert_eq!(status(&response), 200, "{tool}: {response}");
        let reply: Value = serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap())
            .unwrap_or_else(|e| panic!("{tool}: {e}: {response}"));
        reply["result"].clone()
    }

    /// A successful call's structured content.
    fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert!(result.get("isError").is_none(), "{tool}: {result}");
        result["structuredContent"].clone()
    }

    /// A refused call's code.
    fn refused(&self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], true, "{tool}: {result}");
        result["structuredContent"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: no code: {result}"))
            .to_owned()
    }

    /// `GET target`: its status and body.
    fn get(&self, target: &str) -> (u16, Vec<u8>) {
        let mut stream = self.server.connect();
        let request = format!(
            "GET {target} HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {}\r\n\
             connection: close\r\n\r\n",
            self.server.addr, self.token
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let at = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a head")
            + 4;
        let status = String::from_utf8_lossy(&raw[9..12]).parse().unwrap();
        (status, raw[at..].to_vec())
    }
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn claim() -> Value {
    json!({"id": DOC_ID, "planRevision": 2, "graphVersion": 1, "graphRevision": 1,
           "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"})
}

/// Every document-addressed write tool with arguments it would take from a
/// writer, the lifecycle tools on run `run`.
fn writes(run: &str) -> Vec<(&'static str, Value)> {
    let on_run = |key: &str, fields: Value| {
        let mut arguments = json!({"id": DOC_ID, "runId": run, "idempotencyKey": key});
        for (name, value) in fields.as_object().unwrap() {
            arguments[name] = value.clone();
        }
        arguments
    };
    let evidence = json!([{"taskId": "foundation", "evidence": ["Works."]},
                          {"taskId": "delivery", "evidence": ["Works."]}]);
    vec![
        (
            "update_document",
            json!({"id": DOC_ID, "revision": 2, "idempotencyKey": "u1",
                   "plan": "# Release readiness\n\nShip on Friday.\n"}),
        ),
        (
            "rename_document",
            json!({"id": DOC_ID, "title": "Renamed by a reader"}),
        ),
        ("archive_document", json!({"id": DOC_ID})),
        ("restore_document", json!({"id": DOC_ID})),
        (
            "invoke_planner",
            json!({"id": DOC_ID, "instruction": "Plan it again."}),
        ),
        (
            "upload_image",
            json!({"id": DOC_ID, "data": base64(PNG13), "mimeType": "image/png"}),
        ),
        ("start_implementation", claim()),
        ("start_task", on_run("s1", json!({"taskId": "foundation"}))),
        (
            "block_task",
            on_run("b1", json!({"taskId": "foundation", "reason": "CI."})),
        ),
        (
            "report_pr",
            on_run(
                "p1",
                json!({"taskId": "foundation", "state": "open",
                       "url": "https://github.com/githubnext/chopin/pull/1"}),
            ),
        ),
        (
            "complete_task",
            on_run("c1", json!({"taskId": "foundation", "summary": "Laid."})),
        ),
        (
            "report_verification",
            on_run(
                "v1",
                json!({"passed": false, "summary": "Reviewed.", "reviewerMethod": "Read.",
                       "evidence": evidence, "tasksNeedingWork": ["foundation"]}),
            ),
        ),
        (
            "request_revision",
            on_run("r1", json!({"reason": "The plan changed."})),
        ),
    ]
}

/// What the writer sees of the seed: the document, its implementation,
/// its images.
fn as_the_writer_sees_it(writer: &Caller<'_>) -> (Value, Value, u16, u16) {
    let document = writer.ok("read_document", json!({"id": DOC_ID}));
    let implementation = writer.call("read_implementation", json!({"id": DOC_ID}));
    let (kept, _) = writer.get(PNG12_PATH);
    let digest = {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(PNG13);
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let (refused, _) = writer.get(&format!("/images/{digest}.png"));
    (document, implementation, kept, refused)
}

/// The whole behaviour on `server`; `graph`: whether the seed's graph is
/// approved (so the writer can start a run the reader then reports on).
fn a_read_grant(server: &Server, graph: bool, what: &str) {
    let writer = Caller::new(server, TOKEN);
    let reader = Caller::new(server, READER);
    let stranger = Caller::new(server, STRANGER);
    let both = Caller::new(server, BOTH);

    let run = if graph {
        let started = writer.ok("start_implementation", claim());
        assert_eq!(started["state"], "started", "{what}: {started}");
        started["run"]["id"].as_str().unwrap().to_owned()
    } else {
        "01K2XQ7Z0000000000000000R1".to_owned()
    };
    let uploaded = writer.ok(
        "upload_image",
        json!({"id": DOC_ID, "data": base64(PNG12), "mimeType": "image/png"}),
    );
    assert_eq!(uploaded["path"], PNG12_PATH, "{what}");
    let before = as_the_writer_sees_it(&writer);
    assert_eq!((before.2, before.3), (200, 404), "{what}");

    // The reader lists and reads as the writer does.
    let listed = reader.ok("list_documents", json!({"repository": "githubnext/chopin"}));
    let ids: Vec<&str> = listed["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(ids, [DOC_ID], "{what}: {listed}");
    assert_eq!(
        reader.ok("read_document", json!({"id": DOC_ID})),
        before.0,
        "{what}"
    );
    let implementation = reader.call("read_implementation", json!({"id": DOC_ID}));
    assert_eq!(implementation, before.1, "{what}");
    if graph {
        assert_eq!(
            implementation["structuredContent"]["execution"]["run"]["id"], run,
            "{what}: {implementation}"
        );
    }
    let (status, plan) = reader.get(&format!("/documents/{DOC_ID}"));
    assert_eq!(status, 200, "{what}");
    assert_eq!(
        String::from_utf8(plan).unwrap(),
        before.0["source"].as_str().unwrap(),
        "{what}"
    );
    assert_eq!(reader.get(PNG12_PATH), (200, PNG12.to_vec()), "{what}");

    // Every write: forbidden, for the reader; unavailable, for a stranger.
    for (tool, arguments) in writes(&run) {
        assert_eq!(
            reader.refused(tool, arguments.clone()),
            "repository-forbidden",
            "{what}: {tool}"
        );
        assert_eq!(
            stranger.refused(tool, arguments),
            "document-unavailable",
            "{what}: {tool}"
        );
    }
    let create = support::draft("k-reader", "Reader's plan", "# Reader's plan\n\nNo.\n");
    let absent = json!({"content": [], "isError": true});
    assert_eq!(
        reader.call("create_document", create.clone()),
        absent,
        "{what}"
    );
    assert_eq!(stranger.call("create_document", create), absent, "{what}");

    // Nothing changed.
    assert_eq!(as_the_writer_sees_it(&writer), before, "{what}");
    let listed = writer.ok("list_documents", json!({"repository": "githubnext/chopin"}));
    assert_eq!(listed["documents"].as_array().unwrap().len(), 1, "{what}");

    // A stranger sees no document, and is forbidden the repository's list.
    assert_eq!(
        stranger.call("read_document", json!({"id": DOC_ID})),
        stranger.call("read_document", json!({"id": "no-such-document"})),
        "{what}"
    );
    assert_eq!(
        stranger.refused("list_documents", json!({"repository": "githubnext/chopin"})),
        "repository-forbidden",
        "{what}"
    );
    assert_eq!(
        stranger.get(&format!("/documents/{DOC_ID}")).0,
        404,
        "{what}"
    );

    // `--grant-read` beside `--grant`: read and write.
    let renamed = both.ok(
        "rename_document",
        json!({"id": DOC_ID, "title": "Renamed by both"}),
    );
    assert_eq!(renamed["title"], "Renamed by both", "{what}: {renamed}");
    assert_eq!(
        writer.ok("read_document", json!({"id": DOC_ID}))["title"],
        "Renamed by both",
        "{what}"
    );
}

#[test]
fn a_read_grant_reads_and_is_forbidden_every_write_on_sqlite_in_memory() {
    let planner = planner::script("grant-read-planner", "exit 0\n");
    for name in SERVERS {
        let server = serve(name, "--memory", planner.to_str().unwrap());
        a_read_grant(&server, false, name);
    }
}

#[test]
fn a_read_grant_reads_and_is_forbidden_every_write_on_a_sqlite_file() {
    let planner = planner::script("grant-read-planner", "exit 0\n");
    for name in SERVERS {
        let db = temp_path("grant-read", "db");
        let server = serve(name, db.to_str().unwrap(), planner.to_str().unwrap());
        approve_graph(db.to_str().unwrap());
        a_read_grant(&server, true, name);
        assert!(
            planner::turns(&db).is_empty(),
            "{name}: a turn was recorded"
        );
    }
}

#[test]
fn a_read_grant_reads_and_is_forbidden_every_write_on_postgres() {
    let Some(cluster) = pg::shared() else { return };
    let planner = planner::script("grant-read-planner", "exit 0\n");
    let name = cluster.new_database();
    let url = cluster.url(&name);
    let server = serve("chopin-mcp-server", &url, planner.to_str().unwrap());
    approve_graph(&url);
    a_read_grant(&server, true, "postgres");
    let turns = cluster
        .psql(&name, "SELECT count(*) FROM planner_turns")
        .unwrap();
    assert_eq!(turns, "0");
}
