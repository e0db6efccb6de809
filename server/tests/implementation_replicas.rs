//! IMPLEMENTATION.md §5 case 26 over HTTP: two `chopin-mcp-server`
//! processes (replicas) on one PostgreSQL database (a throwaway server, see
//! `support/pg.rs`), every racer a thread of its own with a connection of
//! its own, the racers sent to the two replicas alternately, all in the
//! session one `initialize` to the first replica issued (an id made by
//! another replica works, case 6). 20 racing `start_implementation` start
//! one run and answer the other 19 `active` with it; 20 racing
//! `start_task` with one key store one event and answer alike; two keys
//! racing on one task: one accepted, the other `task-state`. The
//! assertions count answers and rows, never time.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

#[path = "support/operator.rs"]
mod operator;

use std::net::SocketAddr;

use calls::{at_once, header, post_in_session, result, tool_call};
use serde_json::{Value, json};
use support::{DOC_ID, Server, import_file};

const SERVER: &str = "chopin-mcp-server";

/// How many racers.
const RACERS: usize = 20;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Codex","version":"1.2.3"}}}"#;

/// Two replicas on a new database, the seed document (revision 2) imported
/// through the first, its graph approved by the operator (version 1 r1
/// p2, tasks `foundation` and `delivery` needing it); the cluster, the
/// database's name, the replicas and the session `initialize` issued.
struct Fixture {
    cluster: &'static pg::Cluster,
    name: String,
    _replicas: [Server; 2],
    addrs: [SocketAddr; 2],
    session: String,
}

fn fixture() -> Option<Fixture> {
    let cluster = pg::shared()?;
    let name = cluster.new_database();
    let url = cluster.url(&name);
    let import = import_file();
    let first = Server::on_db(SERVER, &url, &["--import", import.to_str().unwrap()]);
    let second = Server::on_db(SERVER, &url, &[]);
    operator::approve_seed_graph(&url);
    let response = calls::post(first.addr, INITIALIZE);
    let session =
        header(&response, "mcp-session-id").unwrap_or_else(|| panic!("no session: {response}"));
    let addrs = [first.addr, second.addr];
    Some(Fixture {
        cluster,
        name,
        _replicas: [first, second],
        addrs,
        session,
    })
}

/// §5's claim A on the fixture's document.
fn claim() -> String {
    tool_call(
        "start_implementation",
        &json!({"id": DOC_ID, "planRevision": 2, "graphVersion": 1, "graphRevision": 1,
                "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"}),
    )
}

/// A lifecycle call `tool` on `run` under `key` for `task`.
fn on_task(tool: &str, run: &str, key: &str, task: &str) -> String {
    let mut arguments = json!({"id": DOC_ID, "runId": run, "idempotencyKey": key, "taskId": task});
    if tool == "block_task" {
        arguments["reason"] = json!("Waiting.");
    }
    tool_call(tool, &arguments)
}

impl Fixture {
    /// `bodies[n]` sent to the replicas alternately, all released at once;
    /// the tool results in the order of `bodies`.
    fn race(&self, bodies: &[String]) -> Vec<Value> {
        at_once(bodies.len(), |n| {
            let response = post_in_session(self.addrs[n % 2], &self.session, &bodies[n]);
            result(&response).unwrap_or_else(|| panic!("racer {n}: {response}"))
        })
    }

    /// `body` through replica `replica`: the tool's result.
    fn call(&self, replica: usize, body: &str) -> Value {
        let response = post_in_session(self.addrs[replica], &self.session, body);
        result(&response).unwrap_or_else(|| panic!("{response}"))
    }

