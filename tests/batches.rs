//! SPEC.md §6: JSON-RPC batches, accepted only under protocol version
//! 2025-03-26 (the version of a request without `mcp-protocol-version`).

mod common;

use common::{Reply, Request, Step, call, endpoint, ping, seed_document};
use serde_json::{Value, json};

const INVALID: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}"#;

/// The batch under 2025-03-26, both without the header and with it; checks
/// that the two agree and returns one reply and transcript.
fn batch(body: &Value) -> (Reply, Vec<Step>) {
    let (plain, plain_steps) = Request::post(body).exchange(&endpoint());
    let (headed, headed_steps) = Request::post(body)
        .header("mcp-protocol-version", "2025-03-26")
        .exchange(&endpoint());
    assert_eq!(plain, headed, "with and without the 2025-03-26 header");
    assert_eq!(plain_steps, headed_steps);
    (plain, plain_steps)
}

fn note(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

#[test]
fn a_batch_of_requests_is_answered_with_an_array_of_replies_in_order() {
    let (reply, transcript) = batch(&json!([
        ping(json!(1)),
        {"jsonrpc": "2.0", "id": "two", "method": "nope"},
        ping(json!(3)),
    ]));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.text(),
        concat!(
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":"two","error":{"code":-32601,"message":"method not found"}},"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}]"#
        )
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_batch_of_one_request_is_still_an_array() {
    let (reply, _) = batch(&json!([ping(json!(7))]));
    assert_eq!(reply.text(), r#"[{"jsonrpc":"2.0","id":7,"result":{}}]"#);
}

#[test]
fn ids_in_a_batch_are_echoed_as_written() {
    let body = r#"[{"jsonrpc":"2.0","id":1.0,"method":"ping"},{"jsonrpc":"2.0","id":-0,"method":"ping"},{"jsonrpc":"2.0","id":1e2,"method":"x"}]"#;
    let (reply, _) = Request::post_raw(body).exchange(&endpoint());
    assert_eq!(
        reply.text(),
        concat!(
            r#"[{"jsonrpc":"2.0","id":1.0,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":-0,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":1e2,"error":{"code":-32601,"message":"method not found"}}]"#
        )
    );
}

#[test]
fn notifications_in_a_batch_get_no_entry() {
    let document = seed_document();
    let (reply, transcript) = batch(&json!([
        note("notifications/initialized"),
        ping(json!(1)),
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_document", "arguments": {"id": document.id}}},
        ping(json!(2)),
        note("nope"),
    ]));
    assert_eq!(
        reply.text(),
        r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]"#
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_batch_of_only_notifications_is_202_with_no_body() {
    let (reply, transcript) = batch(&json!([
        note("notifications/initialized"),
        note("ping"),
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}}},
    ]));
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());
    assert_eq!(reply.header("content-type"), None);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(202)]);
}

#[test]
fn an_empty_batch_is_one_invalid_request_with_id_null() {
    for body in ["[]", " [ ] "] {
        let (reply, transcript) = Request::post_raw(body).exchange(&endpoint());
        assert_eq!(reply.status, 200);
        assert_eq!(reply.text(), INVALID, "{body}");
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    }
}

#[test]
fn a_batch_holds_at_most_100_messages() {
    let messages = |n: usize| Value::Array((0..n).map(|i| ping(json!(i))).collect());
    let (reply, _) = batch(&messages(100));
    let replies = reply.json();
    let replies = replies.as_array().expect("an array of replies");
    assert_eq!(replies.len(), 100);
    for (i, reply) in replies.iter().enumerate() {
        assert_eq!(*reply, json!({"jsonrpc": "2.0", "id": i, "result": {}}));
    }
    let (reply, transcript) = batch(&messages(101));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), INVALID);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    // Notifications count as messages too.
    let mut hundred_and_one = messages(100);
    hundred_and_one
        .as_array_mut()
        .unwrap()
        .push(note("notifications/initialized"));
    assert_eq!(batch(&hundred_and_one).0.text(), INVALID);
}

