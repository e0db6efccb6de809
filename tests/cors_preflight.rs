//! CORS preflights (issue 11): `OPTIONS` with `Origin` and
//! `Access-Control-Request-Method` is answered before authentication: 204
//! with the grant for an allowed origin, 403 for a refused origin or host,
//! and no effect either way. Any other `OPTIONS` keeps its 405.

mod common;

use chopin_mcp::Config;
use common::{Reply, Request, Step, endpoint_with};

const ORIGIN: &str = "https://app.example";

fn allowed() -> Config {
    Config::new().allow_origin(ORIGIN)
}

/// A browser's preflight for an MCP POST: no credentials.
fn preflight(origin: &str) -> Request {
    Request::get()
        .method("OPTIONS")
        .without("authorization")
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type,mcp-protocol-version",
        )
}

fn owned(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

/// Every header of an admitted preflight's answer, in order.
fn preflight_headers(origin: &str) -> Vec<(String, String)> {
    owned(&[
        ("cache-control", "no-store"),
        ("x-content-type-options", "nosniff"),
        ("access-control-allow-origin", origin),
        ("access-control-allow-methods", "GET, POST"),
        (
            "access-control-allow-headers",
            "authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id",
        ),
        ("access-control-max-age", "7200"),
        ("vary", "origin"),
    ])
}

fn has_cors_header(reply: &Reply) -> bool {
    reply
        .headers
        .iter()
        .any(|(n, _)| n.starts_with("access-control-") || n == "vary")
}

#[test]
fn an_allowed_origin_gets_204_with_the_grant_and_no_effect() {
    let (reply, transcript) = preflight(ORIGIN).exchange(&endpoint_with(allowed()));
    assert_eq!(reply.status, 204);
    assert!(reply.body.is_empty());
    assert_eq!(reply.headers, preflight_headers(ORIGIN));
    assert_eq!(transcript, [Step::Respond(204)], "no Authenticate");
}

#[test]
fn credentials_on_a_preflight_are_not_looked_at() {
    for authorization in ["Bearer allowed", "Bearer wrong"] {
        let request = preflight(ORIGIN).header("authorization", authorization);
        let (reply, transcript) = request.exchange(&endpoint_with(allowed()));
        assert_eq!(reply.status, 204);
        assert_eq!(transcript, [Step::Respond(204)], "{authorization}");
    }
}

#[test]
fn allow_headers_names_every_protocol_header_and_no_wildcard() {
    let (reply, _) = preflight(ORIGIN).exchange(&endpoint_with(allowed()));
    let listed: Vec<&str> = reply
        .header("access-control-allow-headers")
        .unwrap()
        .split(", ")
        .collect();
    for name in [
        "authorization",
        "content-type",
        "accept",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "mcp-session-id",
        "last-event-id",
    ] {
        assert!(listed.contains(&name), "{name} missing");
    }
    assert!(!listed.contains(&"*"));
}

#[test]
fn a_refused_origin_gets_403_without_any_grant() {
    for origin in [
        "https://evil.example",
        "http://app.example",
        "https://app.example/",
        "https://APP.example",
        "null",
        "",
        "http://localhost:3000",
    ] {
        let (reply, transcript) = preflight(origin).exchange(&endpoint_with(allowed()));
        assert_eq!(reply.status, 403, "{origin:?}");
        assert_eq!(reply.text(), "origin is not allowed");
        assert!(!has_cors_header(&reply), "{origin:?}");
        assert_eq!(transcript, [Step::Respond(403)]);
    }
}

#[test]
fn several_origin_lines_are_refused_even_when_each_is_allowed() {
    let config = || allowed().allow_origin("https://other.example");
    for second in [ORIGIN, "https://other.example"] {
        let request = preflight(ORIGIN).add_header("origin", second);
        let (reply, _) = request.exchange(&endpoint_with(config()));
        assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
        assert!(!has_cors_header(&reply));
    }
}

#[test]
fn the_host_check_still_applies() {
    let config = || allowed().allow_host("mcp.example");
    let (ok, _) = preflight(ORIGIN)
        .header("host", "mcp.example:443")
        .exchange(&endpoint_with(config()));
    assert_eq!(ok.status, 204);
    for host in [Some("evil.example"), None] {
        let request = match host {
            Some(host) => preflight(ORIGIN).header("host", host),
            None => preflight(ORIGIN),
        };
        let (reply, transcript) = request.exchange(&endpoint_with(config()));
        assert_eq!((reply.status, reply.text()), (403, "host is not allowed"));
        assert!(!has_cors_header(&reply), "{host:?}");
        assert_eq!(transcript, [Step::Respond(403)]);
    }
}

#[test]
fn an_options_that_is_not_a_preflight_is_still_405() {
    let endpoint = endpoint_with(allowed());
    let without_origin = preflight(ORIGIN).without("origin");
    let (reply, transcript) = without_origin.exchange(&endpoint);
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, POST"));
    assert!(!has_cors_header(&reply));
    assert_eq!(transcript, [Step::Respond(405)]);
    // From an allowed origin the 405 carries the grant (so a page can read
    // it), but it is no preflight answer.
    let without_method = preflight(ORIGIN).without("access-control-request-method");
    let (reply, _) = without_method.exchange(&endpoint);
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("access-control-allow-origin"), Some(ORIGIN));
    assert_eq!(reply.header("access-control-allow-methods"), None);
    // The method is case-sensitive, as everywhere.
    let (reply, _) = preflight(ORIGIN).method("options").exchange(&endpoint);
    assert_eq!(reply.status, 405);
}

