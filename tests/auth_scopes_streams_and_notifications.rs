//! AUTH.md §1.2: a `GET` event stream needs the read scope, decided at the
//! head; notifications (both eras) need it too, and get 403 with id null
//! instead of 202.

mod common;

use chopin_mcp::Config;
use common::{Request, Step, as_token, endpoint_with, meta};
use serde_json::json;

const REFUSED: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"insufficient scope"}}"#;

#[test]
fn a_get_stream_needs_the_read_scope() {
    let (reply, transcript) =
        as_token(Request::get(), "creator").exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, REFUSED));
    assert!(!reply.event_stream);
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"scope="chopin:read""#)
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
    let (reply, _) = as_token(Request::get(), "reader").exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 200);
    assert!(reply.event_stream);
}

#[test]
fn a_get_stream_keeps_its_earlier_answers() {
    // Not acceptable (406) is decided before the scope.
    let request = as_token(Request::get(), "creator").header("accept", "application/json");
    assert_eq!(
        request.exchange(&endpoint_with(Config::new())).0.status,
        406
    );
}

#[test]
fn legacy_notifications_need_the_read_scope() {
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (reply, transcript) =
        as_token(Request::post(&notification), "scopeless").exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, REFUSED));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
    let (reply, _) =
        as_token(Request::post(&notification), "reader").exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 202);
}

#[test]
fn modern_notifications_need_the_read_scope() {
    let notification = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"_meta": meta(), "requestId": 1}
    });
    let request = |token| {
        as_token(Request::post(&notification), token)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "notifications/cancelled")
    };
    let (reply, _) = request("creator").exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, REFUSED));
    let (reply, _) = request("reader").exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 202);
}
