//! AUTH.md §1.3: Protected Resource Metadata (RFC 9728) from
//! `Endpoint::metadata`, which hosts call before routing: its two paths,
//! methods, preflight, CORS, no authentication, and the `Host` rule.

use chopin_mcp::{Config, Endpoint, Header, RequestParts, Response};
use serde_json::json;

const RESOURCE: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://login.example.com";
const SUFFIXED: &str = "/.well-known/oauth-protected-resource/mcp";
const BARE: &str = "/.well-known/oauth-protected-resource";

fn endpoint(config: Config) -> Endpoint {
    Endpoint::new(config).expect("valid config")
}

fn oauth() -> Endpoint {
    endpoint(Config::new().oauth(RESOURCE, ISSUER))
}

fn ask(
    endpoint: &Endpoint,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> Option<Response> {
    let headers: Vec<Header<'_>> = headers
        .iter()
        .map(|(n, v)| Header::new(n, v.as_bytes()))
        .collect();
    endpoint.metadata(&RequestParts::new(method, target, &headers))
}

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response
        .header(name)
        .map(|v| std::str::from_utf8(v).unwrap())
}

#[test]
fn both_paths_serve_the_document() {
    for target in [
        SUFFIXED,
        BARE,
        "/.well-known/oauth-protected-resource/mcp?x=1",
    ] {
        for method in ["GET", "HEAD"] {
            let response = ask(&oauth(), method, target, &[]).expect("a metadata path");
            assert_eq!(response.status(), 200, "{method} {target}");
            assert_eq!(response.content_type(), Some("application/json"));
            assert_eq!(
                header(&response, "cache-control"),
                Some("public, max-age=3600")
            );
            assert_eq!(header(&response, "access-control-allow-origin"), Some("*"));
            let document: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
            assert_eq!(
                document,
                json!({
                    "resource": RESOURCE,
                    "authorization_servers": [ISSUER],
                    "scopes_supported": ["chopin:read", "chopin:create", "chopin:write"],
                    "bearer_methods_supported": ["header"],
                })
            );
        }
    }
}

#[test]
fn renamed_scopes_are_the_ones_supported() {
    let two = endpoint(Config::new().oauth(RESOURCE, ISSUER).scopes("r", "c"));
    let response = ask(&two, "GET", SUFFIXED, &[]).unwrap();
    let document: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(
        document["scopes_supported"],
        json!(["r", "c", "chopin:write"])
    );
    let renamed = endpoint(
        Config::new()
            .oauth(RESOURCE, ISSUER)
            .scopes("r", "c")
            .write_scope("w"),
    );
    let response = ask(&renamed, "GET", SUFFIXED, &[]).unwrap();
    let document: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(document["scopes_supported"], json!(["r", "c", "w"]));
}

#[test]
fn other_paths_and_endpoints_without_oauth_are_not_metadata() {
    for target in [
        "/mcp",
        "/.well-known/oauth-protected-resource/other",
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resourcex",
    ] {
        assert!(ask(&oauth(), "GET", target, &[]).is_none(), "{target}");
    }
    let plain = endpoint(Config::new().resource_metadata("https://elsewhere.example/prm"));
    assert!(ask(&plain, "GET", SUFFIXED, &[]).is_none());
    assert!(ask(&plain, "GET", BARE, &[]).is_none());
}

#[test]
fn a_preflight_is_allowed_get_head_and_the_protocol_version_header() {
    let response = ask(
        &oauth(),
        "OPTIONS",
        SUFFIXED,
        &[
            ("origin", "https://app.example"),
            ("access-control-request-method", "GET"),
        ],
    )
    .unwrap();
    assert_eq!(response.status(), 204);
    assert!(response.body().is_empty());
    assert_eq!(header(&response, "access-control-allow-origin"), Some("*"));
    assert_eq!(
        header(&response, "access-control-allow-methods"),
        Some("GET, HEAD")
    );
    assert_eq!(
        header(&response, "access-control-allow-headers"),
        Some("mcp-protocol-version")
    );
}

#[test]
fn other_methods_and_a_bare_options_are_405() {
    for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
        let response = ask(&oauth(), method, SUFFIXED, &[]).unwrap();
        assert_eq!(response.status(), 405, "{method}");
        assert_eq!(header(&response, "allow"), Some("GET, HEAD"));
    }
}

#[test]
fn no_authentication_and_no_origin_allowlist_apply() {
    // A refused origin and a bad token change nothing: public metadata.
    let response = ask(
        &oauth(),
        "GET",
        SUFFIXED,
        &[
            ("origin", "https://evil.example"),
            ("authorization", "Bearer nonsense"),
        ],
    )
    .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "access-control-allow-origin"), Some("*"));
}

#[test]
fn the_host_allowlist_applies() {
    let endpoint = endpoint(Config::new().oauth(RESOURCE, ISSUER).allow_loopback_hosts());
    let refused = ask(&endpoint, "GET", SUFFIXED, &[("host", "evil.example")]).unwrap();
    assert_eq!(refused.status(), 403);
    assert_eq!(refused.body(), b"host is not allowed");
    assert_eq!(header(&refused, "access-control-allow-origin"), None);
    let missing = ask(&endpoint, "GET", SUFFIXED, &[]).unwrap();
    assert_eq!(missing.status(), 403);
    let allowed = ask(&endpoint, "GET", SUFFIXED, &[("host", "localhost:8080")]).unwrap();
    assert_eq!(allowed.status(), 200);
}

#[test]
fn the_urls_come_from_configuration_not_from_the_request() {
    let response = ask(
        &oauth(),
        "GET",
        SUFFIXED,
        &[
            ("host", "attacker.example"),
            ("x-forwarded-host", "attacker.example"),
        ],
    )
    .unwrap();
    assert!(!String::from_utf8_lossy(response.body()).contains("attacker"));
}
