//! MODERN.md §1–§2: legacy requests keep every SPEC.md answer beside the
//! modern era; a refused version header stays the legacy version error
//! (§9 cases 20, 21, 22, 25).

mod common;

use common::{Request, Step, call, endpoint, meta, ping, rpc_error};
use serde_json::json;

const VERSION_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unsupported protocol version"}}"#;

/// §9.20.
#[test]
fn initialize_never_answers_the_modern_version() {
    for (params, answered) in [
        (json!({"protocolVersion": "2026-07-28"}), "2025-11-25"),
        (json!({}), "2025-03-26"),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params});
        let (reply, _) = Request::post(&body).exchange(&endpoint());
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json()["result"]["protocolVersion"], answered);
    }
}

/// §9.21.
#[test]
fn legacy_unknown_methods_and_tools_stay_200_32601() {
    let (reply, _) = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}))
        .exchange(&endpoint());
    assert_eq!(
        (reply.status, reply.text().to_owned()),
        (200, rpc_error("1", -32601, "method not found"))
    );
    let (reply, transcript) =
        Request::post(&call(json!(1), "write_document", json!({}))).exchange(&endpoint());
    assert_eq!(
        (reply.status, reply.text().to_owned()),
        (200, rpc_error("1", -32601, "tool not found"))
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

/// §9.22: a legacy header means the legacy era; `_meta` is never read.
#[test]
fn a_legacy_header_with_modern_meta_stays_legacy() {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let (reply, _) = Request::post(&body)
        .header("mcp-protocol-version", "2025-11-25")
        .exchange(&endpoint());
    assert_eq!(reply.status, 200);
    let result = &reply.json()["result"];
    assert!(result["tools"].is_array());
    assert!(result.get("resultType").is_none());
    assert!(result.get("_meta").is_none());
}

/// §9.25: a refused header is the legacy version error whatever else is
/// wrong; the body is not read when its content type or length already rule
/// it out.
#[test]
fn a_refused_header_is_the_exact_legacy_version_error() {
    let old = || Request::post(&ping(json!(1))).header("mcp-protocol-version", "1999-01-01");
    let claim = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": meta()}});
    for (request, body_read) in [
        (old(), true),
        (old().header("accept", "text/html"), true),
        (
            Request::post(&claim)
                .header("mcp-protocol-version", "1999-01-01")
                .header("content-type", "text/plain"),
            false,
        ),
        (old().header("content-length", "65537"), false),
    ] {
        let (reply, transcript) = request.exchange(&endpoint());
        assert_eq!((reply.status, reply.text()), (400, VERSION_ERROR));
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
        let mut host = common::Host::seed();
        request.send_streaming(&endpoint(), &mut host);
        assert_eq!(host.transcript.contains(&Step::Body), body_read);
    }
    // A body over the budget while reading: the version error, not 413.
    let big = old().chunks(vec![vec![b' '; 40_000], vec![b' '; 40_000]]);
    let (reply, _) = big.exchange(&endpoint());
    assert_eq!((reply.status, reply.text()), (400, VERSION_ERROR));
}