#[test]
fn a_batch_over_100_messages_starts_no_effect() {
    let document = seed_document();
    let reads: Vec<Value> = (0..101)
        .map(|i| call(json!(i), "read_document", json!({"id": document.id})))
        .collect();
    let (reply, transcript) = batch(&Value::Array(reads));
    assert_eq!(reply.text(), INVALID);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn initialize_inside_a_batch_is_an_invalid_request_for_that_element() {
    let (reply, transcript) = batch(&json!([
        ping(json!(1)),
        {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {}},
        ping(json!(3)),
    ]));
    assert_eq!(
        reply.text(),
        concat!(
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":"init","error":{"code":-32600,"message":"invalid request"}},"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}]"#
        )
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn invalid_elements_of_a_batch_get_their_own_error_entries() {
    let (reply, _) = Request::post_raw(
        r#"[1,{"jsonrpc":"1.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":[3],"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"},[]]"#,
    )
    .exchange(&endpoint());
    assert_eq!(
        reply.text(),
        concat!(
            r#"[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request"}},"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}},"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]"#
        )
    );
}

#[test]
fn a_batch_under_a_later_or_earlier_version_is_one_invalid_request() {
    let document = seed_document();
    let body = json!([
        ping(json!(1)),
        call(json!(2), "read_document", json!({"id": document.id})),
    ]);
    for version in ["2025-06-18", "2025-11-25", "2024-11-05"] {
        let (reply, transcript) = Request::post(&body)
            .header("mcp-protocol-version", version)
            .exchange(&endpoint());
        assert_eq!(reply.status, 200, "{version}");
        assert_eq!(reply.text(), INVALID, "{version}");
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Respond(200)],
            "{version}: no effect"
        );
        // Even an empty or notification-only array.
        for other in [json!([]), json!([note("ping")])] {
            let (reply, _) = Request::post(&other)
                .header("mcp-protocol-version", version)
                .exchange(&endpoint());
            assert_eq!(reply.text(), INVALID, "{version} {other}");
        }
    }
}

#[test]
fn a_batch_of_reads_runs_the_read_effects_in_order_and_answers_each() {
    let document = seed_document();
    let (reply, transcript) = batch(&json!([
        call(json!("a"), "read_document", json!({"id": document.id})),
        call(json!("b"), "read_document", json!({"id": "missing"})),
        ping(json!("c")),
        call(
            json!("d"),
            "list_documents",
            json!({"repository": "githubnext/chopin"})
        ),
        call(json!("e"), "read_document", json!({"id": ""})),
        call(json!("f"), "read_document", json!({"id": document.id})),
    ]));
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read(document.id.clone()),
            Step::Read("missing".into()),
            Step::List("githubnext/chopin".into()),
            Step::Read(document.id.clone()),
            Step::Respond(200),
        ]
    );
    let replies = reply.json();
    let replies = replies.as_array().unwrap();
    let ids: Vec<&Value> = replies.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let document_json = serde_json::to_value(&document).unwrap();
    assert_eq!(replies[0]["result"]["structuredContent"], document_json);
    assert_eq!(
        replies[1]["result"],
        json!({"content": [], "isError": true})
    );
    assert_eq!(replies[2]["result"], json!({}));
    assert_eq!(
        replies[3]["result"]["structuredContent"],
        json!({"documents": [{"id": document.id, "title": document.title}]})
    );
    assert_eq!(
        replies[4]["error"],
        json!({"code": -32602, "message": "read_document requires an id"})
    );
    assert_eq!(replies[5]["result"]["structuredContent"], document_json);
}

#[test]
fn a_batch_reply_under_an_event_stream_accept_is_one_event_holding_the_array() {
    let (json_reply, _) =
        Request::post(&json!([ping(json!(1)), ping(json!(2))])).exchange(&endpoint());
    let (reply, _) = Request::post(&json!([ping(json!(1)), ping(json!(2))]))
        .header("accept", "text/event-stream")
        .exchange(&endpoint());
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        reply.text(),
        format!("event: message\ndata: {}\n\n", json_reply.text())
    );
}
