//! AUTH.md §1.2 for 2025-03-26 batches: one pass over the elements first,
//! the union of their needs, one 403 for the whole batch (id null) naming
//! every scope needed, and no effect started (this overrides SPEC.md §6's
//! array of replies for that case).

mod common;

use chopin_mcp::Config;
use common::{Request, Step, call, creation, endpoint_with, ping};
use serde_json::{Value, json};

const REFUSED: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"insufficient scope"}}"#;

fn batch(elements: Vec<Value>, token: &str) -> Request {
    Request::post(&Value::Array(elements))
        .header("authorization", &format!("Bearer {token}"))
        .header("mcp-protocol-version", "2025-03-26")
}

fn list(id: i64) -> Value {
    call(
        json!(id),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    )
}

#[test]
fn one_create_in_a_batch_refuses_the_whole_batch_before_any_effect() {
    let request = batch(
        vec![
            list(1),
            call(json!(2), "create_document", creation()),
            ping(json!(3)),
        ],
        "reader",
    );
    let (reply, transcript) = request.exchange(&endpoint_with(Config::new().enable_creation()));
    assert_eq!((reply.status, reply.text()), (403, REFUSED));
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"scope="chopin:read chopin:create""#)
    );
    // The list before the create was not carried out either.
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
}

#[test]
fn a_batch_within_the_grant_is_answered_element_by_element() {
    let request = batch(vec![list(1), ping(json!(2))], "reader");
    let (reply, transcript) = request.exchange(&endpoint_with(Config::new().enable_creation()));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json().as_array().map(Vec::len), Some(2));
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
}

#[test]
fn without_the_read_scope_a_batch_is_one_403_naming_the_read_scope() {
    let request = batch(
        vec![
            ping(json!(1)),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ],
        "creator",
    );
    let (reply, transcript) = request.exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, REFUSED));
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"scope="chopin:read""#)
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
}

#[test]
fn elements_that_are_no_messages_need_nothing() {
    // Only invalid elements: the reject table answers each, as before.
    let request = batch(
        vec![
            json!(1),
            json!({"jsonrpc": "1.0", "id": 2, "method": "ping"}),
        ],
        "scopeless",
    );
    let (reply, _) = request.exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 200);
    let replies = reply.json();
    assert_eq!(replies[0]["error"]["code"], -32600);
    assert_eq!(replies[1]["error"]["code"], -32600);
}

#[test]
fn the_batch_rules_come_before_its_scopes() {
    // A batch under a version that forbids batches is -32600, whatever the grant.
    let request =
        batch(vec![ping(json!(1))], "scopeless").header("mcp-protocol-version", "2025-06-18");
    let (reply, _) = request.exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["error"]["code"], -32600);
}
