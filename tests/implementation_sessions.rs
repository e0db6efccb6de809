//! IMPLEMENTATION.md §3 and §5 cases 2, 6, 8, 24: in the handshake era the
//! seven implementation tools that write need exactly one well-formed
//! session id — else `session-required`, after the arguments, before any
//! effect — and the claim records the client and session it names, whoever
//! issued it; read_implementation and the document tools need none;
//! `client_sessions(false)` turns the gate off; 2026-07-28 has no sessions:
//! the client comes from `_meta` and the run stands in for the session.

mod common;

use chopin_mcp::{ClientInfo, Config, Endpoint, SequentialIds};
use common::{Host, Request, STARTED_AT, Step, call, endpoint_with, framed, mreq, text_members};
use serde_json::{Value, json};

const D: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const RUN: &str = "01K2XQ7Z0000000000000000R1";

fn endpoint() -> Endpoint {
    endpoint_with(Config::new().enable_implementations())
}

fn initialize(endpoint: &Endpoint) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "Codex", "version": "1.2.3"}}});
    let reply = Request::post(&body).send(endpoint, &mut Host::seed());
    reply.header("mcp-session-id").unwrap().to_owned()
}

fn a() -> Value {
    json!({"id": D, "planRevision": 3, "graphVersion": 1, "graphRevision": 1,
        "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef"})
}

fn start_task() -> Value {
    json!({"id": D, "runId": RUN, "taskId": "foundation", "idempotencyKey": "k1"})
}

const SESSION_REQUIRED: &str = r#"{"code":"session-required"}"#;

#[test]
fn without_one_well_formed_session_the_seven_are_refused_before_any_effect() {
    let session = initialize(&endpoint());
    for (tool, arguments) in [("start_implementation", a()), ("start_task", start_task())] {
        let request = Request::post(&call(json!(1), tool, arguments));
        for request in [
            request.clone(),
            request
                .clone()
                .add_header("mcp-session-id", &session)
                .add_header("mcp-session-id", &session),
            request.clone().header("mcp-session-id", "c1.%%"),
            request
                .clone()
                .header("mcp-session-id", "0b6b7f36-4e8f-4d0f-9b0c-6f7a1e2d3c4b"),
        ] {
            let mut host = Host::seed();
            let reply = request.send(&endpoint(), &mut host);
            assert_eq!(
                reply.text(),
                framed(&text_members(SESSION_REQUIRED, true), false),
                "{tool}"
            );
            assert!(!host.consulted_store(), "{tool}");
        }
    }
}

