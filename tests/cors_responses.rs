//! CORS on actual responses (issue 11): every response to a request whose
//! one `Origin` is allowed (and whose `Host` passes) ends with the grant —
//! `access-control-allow-origin: <origin>`, `access-control-expose-headers`,
//! `vary: origin` — whatever step answers; its other headers, status and
//! body are those of the same request without `Origin`, which carries no
//! CORS header at all.

mod common;

use chopin_mcp::{Config, ConfigError, Endpoint, Header, Outcome, RequestParts};
use common::{
    Host, Reply, Request, Step, call, creation, endpoint_with, mbody, mreq, ping, seed_document,
};
use serde_json::json;

const ORIGIN: &str = "https://app.example";
const EXPOSED: &str = "www-authenticate, mcp-protocol-version, mcp-session-id";

fn grant(origin: &str) -> Vec<(String, String)> {
    [
        ("access-control-allow-origin", origin),
        ("access-control-expose-headers", EXPOSED),
        ("vary", "origin"),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect()
}

fn has_cors_header(reply: &Reply) -> bool {
    reply
        .headers
        .iter()
        .any(|(n, _)| n.starts_with("access-control-") || n == "vary")
}

/// Every kind of response: a name, the request (without `Origin`), the
/// configuration (without the allowed origin) and the expected status.
fn kinds() -> Vec<(&'static str, Request, Config, u16)> {
    let read = call(json!(1), "read_document", json!({"id": seed_document().id}));
    let list = call(
        json!(2),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    );
    let id = seed_document().id;
    let writes = || Config::new().enable_lifecycle();
    let update = json!({"id": id, "revision": 4, "plan": "# Revised\n", "idempotencyKey": "k"});
    vec![
        ("ping", Request::post(&ping(json!(1))), Config::new(), 200),
        ("read effect", Request::post(&read), Config::new(), 200),
        (
            "update effect",
            Request::post(&call(json!(3), "update_document", update.clone())),
            writes(),
            200,
        ),
        (
            "modern update effect",
            mreq(
                "tools/call",
                json!({"name": "update_document", "arguments": update}),
            ),
            writes(),
            200,
        ),
        (
            "rename effect",
            Request::post(&call(
                json!(4),
                "rename_document",
                json!({"id": id, "title": "T"}),
            )),
            writes(),
            200,
        ),
        (
            "archive effect",
            Request::post(&call(json!(5), "archive_document", json!({"id": id}))),
            writes(),
            200,
        ),
        (
            "restore effect",
            Request::post(&call(json!(6), "restore_document", json!({"id": id}))),
            writes(),
            200,
        ),
        ("list effect", Request::post(&list), Config::new(), 200),
        (
            "batch with effects",
            Request::post(&json!([read, list, ping(json!(9))])),
            Config::new(),
            200,
        ),
        (
            "dispatch error",
            Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "nope"})),
            Config::new(),
            200,
        ),
        (
            "event-stream reply",
            Request::post(&ping(json!(1))).header("accept", "text/event-stream"),
            Config::new(),
            200,
        ),
        ("GET event stream", Request::get(), Config::new(), 200),
        (
            "notification",
            Request::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Config::new(),
            202,
        ),
        (
            "405",
            Request::post(&ping(json!(1))).method("DELETE"),
            Config::new(),
            405,
        ),
        (
            "401",
            Request::post(&ping(json!(1))).without("authorization"),
            Config::new(),
            401,
        ),
        (
            "401 with metadata",
            Request::post(&ping(json!(1))).header("authorization", "Bearer wrong"),
            Config::new().resource_metadata("https://app.example/meta"),
            401,
        ),
        (
            "400 version",
            Request::post(&ping(json!(1))).header("mcp-protocol-version", "1999-01-01"),
            Config::new(),
            400,
        ),
        (
            "406 GET",
            Request::get().header("accept", "application/json"),
            Config::new(),
            406,
        ),
        (
            "406 POST",
            Request::post(&ping(json!(1))).header("accept", "text/html"),
            Config::new(),
            406,
        ),
        (
            "415",
            Request::post(&ping(json!(1))).header("content-type", "text/plain"),
            Config::new(),
            415,
        ),
        (
            "413 declared",
            Request::post(&ping(json!(1))).header("content-length", "65537"),
            Config::new(),
            413,
        ),
        (
            "413 streamed",
            Request::post_raw(vec![b' '; 100]).chunks(vec![vec![b' '; 40]; 3]),
            Config::new().body_budget(64),
            413,
        ),
        ("400 parse", Request::post_raw("{"), Config::new(), 400),
    ]
}

