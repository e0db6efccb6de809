//! The `http` feature: `RequestParts` borrowed from `http::request::Parts`
//! behave exactly as the `Header` slice path, allocate nothing, and
//! `Response::into_http` keeps status, headers and body.
#![cfg(feature = "http")]

use bytes::Bytes;
use chopin_mcp::{
    Config, Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts, Response,
    SequentialIds,
};

#[path = "common/counting.rs"]
mod counting;

use counting::allocations;

const DOC_ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn endpoint() -> Endpoint {
    Endpoint::new(
        Config::new()
            .allow_loopback_hosts()
            .allow_origin("http://localhost:3000")
            .id_source(SequentialIds::new(0)),
    )
    .unwrap()
}

/// Runs one exchange to its response with a fixed in-memory host.
fn drive(endpoint: &Endpoint, parts: &RequestParts<'_>, body: &'static [u8]) -> Response {
    let document = Document {
        archived_at: None,
        description: None,
        url: None,
        id: DOC_ID.into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n".into(),
        revision: 2,
    };
    let mut outcome: Outcome<&str> = endpoint.handle(parts, Bytes::from_static(body));
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => return response,
            Outcome::Authenticate(auth) => {
                let caller = (auth.bearer_token() == Some("allowed")).then_some("octocat");
                auth.answer(caller)
            }
            Outcome::List(list) => list.answer(&[DocumentSummary {
                archived_at: None,
                description: None,
                id: DOC_ID.into(),
                title: "Release readiness".into(),
            }]),
            Outcome::Read(read) => {
                let found = read.id() == DOC_ID;
                read.answer(found.then_some(&document))
            }
            other => panic!("unexpected {other:?}"),
        };
    }
}

/// The headers of an `http::Request`, as the slice path takes them.
fn slice_of(head: &http::request::Parts) -> Vec<Header<'_>> {
    head.headers
        .iter()
        .map(|(name, value)| Header::new(name.as_str(), value.as_bytes()))
        .collect()
}

fn request(method: &str, target: &str, headers: &[(&str, &[u8])]) -> http::request::Parts {
    let mut builder = http::Request::builder().method(method).uri(target);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(()).unwrap().into_parts().0
}

const JSON_POST: [(&str, &[u8]); 4] = [
    ("host", b"localhost:8080"),
    ("authorization", b"Bearer allowed"),
    ("content-type", b"application/json"),
    ("accept", b"application/json, text/event-stream"),
];

fn read_call(id: &str) -> &'static [u8] {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{id}"}}}}}}"#
    );
    Box::leak(body.into_bytes().into_boxed_slice())
}

#[test]
fn parts_borrow_method_target_with_query_and_every_header() {
    let head = request(
        "POST",
        "http://localhost:8080/mcp?session=1&x=%20",
        &[
            ("accept", b"application/json"),
            ("Accept", b"text/event-stream"),
            ("x-raw", b"caf\xe9 \xff"),
            ("host", b"localhost:8080"),
        ],
    );
    let parts = RequestParts::from(&head);
    assert_eq!(parts.method(), "POST");
    assert_eq!(parts.target(), "/mcp?session=1&x=%20");
    let accepts: Vec<&[u8]> = parts.all("ACCEPT").collect();
    assert_eq!(accepts, [&b"application/json"[..], b"text/event-stream"]);
    assert_eq!(parts.header("x-raw"), Some(&b"caf\xe9 \xff"[..]));
    assert_eq!(parts.header("X-Raw"), Some(&b"caf\xe9 \xff"[..]));
    assert_eq!(parts.header("absent"), None);
    assert_eq!(parts.header("not a header name"), None);
    let names: Vec<&str> = parts.headers().map(|header| header.name).collect();
    assert_eq!(names, ["accept", "accept", "x-raw", "host"]);

    // Borrowing the whole request is the same.
    let request = http::Request::from_parts(head, ());
    let parts = RequestParts::from(&request);
    assert_eq!(parts.target(), "/mcp?session=1&x=%20");
    assert_eq!(parts.all("accept").count(), 2);
}

