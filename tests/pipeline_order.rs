//! SPEC.md §3: every row of the request pipeline, and the order of its checks
//! (the first failure answers, and nothing past authentication starts).

mod common;

use chopin_mcp::Config;
use common::{Host, Reply, Request, Step, call, endpoint, endpoint_with, ping, seed_document};
use serde_json::json;

/// A request that would list the seed document if it passed every check.
fn listing() -> Request {
    Request::post(&call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ))
}

/// Sends through both forms and checks that no effect past authentication
/// was started; returns the reply and the held form's transcript.
fn refused(request: &Request, config: Config) -> (Reply, Vec<Step>) {
    let endpoint = endpoint_with(config);
    let (reply, transcript) = request.exchange(&endpoint);
    let mut host = Host::seed();
    request.send_streaming(&endpoint, &mut host);
    assert!(
        !host.consulted_store(),
        "{} started {:?}",
        request.method,
        host.transcript
    );
    // MODERN.md §2: a POST refused for its version header reads its body
    // first (to see whether it claims the modern era), unless its content
    // type or declared length rules the body out
    // (tests/modern_legacy_unchanged.rs); no other head-level refusal does.
    let version_refusal = request.method == "POST"
        && reply.status == 400
        && reply.text().contains("unsupported protocol version");
    assert!(
        version_refusal || !host.transcript.contains(&Step::Body),
        "a head-level refusal reads no body: {:?}",
        host.transcript
    );
    (reply, transcript)
}

fn assert_text(reply: &Reply, status: u16, body: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert_eq!(reply.text(), body);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
}

// Step 1: method.

#[test]
fn methods_other_than_get_and_post_are_405_with_allow() {
    for method in [
        "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "post", "get", "Post",
    ] {
        let (reply, transcript) = refused(&listing().method(method), Config::new());
        assert_text(&reply, 405, "method not allowed");
        assert_eq!(reply.header("allow"), Some("GET, POST"), "{method}");
        assert_eq!(
            transcript,
            [Step::Respond(405)],
            "{method}: before authentication"
        );
    }
}

// Step 2: origin and host.

#[test]
fn any_origin_is_refused_when_none_is_allowed() {
    for origin in ["https://chopin.test", "null", "http://localhost:3000"] {
        let (reply, transcript) = refused(&listing().header("origin", origin), Config::new());
        assert_text(&reply, 403, "origin is not allowed");
        assert_eq!(transcript, [Step::Respond(403)], "{origin}");
    }
    let (get, _) = refused(
        &Request::get().header("origin", "https://chopin.test"),
        Config::new(),
    );
    assert_text(&get, 403, "origin is not allowed");
}

#[test]
fn an_allowed_origin_passes_and_others_are_refused() {
    let config = || Config::new().allow_origin("https://chopin.example");
    let (ok, transcript) = listing()
        .header("origin", "https://chopin.example")
        .exchange(&endpoint_with(config()));
    assert_eq!(ok.status, 200);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
    for origin in [
        "https://evil.example",
        "https://chopin.example.evil",
        "http://chopin.example",
        "https://chopin.example:8443",
    ] {
        let (reply, _) = refused(&listing().header("origin", origin), config());
        assert_text(&reply, 403, "origin is not allowed");
    }
    // A request without Origin (not from a browser) is not affected.
    assert_eq!(listing().exchange(&endpoint_with(config())).0.status, 200);
}

#[test]
fn without_a_host_allowlist_any_host_or_none_passes() {
    for request in [
        listing().header("host", "evil.example"),
        listing().without("host"),
    ] {
        assert_eq!(request.exchange(&endpoint()).0.status, 200);
    }
}

#[test]
fn an_allowed_host_passes_with_or_without_port() {
    let config = || Config::new().allow_host("chopin.test");
    for host in ["chopin.test", "chopin.test:443", "CHOPIN.test:8080"] {
        let (reply, _) = listing()
            .header("host", host)
            .exchange(&endpoint_with(config()));
        assert_eq!(reply.status, 200, "{host}");
    }
    for host in [
        "evil.example",
        "chopin.test.evil.example",
        "evil.example:443",
        "",
    ] {
        let (reply, transcript) = refused(&listing().header("host", host), config());
        assert_text(&reply, 403, "host is not allowed");
        assert_eq!(transcript, [Step::Respond(403)], "{host:?}");
    }
}

#[test]
fn a_missing_host_is_refused_once_hosts_are_restricted() {
    let (reply, transcript) = refused(
        &listing().without("host"),
        Config::new().allow_host("chopin.test"),
    );
    assert_text(&reply, 403, "host is not allowed");
    assert_eq!(transcript, [Step::Respond(403)]);
}

