//! IMPLEMENTATION.md §5 cases 3, 8, 9, 12 and 13 through the endpoint: the
//! tool layer's effects carried out by a host that applies the rules module
//! (`tests/common/implementation.rs`'s store) — a claim starts the run and
//! a second answers it active; the lifecycle tools' refusals and LIFE come
//! back as the spec writes them, a replay byte for byte.

mod common;

use chopin_mcp::implementation::{
    Active, ClaimRequest, DocumentHead, Ended, Implementation, Life, RepositoryHead,
};
use chopin_mcp::{
    BodyChunks, Brief, Config, Endpoint, Header, LifecycleAnswer, Outcome,
    ReadImplementationAnswer, RequestParts, StartAnswer,
};
use common::implementation::{CALLER, Host};
use common::{call, endpoint_with};
use serde_json::{Value, json};

const D: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn endpoint() -> Endpoint {
    endpoint_with(Config::new().enable_implementations())
}

fn session(endpoint: &Endpoint, runs: &mut Host) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "Codex", "version": "1.2.3"}}});
    let (_, headers) = send(endpoint, runs, &body, None);
    headers.expect("a session id")
}

/// The document's LIFE as the store has it.
fn answer_with_life(
    runs: &Host,
    answer: impl FnOnce(&Life<'_>) -> Outcome<String>,
) -> Outcome<String> {
    let states = runs.states();
    let active_at = runs.active();
    let active = active_at.map(|at| Active {
        run: &runs.runs[at].0,
        state: &states[at],
        events: &runs.runs[at].1,
    });
    let ended: Vec<Ended<'_>> = (0..runs.runs.len())
        .filter(|&at| Some(at) != active_at)
        .map(|at| Ended {
            run: &runs.runs[at].0,
            state: &states[at],
        })
        .collect();
    answer(&Life {
        active,
        ended: &ended,
    })
}

/// Sends `body` (with `session` as `mcp-session-id`), carrying out the
/// implementation effects on `runs`: the reply's body and its session id.
fn send(
    endpoint: &Endpoint,
    runs: &mut Host,
    body: &Value,
    session: Option<&str>,
) -> (Value, Option<String>) {
    let bytes = serde_json::to_vec(body).unwrap();
    let mut headers = vec![Header::new("content-type", b"application/json")];
    if let Some(session) = session {
        headers.push(Header::new("mcp-session-id", session.as_bytes()));
    }
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let mut outcome = endpoint.handle(&parts, BodyChunks::from(bytes));
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => {
                let session = response
                    .header("mcp-session-id")
                    .map(|id| String::from_utf8(id.to_vec()).unwrap());
                return (serde_json::from_slice(response.body()).unwrap(), session);
            }
            Outcome::Authenticate(auth) => auth.answer(Some(CALLER.to_owned())),
            Outcome::ReadImplementation(read) => {
                assert_eq!(read.locator(), D);
                let states = runs.states();
                let active_at = runs.active();
                let implementation = Implementation::<Brief> {
                    document: DocumentHead {
                        id: D,
                        title: "Plan",
                        brief: None,
                        source: "# Plan\n",
                        revision: 3,
                        archived_at: None,
                    },
                    repository: RepositoryHead {
                        name: "githubnext/chopin",
                        base_branch: "main",
                        base_commit: "0123456",
                    },
                    graph: runs.latest().expect("a version"),
                    active: active_at.map(|at| Active {
                        run: &runs.runs[at].0,
                        state: &states[at],
                        events: &runs.runs[at].1,
                    }),
                    ended: &[],
                };
                read.answer(ReadImplementationAnswer::Found(&implementation))
            }
            Outcome::StartImplementation(start) => {
                let asked = start.request();
                let request = ClaimRequest {
                    plan_revision: asked.plan_revision,
                    graph_version: asked.graph_version,
                    graph_revision: asked.graph_revision,
                };
                match runs.claim(request) {
                    Ok((true, run)) => start.answer(StartAnswer::Started(&run)),
                    Ok((false, run)) => start.answer(StartAnswer::Active(&run)),
                    Err(refusal) => start.answer(StartAnswer::Refused(refusal)),
                }
            }
            Outcome::ReportLifecycle(report) => {
                let command = report.command().clone();
                let called = runs.call(
                    report.caller(),
                    report.run_id(),
                    report.idempotency_key(),
                    command,
                );
                match called {
                    Ok(_) => answer_with_life(runs, |life| {
                        report.answer(LifecycleAnswer::Accepted(life))
                    }),
                    Err(refusal) => report.answer(LifecycleAnswer::Refused(refusal)),
                }
            }
            other => panic!("unexpected {other:?}"),
        };
    }
}

