//! IMPLEMENTATION.md's bar for `start_task`: through the reference server
//! on a SQLite file, its p50 at most 1.5 × that of an `update_document` of
//! a 4 KiB plan, measured in the same run.
//!
//! Starts `chopin-mcp-server` on a fresh SQLite file with documents at
//! revision 2 in one repository, whose graphs the operator approves
//! (`graph draft`, `graph approve`: tasks `foundation` and `delivery`),
//! and one more with a 4 KiB plan. One client, one keep-alive connection
//! over loopback, sequential requests in one `initialize`'s session,
//! alternating: a `start_task` of `foundation` (timed), a `block_task` of
//! it (so that the next start is a real transition again; not timed), an
//! `update_document` of the 4 KiB document to its next revision, a plan
//! differing from the last (timed). Every call has a fresh idempotency
//! key, and every answer is checked: each is a committed write.
//!
//! A lifecycle call loads and folds its document's whole log, so its cost
//! grows with the log: each document takes `PER_DOC` rounds (default 50:
//! a log of up to 100 events, a run's size) in one run claimed on its
//! first, then the next document takes over. `PER_DOC=1000` grows one
//! document's log to 2,000 events, the size the core's fold bench
//! (`benches/implementation.rs`) budgets for. [`WARM_UP`] rounds first,
//! then [`ROUNDS`] measured; prints p50/p90/p99 of both tools and the
//! ratio of their p50s.
//!
//! ```sh
//! cargo build --release -p chopin-mcp-server
//! cargo bench --profile release -p chopin-mcp-server --bench start_task
//! ```
//!
//! `SERVER=/path/to/chopin-mcp-server` measures another build (the
//! operator commands still run this build's binary).
#![allow(clippy::disallowed_methods)] // a bench reads the clock and its environment

#[path = "../tests/interop/harness.rs"]
mod support;

#[path = "../tests/support/calls.rs"]
mod calls;

#[path = "../tests/support/operator.rs"]
mod operator;

#[path = "../tests/support/keep_alive.rs"]
mod keep_alive;

use std::time::{Duration, Instant};

use calls::{header, tool_call};
use keep_alive::KeepAlive;
use serde_json::{Value, json};
use support::{Server, TOKEN, db_args, temp_path};

/// The document updated: plans of about 4 KiB.
const UPDATED: &str = "00000000-0000-4000-8000-000000000001";

/// Rounds before measuring.
const WARM_UP: usize = 200;

/// Rounds measured.
const ROUNDS: usize = 2_000;

/// A plan of about 4 KiB, its heading naming `n`.
fn plan(n: usize) -> String {
    let mut plan = format!("# Plan {n}\n\n");
    while plan.len() < 4096 - 80 {
        plan.push_str(
            "Keep the reading position offline and sync it when the connection returns.\n\n",
        );
    }
    plan
}

/// The id of the `n`th document with a graph.
fn claimed(n: usize) -> String {
    format!("00000000-0000-4000-9000-{n:012}")
}

/// The import: `count` documents for graphs, and [`UPDATED`].
fn import(count: usize) -> std::path::PathBuf {
    let path = temp_path("start-task-import", "json");
    let mut documents: Vec<Value> = (0..count)
        .map(|n| {
            json!({"id": claimed(n), "repository": "githubnext/chopin",
                   "title": format!("Graph {n}"),
                   "source": "# Release readiness\n\nShip when the checklist is green.\n",
                   "revision": 2})
        })
        .collect();
    documents.push(json!({"id": UPDATED, "repository": "githubnext/chopin",
                          "title": "Updated", "source": plan(0), "revision": 0}));
    std::fs::write(&path, Value::Array(documents).to_string()).unwrap();
    path
}

/// The session's connection.
struct Client {
    connection: KeepAlive,
    headers: String,
}

