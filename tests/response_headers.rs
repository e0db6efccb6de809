//! SPEC.md §3: the headers every response carries (`cache-control: no-store`
//! and `x-content-type-options: nosniff`, except the GET event stream's
//! `no-cache`), and the content type of each kind of response.

mod common;

use chopin_mcp::Config;
use common::{Reply, Request, call, endpoint_with, ping, seed_document};
use serde_json::json;

const JSON: Option<&str> = Some("application/json");
const TEXT: Option<&str> = Some("text/plain; charset=utf-8");
const EVENTS: Option<&str> = Some("text/event-stream");

/// Every kind of response the endpoint gives: a name, the request, the
/// configuration, and the status and content type it must come back with.
fn kinds() -> Vec<(&'static str, Request, Config, u16, Option<&'static str>)> {
    let document = seed_document();
    let read = call(json!(1), "read_document", json!({"id": document.id}));
    vec![
        (
            "ping",
            Request::post(&ping(json!(1))),
            Config::new(),
            200,
            JSON,
        ),
        (
            "read result",
            Request::post(&read),
            Config::new(),
            200,
            JSON,
        ),
        (
            "absence",
            Request::post(&call(json!(1), "read_document", json!({"id": "x"}))),
            Config::new(),
            200,
            JSON,
        ),
        (
            "list result",
            Request::post(&call(
                json!(1),
                "list_documents",
                json!({"repository": "githubnext/chopin"}),
            )),
            Config::new(),
            200,
            JSON,
        ),
        (
            "initialize",
            Request::post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
            ),
            Config::new(),
            200,
            JSON,
        ),
        (
            "tools/list",
            Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            Config::new(),
            200,
            JSON,
        ),
        (
            "batch",
            Request::post(&json!([ping(json!(1)), ping(json!(2))])),
            Config::new(),
            200,
            JSON,
        ),
        (
            "JSON-RPC error",
            Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "nope"})),
            Config::new(),
            200,
            JSON,
        ),
        (
            "invalid request",
            Request::post_raw("5"),
            Config::new(),
            200,
            JSON,
        ),
        (
            "parse error",
            Request::post_raw("{"),
            Config::new(),
            400,
            JSON,
        ),
        (
            "unsupported version",
            Request::post(&ping(json!(1))).header("mcp-protocol-version", "1999-01-01"),
            Config::new(),
            400,
            JSON,
        ),
        (
            "notification",
            Request::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Config::new(),
            202,
            None,
        ),
        (
            "notification batch",
            Request::post(&json!([{"jsonrpc": "2.0", "method": "x"}])),
            Config::new(),
            202,
            None,
        ),
        (
            "one-event reply",
            Request::post(&read).header("accept", "text/event-stream"),
            Config::new(),
            200,
            EVENTS,
        ),
        (
            "405",
            Request::post(&ping(json!(1))).method("PUT"),
            Config::new(),
            405,
            TEXT,
        ),
        (
            "403 origin",
            Request::post(&ping(json!(1))).header("origin", "https://evil.example"),
            Config::new(),
            403,
            TEXT,
        ),
        (
            "403 host",
            Request::post(&ping(json!(1))).header("host", "evil.example"),
            Config::new().allow_loopback_hosts(),
            403,
            TEXT,
        ),
        (
            "401",
            Request::post(&ping(json!(1))).without("authorization"),
            Config::new(),
            401,
            JSON, // AUTH.md §1.1: a JSON-RPC error body
        ),
        (
            "401 with metadata",
            Request::post(&ping(json!(1))).without("authorization"),
            Config::new().resource_metadata("https://chopin.test/meta"),
            401,
            JSON, // AUTH.md §1.1: a JSON-RPC error body
        ),
        (
            "406 GET",
            Request::get().header("accept", "application/json"),
            Config::new(),
            406,
            TEXT,
        ),
        (
            "406 POST",
            Request::post(&ping(json!(1))).header("accept", "text/html"),
            Config::new(),
            406,
            TEXT,
        ),
        (
            "415",
            Request::post(&ping(json!(1))).header("content-type", "text/plain"),
            Config::new(),
            415,
            TEXT,
        ),
        (
            "413 declared",
            Request::post(&ping(json!(1))).header("content-length", "65537"),
            Config::new(),
            413,
            TEXT,
        ),
        (
            "413 streamed",
            Request::post_raw(vec![b' '; 65_537]),
            Config::new(),
            413,
            TEXT,
        ),
    ]
}

fn count(reply: &Reply, name: &str) -> usize {
    reply
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .count()
}

#[test]
fn every_response_but_the_event_stream_is_no_store_and_nosniff() {
    for (name, request, config, status, _) in kinds() {
        let (reply, _) = request.exchange(&endpoint_with(config));
        assert_eq!(
            reply.status,
            status,
            "{name}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(reply.header("cache-control"), Some("no-store"), "{name}");
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{name}"
        );
        assert_eq!(count(&reply, "cache-control"), 1, "{name}");
        assert_eq!(count(&reply, "x-content-type-options"), 1, "{name}");
    }
}

#[test]
fn each_kind_of_response_has_its_content_type() {
    for (name, request, config, status, content_type) in kinds() {
        let (reply, _) = request.exchange(&endpoint_with(config));
        assert_eq!(reply.status, status, "{name}");
        assert_eq!(reply.header("content-type"), content_type, "{name}");
        assert!(count(&reply, "content-type") <= 1, "{name}");
        match content_type {
            None => assert!(reply.body.is_empty(), "{name}: 202 has no body"),
            Some("application/json") => {
                let _ = reply.json();
            }
            Some(_) => assert!(!reply.body.is_empty(), "{name}"),
        }
        assert!(
            !reply.event_stream,
            "{name}: only the GET stream stays open"
        );
    }
}

#[test]
fn the_get_event_stream_is_no_cache_and_nosniff() {
    for request in [
        Request::get(),
        Request::get().header("accept", "text/event-stream"),
        Request::get().header("mcp-protocol-version", "2025-11-25"),
    ] {
        let (reply, _) = request.exchange(&endpoint_with(Config::new()));
        assert_eq!(reply.status, 200);
        assert!(reply.event_stream);
        assert_eq!(reply.header("content-type"), EVENTS);
        assert_eq!(reply.header("cache-control"), Some("no-cache"));
        assert_eq!(count(&reply, "cache-control"), 1);
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    }
}

#[test]
fn only_405_names_the_allowed_methods_and_only_401_challenges() {
    for (name, request, config, status, _) in kinds() {
        let (reply, _) = request.exchange(&endpoint_with(config));
        assert_eq!(reply.header("allow").is_some(), status == 405, "{name}");
        assert_eq!(
            reply.header("www-authenticate").is_some(),
            status == 401,
            "{name}"
        );
    }
}