    /// Starts the run (claim A through the first replica): its id.
    fn started(&self) -> String {
        let started = self.call(0, &claim());
        assert_eq!(
            started["structuredContent"]["state"], "started",
            "{started}"
        );
        started["structuredContent"]["run"]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The one number `sql` selects in the fixture's database.
    fn count(&self, sql: &str) -> u64 {
        let out = self.cluster.psql(&self.name, sql).unwrap();
        out.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{sql}: {out}"))
    }
}

/// The error code of a refused tool result (`text({"code":c}, error)`).
fn refusal(result: &Value) -> Option<String> {
    if result["isError"] != true {
        return None;
    }
    let text = result["content"][0]["text"].as_str()?;
    let error: Value = serde_json::from_str(text).ok()?;
    error["code"].as_str().map(str::to_owned)
}

#[test]
fn racing_claims_through_two_replicas_start_one_run_and_answer_the_rest_active_with_it() {
    let Some(fixture) = fixture() else { return };
    let bodies = vec![claim(); RACERS];
    let answers = fixture.race(&bodies);
    let started: Vec<&Value> = answers
        .iter()
        .filter(|a| a["structuredContent"]["state"] == "started")
        .collect();
    assert_eq!(started.len(), 1, "{answers:#?}");
    let run = &started[0]["structuredContent"]["run"];
    assert_eq!(run["client"], json!({"name": "Codex", "version": "1.2.3"}));
    let active: Vec<&Value> = answers
        .iter()
        .filter(|a| a["structuredContent"] == json!({"state": "active", "run": run}))
        .collect();
    assert_eq!(active.len(), RACERS - 1, "{answers:#?}");
    assert_eq!(fixture.count("SELECT count(*) FROM implementation_runs"), 1);
}

#[test]
fn racing_start_tasks_with_one_key_through_two_replicas_store_one_event_and_answer_alike() {
    let Some(fixture) = fixture() else { return };
    let run = fixture.started();
    let bodies = vec![on_task("start_task", &run, "k1", "foundation"); RACERS];
    let answers = fixture.race(&bodies);
    assert!(answers[0].get("isError").is_none(), "{}", answers[0]);
    assert_eq!(
        answers[0]["structuredContent"]["activity"]["tasks"][0]["state"], "in_progress",
        "{}",
        answers[0]
    );
    for (n, answer) in answers.iter().enumerate() {
        assert_eq!(answer, &answers[0], "racer {n}");
    }
    assert_eq!(
        fixture.count("SELECT count(*) FROM implementation_events"),
        1
    );
}

#[test]
fn two_keys_racing_on_one_task_through_two_replicas_are_accepted_once_and_refused_task_state_once()
{
    let Some(fixture) = fixture() else { return };
    let run = fixture.started();
    const ROUNDS: usize = 5;
    for round in 0..ROUNDS {
        if round > 0 {
            // Blocked, the task may be started again.
            let blocked = fixture.call(
                round % 2,
                &on_task("block_task", &run, &format!("b{round}"), "foundation"),
            );
            assert!(blocked.get("isError").is_none(), "{blocked}");
        }
        let bodies: Vec<String> = (0..2)
            .map(|n| on_task("start_task", &run, &format!("s{round}-{n}"), "foundation"))
            .collect();
        let answers = fixture.race(&bodies);
        let accepted: Vec<&Value> = answers
            .iter()
            .filter(|a| a.get("isError").is_none())
            .collect();
        let refused: Vec<Option<String>> = answers
            .iter()
            .filter_map(|a| refusal(a).map(Some))
            .collect();
        assert_eq!(accepted.len(), 1, "round {round}: {answers:#?}");
        assert_eq!(
            accepted[0]["structuredContent"]["activity"]["tasks"][0]["state"], "in_progress",
            "round {round}"
        );
        assert_eq!(refused, [Some("task-state".to_owned())], "round {round}");
    }
    // Every round's accepted start and every block between: nothing of the
    // refused ones.
    assert_eq!(
        fixture.count("SELECT count(*) FROM implementation_events"),
        (2 * ROUNDS - 1) as u64
    );
}

#[test]
fn a_session_made_by_one_replica_starts_a_task_through_the_other() {
    let Some(fixture) = fixture() else { return };
    let run = fixture.started();
    let answer = fixture.call(1, &on_task("start_task", &run, "k1", "foundation"));
    assert!(answer.get("isError").is_none(), "{answer}");
    assert_eq!(
        answer["structuredContent"]["activity"]["tasks"][0]["state"],
        "in_progress"
    );
}
