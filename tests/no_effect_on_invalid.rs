//! SPEC.md §8: every rejection is a well-formed response, no effect past
//! authentication is started for a request that failed validation, no body
//! is read for one refused on its head, and no error carries document content.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, Step, call, endpoint_with, seed_document};
use serde_json::{Value, json};

/// Where a request is refused: on its head (before any body is read), or
/// after its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Head,
    Body,
}

fn read() -> Value {
    call(json!(1), "read_document", json!({"id": seed_document().id}))
}

fn list() -> Value {
    call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    )
}

fn read_with(arguments: Value) -> Request {
    Request::post(&call(json!(1), "read_document", arguments))
}

fn list_with(arguments: Value) -> Request {
    Request::post(&call(json!(1), "list_documents", arguments))
}

/// Invalid requests, each aimed at the store: name, request, configuration,
/// the stage it is refused at, and its status.
fn invalid() -> Vec<(&'static str, Request, Config, Stage, u16)> {
    use Stage::{Body, Head};
    let id = seed_document().id;
    let hosts = || Config::new().allow_loopback_hosts();
    vec![
        (
            "PUT",
            Request::post(&read()).method("PUT"),
            Config::new(),
            Head,
            405,
        ),
        (
            "DELETE",
            Request::post(&list()).method("DELETE"),
            Config::new(),
            Head,
            405,
        ),
        (
            "lowercase post",
            Request::post(&read()).method("post"),
            Config::new(),
            Head,
            405,
        ),
        (
            "origin",
            Request::post(&read()).header("origin", "https://evil.example"),
            Config::new(),
            Head,
            403,
        ),
        (
            "origin not listed",
            Request::post(&list()).header("origin", "https://evil.example"),
            Config::new().allow_origin("https://chopin.example"),
            Head,
            403,
        ),
        (
            "host",
            Request::post(&read()).header("host", "evil.example"),
            hosts(),
            Head,
            403,
        ),
        (
            "no host",
            Request::post(&list()).without("host"),
            hosts(),
            Head,
            403,
        ),
        (
            "no credentials",
            Request::post(&read()).without("authorization"),
            Config::new(),
            Head,
            401,
        ),
        (
            "unknown token",
            Request::post(&list()).header("authorization", "Bearer denied"),
            Config::new(),
            Head,
            401,
        ),
        (
            // MODERN.md §2: a refused version header's POST body is read (to
            // see whether it claims the modern era) before the 400.
            "version",
            Request::post(&read()).header("mcp-protocol-version", "1999-01-01"),
            Config::new(),
            Body,
            400,
        ),
        (
            "version not enabled",
            Request::post(&read()).header("mcp-protocol-version", "2025-11-25"),
            Config::new().protocol_versions([chopin_mcp::ProtocolVersion::V2025_03_26]),
            Body,
            400,
        ),
        (
            "accept",
            Request::post(&read()).header("accept", "text/html"),
            Config::new(),
            Head,
            406,
        ),
        (
            "content type",
            Request::post(&list()).header("content-type", "text/plain"),
            Config::new(),
            Head,
            415,
        ),
        (
            "declared length",
            Request::post(&read()).header("content-length", "65537"),
            Config::new(),
            Head,
            413,
        ),
        (
            "streamed length",
            Request::post_raw({
                let mut body = serde_json::to_vec(&read()).unwrap();
                body.resize(65_537, b' ');
                body
            }),
            Config::new(),
            Body,
            413,
        ),
        (
            "configured budget",
            Request::post(&read()),
            Config::new().body_budget(32),
            Body,
            413,
        ),
        (
            "parse error",
            Request::post_raw(format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{id}"}}}}"#
            )),
            Config::new(),
            Body,
            400,
        ),
        (
            "invalid UTF-8",
            Request::post_raw([&serde_json::to_vec(&read()).unwrap()[..], b"\xff"].concat()),
            Config::new(),
            Body,
            400,
        ),
        (
            "jsonrpc 1.0",
            Request::post(
                &json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "read_document", "arguments": {"id": id}}}),
            ),
            Config::new(),
            Body,
            200,
        ),
        (
            "id object",
            Request::post(
                &json!({"jsonrpc": "2.0", "id": {}, "method": "tools/call", "params": {"name": "list_documents", "arguments": {"repository": "githubnext/chopin"}}}),
            ),
            Config::new(),
            Body,
            200,
        ),
        (
            "method not a string",
            Request::post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": ["tools/call"], "params": {"name": "read_document", "arguments": {"id": id}}}),
            ),
            Config::new(),
            Body,
            200,
        ),
        (
            "params not an object",
            Request::post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["read_document", {"id": id}]}),
            ),
            Config::new(),
            Body,
            200,
        ),
        (
            "arguments an array",
            Request::post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_document", "arguments": [id]}}),
            ),
            Config::new(),
            Body,
            200,
        ),
        (
            "unknown tool",
            Request::post(&call(json!(1), "write_document", json!({"id": id}))),
            Config::new(),
            Body,
            200,
        ),
        (
            "repository invalid",
            list_with(json!({"repository": "githubnext/.."})),
            Config::new(),
            Body,
            200,
        ),
        (
            "repository extra key",
            list_with(json!({"repository": "githubnext/chopin", "all": true})),
            Config::new(),
            Body,
            200,
        ),
        (
            "repository missing",
            list_with(json!({})),
            Config::new(),
            Body,
            200,
        ),
        (
            "id too long",
            read_with(json!({"id": "😀".repeat(129)})),
            Config::new(),
            Body,
            200,
        ),
        (
            "id blank",
            read_with(json!({"id": "\u{3000}"})),
            Config::new(),
            Body,
            200,
        ),
        (
            "id extra key",
            read_with(json!({"id": id, "revision": 4})),
            Config::new(),
            Body,
            200,
        ),
        (
            "id not a string",
            read_with(json!({"id": 4})),
            Config::new(),
            Body,
            200,
        ),
        (
            "notification",
            Request::post(
                &json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_document", "arguments": {"id": id}}}),
            ),
            Config::new(),
            Body,
            202,
        ),
        (
            "batch too long",
            Request::post(&Value::Array(vec![read(); 101])),
            Config::new(),
            Body,
            200,
        ),
        (
            "batch under 2025-06-18",
            Request::post(&json!([read(), list()])).header("mcp-protocol-version", "2025-06-18"),
            Config::new(),
            Body,
            200,
        ),
    ]
}