fn a(graph_revision: u64) -> Value {
    json!({"id": D, "planRevision": 3, "graphVersion": 1, "graphRevision": graph_revision,
        "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"})
}

fn structured(reply: &Value) -> &Value {
    &reply["result"]["structuredContent"]
}

/// Case 3: no session needed; the approved graph, idle, no history, no
/// activity.
#[test]
fn read_implementation_answers_the_host_s_implementation() {
    let mut runs = Host::fixture();
    let body = call(json!(1), "read_implementation", json!({"id": D}));
    let (reply, _) = send(&endpoint(), &mut runs, &body, None);
    let implementation = structured(&reply);
    assert_eq!(implementation["graph"]["state"], "approved", "{reply}");
    assert_eq!(implementation["graph"]["number"], 1);
    assert_eq!(implementation["execution"], json!({"state": "idle"}));
    assert_eq!(implementation["history"], json!([]));
    assert!(implementation.get("activity").is_none());
    assert_eq!(implementation["document"]["id"], D);
    let text: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, implementation);
}

#[test]
fn claims_and_the_first_lifecycle_calls_answer_as_the_rules_say() {
    let endpoint = endpoint();
    let mut runs = Host::fixture();
    let session = session(&endpoint, &mut runs);
    let session = Some(session.as_str());

    // Case 8: started; the version is locked.
    let (reply, _) = send(
        &endpoint,
        &mut runs,
        &call(json!(1), "start_implementation", a(1)),
        session,
    );
    let started = structured(&reply).clone();
    assert_eq!(started["state"], "started", "{reply}");
    let run_id = started["run"]["id"].as_str().unwrap().to_owned();
    // Case 9: again, whatever the revisions: active, the same run.
    let (reply, _) = send(
        &endpoint,
        &mut runs,
        &call(json!(2), "start_implementation", a(9)),
        session,
    );
    assert_eq!(structured(&reply)["state"], "active");
    assert_eq!(structured(&reply)["run"], started["run"]);

    let task = |task: &str, run: &str, key: &str| {
        call(
            json!(3),
            "start_task",
            json!({"id": D, "runId": run, "taskId": task, "idempotencyKey": key}),
        )
    };
    let code = |reply: &Value| structured(reply)["code"].clone();
    // Case 12.
    let (reply, _) = send(
        &endpoint,
        &mut runs,
        &task("delivery", &run_id, "k0"),
        session,
    );
    assert_eq!(code(&reply), "dependency");
    assert_eq!(reply["result"]["isError"], true);
    let (reply, _) = send(&endpoint, &mut runs, &task("nope", &run_id, "k0"), session);
    assert_eq!(code(&reply), "task");
    let (reply, _) = send(
        &endpoint,
        &mut runs,
        &task("foundation", "nope", "k0"),
        session,
    );
    assert_eq!(code(&reply), "run");
    // Case 13: accepted, LIFE; a replay is byte for byte the same.
    let (first, _) = send(
        &endpoint,
        &mut runs,
        &task("foundation", &run_id, "k1"),
        session,
    );
    let states: Vec<&str> = structured(&first)["activity"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| task["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["in_progress", "queued"]);
    assert_eq!(structured(&first)["execution"], json!({"state": "active"}));
    let (again, _) = send(
        &endpoint,
        &mut runs,
        &task("foundation", &run_id, "k1"),
        session,
    );
    assert_eq!(again, first);
    let (reply, _) = send(
        &endpoint,
        &mut runs,
        &task("delivery", &run_id, "k1"),
        session,
    );
    assert_eq!(code(&reply), "idempotency-conflict");
    assert_eq!(runs.runs[0].1.len(), 1, "one event stored");
}
