//! A write tool called without an id (LIFECYCLE.md §1, SPEC.md §5): 202,
//! no reply, and no effect — in either era, alone or inside a batch whose
//! other elements are carried out.

mod common;

use common::{Request, Step, call, mbody, read_write};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn writes() -> [(&'static str, Value); 4] {
    [
        (
            "update_document",
            json!({"id": ID, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k"}),
        ),
        ("rename_document", json!({"id": ID, "title": "T"})),
        ("archive_document", json!({"id": ID})),
        ("restore_document", json!({"id": ID})),
    ]
}

fn without_id(mut message: Value) -> Value {
    message.as_object_mut().unwrap().remove("id");
    message
}

#[test]
fn a_write_notification_starts_nothing_in_either_era() {
    for (name, arguments) in writes() {
        let legacy = Request::post(&without_id(call(json!(1), name, arguments.clone())));
        let params = json!({"name": name, "arguments": arguments});
        let modern = Request::post(&without_id(mbody(json!(1), "tools/call", params)))
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name);
        for request in [legacy, modern] {
            let (reply, transcript) = request.exchange(&read_write());
            assert_eq!((reply.status, reply.text()), (202, ""), "{name}");
            assert_eq!(
                transcript,
                [Step::Authenticate, Step::Respond(202)],
                "{name}"
            );
        }
    }
}

#[test]
fn in_a_batch_only_the_requests_reach_the_host() {
    let mut elements: Vec<Value> = writes()
        .into_iter()
        .map(|(name, arguments)| without_id(call(json!(0), name, arguments)))
        .collect();
    elements.push(call(
        json!(7),
        "rename_document",
        json!({"id": ID, "title": "Kept"}),
    ));
    let request =
        Request::post(&Value::Array(elements)).header("mcp-protocol-version", "2025-03-26");
    let (reply, transcript) = request.exchange(&read_write());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json().as_array().map(Vec::len), Some(1));
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Rename(ID.to_owned()),
            Step::Respond(200)
        ]
    );
}