#[test]
fn no_invalid_request_starts_a_store_effect_in_either_form() {
    let rows = invalid();
    assert!(rows.len() >= 30);
    for (name, request, config, _, status) in rows {
        let endpoint = endpoint_with(config);
        let mut held = Host::seed();
        let reply = request.send(&endpoint, &mut held);
        assert_eq!(
            reply.status,
            status,
            "{name}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert!(!held.consulted_store(), "{name}: {:?}", held.transcript);
        let mut streamed = Host::seed();
        let again = request.send_streaming(&endpoint, &mut streamed);
        assert_eq!(again, reply, "{name}: both forms answer alike");
        assert!(
            !streamed.consulted_store(),
            "{name}: {:?}",
            streamed.transcript
        );
    }
}

#[test]
fn a_request_refused_on_its_head_has_no_body_read() {
    for (name, request, config, stage, status) in invalid() {
        let mut streamed = Host::seed();
        request.send_streaming(&endpoint_with(config), &mut streamed);
        let last = Step::Respond(status);
        let expected: &[Step] = match (stage, status) {
            (Stage::Head, 405 | 403) => &[last],
            (Stage::Head, _) => &[Step::Authenticate, last],
            (Stage::Body, _) => &[Step::Authenticate, Step::Body, last],
        };
        assert_eq!(streamed.transcript, expected, "{name}");
    }
}

#[test]
fn no_rejection_carries_document_content() {
    let document = seed_document();
    for (name, request, config, _, _) in invalid() {
        let reply = request.send(&endpoint_with(config), &mut Host::seed());
        let body = String::from_utf8_lossy(&reply.body);
        for secret in [&document.title, &document.source] {
            assert!(!body.contains(secret.as_str()), "{name} reveals {secret:?}");
        }
    }
}

#[test]
fn the_same_requests_made_valid_do_reach_the_store() {
    // The control for the table: without the defect, each base request is
    // served by the store, so the rows above are refused for their defect.
    let endpoint = endpoint_with(Config::new());
    for (body, step) in [
        (read(), Step::Read(seed_document().id)),
        (list(), Step::List("githubnext/chopin".into())),
    ] {
        let mut host = Host::seed();
        let reply = Request::post(&body).send(&endpoint, &mut host);
        assert_eq!(reply.status, 200);
        assert_eq!(
            host.transcript,
            [Step::Authenticate, step, Step::Respond(200)]
        );
    }
    let batch = Request::post(&json!([read(), list()]))
        .header("mcp-protocol-version", "2025-03-26")
        .send(&endpoint, &mut Host::seed());
    assert_eq!(batch.json().as_array().map(Vec::len), Some(2));
}

#[test]
fn deeply_nested_bodies_within_the_budget_are_answered_not_crashed() {
    let endpoint = endpoint_with(Config::new());
    let depth = 32_768;
    let arrays = [vec![b'['; depth], vec![b']'; depth]].concat();
    let invalid_element =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}"#;
    let (reply, transcript) = Request::post_raw(arrays.clone()).exchange(&endpoint);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), format!("[{invalid_element}]"));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    let (reply, _) = Request::post_raw(arrays)
        .header("mcp-protocol-version", "2025-11-25")
        .exchange(&endpoint);
    assert_eq!(reply.text(), invalid_element);

    let objects = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    let (reply, _) = Request::post_raw(objects).exchange(&endpoint);
    assert_eq!(reply.text(), invalid_element);

    let deep_params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{}{}}}"#,
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let (reply, _) = Request::post_raw(deep_params).exchange(&endpoint);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);

    let deep_arguments = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":{}"x"{}}}}}}}"#,
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let mut host = Host::seed();
    let reply = Request::post_raw(deep_arguments).send(&endpoint, &mut host);
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32602, "message": "read_document requires an id"})
    );
    assert!(!host.consulted_store());

    // Modern `_meta`, picked in the pass that validates the body: deeply nested
    // capabilities, a long escaped string beside them, and a deep value
    // where a string version is wanted.
    let modern = |params: String| {
        Request::post_raw(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#
        ))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
    };
    let deep_meta = format!(
        r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"x":{}1{},"pad":"{}"}}}}}}"#,
        "[{\"a\":".repeat(5_000),
        "}]".repeat(5_000),
        "\\\"".repeat(10_000),
    );
    let (reply, _) = modern(deep_meta).exchange(&endpoint);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["resultType"], "complete");
    let deep_version = format!(
        r#"{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":{}"2026-07-28"{}}}}}"#,
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let (reply, transcript) = modern(deep_version).exchange(&endpoint);
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32602, "message": "invalid request _meta"})
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
}
