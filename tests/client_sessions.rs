//! SURFACE.md §10 sessions: every handshake-era `initialize` 200 reply
//! issues `mcp-session-id: c1.<name>.<version>.<ULID>`, nothing is kept,
//! and a later request's one well-formed line names the client to the
//! effects that take it (update, create) — whichever endpoint issued it.
//! 2026-07-28 reads `_meta["io.modelcontextprotocol/clientInfo"]` instead.

mod common;

use chopin_mcp::{ClientInfo, Config, Endpoint, SequentialIds};
use common::{Host, Request, call, endpoint_with, mreq, read_write};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn initialize(client: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client,
    }})
}

/// The `mcp-session-id` an `initialize` with this `clientInfo` is given.
fn session_of(endpoint: &Endpoint, client: Value) -> String {
    let reply = Request::post(&initialize(client)).send(endpoint, &mut Host::seed());
    assert_eq!(reply.status, 200);
    reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned()
}

fn update() -> Value {
    call(
        json!(2),
        "update_document",
        json!({"id": ID, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k-1"}),
    )
}

/// The client the update effect of `request` is handed.
fn client_of(request: Request) -> ClientInfo {
    let mut host = Host::seed();
    let reply = request.send(&read_write(), &mut host);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(host.clients.len(), 1, "one effect named its client");
    host.clients.remove(0)
}

fn is_ulid(text: &str) -> bool {
    let crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    text.len() == 26
        && ('0'..='7').contains(&text.chars().next().unwrap())
        && text.chars().all(|c| crockford.contains(c))
}

fn unknown() -> (String, String, Option<String>) {
    ("unknown".into(), "unknown".into(), None)
}

fn parts(client: ClientInfo) -> (String, String, Option<String>) {
    (client.name, client.version, client.session)
}

#[test]
fn initialize_issues_the_client_s_name_and_version_and_a_ulid() {
    let id = session_of(
        &read_write(),
        json!({"name": "update-test", "version": "1"}),
    );
    let ulid = id.strip_prefix("c1.dXBkYXRlLXRlc3Q.MQ.").expect(&id);
    assert!(is_ulid(ulid), "{id}");
    let id = session_of(&read_write(), json!({"name": "Codex", "version": "1.2.3"}));
    assert!(id.starts_with("c1.Q29kZXg.MS4yLjM."), "{id}");
}

#[test]
fn each_initialize_gets_a_new_id() {
    let endpoint = read_write();
    let client = json!({"name": "update-test", "version": "1"});
    let first = session_of(&endpoint, client.clone());
    let second = session_of(&endpoint, client);
    assert_ne!(first, second);
}

#[test]
fn an_update_sending_the_id_names_its_client_and_session() {
    let id = session_of(
        &read_write(),
        json!({"name": "update-test", "version": "1"}),
    );
    let client = client_of(Request::post(&update()).header("mcp-session-id", &id));
    assert_eq!(
        parts(client),
        ("update-test".into(), "1".into(), Some(id[22..].to_owned()))
    );
}

#[test]
fn create_is_told_the_client_too() {
    let id = session_of(&read_write(), json!({"name": "Codex", "version": "1.2.3"}));
    let mut host = Host::seed();
    let create = call(json!(2), "create_document", common::creation());
    Request::post(&create)
        .header("mcp-session-id", &id)
        .send(&read_write(), &mut host);
    assert_eq!(host.clients[0].name, "Codex");
    assert_eq!(host.clients[0].version, "1.2.3");
}

#[test]
fn an_id_issued_by_another_replica_reads_the_same() {
    let other = Endpoint::new(
        Config::new()
            .enable_lifecycle()
            .id_source(SequentialIds::new(1_600_000_000_000)),
    )
    .unwrap();
    let id = session_of(&other, json!({"name": "replica-b", "version": "9"}));
    let client = client_of(Request::post(&update()).header("mcp-session-id", &id));
    assert_eq!(
        (client.name.as_str(), client.version.as_str()),
        ("replica-b", "9")
    );
}

#[test]
fn no_header_a_uuid_or_a_malformed_id_is_unknown() {
    assert_eq!(parts(client_of(Request::post(&update()))), unknown());
    for header in [
        "0b6b7f36-4e8f-4d0f-9b0c-6f7a1e2d3c4b",
        "c1.%%",
        "c1.dXBkYXRlLXRlc3Q.MQ",
        "c1.dXBkYXRlLXRlc3Q.MQ.01arz3ndektsv4rrffq69g5fav",
        "c1.dXBkYXRlLXRlc3Q=.MQ.01ARZ3NDEKTSV4RRFFQ69G5FAV",
    ] {
        let request = Request::post(&update()).header("mcp-session-id", header);
        assert_eq!(parts(client_of(request)), unknown(), "{header}");
    }
}

#[test]
fn two_header_lines_are_unknown_even_when_both_are_well_formed() {
    let id = session_of(
        &read_write(),
        json!({"name": "update-test", "version": "1"}),
    );
    let request = Request::post(&update())
        .add_header("mcp-session-id", &id)
        .add_header("mcp-session-id", &id);
    assert_eq!(parts(client_of(request)), unknown());
}

#[test]
fn a_blank_or_missing_field_reads_as_unknown_and_the_other_stays() {
    let id = session_of(&read_write(), json!({"name": "  ", "version": "1"}));
    let client = client_of(Request::post(&update()).header("mcp-session-id", &id));
    assert_eq!(
        (client.name.as_str(), client.version.as_str()),
        ("unknown", "1")
    );
    let id = session_of(&read_write(), json!({"name": "tool", "version": 7}));
    assert!(id.starts_with("c1.dG9vbA.."), "{id}");
    let client = client_of(Request::post(&update()).header("mcp-session-id", &id));
    assert_eq!(
        (client.name.as_str(), client.version.as_str()),
        ("tool", "unknown")
    );
    let id = session_of(&read_write(), json!("not an object"));
    assert!(id.starts_with("c1..."), "{id}");
}

#[test]
fn names_are_cut_to_128_scalar_values() {
    let long = "😀".repeat(200);
    let id = session_of(&read_write(), json!({"name": long, "version": "1"}));
    let client = client_of(Request::post(&update()).header("mcp-session-id", &id));
    assert_eq!(client.name, "😀".repeat(128));
}

#[test]
fn a_batch_element_reads_the_request_s_session() {
    let id = session_of(&read_write(), json!({"name": "batcher", "version": "2"}));
    let batch = json!([update()]);
    let request = Request::post(&batch)
        .header("mcp-protocol-version", "2025-03-26")
        .header("mcp-session-id", &id);
    let mut host = Host::seed();
    let reply = request.send(&read_write(), &mut host);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(host.clients[0].name, "batcher");
}

#[test]
fn notifications_errors_and_other_replies_carry_no_session_id() {
    let endpoint = read_write();
    let mut notification = initialize(json!({"name": "n", "version": "1"}));
    notification.as_object_mut().unwrap().remove("id");
    let reply = Request::post(&notification).send(&endpoint, &mut Host::seed());
    assert_eq!(reply.status, 202);
    assert_eq!(reply.header("mcp-session-id"), None);
    // In a batch, `initialize` is an error.
    let batch = json!([initialize(json!({"name": "n", "version": "1"}))]);
    let reply = Request::post(&batch)
        .header("mcp-protocol-version", "2025-03-26")
        .send(&endpoint, &mut Host::seed());
    assert!(reply.text().contains("-32600"), "{}", reply.text());
    assert_eq!(reply.header("mcp-session-id"), None);
    let reply = Request::post(&common::ping(json!(1))).send(&endpoint, &mut Host::seed());
    assert_eq!(reply.header("mcp-session-id"), None);
    let reply = Request::post(&update()).send(&endpoint, &mut Host::seed());
    assert_eq!(reply.header("mcp-session-id"), None);
}

#[test]
fn client_sessions_false_issues_none_and_the_document_tools_never_need_one() {
    let endpoint = endpoint_with(Config::new().enable_lifecycle().client_sessions(false));
    let reply = Request::post(&initialize(json!({"name": "n", "version": "1"})))
        .send(&endpoint, &mut Host::seed());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("mcp-session-id"), None);
    let reply = Request::post(&update())
        .header("mcp-session-id", "c1.%%")
        .send(&endpoint, &mut Host::seed());
    assert_eq!(reply.status, 200);
    assert!(!reply.text().contains("session"), "{}", reply.text());
}

#[test]
fn the_modern_era_reads_client_info_from_meta_and_issues_no_header() {
    let arguments = json!({"id": ID, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k"});
    let params = json!({"name": "update_document", "arguments": arguments});
    let mut with_client = mreq("tools/call", params.clone());
    let mut body: Value = serde_json::from_slice(&with_client.body()).unwrap();
    body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] =
        json!({"name": "Codex", "version": "😀".repeat(130)});
    with_client = with_client.chunks(vec![serde_json::to_vec(&body).unwrap()]);
    let mut host = Host::seed();
    let reply = with_client.send(&read_write(), &mut host);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("mcp-session-id"), None);
    assert_eq!(
        parts(host.clients.remove(0)),
        ("Codex".into(), "😀".repeat(128), None)
    );
    let mut host = Host::seed();
    mreq("tools/call", params).send(&read_write(), &mut host);
    assert_eq!(parts(host.clients.remove(0)), unknown());
}

#[test]
fn a_modern_request_s_session_header_is_not_read() {
    let id = session_of(
        &read_write(),
        json!({"name": "update-test", "version": "1"}),
    );
    let arguments = json!({"id": ID, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k"});
    let request = mreq(
        "tools/call",
        json!({"name": "update_document", "arguments": arguments}),
    )
    .header("mcp-session-id", &id);
    assert_eq!(parts(client_of(request)), unknown());
}

#[test]
fn cors_exposes_the_session_id_and_allows_it_as_a_request_header() {
    let endpoint = endpoint_with(Config::new().allow_origin("https://chopin.example"));
    let reply = Request::post(&initialize(json!({"name": "n", "version": "1"})))
        .header("origin", "https://chopin.example")
        .send(&endpoint, &mut Host::seed());
    let exposed = reply.header("access-control-expose-headers").unwrap();
    assert!(exposed.contains("mcp-session-id"), "{exposed}");
    let preflight = Request::get()
        .method("OPTIONS")
        .header("origin", "https://chopin.example")
        .header("access-control-request-method", "POST")
        .send(&endpoint, &mut Host::seed());
    let allowed = preflight.header("access-control-allow-headers").unwrap();
    assert!(allowed.contains("mcp-session-id"), "{allowed}");
}
