//! MODERN.md §4 `server/discover` and §1 versions: what a 2026-07-28 client
//! learns first, and who may ask (§9 cases 1, 4, 6, 32).

mod common;

use chopin_mcp::{Config, ConfigError, Endpoint, ProtocolVersion};
use common::{
    Request, Step, assert_modern_error, endpoint, endpoint_with, mreq, mreq_id, rpc_result, si,
};
use serde_json::json;

fn discover_result(ttl: u64, versions: &str) -> String {
    format!(
        r#"{{"resultType":"complete","supportedVersions":{versions},"capabilities":{{"tools":{{}}}},"ttlMs":{ttl},"cacheScope":"public",{}}}"#,
        si()
    )
}

const ALL: &str = r#"["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]"#;

/// §9.1.
#[test]
fn discover_answers_versions_capabilities_and_cache_hints_byte_for_byte() {
    let expected = rpc_result("1", &discover_result(3_600_000, ALL));
    for params in [
        json!({}),
        json!({"_meta": {"io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}}),
    ] {
        let mut request = mreq("server/discover", json!({}));
        if params["_meta"].is_object() {
            let mut body = common::mbody(json!(1), "server/discover", json!({}));
            body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] =
                params["_meta"]["io.modelcontextprotocol/clientInfo"].clone();
            request = request.chunks(vec![serde_json::to_vec(&body).unwrap()]);
        }
        let (reply, transcript) = request.exchange(&endpoint());
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.text(), expected);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    }
}

#[test]
fn discover_follows_the_configured_versions_and_cache_lifetime() {
    let config = Config::new()
        .protocol_versions([ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_06_18])
        .cache_ttl_ms(0);
    let (reply, _) = mreq("server/discover", json!({})).exchange(&endpoint_with(config));
    assert_eq!(
        reply.text(),
        rpc_result("1", &discover_result(0, r#"["2026-07-28","2025-06-18"]"#))
    );
}

#[test]
fn a_cache_lifetime_above_2_pow_53_minus_1_is_refused() {
    let max = (1u64 << 53) - 1;
    assert!(Endpoint::new(Config::new().cache_ttl_ms(max)).is_ok());
    assert_eq!(
        Endpoint::new(Config::new().cache_ttl_ms(max + 1)).err(),
        Some(ConfigError::CacheTtlTooLarge)
    );
}

/// §9.4.
#[test]
fn an_unknown_version_in_header_and_meta_is_32022_with_the_supported_list() {
    let mut body = common::mbody(json!(301), "server/discover", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let request = Request::post(&body)
        .header("mcp-protocol-version", "v999.0.0")
        .header("mcp-method", "server/discover");
    assert_modern_error(
        &endpoint(),
        &request,
        400,
        r#"{"jsonrpc":"2.0","id":301,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"v999.0.0"}}}"#,
    );
}

/// §9.6.
#[test]
fn without_2026_07_28_configured_a_modern_request_is_32022_listing_legacy_versions() {
    let legacy = Config::new().protocol_versions(ProtocolVersion::ALL.into_iter().take(4));
    assert_modern_error(
        &endpoint_with(legacy),
        &mreq_id(json!(2), "server/discover", json!({})),
        400,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2026-07-28"}}}"#,
    );
}

/// §9.32: authentication comes first; the body is not read (begin never
/// yields `Outcome::Body`).
#[test]
fn discover_without_credentials_is_401_with_the_challenge_and_the_body_unread() {
    let request = mreq("server/discover", json!({})).without("authorization");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!(reply.status, 401);
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    // AUTH.md §1.1: every 401 body is a JSON-RPC error.
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized"}}"#
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
    let mut host = common::Host::seed();
    request.send_streaming(&endpoint(), &mut host);
    assert!(!host.transcript.contains(&Step::Body));
}

#[test]
fn the_era_of_each_version_is_public() {
    use chopin_mcp::Era;
    let eras: Vec<Era> = ProtocolVersion::ALL.iter().map(|v| v.era()).collect();
    assert_eq!(
        eras,
        [
            Era::Legacy,
            Era::Legacy,
            Era::Legacy,
            Era::Legacy,
            Era::Modern
        ]
    );
    assert_eq!(
        ProtocolVersion::parse(b"2026-07-28"),
        Some(ProtocolVersion::V2026_07_28)
    );
}
