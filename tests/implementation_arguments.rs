//! IMPLEMENTATION.md §2.2 and §5 cases 4, 7, 23: every argument the schema
//! refuses is -32602 with the tool's message (modern: `isError` text), with
//! or without a session, and no effect is started; arguments the schema
//! allows reach the host as sent.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, call, endpoint_with, framed, mreq};
use serde_json::{Value, json};

const D: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const RUN: &str = "01K2XQ7Z0000000000000000R1";

fn endpoint() -> chopin_mcp::Endpoint {
    endpoint_with(Config::new().enable_implementations())
}

/// A session id for `Codex 1.2.3`.
fn session() -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "Codex", "version": "1.2.3"}}});
    let reply = Request::post(&body).send(&endpoint(), &mut Host::seed());
    reply.header("mcp-session-id").unwrap().to_owned()
}

fn a() -> Value {
    json!({"id": D, "planRevision": 3, "graphVersion": 1, "graphRevision": 1,
        "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"})
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

fn without(mut value: Value, key: &str) -> Value {
    value.as_object_mut().unwrap().remove(key);
    value
}

/// Asserts the legacy -32602 `message` (with and without a session) and
/// the modern `isError` text, and that no effect was started.
fn assert_refused(tool: &str, arguments: &Value, message: &str) {
    let session = session();
    let legacy = Request::post(&call(json!(1), tool, arguments.clone()));
    for request in [legacy.clone(), legacy.header("mcp-session-id", &session)] {
        let mut host = Host::seed();
        let reply = request.send(&endpoint(), &mut host);
        assert_eq!(
            reply.text(),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32602,"message":"{message}"}}}}"#
            ),
            "{tool} {arguments}"
        );
        assert!(!host.consulted_store(), "{tool} {arguments}");
    }
    let mut host = Host::seed();
    let params = json!({"name": tool, "arguments": arguments});
    let reply = mreq("tools/call", params).send(&endpoint(), &mut host);
    let text = serde_json::to_string(message).unwrap();
    let members = format!(r#""content":[{{"type":"text","text":{text}}}],"isError":true"#);
    assert_eq!(
        (reply.status, reply.text()),
        (200, framed(&members, true).as_str())
    );
    assert!(!host.consulted_store());
}

#[test]
fn read_implementation_needs_one_locator() {
    let message = "read_implementation requires an id or URL";
    for arguments in [
        json!({}),
        json!({"id": ""}),
        json!({"id": " \t"}),
        json!({"id": "a".repeat(2049)}),
        json!({"id": D, "extra": true}),
        json!({"id": 7}),
    ] {
        assert_refused("read_implementation", &arguments, message);
    }
    let mut host = Host::seed();
    let locator = format!("https://chopin.test/documents/{}", "a".repeat(2000));
    let request = Request::post(&call(
        json!(1),
        "read_implementation",
        json!({"id": locator}),
    ));
    request.send(&endpoint(), &mut host);
    assert_eq!(
        host.transcript[1],
        common::Step::ReadImplementation(locator)
    );
}

#[test]
fn start_implementation_needs_current_revisions() {
    let message = "start_implementation requires current revisions";
    for arguments in [
        with(a(), "planRevision", json!(-1)),
        with(a(), "planRevision", json!(1.5)),
        with(a(), "planRevision", json!("3")),
        with(a(), "graphVersion", json!(0)),
        with(a(), "graphRevision", json!(0)),
        with(a(), "repository", json!("./chopin")),
        with(a(), "branch", json!(" ")),
        with(a(), "branch", json!("b".repeat(256))),
        with(a(), "commit", json!("c".repeat(65))),
        without(a(), "commit"),
        with(a(), "extra", json!(1)),
        with(a(), "id", json!("x".repeat(129))),
    ] {
        assert_refused("start_implementation", &arguments, message);
    }
}

