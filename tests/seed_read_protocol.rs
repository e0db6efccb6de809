//! `describe("the MCP read protocol")` of the seed suite (seed-mcp.test.ts),
//! case by case, minus the three create_document cases.

mod common;

use common::{
    Host, Request, Step, call, endpoint, expected_tools, seed_bad_arguments, seed_document, send,
};
use serde_json::{Value, json};

fn document_json() -> Value {
    serde_json::to_value(seed_document()).unwrap()
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap()
}

fn listed_tools() -> Value {
    send(&Request::post(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ))
    .json()["result"]["tools"]
        .clone()
}

#[test]
fn authenticates_initialize_lists_repository_documents_and_reads_canonical_source() {
    let endpoint = endpoint();
    let mut host = Host::seed();
    let initialized =
        Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
            .send(&endpoint, &mut host)
            .json();
    assert_eq!(initialized["jsonrpc"], "2.0");
    assert_eq!(initialized["id"], 1);
    assert_eq!(initialized["result"]["protocolVersion"], "2025-03-26");
    assert_eq!(initialized["result"]["capabilities"], json!({"tools": {}}));
    assert_eq!(initialized["result"]["serverInfo"]["name"], "chopin");

    let tools = Request::post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send(&endpoint, &mut host)
        .json();
    assert_eq!(tools["result"]["tools"], expected_tools());

    let listed = Request::post(&call(
        json!(3),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ))
    .send(&endpoint, &mut host)
    .json();
    let document = seed_document();
    assert_eq!(
        listed["result"]["structuredContent"],
        json!({"documents": [{"id": document.id, "title": document.title}]})
    );

    let read = Request::post(&call(json!(4), "read_document", json!({"id": document.id})))
        .send(&endpoint, &mut host)
        .json();
    assert_eq!(read["result"]["structuredContent"], document_json());

    assert_eq!(
        host.transcript,
        [
            Step::Authenticate,
            Step::Respond(200),
            Step::Authenticate,
            Step::Respond(200),
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200),
            Step::Authenticate,
            Step::Read(document.id.clone()),
            Step::Respond(200),
        ]
    );
}

#[test]
fn keeps_the_repository_scoped_tool_schemas_static() {
    let tools = listed_tools();
    let list = tool(&tools, "list_documents");
    assert_eq!(list["inputSchema"]["required"], json!(["repository"]));
    assert_eq!(list["inputSchema"]["additionalProperties"], false);
    let read = tool(&tools, "read_document");
    assert_eq!(read["inputSchema"]["required"], json!(["id"]));
    assert_eq!(read["inputSchema"]["additionalProperties"], false);
}

#[test]
fn advertises_the_canonical_repository_and_non_blank_channel_constraints_it_enforces() {
    let tools = listed_tools();
    assert_eq!(
        tool(&tools, "list_documents")["inputSchema"]["properties"]["repository"]["pattern"],
        "^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"
    );
    let id = &tool(&tools, "read_document")["inputSchema"]["properties"]["id"];
    assert_eq!(id["pattern"], "\\S");
    assert_eq!(id["maxLength"], 128);
}

#[test]
fn does_not_reveal_documents_to_an_unauthenticated_caller() {
    let mut host = Host::seed();
    let reply = Request::post(&call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ))
    .header("authorization", "Bearer denied")
    .send(&endpoint(), &mut host);
    assert_eq!(reply.status, 401);
    assert!(!reply.text().contains(&seed_document().title));
    assert_eq!(host.transcript, [Step::Authenticate, Step::Respond(401)]);
}

#[test]
fn reports_parse_errors_and_invalid_requests_with_json_rpc_errors() {
    let malformed = send(&Request::post_raw("{"));
    assert_eq!(malformed.status, 400);
    assert_eq!(
        malformed.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}})
    );
    let invalid = send(&Request::post(
        &json!({"jsonrpc": "1.0", "id": 4, "method": "tools/list"}),
    ));
    assert_eq!(
        invalid.json(),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "invalid request"}})
    );
}