#[test]
fn any_requested_method_or_headers_get_the_same_answer() {
    let huge = "x".repeat(100_000);
    let values: [&[u8]; 6] = [
        b"POST",
        b"DELETE",
        b"",
        b"\xff\xfe not utf-8",
        huge.as_bytes(),
        b"GET, POST, *",
    ];
    for value in values {
        let mut request = preflight(ORIGIN)
            .without("access-control-request-method")
            .without("access-control-request-headers");
        request
            .headers
            .push(("access-control-request-method".into(), value.to_vec()));
        request
            .headers
            .push(("access-control-request-headers".into(), value.to_vec()));
        request
            .headers
            .push(("access-control-request-headers".into(), b"x-other".to_vec()));
        let (reply, transcript) = request.exchange(&endpoint_with(allowed()));
        assert_eq!(reply.status, 204);
        assert_eq!(reply.headers, preflight_headers(ORIGIN), "never echoed");
        assert_eq!(transcript, [Step::Respond(204)]);
    }
}

#[test]
fn a_loopback_origin_is_admitted_with_loopback_hosts_and_echoed_as_sent() {
    let config = || Config::new().allow_loopback_hosts();
    for origin in [
        "http://localhost:5173",
        "HTTP://LocalHost:5173",
        "https://127.0.0.1",
        "http://[::1]:8080",
    ] {
        let (reply, transcript) = preflight(origin)
            .header("host", "127.0.0.1:3000")
            .exchange(&endpoint_with(config()));
        assert_eq!(reply.status, 204, "{origin}");
        assert_eq!(reply.headers, preflight_headers(origin));
        assert_eq!(transcript, [Step::Respond(204)]);
    }
    for origin in ["http://localhost.evil.test:5173", "http://localhost:5173/"] {
        let (reply, _) = preflight(origin)
            .header("host", "127.0.0.1:3000")
            .exchange(&endpoint_with(config()));
        assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
        assert!(!has_cors_header(&reply));
    }
}

#[test]
fn without_any_allowed_origin_every_preflight_is_refused() {
    let (reply, _) = preflight(ORIGIN).exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
    assert!(!has_cors_header(&reply));
}
