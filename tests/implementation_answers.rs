//! IMPLEMENTATION.md §2.1, §2.4 and §5 case 5: each answer of the three
//! implementation effects is written as the spec says — success
//! `text(v)`, every refusal `text({"code":c}, error)`: forbidden →
//! `repository-forbidden`, unavailable → `document-unavailable`
//! (`implementation-unavailable` for a read), archived →
//! `document-archived`, refused(r) → r's code.

mod common;

use chopin_mcp::implementation::{Client, Life, Refusal, Run};
use chopin_mcp::{
    BodyChunks, Config, Endpoint, Header, LifecycleAnswer, Outcome, ReadImplementationAnswer,
    RequestParts, StartAnswer,
};
use common::{call, endpoint_with, framed, text_members};
use serde_json::{Value, json};

const D: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const RUN: &str = "01K2XQ7Z0000000000000000R1";

fn endpoint() -> Endpoint {
    endpoint_with(
        Config::new()
            .enable_implementations()
            .client_sessions(false),
    )
}

/// The effect a call of `tool` with `arguments` asks for.
fn effect(tool: &str, arguments: Value) -> Outcome<String> {
    let body = serde_json::to_vec(&call(json!(1), tool, arguments)).unwrap();
    let headers = [Header::new("content-type", b"application/json")];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let Outcome::Authenticate(auth) = endpoint().handle(&parts, BodyChunks::from(body)) else {
        panic!("authenticate first");
    };
    auth.answer(Some("octocat".to_owned()))
}

fn body(outcome: Outcome<String>) -> String {
    let response = outcome.response().expect("a response").clone();
    String::from_utf8(response.body().to_vec()).unwrap()
}

fn code(code: &str) -> String {
    framed(
        &text_members(&format!(r#"{{"code":"{code}"}}"#), true),
        false,
    )
}

fn run() -> Run {
    Run {
        id: RUN.into(),
        user: "octocat".into(),
        client: Client {
            name: "Codex".into(),
            version: "1.2.3".into(),
        },
        session: "01K2XQ7Z0000000000000000S1".into(),
        plan_revision: 3,
        graph_version: 1,
        graph_revision: 1,
        repository: "githubnext/chopin".into(),
        branch: "tq/017".into(),
        commit: "deadbeef".into(),
        started_at: "2026-12-05T00:00:00.000Z".into(),
    }
}

#[test]
fn read_implementation_refusals() {
    let read = || match effect("read_implementation", json!({"id": D})) {
        Outcome::ReadImplementation(read) => read,
        other => panic!("{other:?}"),
    };
    assert_eq!(read().locator(), D);
    let answers = [
        (
            ReadImplementationAnswer::<()>::Forbidden,
            "repository-forbidden",
        ),
        (
            ReadImplementationAnswer::<()>::Unavailable,
            "implementation-unavailable",
        ),
    ];
    for (answer, expected) in answers {
        assert_eq!(body(read().answer(answer)), code(expected));
    }
}

#[test]
fn start_answers_in_their_shapes() {
    let arguments = json!({"id": D, "planRevision": 3, "graphVersion": 1, "graphRevision": 1,
        "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"});
    let start = || match effect("start_implementation", arguments.clone()) {
        Outcome::StartImplementation(start) => start,
        other => panic!("{other:?}"),
    };
    let request = start().request().clone();
    assert_eq!(
        (
            request.id.as_str(),
            request.plan_revision,
            request.graph_version,
            request.graph_revision
        ),
        (D, 3, 1, 1)
    );
    assert_eq!(
        (
            request.repository.as_str(),
            request.branch.as_str(),
            request.commit.as_str()
        ),
        ("githubnext/chopin", "tq/017", "deadbeef")
    );
    let run = run();
    let run_json = serde_json::to_string(&run).unwrap();
    let started = format!(r#"{{"state":"started","run":{run_json}}}"#);
    assert_eq!(
        body(start().answer(StartAnswer::Started(&run))),
        framed(&text_members(&started, false), false)
    );
    let active = format!(r#"{{"state":"active","run":{run_json}}}"#);
    assert_eq!(
        body(start().answer(StartAnswer::Active(&run))),
        framed(&text_members(&active, false), false)
    );
    for (answer, expected) in [
        (StartAnswer::Forbidden, "repository-forbidden"),
        (StartAnswer::Archived, "document-archived"),
        (StartAnswer::Unavailable, "document-unavailable"),
        (
            StartAnswer::Refused(Refusal::AlreadyVerified),
            "already-verified",
        ),
        (StartAnswer::Refused(Refusal::StalePlan), "stale-plan"),
        (StartAnswer::Refused(Refusal::Run), "run"),
    ] {
        assert_eq!(body(start().answer(answer)), code(expected));
    }
}

#[test]
fn lifecycle_answers_in_their_shapes() {
    let arguments = json!({"id": D, "runId": RUN, "taskId": "delivery", "idempotencyKey": "k1"});
    let report = || match effect("start_task", arguments.clone()) {
        Outcome::ReportLifecycle(report) => report,
        other => panic!("{other:?}"),
    };
    let effect = report();
    assert_eq!(
        (effect.locator(), effect.run_id(), effect.idempotency_key()),
        (D, RUN, "k1")
    );
    assert_eq!(effect.command().task_id(), Some("delivery"));
    let life = Life {
        active: None,
        ended: &[],
    };
    let idle = framed(
        &text_members(r#"{"execution":{"state":"idle"},"history":[]}"#, false),
        false,
    );
    assert_eq!(
        body(report().answer(LifecycleAnswer::Accepted(&life))),
        idle
    );
    assert_eq!(
        body(report().answer(LifecycleAnswer::Replayed(&life))),
        idle
    );
    for (answer, expected) in [
        (LifecycleAnswer::Forbidden, "repository-forbidden"),
        (LifecycleAnswer::Unavailable, "document-unavailable"),
        (LifecycleAnswer::Refused(Refusal::Dependency), "dependency"),
        (
            LifecycleAnswer::Refused(Refusal::IdempotencyConflict),
            "idempotency-conflict",
        ),
        (LifecycleAnswer::Refused(Refusal::TaskState), "task-state"),
    ] {
        assert_eq!(body(report().answer(answer)), code(expected));
    }
}