#[test]
fn rejects_declared_and_streamed_request_bodies_beyond_the_read_only_transport_budget() {
    let declared = Request::post_raw("{}").header("content-length", "65537");
    let streamed = Request::post_raw("").chunks(vec![vec![0; 32_768]; 3]);
    for request in [declared, streamed] {
        let (reply, transcript) = request.exchange(&endpoint());
        assert_eq!(reply.status, 413);
        assert_eq!(reply.text(), "request too large");
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
    }
}

#[test]
fn rejects_non_scalar_json_rpc_ids_and_scalar_initialize_or_tools_list_parameters() {
    for (request, id) in [
        (
            json!({"jsonrpc": "2.0", "id": {"invalid": true}, "method": "tools/list"}),
            json!(null),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": "invalid"}),
            json!(5),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": 1}),
            json!(6),
        ),
    ] {
        assert_eq!(
            send(&Request::post(&request)).json(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": "invalid request"}})
        );
    }
}

#[test]
fn rejects_malformed_tool_arguments_and_unknown_tools_without_consulting_the_reader() {
    let endpoint = endpoint();
    let mut host = Host::seed();
    let ids = [5, 6, 7, 9];
    for (id, (name, arguments, error)) in ids.into_iter().zip(seed_bad_arguments()) {
        let invalid = Request::post(&call(json!(id), name, arguments))
            .send(&endpoint, &mut host)
            .json();
        assert_eq!(invalid["error"], json!({"code": -32602, "message": error}));
    }
    let unknown = Request::post(&call(json!(8), "write_document", json!({})))
        .send(&endpoint, &mut host)
        .json();
    assert_eq!(
        unknown["error"],
        json!({"code": -32601, "message": "tool not found"})
    );
    assert!(!host.consulted_store(), "{:?}", host.transcript);
}

#[test]
fn counts_read_document_ids_by_json_schema_characters() {
    let mut host = Host::seed();
    let boundary = Request::post(&call(
        json!(10),
        "read_document",
        json!({"id": "😀".repeat(128)}),
    ))
    .send(&endpoint(), &mut host)
    .json();
    assert!(boundary.get("error").is_none());
    assert_eq!(boundary["result"], json!({"content": [], "isError": true}));
    assert!(host.consulted_store());
}

#[test]
fn returns_tool_level_absence_for_a_missing_or_inaccessible_channel() {
    let missing = send(&Request::post(&call(
        json!(7),
        "read_document",
        json!({"id": "missing"}),
    )))
    .json();
    let inaccessible = Request::post(&call(
        json!(8),
        "read_document",
        json!({"id": seed_document().id}),
    ))
    .send(&endpoint(), &mut Host::empty())
    .json();
    assert_eq!(missing["result"], json!({"content": [], "isError": true}));
    assert_eq!(inaccessible["result"], missing["result"]);
}

#[test]
fn does_not_reply_to_notifications_and_rejects_unknown_methods() {
    let mut host = Host::seed();
    let notification = Request::post(&json!({
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}},
    }))
    .send(&endpoint(), &mut host);
    assert_eq!(notification.status, 202);
    assert_eq!(notification.text(), "");
    assert!(!host.consulted_store());
    let unknown = send(&Request::post(
        &json!({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}),
    ))
    .json();
    assert_eq!(
        unknown["error"],
        json!({"code": -32601, "message": "method not found"})
    );
}

#[test]
fn negotiates_authenticated_get_event_streams_and_refuses_unsupported_methods() {
    let stream = send(&Request::get().header("accept", "text/event-stream"));
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    assert!(stream.event_stream);
    let unacceptable = send(&Request::get().header("accept", "application/json"));
    assert_eq!(unacceptable.status, 406);
    let unsupported = send(&Request::get().method("PUT"));
    assert_eq!(unsupported.status, 405);
    assert_eq!(unsupported.header("allow"), Some("GET, POST"));
}

#[test]
fn honors_event_stream_accept_quality_values() {
    for accept in [
        "text/event-stream;q=0",
        "application/json, text/event-stream; q=0",
        "text/event-stream;q=0, */*;q=1",
        "*/*;q=0",
    ] {
        assert_eq!(
            send(&Request::get().header("accept", accept)).status,
            406,
            "{accept}"
        );
    }
    assert_eq!(
        send(&Request::get().header("accept", "text/event-stream;q=0.25")).status,
        200
    );
}