#[test]
fn every_response_to_an_allowed_origin_ends_with_the_grant() {
    for (name, request, config, status) in kinds() {
        let plain = request.exchange(&endpoint_with(config.clone()));
        let endpoint = endpoint_with(config.allow_origin(ORIGIN));
        let browser = request.clone().header("origin", ORIGIN).exchange(&endpoint);
        assert_eq!(browser.0.status, status, "{name}: {}", browser.0.text());
        assert_eq!(browser.1, plain.1, "{name}: the same steps");
        assert_eq!(browser.0.body, plain.0.body, "{name}");
        assert_eq!(browser.0.event_stream, plain.0.event_stream, "{name}");
        let mut expected = plain.0.headers.clone();
        expected.extend(grant(ORIGIN));
        assert_eq!(browser.0.headers, expected, "{name}");
    }
}

#[test]
fn without_origin_no_response_has_a_cors_header() {
    for (name, request, config, status) in kinds() {
        let (reply, _) = request.exchange(&endpoint_with(config.allow_origin(ORIGIN)));
        assert_eq!(reply.status, status, "{name}");
        assert!(!has_cors_header(&reply), "{name}: {:?}", reply.headers);
    }
}

#[test]
fn a_create_effect_answer_carries_the_grant() {
    // Each send gets a fresh endpoint: minted ids differ between exchanges.
    let request = Request::post(&call(json!(3), "create_document", creation()));
    let config = || Config::new().enable_creation().allow_origin(ORIGIN);
    let plain = request.send(&endpoint_with(config()), &mut Host::seed());
    let browser = request.clone().header("origin", ORIGIN);
    let mut expected = plain.headers.clone();
    expected.extend(grant(ORIGIN));
    for streamed in [false, true] {
        let mut host = Host::seed();
        let endpoint = endpoint_with(config());
        let reply = match streamed {
            false => browser.send(&endpoint, &mut host),
            true => browser.send_streaming(&endpoint, &mut host),
        };
        assert_eq!(
            (reply.status, &reply.body),
            (200, &plain.body),
            "{streamed}"
        );
        assert!(matches!(
            host.transcript[1..],
            [.., Step::Create(_), Step::Respond(200)]
        ));
        assert_eq!(reply.headers, expected, "{streamed}");
    }
}

#[test]
fn a_401_exposes_its_challenge() {
    let request = Request::post(&ping(json!(1)))
        .without("authorization")
        .header("origin", ORIGIN);
    let config = Config::new()
        .allow_origin(ORIGIN)
        .resource_metadata("https://app.example/meta");
    let (reply, transcript) = request.exchange(&endpoint_with(config));
    assert_eq!(reply.status, 401);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"Bearer resource_metadata="https://app.example/meta""#)
    );
    let exposed = reply.header("access-control-expose-headers").unwrap();
    assert!(exposed.split(", ").any(|n| n == "www-authenticate"));
    assert!(exposed.split(", ").any(|n| n == "mcp-protocol-version"));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
}

#[test]
fn a_413_refused_by_push_after_begin_carries_the_grant() {
    let endpoint =
        Endpoint::new(Config::new().allow_origin(ORIGIN).body_budget(8)).expect("valid config");
    let headers = [
        Header::new("origin", ORIGIN.as_bytes()),
        Header::new("authorization", b"Bearer x"),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let Outcome::Authenticate(auth) = endpoint.begin::<u8>(&parts) else {
        panic!("authenticate first");
    };
    let Outcome::Body(intake) = auth.answer(Some(1)) else {
        panic!("then the body");
    };
    let intake = intake.push(b"12345").expect("within the budget");
    let response = intake.push(b"6789").expect_err("over the budget");
    assert_eq!(response.status(), 413);
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some(ORIGIN.as_bytes())
    );
    assert_eq!(response.header("vary"), Some(&b"origin"[..]));
}

#[test]
fn the_event_stream_carries_the_grant_and_stays_no_cache() {
    let request = Request::get().header("origin", ORIGIN);
    let (reply, _) = request.exchange(&endpoint_with(Config::new().allow_origin(ORIGIN)));
    assert!(reply.event_stream);
    assert_eq!(reply.header("cache-control"), Some("no-cache"));
    assert_eq!(reply.header("access-control-allow-origin"), Some(ORIGIN));
}

#[test]
fn an_origin_is_echoed_only_when_byte_equal_to_an_allowed_one() {
    let huge = format!("https://{}.example", "a".repeat(100_000));
    let refused: [&[u8]; 10] = [
        b"https://evil.example",
        b"http://app.example",
        b"HTTPS://app.example",
        b"https://app.example/",
        b"https://app.example:443",
        b" https://app.example",
        b"null",
        b"",
        b"https://app.example\xff",
        huge.as_bytes(),
    ];
    for origin in refused {
        let mut request = Request::post(&ping(json!(1)));
        request.headers.push(("origin".into(), origin.to_vec()));
        let (reply, transcript) =
            request.exchange(&endpoint_with(Config::new().allow_origin(ORIGIN)));
        assert_eq!(
            (reply.status, reply.text()),
            (403, "origin is not allowed"),
            "{}",
            String::from_utf8_lossy(&origin[..origin.len().min(40)])
        );
        assert!(!has_cors_header(&reply));
        assert_eq!(transcript, [Step::Respond(403)]);
    }
}