#[test]
fn loopback_hosts_allow_only_loopback_names() {
    let config = || Config::new().allow_loopback_hosts();
    for host in [
        "localhost",
        "localhost:8080",
        "127.0.0.1",
        "127.0.0.1:3000",
        "[::1]",
        "[::1]:3000",
    ] {
        let (reply, _) = listing()
            .header("host", host)
            .exchange(&endpoint_with(config()));
        assert_eq!(reply.status, 200, "{host}");
    }
    for host in [
        "evil.example",
        "localhost.evil.example",
        "127.0.0.1.evil.example",
        "10.0.0.1:3000",
        "[::2]:3000",
    ] {
        let (reply, _) = refused(&listing().header("host", host), config());
        assert_text(&reply, 403, "host is not allowed");
    }
    let (missing, _) = refused(&listing().without("host"), config());
    assert_text(&missing, 403, "host is not allowed");
}

// Step 3: authentication.

#[test]
fn an_unknown_or_missing_caller_is_401_with_a_bearer_challenge() {
    // AUTH.md §1.1: a refused bearer token (empty included) is
    // `invalid_token`; no credentials, or another scheme, is a bare
    // challenge. The body is the JSON-RPC 401 in both cases.
    let refused_token = Some(r#"Bearer error="invalid_token""#);
    for (request, challenge) in [
        (
            listing().header("authorization", "Bearer denied"),
            refused_token,
        ),
        (
            listing().header("authorization", "Basic YWxsb3dlZA=="),
            Some("Bearer"),
        ),
        (listing().header("authorization", "Bearer"), refused_token),
        (listing().without("authorization"), Some("Bearer")),
        (Request::get().without("authorization"), Some("Bearer")),
    ] {
        let (reply, transcript) = refused(&request, Config::new());
        assert_eq!(reply.status, 401);
        assert_eq!(reply.header("www-authenticate"), challenge);
        assert_eq!(
            reply.text(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized"}}"#
        );
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
        let document = seed_document();
        for secret in [&*document.id, &*document.title, &*document.source, "chopin"] {
            assert!(!reply.text().contains(secret), "401 reveals {secret:?}");
        }
    }
}

#[test]
fn the_challenge_names_the_resource_metadata_when_configured() {
    let url = "https://chopin.test/.well-known/oauth-protected-resource";
    let (reply, _) = refused(
        &listing().without("authorization"),
        Config::new().resource_metadata(url),
    );
    assert_eq!(reply.status, 401);
    assert_eq!(
        reply.header("www-authenticate"),
        Some(format!("Bearer resource_metadata=\"{url}\"").as_str())
    );
    assert!(!reply.text().contains(&seed_document().title));
}

// Step 4: protocol version.

#[test]
fn an_unsupported_protocol_version_header_is_400_with_a_json_rpc_error_id_null() {
    for version in ["1999-01-01", "2025-03-27", "", "2025-03-26 x"] {
        for request in [listing(), Request::get()] {
            let (reply, transcript) = refused(
                &request.header("mcp-protocol-version", version),
                Config::new(),
            );
            assert_eq!(reply.status, 400, "{version:?}");
            assert_eq!(reply.header("content-type"), Some("application/json"));
            let body = reply.json();
            assert_eq!(body["jsonrpc"], "2.0");
            assert_eq!(body["id"], json!(null));
            assert_eq!(reply.raw_member("id"), "null");
            let error = body["error"].as_object().expect("an error object");
            assert_eq!(error.len(), 2, "exactly {{code, message}}: {error:?}");
            assert!(error["code"].is_i64());
            assert!(error["message"].is_string());
            assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
        }
    }
}

// Steps 5a, 5b.

#[test]
fn an_accepted_get_is_an_open_event_stream() {
    let (reply, transcript) = Request::get().exchange(&endpoint());
    assert_eq!(reply.status, 200);
    assert!(reply.event_stream);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("cache-control"), Some("no-cache"));
    assert!(reply.body.is_empty());
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_get_that_refuses_the_event_stream_is_406() {
    let (reply, transcript) = refused(
        &Request::get().header("accept", "application/json"),
        Config::new(),
    );
    assert_text(&reply, 406, "not acceptable");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(406)]);
}

// Step 6: POST Accept.

#[test]
fn a_post_that_accepts_neither_reply_type_is_406() {
    let (reply, transcript) = refused(&listing().header("accept", "text/html"), Config::new());
    assert_text(&reply, 406, "not acceptable");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(406)]);
}

// Step 7: content type.

#[test]
fn a_post_body_that_is_not_json_is_415() {
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "application/json-patch+json",
        "text/json",
    ] {
        let (reply, transcript) = refused(
            &listing().header("content-type", content_type),
            Config::new(),
        );
        assert_eq!(reply.status, 415, "{content_type}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(415)]);
    }
}