/// Method, target, headers, body.
type Case = (&'static str, &'static str, Vec<Field>, &'static [u8]);
type Field = (&'static str, &'static [u8]);

#[test]
fn parts_from_http_give_the_same_outcome_as_the_header_slice() {
    let endpoint = endpoint();
    let ping: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let list: &[u8] = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
    let with = |extra: &[(&'static str, &'static [u8])]| {
        let mut headers = JSON_POST.to_vec();
        headers.extend_from_slice(extra);
        headers
    };
    let cases: Vec<Case> = vec![
        ("POST", "/mcp", with(&[]), ping),
        ("POST", "/mcp?a=1&b=2", with(&[]), list),
        ("POST", "/mcp", with(&[]), read_call(DOC_ID)),
        ("POST", "/mcp", with(&[]), read_call("no-such-document")),
        // Accept split over two headers: joined as one list.
        (
            "POST",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("authorization", b"Bearer allowed"),
                ("content-type", b"application/json"),
                ("accept", b"application/json"),
                ("accept", b"text/event-stream"),
            ],
            ping,
        ),
        // Neither media type: 406.
        (
            "POST",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("authorization", b"Bearer allowed"),
                ("content-type", b"application/json"),
                ("accept", b"text/html"),
                ("accept", b"image/png"),
            ],
            ping,
        ),
        // Two Host headers, a refused origin, an allowed one.
        ("POST", "/mcp", with(&[("host", b"localhost")]), ping),
        (
            "POST",
            "/mcp",
            with(&[("origin", b"http://evil.example")]),
            ping,
        ),
        (
            "POST",
            "/mcp",
            with(&[("origin", b"http://localhost:3000")]),
            ping,
        ),
        // Non-UTF-8 values where the endpoint reads them.
        ("POST", "/mcp", with(&[("origin", b"http://caf\xe9")]), ping),
        (
            "POST",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("authorization", b"Bearer \xffallowed"),
                ("content-type", b"application/json"),
                ("accept", b"application/json, text/event-stream"),
            ],
            ping,
        ),
        (
            "POST",
            "/mcp",
            with(&[("mcp-protocol-version", b"2025-06-18\xff")]),
            ping,
        ),
        // Content-Length checks, other methods, the event stream.
        (
            "POST",
            "/mcp",
            with(&[("content-length", b"99999999999999999999999")]),
            ping,
        ),
        ("DELETE", "/mcp", with(&[]), b""),
        (
            "GET",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("authorization", b"Bearer allowed"),
                ("accept", b"text/event-stream"),
            ],
            b"",
        ),
        (
            "GET",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("authorization", b"Bearer allowed"),
                ("accept", b"application/json"),
            ],
            b"",
        ),
        (
            "POST",
            "/mcp",
            vec![
                ("host", b"localhost"),
                ("content-type", b"application/json"),
            ],
            ping,
        ),
    ];
    let mut statuses = Vec::new();
    for (method, target, headers, body) in cases {
        let head = request(method, target, &headers);
        let slice = slice_of(&head);
        let by_slice = drive(&endpoint, &RequestParts::new(method, target, &slice), body);
        let by_map = drive(&endpoint, &RequestParts::from(&head), body);
        assert_eq!(by_map, by_slice, "{method} {target} {headers:?}");
        statuses.push(by_map.status());
    }
    // The cases reach the outcomes they were written for.
    assert_eq!(
        statuses,
        [
            200, 200, 200, 200, 200, 406, 403, 403, 200, 403, 401, 400, 413, 405, 200, 406, 401
        ]
    );
}

#[test]
fn parts_from_http_allocate_nothing() {
    let mut headers = JSON_POST.to_vec();
    headers.extend_from_slice(&[
        ("accept", &b"*/*"[..]),
        ("x-request-id", b"0123456789abcdef"),
        ("user-agent", b"interop/1.0"),
    ]);
    let head = request("POST", "/mcp?session=abc", &headers);
    let mut seen = 0;
    let count = allocations(|| {
        let parts = RequestParts::from(&head);
        seen += parts.method().len() + parts.target().len();
        seen += parts.all("accept").count();
        seen += parts.all("Content-Type").map(<[u8]>::len).sum::<usize>();
        seen += parts.header("authorization").map_or(0, <[u8]>::len);
        seen += parts
            .header("a-header-name-longer-than-sixty-four-bytes-is-still-looked-up-without-a-copy")
            .map_or(0, <[u8]>::len);
        seen += parts.headers().count();
    });
    assert_eq!(seen, 4 + 16 + 2 + 16 + 14 + 7);
    assert_eq!(count, 0, "building and reading RequestParts allocated");
}

#[test]
fn an_exchange_allocates_the_same_from_http_parts_as_from_a_slice() {
    let endpoint = endpoint();
    let head = request("POST", "/mcp", &JSON_POST);
    let slice = slice_of(&head);
    let body = read_call(DOC_ID);
    // Warm up anything lazily initialised.
    drive(&endpoint, &RequestParts::from(&head), body);
    let by_slice = allocations(|| {
        drive(&endpoint, &RequestParts::new("POST", "/mcp", &slice), body);
    });
    let by_map = allocations(|| {
        drive(&endpoint, &RequestParts::from(&head), body);
    });
    println!("read_document cycle: {by_slice} allocations by slice, {by_map} from http parts");
    assert_eq!(by_map, by_slice);
}

#[test]
fn a_usual_response_converts_with_no_allocation_beyond_its_header_map() {
    let endpoint = endpoint();
    let head = request("POST", "/mcp", &JSON_POST);
    let response = drive(&endpoint, &RequestParts::from(&head), read_call(DOC_ID));
    assert_eq!(response.headers().count(), 3);
    // The usual values point at static text: the map allocates (its index
    // and entry tables), and the body, the reply buffer as the endpoint
    // wrote it, becomes `Bytes` (whose bookkeeping for a buffer with room
    // to spare is one allocation, made here rather than in the endpoint,
    // so a host that writes `Response::body` never pays it).
    let count = allocations(|| drop(response.into_http()));
    assert_eq!(count, 3, "into_http allocated {count} times");
}

