//! MODERN.md §4: `tools/list` and `tools/call` in the modern era — the same
//! tools, checks and effects as the legacy era, framed with `resultType` and
//! serverInfo; argument failures as tool execution errors (§9 cases 9, 12–16).

mod common;

use chopin_mcp::Config;
use common::{
    Request, Step, assert_modern_error, creation, endpoint, endpoint_with, mreq, mreq_id,
    rpc_error, rpc_result, si,
};
use serde_json::{Value, json};

fn call(name: &str, arguments: Value) -> Request {
    mreq("tools/call", json!({"name": name, "arguments": arguments}))
}

fn error_text(message: &str) -> String {
    rpc_result(
        "1",
        &format!(
            r#"{{"resultType":"complete","content":[{{"type":"text","text":"{message}"}}],"isError":true,{}}}"#,
            si()
        ),
    )
}

/// Sends a modern call and asserts 200 with exactly `body`, and the steps.
fn assert_result(endpoint: &chopin_mcp::Endpoint, request: &Request, body: &str, steps: &[Step]) {
    let (reply, transcript) = request.exchange(endpoint);
    assert_eq!((reply.status, reply.text()), (200, body));
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(transcript, steps);
}

/// §9.9.
#[test]
fn tools_list_is_the_legacy_array_with_cache_hints_and_no_cursor() {
    let (legacy, _) = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .exchange(&endpoint());
    let tools = legacy.raw_member("result");
    let array = &tools["{\"tools\":".len()..tools.len() - 1];
    for (ttl, endpoint) in [
        (3_600_000, endpoint()),
        (0, endpoint_with(Config::new().cache_ttl_ms(0))),
    ] {
        let expected = format!(
            r#"{{"resultType":"complete","tools":{array},"ttlMs":{ttl},"cacheScope":"public",{}}}"#,
            si()
        );
        assert_result(
            &endpoint,
            &mreq("tools/list", json!({})),
            &rpc_result("1", &expected),
            &[Step::Authenticate, Step::Respond(200)],
        );
    }
    assert_modern_error(
        &endpoint(),
        &mreq("tools/list", json!({"cursor": "x"})),
        400,
        &rpc_error("1", -32602, "invalid cursor"),
    );
}

/// MODERN.md is silent on a `null` cursor; the 2026-07-28 schema types
/// `PaginatedRequestParams.cursor` as an optional string (`Cursor = string`),
/// so `null` is invalid params, and any string, `""` included (pagination:
/// "an empty string is a valid cursor"), is one this server never issued:
/// `-32602`, as the pagination page says invalid cursors SHOULD be.
#[test]
fn a_null_empty_or_non_string_cursor_is_32602_invalid_cursor() {
    for cursor in [json!(null), json!(""), json!(0), json!({}), json!(["x"])] {
        assert_modern_error(
            &endpoint(),
            &mreq("tools/list", json!({"cursor": cursor})),
            400,
            &rpc_error("1", -32602, "invalid cursor"),
        );
    }
}

/// §9.12.
#[test]
fn a_padded_name_and_missing_arguments_are_a_tool_execution_error() {
    let request = call("list_documents", json!({})).header("mcp-name", "  list_documents  ");
    assert_result(
        &endpoint(),
        &request,
        &error_text("list_documents requires a repository"),
        &[Step::Authenticate, Step::Respond(200)],
    );
}

/// §9.13: the seed's bad-argument cases.
#[test]
fn the_seeds_bad_arguments_are_tool_execution_errors_without_an_effect() {
    for (name, arguments, message) in common::seed_bad_arguments() {
        assert_result(
            &endpoint(),
            &call(name, arguments),
            &error_text(message),
            &[Step::Authenticate, Step::Respond(200)],
        );
    }
}

/// §9.14.
#[test]
fn effects_answer_with_the_legacy_members_framed_for_the_modern_era() {
    let (reply, transcript) =
        call("list_documents", json!({"repository": "githubnext/chopin"})).exchange(&endpoint());
    let (legacy, _) = Request::post(&common::call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ))
    .exchange(&endpoint());
    let members = legacy.raw_member("result");
    let members = &members[1..members.len() - 1];
    assert_eq!(
        reply.text(),
        rpc_result(
            "1",
            &format!(r#"{{"resultType":"complete",{members},{}}}"#, si())
        )
    );
    assert!(members.starts_with(r#""content":[{"type":"text""#));
    assert!(members.contains(r#""structuredContent":{"documents":[{"id":"#));
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
    assert_result(
        &endpoint(),
        &call("read_document", json!({"id": "missing"})),
        &rpc_result(
            "1",
            &format!(
                r#"{{"resultType":"complete","content":[],"isError":true,{}}}"#,
                si()
            ),
        ),
        &[
            Step::Authenticate,
            Step::Read("missing".into()),
            Step::Respond(200),
        ],
    );
}

/// §9.15.
#[test]
fn unknown_tools_and_malformed_calls_are_32602_without_an_effect() {
    let not_found = rpc_error("1", -32602, "tool not found");
    assert_modern_error(
        &endpoint(),
        &call("write_document", json!({})),
        400,
        &not_found,
    );
    assert_modern_error(
        &endpoint(),
        &call("create_document", creation()),
        400,
        &not_found,
    );
    let invalid = rpc_error("1", -32602, "invalid tool arguments");
    assert_modern_error(
        &endpoint(),
        &call("list_documents", json!([])),
        400,
        &invalid,
    );
    assert_modern_error(
        &endpoint(),
        &mreq("tools/call", json!({"name": 7})),
        400,
        &invalid,
    );
}

/// §9.16.
#[test]
fn create_document_in_the_modern_era() {
    let creating = endpoint_with(Config::new().enable_creation());
    let mut bad = creation();
    bad["title"] = json!("");
    assert_result(
        &creating,
        &call("create_document", bad),
        &error_text("create_document requires a valid draft"),
        &[Step::Authenticate, Step::Respond(200)],
    );
    let mut chart = creation();
    chart["plan"] = json!("<Chart />\n");
    let (reply, transcript) = call("create_document", chart).exchange(&creating);
    assert_eq!(reply.status, 200);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    let text = reply.text();
    assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"issues\":"#), "{text}");
    assert!(
        text.ends_with(&format!(r#","isError":true,{}}}}}"#, si())),
        "{text}"
    );

    // Minting advances the id source: each form gets a fresh endpoint.
    let created = mreq_id(
        json!("c"),
        "tools/call",
        json!({"name": "create_document", "arguments": creation()}),
    );
    let fresh = || endpoint_with(Config::new().enable_creation());
    let mut host = common::Host::seed();
    let reply = created.send(&fresh(), &mut host);
    let mut streamed = common::Host::seed();
    assert_eq!(created.send_streaming(&fresh(), &mut streamed), reply);
    assert_eq!(reply.status, 200);
    assert_eq!(
        host.transcript,
        [
            Step::Authenticate,
            Step::Create("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
    let result = &reply.json()["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["structuredContent"]["title"], "Ship MCP creation");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "chopin"
    );
    assert!(result.get("isError").is_none());
}
