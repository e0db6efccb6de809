//! The write scope (LIFECYCLE.md §1, AUTH.md §1.2): the four write tools
//! need it beside the read scope, in both eras; a refusal names every scope
//! the request needs, read, create, write in that order; a 2025-03-26 batch
//! is refused once for the union of its needs, before any effect; a tool
//! the endpoint does not offer needs the read scope only.

mod common;

use chopin_mcp::Config;
use common::{
    Request, Step, as_token, call, creation, endpoint_with, insufficient, mreq_id, read_write,
    scope_of,
};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn writes() -> [(&'static str, Value, Step); 4] {
    [
        (
            "update_document",
            json!({"id": ID, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k"}),
            Step::Update(ID.to_owned()),
        ),
        (
            "rename_document",
            json!({"id": ID, "title": "T"}),
            Step::Rename(ID.to_owned()),
        ),
        (
            "archive_document",
            json!({"id": ID}),
            Step::Archive(ID.to_owned()),
        ),
        (
            "restore_document",
            json!({"id": ID}),
            Step::Restore(ID.to_owned()),
        ),
    ]
}

/// The call in the handshake era and in 2026-07-28, with id 9.
fn both_eras(name: &str, arguments: &Value) -> [Request; 2] {
    [
        Request::post(&call(json!(9), name, arguments.clone())),
        mreq_id(
            json!(9),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    ]
}

#[test]
fn each_write_tool_needs_the_read_and_the_write_scope() {
    for (name, arguments, step) in writes() {
        for request in both_eras(name, &arguments) {
            for token in ["reader", "writer", "both", "scopeless"] {
                let (reply, transcript) = as_token(request.clone(), token).exchange(&read_write());
                assert_eq!(
                    (reply.status, reply.text()),
                    (403, &*insufficient("9")),
                    "{name} {token}"
                );
                assert_eq!(
                    scope_of(reply.header("www-authenticate")),
                    "chopin:read chopin:write",
                    "{name} {token}"
                );
                assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
            }
            for token in ["editor", "all", "allowed"] {
                let (reply, transcript) = as_token(request.clone(), token).exchange(&read_write());
                assert_eq!(reply.status, 200, "{name} {token}");
                assert_eq!(
                    transcript,
                    [Step::Authenticate, step.clone(), Step::Respond(200)]
                );
            }
        }
    }
}

#[test]
fn the_scope_is_decided_before_the_tool_s_arguments() {
    for (name, _, _) in writes() {
        for request in both_eras(name, &json!({"bogus": true})) {
            let (reply, _) = as_token(request, "reader").exchange(&read_write());
            assert_eq!(
                (reply.status, reply.text()),
                (403, &*insufficient("9")),
                "{name}"
            );
        }
    }
}

#[test]
fn a_batch_is_refused_once_for_the_union_of_its_needs() {
    let [(update, arguments, _), ..] = writes();
    let elements = vec![
        call(
            json!(1),
            "list_documents",
            json!({"repository": "githubnext/chopin"}),
        ),
        call(json!(2), "create_document", creation()),
        call(json!(3), update, arguments.clone()),
    ];
    let batch = |elements: Vec<Value>, token: &str| {
        as_token(Request::post(&Value::Array(elements)), token)
            .header("mcp-protocol-version", "2025-03-26")
    };
    for (elements, token, scope) in [
        (
            elements.clone(),
            "reader",
            "chopin:read chopin:create chopin:write",
        ),
        (
            elements.clone(),
            "editor",
            "chopin:read chopin:create chopin:write",
        ),
        (
            elements.clone(),
            "both",
            "chopin:read chopin:create chopin:write",
        ),
        (
            vec![elements[0].clone(), elements[2].clone()],
            "both",
            "chopin:read chopin:write",
        ),
        (
            vec![elements[2].clone()],
            "writer",
            "chopin:read chopin:write",
        ),
    ] {
        let (reply, transcript) = batch(elements, token).exchange(&read_write());
        assert_eq!(
            (reply.status, reply.text()),
            (403, &*insufficient("null")),
            "{token}"
        );
        assert_eq!(scope_of(reply.header("www-authenticate")), scope, "{token}");
        // Not even the list before the write was carried out.
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
    }
    let (reply, transcript) =
        batch(vec![elements[0].clone(), elements[2].clone()], "editor").exchange(&read_write());
    assert_eq!(reply.status, 200);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Update(ID.to_owned()),
            Step::Respond(200)
        ]
    );
}

#[test]
fn a_write_tool_not_offered_needs_the_read_scope_only() {
    let endpoint = endpoint_with(Config::new().enable_creation().enable_rename());
    for (name, arguments, _) in writes()
        .into_iter()
        .filter(|(n, ..)| *n != "rename_document")
    {
        let request = as_token(Request::post(&call(json!(9), name, arguments)), "reader");
        let (reply, _) = request.exchange(&endpoint);
        assert_eq!(reply.status, 200, "{name}");
        assert_eq!(
            reply.json()["error"],
            json!({"code": -32601, "message": "tool not found"})
        );
    }
}