/// Checks one conversion: status, every header (per name, values in order,
/// none added or lost), body.
fn assert_converted(response: Response) {
    let expected: Vec<(&'static str, Vec<u8>)> = response
        .headers()
        .map(|(name, value)| (name, value.to_vec()))
        .collect();
    let status = response.status();
    let body = response.body().to_vec();
    let body_at = response.body().as_ptr();
    let converted = response.into_http();
    assert_eq!(converted.status().as_u16(), status);
    assert_eq!(converted.headers().len(), expected.len());
    for (name, _) in &expected {
        let want: Vec<&[u8]> = expected
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| &v[..])
            .collect();
        let got: Vec<&[u8]> = converted
            .headers()
            .get_all(*name)
            .iter()
            .map(|v| v.as_bytes())
            .collect();
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(converted.body(), &body);
    // The body moved without a copy.
    assert_eq!(converted.body().as_ptr(), body_at);
}

#[test]
fn response_conversion_keeps_status_headers_and_body() {
    let endpoint = Endpoint::new(
        Config::new()
            .allow_loopback_hosts()
            .resource_metadata("https://example.com/.well-known/oauth-protected-resource"),
    )
    .unwrap();
    let post = request("POST", "/mcp", &JSON_POST);
    let ping: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let notification: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let get = request(
        "GET",
        "/mcp",
        &[
            ("host", b"localhost"),
            ("authorization", b"Bearer allowed"),
            ("accept", b"text/event-stream"),
        ],
    );
    let put = request("PUT", "/mcp", &JSON_POST);
    let anonymous = request("POST", "/mcp", &[("host", b"localhost")]);

    let json = drive(&endpoint, &RequestParts::from(&post), ping);
    assert_eq!(json.status(), 200);
    let accepted = drive(&endpoint, &RequestParts::from(&post), notification);
    assert_eq!(accepted.status(), 202);
    let stream = drive(&endpoint, &RequestParts::from(&get), b"");
    assert!(stream.is_event_stream());
    let not_allowed = drive(&endpoint, &RequestParts::from(&put), b"");
    assert_eq!(not_allowed.header("allow"), Some(&b"GET, POST"[..]));
    let unauthorized = drive(&endpoint, &RequestParts::from(&anonymous), ping);
    assert!(unauthorized.header("www-authenticate").is_some());
    for response in [json, accepted, stream, not_allowed, unauthorized] {
        assert_converted(response);
    }

    // The From impl is the same conversion.
    let ping_again = drive(&endpoint, &RequestParts::from(&post), ping);
    let converted: http::Response<Bytes> = ping_again.clone().into();
    assert_eq!(converted.headers(), ping_again.into_http().headers());
}

#[test]
fn an_event_stream_converts_to_an_empty_body_with_its_headers() {
    let endpoint = endpoint();
    let get = request(
        "GET",
        "/mcp",
        &[
            ("host", b"localhost"),
            ("authorization", b"Bearer allowed"),
            ("accept", b"text/event-stream"),
        ],
    );
    let response = drive(&endpoint, &RequestParts::from(&get), b"");
    assert!(response.is_event_stream());
    let converted = response.into_http();
    assert_eq!(converted.status(), http::StatusCode::OK);
    assert_eq!(converted.headers()["content-type"], "text/event-stream");
    assert_eq!(converted.headers()["cache-control"], "no-cache");
    assert!(converted.body().is_empty());
}

#[test]
fn browser_and_unavailable_responses_convert_with_every_header() {
    let endpoint = endpoint();
    let origin: &[u8] = b"http://localhost:3000";
    let ping: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut browser_post = JSON_POST.to_vec();
    browser_post.push(("origin", origin));
    let browser = drive(
        &endpoint,
        &RequestParts::from(&request("POST", "/mcp", &browser_post)),
        ping,
    );
    let preflight = drive(
        &endpoint,
        &RequestParts::from(&request(
            "OPTIONS",
            "/mcp",
            &[
                ("host", b"localhost"),
                ("origin", origin),
                ("access-control-request-method", b"POST"),
            ],
        )),
        b"",
    );
    // The authorization cannot be judged now: 503 with retry-after.
    let head = request("POST", "/mcp", &JSON_POST);
    let mut outcome: Outcome<&str> =
        endpoint.handle(&RequestParts::from(&head), Bytes::from_static(ping));
    let unavailable = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.unavailable(),
            other => panic!("unexpected {other:?}"),
        };
    };
    for (response, names) in [
        (
            browser,
            &[
                "access-control-allow-origin",
                "access-control-expose-headers",
                "vary",
            ][..],
        ),
        (
            preflight,
            &[
                "access-control-allow-origin",
                "access-control-allow-methods",
                "access-control-allow-headers",
                "access-control-max-age",
                "vary",
            ][..],
        ),
        (unavailable, &["retry-after"][..]),
    ] {
        for name in names {
            assert!(response.header(name).is_some(), "{name} in {response:?}");
        }
        assert_converted(response);
    }
}
