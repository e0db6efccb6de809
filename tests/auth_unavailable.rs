//! AUTH.md §1.1–1.2: the third answer to the authenticate effect,
//! "unavailable" (the host cannot judge the token now, e.g. its
//! authorization server is unreachable): 503, `retry-after: 5`, no
//! challenge, a JSON-RPC body, and nothing read or started.

mod common;

use chopin_mcp::Config;
use common::{Request, Step, call, endpoint_with, ping};
use serde_json::json;

#[test]
fn unavailable_is_503_with_retry_after_and_no_challenge() {
    let document = common::seed_document();
    for request in [
        Request::post(&ping(json!(1))),
        Request::post(&call(json!(1), "read_document", json!({"id": document.id}))),
        Request::get(),
    ] {
        let request = request.header("authorization", "Bearer down");
        let (reply, transcript) = request.exchange(&endpoint_with(Config::new()));
        assert_eq!(reply.status, 503);
        assert_eq!(reply.header("retry-after"), Some("5"));
        assert_eq!(reply.header("www-authenticate"), None);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(
            reply.text(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"authorization unavailable"}}"#
        );
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(503)]);
    }
}

#[test]
fn unavailable_reads_no_body() {
    let request = Request::post(&ping(json!(1))).header("authorization", "Bearer down");
    let mut host = common::Host::seed();
    request.send_streaming(&endpoint_with(Config::new()), &mut host);
    assert!(!host.transcript.contains(&Step::Body));
}