#[test]
fn read_implementation_needs_no_session() {
    let mut host = Host::seed();
    let request = Request::post(&call(
        json!(1),
        "read_implementation",
        json!({"id": "forbidden"}),
    ));
    let reply = request.send(&endpoint(), &mut host);
    let members = text_members(r#"{"code":"repository-forbidden"}"#, true);
    assert_eq!(reply.text(), framed(&members, false));
    let mut host = Host::seed();
    let request = Request::post(&call(json!(1), "read_implementation", json!({"id": D})));
    let reply = request.send(&endpoint(), &mut host);
    let members = text_members(r#"{"code":"implementation-unavailable"}"#, true);
    assert_eq!(reply.text(), framed(&members, false));
    assert_eq!(host.transcript[1], Step::ReadImplementation(D.to_owned()));
}

#[test]
fn a_claim_records_the_client_and_session_whoever_issued_the_id() {
    let other = Endpoint::new(
        Config::new()
            .enable_implementations()
            .id_source(SequentialIds::new(1_600_000_000_000)),
    )
    .unwrap();
    for issuer in [endpoint(), other] {
        let session = initialize(&issuer);
        let ulid = &session[session.len() - 26..];
        let mut host = Host::seed();
        let reply = Request::post(&call(json!(1), "start_implementation", a()))
            .header("mcp-session-id", &session)
            .send(&endpoint(), &mut host);
        let started = &host.started[0];
        let client = &started.client;
        assert_eq!(
            (
                client.name.as_str(),
                client.version.as_str(),
                client.session.as_deref()
            ),
            ("Codex", "1.2.3", Some(ulid))
        );
        let result = reply.json()["result"]["structuredContent"].clone();
        assert_eq!(result["state"], "started");
        assert_eq!(
            result["run"],
            json!({"id": started.run_id, "user": "octocat",
                "client": {"name": "Codex", "version": "1.2.3"}, "session": ulid,
                "planRevision": 3, "graphVersion": 1, "graphRevision": 1,
                "repository": "githubnext/chopin", "branch": "tq/017", "commit": "deadbeef",
                "startedAt": STARTED_AT})
        );
        // The run id is a ULID from the claiming endpoint's source.
        assert_eq!(started.run_id, "01JXT21Q000000000000000000");
    }
}

#[test]
fn a_lifecycle_report_carries_its_client_and_the_spec_s_fingerprint() {
    let session = initialize(&endpoint());
    let arguments =
        json!({"id": D, "runId": RUN, "taskId": "claim", "idempotencyKey": "start-claim"});
    let mut host = Host::seed();
    let reply = Request::post(&call(json!(1), "start_task", arguments))
        .header("mcp-session-id", &session)
        .send(&endpoint(), &mut host);
    let members = text_members(r#"{"execution":{"state":"idle"},"history":[]}"#, false);
    assert_eq!(reply.text(), framed(&members, false));
    let report = &host.reported[0];
    assert_eq!(
        (report.locator.as_str(), report.run_id.as_str(), report.tool),
        (D, RUN, "start_task")
    );
    assert_eq!(report.idempotency_key, "start-claim");
    assert_eq!(
        report.fingerprint,
        "9e6575dd4cd6ad3043af53c17ee6e791baa9c6810dff6c70dd2d325b07cc2732"
    );
    assert_eq!(report.client.name, "Codex");
}

#[test]
fn with_sessions_off_the_gate_is_off_and_the_run_stands_in() {
    let endpoint = endpoint_with(
        Config::new()
            .enable_implementations()
            .client_sessions(false),
    );
    let mut host = Host::seed();
    Request::post(&call(json!(1), "start_implementation", a())).send(&endpoint, &mut host);
    let started = &host.started[0];
    assert_eq!(
        started.client.session.as_deref(),
        Some(started.run_id.as_str())
    );
    assert_eq!(started.client.name, ClientInfo::UNKNOWN);
    let mut host = Host::seed();
    Request::post(&call(json!(1), "start_task", start_task())).send(&endpoint, &mut host);
    assert_eq!(host.reported.len(), 1);
}

#[test]
fn the_modern_era_has_no_sessions_and_reads_client_info_from_meta() {
    let params = json!({"name": "start_implementation", "arguments": a()});
    let request = mreq("tools/call", params.clone());
    let mut body: Value = serde_json::from_slice(&request.body()).unwrap();
    body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] =
        json!({"name": "Codex", "version": "1.2.3"});
    let request = request.chunks(vec![serde_json::to_vec(&body).unwrap()]);
    let mut host = Host::seed();
    let reply = request.send(&endpoint(), &mut host);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let started = &host.started[0];
    let run = &reply.json()["result"]["structuredContent"]["run"];
    assert_eq!(run["session"], run["id"]);
    assert_eq!(run["id"].as_str(), Some(started.run_id.as_str()));
    assert_eq!(run["client"], json!({"name": "Codex", "version": "1.2.3"}));
    // Without `_meta` client info: unknown; the session is still the run.
    let mut host = Host::seed();
    let reply = mreq("tools/call", params).send(&endpoint(), &mut host);
    let run = &reply.json()["result"]["structuredContent"]["run"];
    assert_eq!(
        run["client"],
        json!({"name": "unknown", "version": "unknown"})
    );
    assert_eq!(run["session"], run["id"]);
    // A lifecycle call needs no session either.
    let mut host = Host::seed();
    let params = json!({"name": "start_task", "arguments": start_task()});
    let reply = mreq("tools/call", params).send(&endpoint(), &mut host);
    let members = text_members(r#"{"execution":{"state":"idle"},"history":[]}"#, false);
    assert_eq!(reply.text(), framed(&members, true));
    assert_eq!(host.reported.len(), 1);
}