#[test]
fn several_origin_lines_are_refused() {
    let config = || {
        Config::new()
            .allow_origin(ORIGIN)
            .allow_origin("https://b.example")
    };
    for second in [ORIGIN, "https://b.example", "https://evil.example"] {
        let request = Request::post(&ping(json!(1)))
            .header("origin", ORIGIN)
            .add_header("origin", second);
        let (reply, transcript) = request.exchange(&endpoint_with(config()));
        assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
        assert!(!has_cors_header(&reply));
        assert_eq!(transcript, [Step::Respond(403)]);
    }
}

#[test]
fn each_allowed_origin_gets_its_own_value() {
    let config = Config::new()
        .allow_origin(ORIGIN)
        .allow_origin("http://b.example:8080");
    let endpoint = endpoint_with(config);
    for origin in [ORIGIN, "http://b.example:8080"] {
        let (reply, _) = Request::post(&ping(json!(1)))
            .header("origin", origin)
            .exchange(&endpoint);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    }
}

#[test]
fn a_refused_host_gets_no_grant_even_from_an_allowed_origin() {
    let config = || Config::new().allow_origin(ORIGIN).allow_host("mcp.example");
    for request in [
        Request::post(&ping(json!(1))),
        Request::post(&ping(json!(1))).method("PUT"),
    ] {
        let request = request
            .header("origin", ORIGIN)
            .header("host", "evil.example");
        let (reply, _) = request.exchange(&endpoint_with(config()));
        assert!([403, 405].contains(&reply.status));
        assert!(!has_cors_header(&reply), "{}", reply.status);
    }
    let (ok, _) = Request::post(&ping(json!(1)))
        .header("origin", ORIGIN)
        .header("host", "mcp.example")
        .exchange(&endpoint_with(config()));
    assert_eq!(ok.status, 200);
    assert_eq!(ok.header("access-control-allow-origin"), Some(ORIGIN));
}

#[test]
fn an_allowed_origin_that_cannot_be_echoed_is_a_config_error() {
    for origin in [
        "",
        "https://a b.example",
        "https://a.example\r\nx-injected: 1",
        "https://a.example\t",
        "https://é.example",
    ] {
        let error = Endpoint::new(Config::new().allow_origin(origin)).unwrap_err();
        assert_eq!(
            error,
            ConfigError::BadHeaderValue("allow_origin"),
            "{origin:?}"
        );
    }
    assert!(Endpoint::new(Config::new().allow_origin("http://[::1]:8080")).is_ok());
}

/// The modern era (MODERN.md §7: Origin and Host are checked in both eras):
/// its results, errors with their own statuses, the listen stream and the
/// 202 of a modern notification carry the grant, through `handle` and through
/// `begin`, and are otherwise those of the same request without `Origin`.
#[test]
fn modern_responses_to_an_allowed_origin_carry_the_grant_both_ways() {
    let notification = {
        let mut body = mbody(json!(0), "notifications/cancelled", json!({"requestId": 3}));
        body.as_object_mut().unwrap().remove("id");
        Request::post(&body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "notifications/cancelled")
    };
    let kinds = [
        (
            "discover",
            mreq("server/discover", json!({})),
            200,
            Some(r#""resultType":"complete""#),
        ),
        (
            "-32020 header mismatch",
            mreq("tools/list", json!({})).header("mcp-method", "tools/call"),
            400,
            Some(r#""code":-32020"#),
        ),
        (
            "-32601 unknown method",
            mreq("prompts/list", json!({})),
            404,
            Some(r#""code":-32601"#),
        ),
        (
            "listen event stream",
            mreq("subscriptions/listen", json!({"notifications": {}})),
            200,
            Some("event: message\ndata: "),
        ),
        ("modern notification", notification, 202, None),
    ];
    let endpoint = endpoint_with(Config::new().allow_origin(ORIGIN));
    for (name, request, status, body) in kinds {
        let browser = request.clone().header("origin", ORIGIN);
        let plain = request.send(&endpoint, &mut Host::seed());
        assert_eq!(plain.status, status, "{name}: {}", plain.text());
        assert!(!has_cors_header(&plain), "{name}");
        if let Some(body) = body {
            assert!(plain.text().contains(body), "{name}: {}", plain.text());
        }
        let mut expected = plain.clone();
        expected.headers.extend(grant(ORIGIN));
        for streamed in [false, true] {
            let mut host = Host::seed();
            let reply = match streamed {
                false => browser.send(&endpoint, &mut host),
                true => browser.send_streaming(&endpoint, &mut host),
            };
            assert_eq!(reply, expected, "{name}, streamed: {streamed}");
            assert_eq!(
                host.transcript.last(),
                Some(&Step::Respond(status)),
                "{name}"
            );
        }
    }
}