impl Client {
    /// A tool call; its result, which must not be an error.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let (head, body) = self
            .connection
            .post(&self.headers, &tool_call(tool, &arguments));
        assert!(head.starts_with("HTTP/1.1 200"), "{tool}: {head}\n{body}");
        let reply: Value = serde_json::from_str(&body).unwrap();
        let result = reply["result"].clone();
        assert!(
            result.is_object() && result.get("isError").is_none(),
            "{tool}: {body}"
        );
        result["structuredContent"].clone()
    }

    /// Claims document `id`'s graph: the new run's id.
    fn claim(&mut self, id: &str) -> String {
        let started = self.call(
            "start_implementation",
            json!({"id": id, "planRevision": 2, "graphVersion": 1, "graphRevision": 1,
                   "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"}),
        );
        assert_eq!(started["state"], "started", "{started}");
        started["run"]["id"].as_str().unwrap().to_owned()
    }
}

fn micros(sorted: &[Duration], q: f64) -> u128 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize].as_micros()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to filter here.
    let binary = std::env::var("SERVER").unwrap_or_else(|_| "chopin-mcp-server".to_owned());
    let per_doc: usize = std::env::var("PER_DOC")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(50);
    let documents = (WARM_UP + ROUNDS).div_ceil(per_doc);
    let db = temp_path("start-task-bench", "db");
    let db = db.to_str().unwrap();
    let import = import(documents);
    let server = Server::start(
        &binary,
        &db_args(db, &["--import", import.to_str().unwrap()]),
    );
    for n in 0..documents {
        operator::approve_graph(db, &claimed(n));
    }
    let mut connection = KeepAlive::open(server.addr);
    let auth = format!("authorization: Bearer {TOKEN}\r\n");
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Bench","version":"1.0.0"}}}"#;
    let (head, _) = connection.post(&auth, initialize);
    let session = header(&format!("{head}\r\n\r\n"), "mcp-session-id").expect("a session");
    let mut client = Client {
        connection,
        headers: format!("{auth}mcp-session-id: {session}\r\n"),
    };

    println!(
        "start_task against update_document (4 KiB), {binary} on a SQLite file, \
         {WARM_UP} rounds of warm-up, {ROUNDS} measured, {per_doc} rounds a document \
         ({documents} documents); load average before: {}",
        load_average()
    );
    let mut starts = Vec::with_capacity(ROUNDS);
    let mut updates = Vec::with_capacity(ROUNDS);
    let (mut id, mut run) = (String::new(), String::new());
    let mut revision = 0u64;
    for round in 0..WARM_UP + ROUNDS {
        if round % per_doc == 0 {
            id = claimed(round / per_doc);
            run = client.claim(&id);
        }
        let began = Instant::now();
        let started = client.call(
            "start_task",
            json!({"id": id, "runId": run, "taskId": "foundation",
                   "idempotencyKey": format!("s{round}")}),
        );
        let start = began.elapsed();
        assert_eq!(
            started["activity"]["tasks"][0]["state"], "in_progress",
            "{started}"
        );
        client.call(
            "block_task",
            json!({"id": id, "runId": run, "taskId": "foundation", "reason": "Waiting.",
                   "idempotencyKey": format!("b{round}")}),
        );
        let began = Instant::now();
        let updated = client.call(
            "update_document",
            json!({"id": UPDATED, "revision": revision, "plan": plan(round + 1),
                   "idempotencyKey": format!("u{round}")}),
        );
        let update = began.elapsed();
        revision += 1;
        assert_eq!(updated["revision"], revision, "{updated}");
        if round >= WARM_UP {
            starts.push(start);
            updates.push(update);
        }
    }
    starts.sort();
    updates.sort();
    println!("| tool | p50 | p90 | p99 |");
    println!("|---|---|---|---|");
    for (tool, sorted) in [
        ("start_task", &starts),
        ("update_document (4 KiB)", &updates),
    ] {
        println!(
            "| {tool} | {} µs | {} µs | {} µs |",
            micros(sorted, 0.5),
            micros(sorted, 0.9),
            micros(sorted, 0.99)
        );
    }
    println!(
        "start_task p50 / update_document p50: {:.2} (bar: at most 1.50); load average after: {}",
        micros(&starts, 0.5) as f64 / micros(&updates, 0.5) as f64,
        load_average()
    );
}