#[test]
fn each_lifecycle_tool_needs_its_documented_arguments() {
    let start = json!({"id": D, "runId": RUN, "taskId": "foundation", "idempotencyKey": "k1"});
    let pr = json!({"id": D, "runId": RUN, "taskId": "foundation",
        "url": "https://github.com/githubnext/chopin/pull/1", "state": "open", "idempotencyKey": "k2"});
    let block = json!({"id": D, "runId": RUN, "taskId": "foundation", "reason": "r", "idempotencyKey": "k3"});
    let revision = json!({"id": D, "runId": RUN, "reason": "r", "idempotencyKey": "k4"});
    let verification = json!({"id": D, "runId": RUN, "passed": true, "summary": "s",
        "reviewerMethod": "m", "evidence": [{"taskId": "foundation", "evidence": ["e"]}],
        "tasksNeedingWork": [], "idempotencyKey": "k5"});
    let cases = [
        ("start_task", without(start.clone(), "runId")),
        (
            "start_task",
            with(start.clone(), "taskId", json!("t".repeat(129))),
        ),
        (
            "start_task",
            with(start.clone(), "idempotencyKey", json!("")),
        ),
        ("start_task", with(start.clone(), "extra", json!(1))),
        ("report_pr", with(pr.clone(), "state", json!("draft"))),
        ("report_pr", with(pr, "url", json!("u".repeat(2049)))),
        (
            "block_task",
            with(block.clone(), "reason", json!("r".repeat(5001))),
        ),
        ("block_task", with(block, "reason", json!(" "))),
        (
            "request_revision",
            with(revision, "reason", json!("r".repeat(5001))),
        ),
        (
            "complete_task",
            json!({"id": D, "runId": RUN, "taskId": "t", "idempotencyKey": "k"}),
        ),
        (
            "report_verification",
            with(verification.clone(), "evidence", json!([])),
        ),
        (
            "report_verification",
            with(
                verification.clone(),
                "evidence",
                json!([{"taskId": "foundation", "evidence": ["e"], "more": 1}]),
            ),
        ),
        (
            "report_verification",
            with(
                verification.clone(),
                "evidence",
                json!([{"taskId": "foundation", "evidence": []}]),
            ),
        ),
        (
            "report_verification",
            with(
                verification.clone(),
                "evidence",
                json!([{"taskId": "foundation", "evidence": vec!["e"; 21]}]),
            ),
        ),
        (
            "report_verification",
            with(verification.clone(), "tasksNeedingWork", json!([" "])),
        ),
        (
            "report_verification",
            with(verification.clone(), "passed", json!("true")),
        ),
        (
            "report_verification",
            without(verification, "tasksNeedingWork"),
        ),
    ];
    for (tool, arguments) in cases {
        assert_refused(
            tool,
            &arguments,
            &format!("{tool} requires its documented arguments"),
        );
    }
}

#[test]
fn the_schema_s_limits_themselves_are_accepted() {
    let session = session();
    let evidence: Vec<Value> = (0..200)
        .map(|n| json!({"taskId": format!("t{n}"), "evidence": vec!["e"; 20]}))
        .collect();
    let work: Vec<String> = (0..200).map(|n| format!("t{n}")).collect();
    let cases = [
        (
            "start_implementation",
            with(
                with(a(), "branch", json!("b".repeat(255))),
                "commit",
                json!("c".repeat(64)),
            ),
        ),
        (
            "start_implementation",
            with(a(), "planRevision", json!(3.0)),
        ),
        (
            "block_task",
            json!({"id": D, "runId": RUN, "taskId": "t".repeat(128), "reason": "r".repeat(5000), "idempotencyKey": "k"}),
        ),
        (
            "report_verification",
            json!({"id": D, "runId": RUN, "passed": false, "summary": "s",
            "reviewerMethod": "m", "evidence": evidence, "tasksNeedingWork": work, "idempotencyKey": "k"}),
        ),
        (
            "request_revision",
            json!({"id": D, "runId": RUN, "reason": "  why\n", "idempotencyKey": "k"}),
        ),
    ];
    for (tool, arguments) in cases {
        let mut host = Host::seed();
        Request::post(&call(json!(1), tool, arguments.clone()))
            .header("mcp-session-id", &session)
            .send(&endpoint(), &mut host);
        assert!(host.consulted_store(), "{tool} {arguments}");
    }
}
