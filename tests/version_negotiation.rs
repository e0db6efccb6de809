//! SPEC.md §6 (and pipeline step 4): protocol versions, from the
//! `mcp-protocol-version` header and from `initialize`.

mod common;

use chopin_mcp::{Config, ProtocolVersion};
use common::{Reply, Request, Step, endpoint, endpoint_with, ping};
use serde_json::{Value, json};

const SUPPORTED: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn initialize(params: Option<Value>) -> Value {
    match params {
        Some(params) => {
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        }
        None => json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
    }
}

/// The `protocolVersion` an endpoint built from `config` answers `params` with.
fn negotiated(config: Config, params: Option<Value>) -> String {
    let (reply, transcript) = Request::post(&initialize(params)).exchange(&endpoint_with(config));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    let body = reply.json();
    assert!(body.get("error").is_none(), "{body}");
    body["result"]["protocolVersion"]
        .as_str()
        .expect("a protocolVersion string")
        .to_owned()
}

fn assert_version_refused(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 400, "{what}");
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{what}"
    );
    let body = reply.json();
    assert_eq!(body["jsonrpc"], "2.0", "{what}");
    assert_eq!(reply.raw_member("id"), "null", "{what}");
    assert_eq!(
        body["error"].as_object().map(|e| e.len()),
        Some(2),
        "{what}: {body}"
    );
    assert!(body["error"]["code"].is_i64(), "{what}");
    assert!(body["error"]["message"].is_string(), "{what}");
}

#[test]
fn initialize_echoes_each_supported_requested_version() {
    for version in SUPPORTED {
        assert_eq!(
            negotiated(Config::new(), Some(json!({"protocolVersion": version}))),
            version
        );
    }
}

#[test]
fn initialize_without_a_requested_version_answers_2025_03_26() {
    assert_eq!(negotiated(Config::new(), Some(json!({}))), "2025-03-26");
    assert_eq!(negotiated(Config::new(), None), "2025-03-26");
    assert_eq!(
        negotiated(
            Config::new(),
            Some(json!({"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}))
        ),
        "2025-03-26"
    );
}

#[test]
fn initialize_with_an_unsupported_or_non_string_version_answers_the_latest() {
    for requested in [
        json!("1999-01-01"),
        json!("2026-07-28"),
        json!("2025-03-26 "),
        json!(""),
        json!(20250326),
        json!(["2025-06-18"]),
        json!({"version": "2025-06-18"}),
        json!(true),
    ] {
        assert_eq!(
            negotiated(Config::new(), Some(json!({"protocolVersion": requested}))),
            "2025-11-25",
            "{requested}"
        );
    }
}

#[test]
fn initialize_reports_the_tools_capability_and_the_server_info() {
    let (reply, _) = Request::post(&initialize(Some(json!({})))).exchange(&endpoint());
    let result = &reply.json()["result"];
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert_eq!(result["serverInfo"]["name"], "chopin");
    assert!(result["serverInfo"]["version"].is_string());
    let mut keys: Vec<_> = result.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["capabilities", "protocolVersion", "serverInfo"]);
}

#[test]
fn server_info_carries_the_configured_name_and_version() {
    let endpoint = endpoint_with(
        Config::new()
            .server_name("chopin-staging \"β\"")
            .server_version("9.8.7-rc.1"),
    );
    let (reply, _) = Request::post(&initialize(Some(json!({})))).exchange(&endpoint);
    assert_eq!(
        reply.json()["result"]["serverInfo"],
        json!({"name": "chopin-staging \"β\"", "version": "9.8.7-rc.1"})
    );
}

#[test]
fn the_header_with_each_supported_version_passes() {
    for version in SUPPORTED {
        let (reply, transcript) = Request::post(&ping(json!(1)))
            .header("mcp-protocol-version", version)
            .exchange(&endpoint());
        assert_eq!(reply.status, 200, "{version}");
        assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
        let (stream, _) = Request::get()
            .header("mcp-protocol-version", version)
            .exchange(&endpoint());
        assert_eq!(stream.status, 200, "GET {version}");
        assert!(stream.event_stream);
    }
}

#[test]
fn the_header_with_an_unsupported_version_is_400_id_null() {
    for version in [
        "1999-01-01",
        "2025-3-26",
        "latest",
        "",
        "2025-06-18, 2025-03-26",
    ] {
        let (reply, transcript) = Request::post(&ping(json!(5)))
            .header("mcp-protocol-version", version)
            .exchange(&endpoint());
        assert_version_refused(&reply, version);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
    }
}

/// MODERN.md §9.33: 2026-07-28 is now supported. A ping with that header is
/// modern; without `_meta` it is refused as modern requests are.
#[test]
fn the_header_2026_07_28_is_now_modern_and_wants_meta() {
    let (reply, transcript) = Request::post(&ping(json!(5)))
        .header("mcp-protocol-version", "2026-07-28")
        .exchange(&endpoint());
    assert_eq!(reply.status, 400);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid request _meta"}}"#
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
}

#[test]
fn a_restricted_set_of_versions_is_honoured_by_the_header() {
    let config = || {
        Config::new()
            .protocol_versions([ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_06_18])
    };
    for (version, allowed) in [
        ("2024-11-05", false),
        ("2025-03-26", true),
        ("2025-06-18", true),
        ("2025-11-25", false),
    ] {
        let (reply, _) = Request::post(&ping(json!(1)))
            .header("mcp-protocol-version", version)
            .exchange(&endpoint_with(config()));
        if allowed {
            assert_eq!(reply.status, 200, "{version}");
        } else {
            assert_version_refused(&reply, version);
        }
    }
    // No header: 2025-03-26, which is in the set.
    let (reply, _) = Request::post(&ping(json!(1))).exchange(&endpoint_with(config()));
    assert_eq!(reply.status, 200);
}

#[test]
fn a_restricted_set_of_versions_is_honoured_by_initialize() {
    let config = || {
        Config::new().protocol_versions([
            ProtocolVersion::V2024_11_05,
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_06_18,
        ])
    };
    for (requested, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-06-18"),
        ("1999-01-01", "2025-06-18"),
    ] {
        assert_eq!(
            negotiated(config(), Some(json!({"protocolVersion": requested}))),
            answered,
            "{requested}"
        );
    }
    assert_eq!(negotiated(config(), Some(json!({}))), "2025-03-26");

    let old_only = Config::new().protocol_versions([ProtocolVersion::V2024_11_05]);
    assert_eq!(
        negotiated(old_only, Some(json!({"protocolVersion": "2025-11-25"}))),
        "2024-11-05"
    );
}

/// SPEC.md §6 as SURFACE.md §10 changes it: issued by `initialize` (a
/// stateless id, tests/client_sessions.rs), never required.
#[test]
fn only_initialize_issues_a_session_id_and_none_is_required() {
    let (reply, _) = Request::post(&initialize(Some(json!({})))).exchange(&endpoint());
    assert!(reply.header("mcp-session-id").unwrap().starts_with("c1..."));
    for request in [Request::post(&ping(json!(1))), Request::get()] {
        let (reply, _) = request.exchange(&endpoint());
        assert_eq!(reply.header("mcp-session-id"), None);
    }
    // Nor required: a request carrying an unknown one is served.
    let (reply, _) = Request::post(&ping(json!(1)))
        .header("mcp-session-id", "never-issued")
        .exchange(&endpoint());
    assert_eq!(reply.status, 200);
}
