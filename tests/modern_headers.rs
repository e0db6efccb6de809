//! MODERN.md §3: the standard headers `MCP-Protocol-Version`, `Mcp-Method`
//! and `Mcp-Name` checked against the body (M3), the Base64 sentinel, and
//! headers that are ignored (§9 cases 5, 7, 8, 10, 11, 18, 29, 30).

mod common;

use common::{Request, Step, assert_modern_error, endpoint, mbody, mreq, rpc_error};
use serde_json::json;

fn mismatch(header: &str) -> String {
    rpc_error("1", -32020, &format!("header mismatch: {header}"))
}

fn list_call() -> Request {
    mreq(
        "tools/call",
        json!({"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}}),
    )
}

/// §9.5.
#[test]
fn the_version_header_must_equal_the_meta_version() {
    let mut v999 = mbody(json!(1), "server/discover", json!({}));
    v999["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let discover = mreq("server/discover", json!({}));
    for request in [
        discover
            .clone()
            .chunks(vec![serde_json::to_vec(&v999).unwrap()]),
        discover.clone().without("mcp-protocol-version"),
        discover
            .clone()
            .add_header("mcp-protocol-version", "2026-07-28"),
    ] {
        assert_modern_error(
            &endpoint(),
            &request,
            400,
            &mismatch("MCP-Protocol-Version"),
        );
    }
}

/// §9.7.
#[test]
fn mcp_method_must_be_present_and_equal_byte_for_byte() {
    let list = mreq("tools/list", json!({}));
    for request in [
        list.clone().without("mcp-method"),
        list.clone().header("mcp-method", "prompts/list"),
        list.clone().header("mcp-method", "TOOLS/LIST"),
        list.clone().add_header("mcp-method", "tools/list"),
        list.clone().header("mcp-method", "tools/list\u{7f}"),
    ] {
        assert_modern_error(&endpoint(), &request, 400, &mismatch("Mcp-Method"));
    }
}

/// §9.8.
#[test]
fn header_names_are_case_insensitive_and_values_ows_trimmed() {
    for name in ["mcp-method", "MCP-METHOD"] {
        let request = mreq("tools/list", json!({}))
            .without("mcp-method")
            .header(name, " tools/list\t");
        let (reply, transcript) = request.exchange(&endpoint());
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    }
}

/// §9.10: no effect for any of them.
#[test]
fn mcp_name_must_equal_the_tool_name_literally_or_in_canonical_base64() {
    for name in [
        None,
        Some("wrong_tool_name"),
        Some("=?base64?bGlzdF9kb2N1bWVudHM?="),
        Some("=?base64?bGlz!!!=?="),
        Some("=?BASE64?bGlzdF9kb2N1bWVudHM=?="),
    ] {
        let request = match name {
            None => list_call().without("mcp-name"),
            Some(name) => list_call().header("mcp-name", name),
        };
        assert_modern_error(&endpoint(), &request, 400, &mismatch("Mcp-Name"));
    }
}

/// §9.11.
#[test]
fn a_canonical_base64_name_reaches_the_tool() {
    let request = list_call().header("mcp-name", "=?base64?bGlzdF9kb2N1bWVudHM=?=");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
}

/// §9.18, and the order of the checks: version, then method, then name.
#[test]
fn resources_read_checks_mcp_name_against_the_uri() {
    let read = mreq("resources/read", json!({"uri": "chopin://a"}));
    assert_modern_error(
        &endpoint(),
        &read.clone().header("mcp-name", "chopin://b"),
        400,
        &mismatch("Mcp-Name"),
    );
    assert_modern_error(
        &endpoint(),
        &list_call()
            .header("mcp-method", "tools/list")
            .header("mcp-name", "x"),
        400,
        &mismatch("Mcp-Method"),
    );
}

/// §9.29, second half: an error is JSON even when only an event stream is
/// acceptable.
#[test]
fn modern_errors_are_json_whatever_accept_says() {
    let request = list_call()
        .header("mcp-name", "wrong_tool_name")
        .header("accept", "text/event-stream");
    assert_modern_error(&endpoint(), &request, 400, &mismatch("Mcp-Name"));
}

/// §9.30.
#[test]
fn param_headers_and_session_ids_are_ignored() {
    let request = list_call()
        .header("mcp-param-region", "eu")
        .header("mcp-session-id", "never-issued");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("mcp-session-id"), None);
    assert_eq!(transcript.len(), 3);
}
