//! MODERN.md §2: the modern ladder M1 → M7 (shape, notification, `_meta`,
//! version, method) and its statuses (§9 cases 2, 3, 17, 19, 23, 24).

mod common;

use common::{Request, Step, assert_modern_error, endpoint, mbody, meta, mreq, rpc_error};
use serde_json::{Value, json};

fn modern(body: &[u8], method: &str) -> Request {
    Request::post_raw(body.to_vec())
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
}

fn with_meta(meta: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}),
    )
    .unwrap()
}

const INVALID_META: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid request _meta"}}"#;

/// §9.2.
#[test]
fn a_modern_header_without_meta_is_32602_invalid_request_meta() {
    for body in [
        &br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
    ] {
        assert_modern_error(
            &endpoint(),
            &modern(body, "server/discover"),
            400,
            INVALID_META,
        );
    }
}

/// §9.3.
#[test]
fn meta_needs_a_string_version_and_an_object_of_capabilities() {
    let pv = "io.modelcontextprotocol/protocolVersion";
    let cc = "io.modelcontextprotocol/clientCapabilities";
    for meta in [
        json!({cc: {}}),
        json!({pv: "2026-07-28"}),
        json!({pv: 20260728, cc: {}}),
        json!({pv: "2026-07-28", cc: []}),
        json!([]),
    ] {
        assert_modern_error(
            &endpoint(),
            &modern(&with_meta(meta), "server/discover"),
            400,
            INVALID_META,
        );
    }
}

/// §9.17: methods the modern era does not have are 404 -32601, after the
/// header checks passed.
#[test]
fn methods_outside_the_modern_era_are_404_method_not_found() {
    for (method, params) in [
        ("initialize", json!({})),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "x"})),
        ("resources/list", json!({})),
        ("resources/read", json!({"uri": "chopin://x"})),
        ("prompts/list", json!({})),
        ("tasks/get", json!({"name": "anything"})),
        ("unknown/method", json!({})),
    ] {
        let mut request = mreq(method, params.clone());
        if method == "resources/read" {
            request = request.header("mcp-name", "chopin://x");
        }
        if method == "tasks/get" {
            request = request.header("mcp-name", "whatever");
        }
        assert_modern_error(
            &endpoint(),
            &request,
            404,
            &rpc_error("1", -32601, "method not found"),
        );
    }
}

/// §9.19.
#[test]
fn initialize_with_a_modern_header_and_no_meta_is_32602() {
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{}}}"#;
    assert_modern_error(&endpoint(), &modern(body, "initialize"), 400, INVALID_META);
}

/// §9.23.
#[test]
fn malformed_modern_messages_are_400_invalid_request() {
    let null_id = rpc_error("null", -32600, "invalid request");
    let mut null = mbody(json!(1), "server/discover", json!({}));
    null["id"] = Value::Null;
    let array =
        serde_json::to_vec(&json!([mbody(json!(1), "server/discover", json!({}))])).unwrap();
    for body in [array, b"1".to_vec(), serde_json::to_vec(&null).unwrap()] {
        assert_modern_error(
            &endpoint(),
            &modern(&body, "server/discover"),
            400,
            &null_id,
        );
    }
    let mut old = mbody(json!(4), "server/discover", json!({}));
    old["jsonrpc"] = json!("1.0");
    assert_modern_error(
        &endpoint(),
        &modern(&serde_json::to_vec(&old).unwrap(), "server/discover"),
        400,
        &rpc_error("4", -32600, "invalid request"),
    );
    assert_modern_error(
        &endpoint(),
        &modern(b"{", "server/discover"),
        400,
        &rpc_error("null", -32700, "parse error"),
    );
}

/// §9.24.
#[test]
fn a_modern_notification_is_202_without_header_checks_unless_the_header_is_refused() {
    let call = json!({"jsonrpc": "2.0", "method": "tools/call",
        "params": {"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}, "_meta": meta()}});
    let request = Request::post(&call).header("mcp-protocol-version", "2026-07-28");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!((reply.status, reply.text()), (202, ""));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(202)]);

    let mut note =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": meta()}});
    note["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    assert_modern_error(
        &endpoint(),
        &Request::post(&note).header("mcp-protocol-version", "v999.0.0"),
        400,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}}}"#,
    );
}

/// A body with a claim but no header is modern too: the missing header is a
/// header mismatch, not a legacy request.
#[test]
fn a_claim_without_a_header_is_modern() {
    let request = mreq("server/discover", json!({})).without("mcp-protocol-version");
    assert_modern_error(
        &endpoint(),
        &request,
        400,
        &rpc_error("1", -32020, "header mismatch: MCP-Protocol-Version"),
    );
}
