//! MODERN.md §6 and step 6: `subscriptions/listen`, the modern GET, and
//! event-stream framing of modern replies (§9 cases 26–29).

mod common;

use common::{Request, Step, assert_modern_error, endpoint, mreq, mreq_id, rpc_error, si};
use serde_json::json;

/// §9.26.
#[test]
fn a_modern_get_is_405_while_legacy_gets_keep_their_stream() {
    let (reply, transcript) = Request::get()
        .header("mcp-protocol-version", "2026-07-28")
        .exchange(&endpoint());
    assert_eq!((reply.status, reply.text()), (405, "method not allowed"));
    assert_eq!(reply.header("allow"), Some("GET, POST"));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(405)]);
    let (stream, _) = Request::get().exchange(&endpoint());
    assert_eq!(stream.status, 200);
    assert!(stream.event_stream);
    let (old, _) = Request::get()
        .header("mcp-protocol-version", "1999-01-01")
        .exchange(&endpoint());
    assert_eq!(old.status, 400);
    let (delete, _) = Request::get().method("DELETE").exchange(&endpoint());
    assert_eq!(delete.status, 405);
}

/// §9.27.
#[test]
fn listen_acknowledges_and_closes_with_exactly_two_events() {
    let request = mreq_id(
        json!(7),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    assert!(!reply.event_stream, "a finite body, nothing held open");
    let server_info = &si()["\"_meta\":{".len()..si().len() - 1];
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{}}}"#;
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":"complete","_meta":{{"io.modelcontextprotocol/subscriptionId":7,{server_info}}}}}}}"#
    );
    let expected = format!("event: message\ndata: {ack}\n\nevent: message\ndata: {result}\n\n");
    assert_eq!(reply.text(), expected);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

/// §9.28.
#[test]
fn listen_needs_a_filter_object_and_an_acceptable_event_stream() {
    assert_modern_error(
        &endpoint(),
        &mreq("subscriptions/listen", json!({})),
        400,
        &rpc_error("1", -32602, "invalid subscription filter"),
    );
    let request = mreq("subscriptions/listen", json!({"notifications": {}}))
        .header("accept", "application/json");
    let (reply, _) = request.exchange(&endpoint());
    assert_eq!((reply.status, reply.text()), (406, "not acceptable"));
}

/// §9.29, first half.
#[test]
fn a_modern_result_as_an_event_is_unbuffered_and_a_legacy_one_is_unchanged() {
    let (reply, _) = mreq("tools/list", json!({}))
        .header("accept", "text/event-stream")
        .exchange(&endpoint());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let text = reply.text();
    assert!(text.starts_with("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"tools\":["));
    assert_eq!(text.matches("data: ").count(), 1);
    assert!(text.ends_with("}}\n\n"));
    let (legacy, _) = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .header("accept", "text/event-stream")
        .exchange(&endpoint());
    assert_eq!(legacy.header("content-type"), Some("text/event-stream"));
    assert_eq!(legacy.header("x-accel-buffering"), None);
}
