//! A document's URL (`Endpoint::document`): `GET` and `HEAD` answer a
//! caller who may read the document with its canonical plan, as Markdown,
//! tagged with its revision; a missing document and a hidden one get the
//! same 404; credentials, scopes, CORS and the allowlists are decided
//! exactly as for `/mcp`.

mod common;

use chopin_mcp::{Config, Document, Header, RequestParts};
use common::{Host, Reply, Request, Step, endpoint_with, seed_document};

const ORIGIN: &str = "https://app.example";

/// Sends `request` (its method and headers) to the URL of `id`, driven by
/// the seed host: the reply and the host's transcript.
fn fetch(config: Config, request: &Request, id: &str) -> (Reply, Vec<Step>) {
    fetch_with(Host::seed(), config, request, id)
}

fn fetch_with(mut host: Host, config: Config, request: &Request, id: &str) -> (Reply, Vec<Step>) {
    let endpoint = endpoint_with(config);
    let headers: Vec<Header<'_>> = request
        .headers
        .iter()
        .map(|(name, value)| Header::new(name, value))
        .collect();
    let target = format!("/documents/{id}");
    let parts = RequestParts::new(&request.method, &target, &headers);
    let response = host.drive_document(endpoint.document(&parts, id));
    (Reply::from(response), host.transcript)
}

fn seed_id() -> String {
    seed_document().id
}

#[test]
fn a_caller_who_may_read_it_gets_the_canonical_plan_tagged_with_its_revision() {
    let seed = seed_document();
    let (reply, transcript) = fetch(Config::new(), &Request::get(), &seed.id);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, seed.source.as_bytes());
    assert_eq!(
        reply.headers,
        [
            ("content-type", "text/markdown; charset=utf-8"),
            ("cache-control", "private, no-cache"),
            ("x-content-type-options", "nosniff"),
            ("etag", "\"4\""),
        ]
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
    );
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read(seed.id.clone()),
            Step::Respond(200)
        ]
    );
    // HEAD: the same response, whose head alone the host sends.
    let (head, _) = fetch(Config::new(), &Request::get().method("HEAD"), &seed.id);
    assert_eq!(head, reply);
}

#[test]
fn a_missing_document_and_a_hidden_one_get_the_same_404() {
    let mut host = Host::seed();
    host.documents.push((
        "someone/else".to_owned(),
        Document {
            archived_at: None,
            description: None,
            url: None,
            id: "hidden".into(),
            title: "Hidden".into(),
            brief: None,
            source: "# Hidden\n".into(),
            revision: 0,
        },
    ));
    let (hidden, steps) = fetch_with(host, Config::new(), &Request::get(), "hidden");
    let (missing, _) = fetch(Config::new(), &Request::get(), "missing");
    assert_eq!(hidden, missing);
    assert_eq!((hidden.status, hidden.text()), (404, "not found"));
    assert_eq!(steps.last(), Some(&Step::Respond(404)));
    assert!(steps.contains(&Step::Read("hidden".into())));
}

#[test]
fn an_id_no_document_can_have_is_404_without_asking_the_host() {
    for id in ["", " \t", &"x".repeat(129)] {
        let (reply, steps) = fetch(Config::new(), &Request::get(), id);
        assert_eq!(reply.status, 404, "{id:?}");
        assert_eq!(steps, [Step::Authenticate, Step::Respond(404)], "{id:?}");
    }
    let (reply, _) = fetch(Config::new(), &Request::get(), &"é".repeat(128));
    assert_eq!(reply.status, 404);
}

/// What `/mcp` answers the same credentials with: a POST of a read.
fn mcp_reply(config: Config, request: Request) -> Reply {
    let read = common::call(
        serde_json::json!(1),
        "read_document",
        serde_json::json!({"id": seed_id()}),
    );
    let mut post = Request::post(&read);
    post.headers.retain(|(name, _)| name != "authorization");
    post.headers.extend(request.headers);
    post.send(&endpoint_with(config), &mut Host::seed())
}

#[test]
fn credentials_are_refused_exactly_as_mcp_refuses_them() {
    let oauth = || Config::new().oauth("https://mcp.example.com/mcp", "https://login.example.com");
    let configs = [
        ("plain", Config::new as fn() -> Config),
        ("oauth", oauth),
        ("metadata elsewhere", || {
            Config::new().resource_metadata("https://meta.example/prm")
        }),
    ];
    for (name, config) in configs {
        for (what, request) in [
            ("no credentials", Request::get().without("authorization")),
            (
                "not bearer",
                Request::get().header("authorization", "Basic eDp5"),
            ),
            (
                "refused token",
                Request::get().header("authorization", "Bearer nope"),
            ),
            (
                "unjudgeable",
                Request::get().header("authorization", "Bearer down"),
            ),
        ] {
            let (reply, steps) = fetch(config(), &request, &seed_id());
            let mut get = request.clone();
            get.method = "GET".into();
            let mcp = mcp_reply(config(), get);
            assert!(matches!(reply.status, 401 | 503), "{name}, {what}");
            assert_eq!(reply, mcp, "{name}, {what}");
            assert!(!steps.iter().any(|s| matches!(s, Step::Read(_))));
        }
    }
}

#[test]
fn a_token_without_the_read_scope_gets_mcp_s_403() {
    let config = || Config::new().oauth("https://mcp.example.com/mcp", "https://login.example.com");
    for token in ["creator", "scopeless"] {
        let request = Request::get().header("authorization", &format!("Bearer {token}"));
        let (reply, steps) = fetch(config(), &request, &seed_id());
        // `/mcp`'s GET (its event stream) needs the read scope alone too.
        let stream = Request::get()
            .header("authorization", &format!("Bearer {token}"))
            .header("accept", "text/event-stream")
            .send(&endpoint_with(config()), &mut Host::seed());
        assert_eq!(reply.status, 403, "{token}");
        assert_eq!(reply, stream, "{token}");
        assert!(!steps.iter().any(|s| matches!(s, Step::Read(_))));
    }
    let (reply, _) = fetch(
        config(),
        &Request::get().header("authorization", "Bearer reader"),
        &seed_id(),
    );
    assert_eq!(reply.status, 200);
}