#[test]
fn json_with_parameters_or_no_content_type_is_accepted() {
    for request in [
        listing().header("content-type", "application/json; charset=utf-8"),
        listing().header("content-type", "application/json;charset=UTF-8"),
        listing().header("content-type", "Application/JSON"),
        listing().without("content-type"),
    ] {
        let (reply, transcript) = request.exchange(&endpoint());
        assert_eq!(reply.status, 200, "{:?}", request.headers);
        assert_eq!(
            transcript,
            [
                Step::Authenticate,
                Step::List("githubnext/chopin".into()),
                Step::Respond(200)
            ]
        );
    }
}

// Steps 8–10 are covered in depth by body_budget.rs and jsonrpc_rejects.rs;
// here, the row as a whole.

#[test]
fn the_body_rows_answer_413_and_the_parse_error() {
    let (declared, _) = refused(&listing().header("content-length", "65537"), Config::new());
    assert_text(&declared, 413, "request too large");
    let (streamed, transcript) = Request::post_raw(vec![b' '; 65_537]).exchange(&endpoint());
    assert_text(&streamed, 413, "request too large");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
    let (parse, transcript) = Request::post_raw("{\"jsonrpc\":").exchange(&endpoint());
    assert_eq!(parse.status, 400);
    assert_eq!(
        parse.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(400)]);
}

// The order.

#[test]
fn a_request_failing_several_checks_gets_the_earliest_ones_answer() {
    let bad_origin = |r: Request| r.header("origin", "https://evil.example");
    let bad_host = |r: Request| r.header("host", "evil.example");
    let no_auth = |r: Request| r.without("authorization");
    let bad_version = |r: Request| r.header("mcp-protocol-version", "1999-01-01");
    let bad_accept = |r: Request| r.header("accept", "text/html");
    let bad_type = |r: Request| r.header("content-type", "text/plain");
    let too_large = |r: Request| r.header("content-length", "65537");
    let hosts = || Config::new().allow_host("chopin.test");
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, Request, Config, u16, &[Step])> = vec![
        (
            "PUT + bad origin",
            bad_origin(listing().method("PUT")),
            Config::new(),
            405,
            &[Step::Respond(405)],
        ),
        (
            "PUT + bad host + no auth",
            no_auth(bad_host(listing().method("DELETE"))),
            hosts(),
            405,
            &[Step::Respond(405)],
        ),
        (
            "bad origin + no auth",
            no_auth(bad_origin(listing())),
            Config::new(),
            403,
            &[Step::Respond(403)],
        ),
        (
            "bad host + no auth",
            no_auth(bad_host(listing())),
            hosts(),
            403,
            &[Step::Respond(403)],
        ),
        (
            "no auth + bad version",
            bad_version(no_auth(listing())),
            Config::new(),
            401,
            &[Step::Authenticate, Step::Respond(401)],
        ),
        (
            "no auth + everything after",
            too_large(bad_type(bad_accept(bad_version(no_auth(listing()))))),
            Config::new(),
            401,
            &[Step::Authenticate, Step::Respond(401)],
        ),
        (
            "bad version + bad accept",
            bad_version(bad_accept(listing())),
            Config::new(),
            400,
            &[Step::Authenticate, Step::Respond(400)],
        ),
        (
            "GET bad version + bad accept",
            bad_version(Request::get().header("accept", "application/json")),
            Config::new(),
            400,
            &[Step::Authenticate, Step::Respond(400)],
        ),
        (
            "bad accept + bad content type",
            bad_type(bad_accept(listing())),
            Config::new(),
            406,
            &[Step::Authenticate, Step::Respond(406)],
        ),
        (
            "bad content type + too large",
            too_large(bad_type(listing())),
            Config::new(),
            415,
            &[Step::Authenticate, Step::Respond(415)],
        ),
        (
            "too large + unparsable",
            too_large(Request::post_raw("{")),
            Config::new(),
            413,
            &[Step::Authenticate, Step::Respond(413)],
        ),
    ];
    for (name, request, config, status, steps) in cases {
        let (reply, transcript) = refused(&request, config);
        assert_eq!(reply.status, status, "{name}: {}", reply.text());
        assert_eq!(transcript, steps, "{name}");
    }
}

#[test]
fn a_get_skips_the_post_only_checks() {
    // Content type and body length are POST rows: an accepted GET ignores them.
    let request = Request::get()
        .header("content-type", "text/plain")
        .header("content-length", "65537");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_eq!(reply.status, 200);
    assert!(reply.event_stream);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_request_passing_every_check_reaches_dispatch() {
    let full = Request::post(&ping(json!(1)))
        .header("origin", "https://chopin.example")
        .header("host", "localhost:8080")
        .header("mcp-protocol-version", "2025-06-18")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json; charset=utf-8")
        .header("content-length", "40");
    let config = Config::new()
        .allow_origin("https://chopin.example")
        .allow_loopback_hosts();
    let (reply, transcript) = full.exchange(&endpoint_with(config));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}