#[test]
fn if_none_match_naming_the_revision_gets_304_without_the_plan() {
    for value in ["\"4\"", "W/\"4\"", "\"1\", \"4\"", "*"] {
        let request = Request::get().header("if-none-match", value);
        let (reply, steps) = fetch(Config::new(), &request, &seed_id());
        assert_eq!(reply.status, 304, "{value}");
        assert!(reply.body.is_empty());
        assert_eq!(reply.header("etag"), Some("\"4\""));
        assert_eq!(reply.header("cache-control"), Some("private, no-cache"));
        assert_eq!(reply.header("content-type"), None);
        assert!(
            steps.contains(&Step::Read(seed_id())),
            "the caller is checked"
        );
    }
    // Lines of one list header are one list.
    let request = Request::get()
        .add_header("if-none-match", "\"1\"")
        .add_header("if-none-match", "\"4\"");
    assert_eq!(fetch(Config::new(), &request, &seed_id()).0.status, 304);
    for value in ["\"3\"", "\"44\"", "4", "\"4"] {
        let request = Request::get().header("if-none-match", value);
        assert_eq!(
            fetch(Config::new(), &request, &seed_id()).0.status,
            200,
            "{value}"
        );
    }
    // Nothing is said about a document the caller may not see.
    let request = Request::get()
        .header("if-none-match", "*")
        .header("authorization", "Bearer nope");
    assert_eq!(fetch(Config::new(), &request, &seed_id()).0.status, 401);
    let request = Request::get().header("if-none-match", "*");
    assert_eq!(fetch(Config::new(), &request, "missing").0.status, 404);
}

#[test]
fn other_methods_get_405_naming_get_and_head() {
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let (reply, steps) = fetch(Config::new(), &Request::get().method(method), &seed_id());
        assert_eq!((reply.status, reply.text()), (405, "method not allowed"));
        assert_eq!(reply.header("allow"), Some("GET, HEAD"));
        assert_eq!(steps, [Step::Respond(405)], "{method}");
    }
}

#[test]
fn browsers_are_admitted_as_for_mcp_and_may_read_the_etag() {
    let config = || Config::new().allow_origin(ORIGIN);
    let from_page = |request: Request| request.header("origin", ORIGIN);
    let grant = [
        ("access-control-allow-origin", ORIGIN),
        ("access-control-expose-headers", "www-authenticate, etag"),
        ("vary", "origin"),
    ]
    .map(|(n, v)| (n.to_owned(), v.to_owned()));
    for (request, id, status) in [
        (Request::get(), seed_id(), 200),
        (Request::get().method("HEAD"), seed_id(), 200),
        (Request::get(), "missing".to_owned(), 404),
        (Request::get().without("authorization"), seed_id(), 401),
        (Request::get().method("DELETE"), seed_id(), 405),
        (
            Request::get().header("authorization", "Bearer down"),
            seed_id(),
            503,
        ),
        (
            Request::get().header("if-none-match", "\"4\""),
            seed_id(),
            304,
        ),
    ] {
        let (plain, _) = fetch(config(), &request, &id);
        let (reply, _) = fetch(config(), &from_page(request), &id);
        assert_eq!(reply.status, status);
        // The grant comes after the response's own headers, which are those
        // of the same request without `Origin`.
        assert_eq!(reply.headers[..plain.headers.len()], plain.headers[..]);
        assert_eq!(reply.headers[plain.headers.len()..], grant[..], "{status}");
        assert_eq!(reply.body, plain.body);
    }
    // The preflight, before any credentials.
    let preflight = Request::get()
        .method("OPTIONS")
        .without("authorization")
        .header("origin", ORIGIN)
        .header("access-control-request-method", "GET")
        .header(
            "access-control-request-headers",
            "authorization, if-none-match",
        );
    let (reply, steps) = fetch(config(), &preflight, &seed_id());
    assert_eq!(reply.status, 204);
    assert_eq!(steps, [Step::Respond(204)]);
    for (name, value) in [
        ("access-control-allow-origin", ORIGIN),
        ("access-control-allow-methods", "GET, HEAD"),
        (
            "access-control-allow-headers",
            "authorization, if-none-match",
        ),
        ("access-control-max-age", "7200"),
        ("vary", "origin"),
    ] {
        assert_eq!(reply.header(name), Some(value), "{name}");
    }
    // Another origin is refused before anything else, preflight or not,
    // with no grant; the same as `/mcp`.
    for request in [
        Request::get().header("origin", "https://evil.example"),
        preflight.clone().header("origin", "https://evil.example"),
    ] {
        let (reply, steps) = fetch(config(), &request, &seed_id());
        assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
        assert!(
            !reply
                .headers
                .iter()
                .any(|(n, _)| n.starts_with("access-control"))
        );
        assert_eq!(steps, [Step::Respond(403)]);
    }
}

#[test]
fn a_host_the_allowlist_refuses_gets_403() {
    let config = || Config::new().allow_loopback_hosts();
    let request = Request::get().header("host", "evil.example");
    let (reply, steps) = fetch(config(), &request, &seed_id());
    assert_eq!((reply.status, reply.text()), (403, "host is not allowed"));
    assert_eq!(steps, [Step::Respond(403)]);
    let request = Request::get().header("host", "localhost:8080");
    assert_eq!(fetch(config(), &request, &seed_id()).0.status, 200);
}
