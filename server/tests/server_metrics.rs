//! Prometheus metrics of `chopin-mcp-server` on `--metrics-listen`: exact
//! counts after a known sequence of requests, closed label sets, and the
//! listener's own answers.

#[path = "interop/harness.rs"]
mod support;

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use support::{DOC_ID, Server, TOKEN, draft, read_all, samples, scrape, status};

const SERVER: &str = "chopin-mcp-server";

fn metered() -> (Server, SocketAddr) {
    let server = Server::seeded_with(SERVER, &["--metrics-listen", "127.0.0.1:0"]);
    let url = server
        .banner_line("metrics: http://")
        .expect("a metrics line in the banner");
    let addr = url
        .trim_end_matches("/metrics")
        .parse()
        .expect("an address");
    (server, addr)
}

fn http(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    std::io::Write::write_all(&mut stream, request.as_bytes()).unwrap();
    read_all(&mut stream)
}

fn series(name: &str, labels: &[(&str, &str)]) -> String {
    let mut labels = labels.to_vec();
    labels.sort();
    let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
    if labels.is_empty() {
        name.to_owned()
    } else {
        format!("{name}{{{}}}", labels.join(","))
    }
}

fn post(server: &Server, body: &str, headers: &str) -> String {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    server.raw(request.as_bytes())
}

const JSON: &str =
    "content-type: application/json\r\naccept: application/json, text/event-stream\r\n";

fn authed(server: &Server, body: &str) -> String {
    post(
        server,
        body,
        &format!("authorization: Bearer {TOKEN}\r\n{JSON}"),
    )
}

/// Scrapes until `requests_total` sums to `total` (a 431 is counted when its
/// connection ends, just after the client read it).
fn settled(addr: SocketAddr, total: f64) -> BTreeMap<String, f64> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let samples = samples(&scrape(addr));
        let sum: f64 = samples
            .iter()
            .filter(|(k, _)| k.starts_with("chopin_mcp_requests_total{"))
            .map(|(_, v)| v)
            .sum();
        if sum >= total || Instant::now() > until {
            return samples;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_scrape_after_a_known_sequence_counts_it_exactly() {
    let (server, metrics) = metered();
    let mut sent = 0.0;
    let mut ok = |response: String, code: u16| {
        assert_eq!(status(&response), code, "{response}");
        sent += 1.0;
    };
    ok(
        authed(
            &server,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        ),
        200,
    );
    ok(
        authed(
            &server,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        202,
    );
    ok(
        authed(&server, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
        200,
    );
    for _ in 0..3 {
        ok(
            server.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#)),
            200,
        );
    }
    ok(
        server.call("read_document", r#"{"id":"no-such-document"}"#),
        200,
    );
    ok(
        server.call("list_documents", r#"{"repository":"githubnext/chopin"}"#),
        200,
    );
    let plan = "# Plan\n\nDo it.\n";
    ok(
        server.call("create_document", &draft("m-1", "One", plan).to_string()),
        200,
    );
    ok(
        server.call("create_document", &draft("m-1", "One", plan).to_string()),
        200,
    );
    ok(
        server.call(
            "create_document",
            &draft("m-1", "Changed", plan).to_string(),
        ),
        200,
    );
    ok(
        server.call(
            "create_document",
            &draft("m-2", "Two", "<Chart />\n").to_string(),
        ),
        200,
    );
    ok(server.call("drop_tables", "{}"), 200);
    ok(
        authed(
            &server,
            r#"{"jsonrpc":"2.0","id":3,"method":"evil/method"}"#,
        ),
        200,
    );
    // Refusals.
    ok(post(&server, "{}", JSON), 401);
    ok(
        post(
            &server,
            "{}",
            &format!("authorization: Bearer wrong\r\n{JSON}"),
        ),
        401,
    );
    ok(
        post(
            &server,
            "{}",
            &format!("authorization: Bearer {TOKEN}\r\norigin: https://evil.example\r\n{JSON}"),
        ),
        403,
    );
    ok(
        post(
            &server,
            "{}",
            &format!(
                "authorization: Bearer {TOKEN}\r\ncontent-type: application/json\r\naccept: text/html\r\n"
            ),
        ),
        406,
    );
    ok(
        post(
            &server,
            "{}",
            &format!(
                "authorization: Bearer {TOKEN}\r\ncontent-type: text/plain\r\naccept: application/json, text/event-stream\r\n"
            ),
        ),
        415,
    );
    ok(server.raw(format!("POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\n{JSON}content-length: 100000000\r\nconnection: close\r\n\r\n", server.addr).as_bytes()), 413);
    ok(
        server.raw(
            format!(
                "GET /mcp HTTP/1.1\r\nhost: {}\r\nx-filler: {}\r\n\r\n",
                server.addr,
                "a".repeat(128 * 1024)
            )
            .as_bytes(),
        ),
        431,
    );
    ok(authed(&server, "{not json"), 400);
    ok(
        server.raw(b"GET /nowhere HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
        404,
    );
    // Health probes are not MCP requests: not counted.
    let probe = server.raw(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert_eq!(status(&probe), 200);

    let got = settled(metrics, sent);
    let requests = |method: &str, tool: &str, code: &str| {
        got.get(&series(
            "chopin_mcp_requests_total",
            &[("method", method), ("tool", tool), ("status", code)],
        ))
        .copied()
        .unwrap_or(0.0)
    };
    let expected_requests = [
        (("initialize", "none", "200"), 1.0),
        (("notifications/initialized", "none", "202"), 1.0),
        (("tools/list", "none", "200"), 1.0),
        (("tools/call", "read_document", "200"), 4.0),
        (("tools/call", "list_documents", "200"), 1.0),
        (("tools/call", "create_document", "200"), 4.0),
        (("tools/call", "other", "200"), 1.0),
        (("other", "none", "200"), 1.0),
        (("none", "none", "401"), 2.0),
        (("none", "none", "403"), 1.0),
        (("none", "none", "406"), 1.0),
        (("none", "none", "415"), 1.0),
        (("none", "none", "413"), 1.0),
        (("none", "none", "431"), 1.0),
        (("other", "none", "400"), 1.0),
        (("none", "none", "404"), 1.0),
    ];
    for ((method, tool, code), count) in expected_requests {
        assert_eq!(
            requests(method, tool, code),
            count,
            "{method} {tool} {code}: {got:#?}"
        );
    }
    let total: f64 = expected_requests.iter().map(|(_, n)| n).sum();
    assert_eq!(total, sent);
    let series_total: f64 = got
        .iter()
        .filter(|(k, _)| k.starts_with("chopin_mcp_requests_total{"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(series_total, total, "{got:#?}");

    for (reason, count) in [
        // No token; and a bearer token refused (AUTH.md §2).
        ("unauthorized", 1.0),
        ("invalid_token", 1.0),
        ("forbidden", 1.0),
        ("not_acceptable", 1.0),
        ("unsupported_media_type", 1.0),
        ("too_large", 1.0),
        ("header_fields_too_large", 1.0),
        ("parse_error", 1.0),
    ] {
        let key = series("chopin_mcp_rejections_total", &[("reason", reason)]);
        assert_eq!(got[&key], count, "{reason}");
    }
    for (result, count) in [
        ("created", 1.0),
        ("replayed", 1.0),
        ("conflict", 1.0),
        ("issues", 1.0),
        ("forbidden", 0.0),
        ("unavailable", 0.0),
    ] {
        let key = series("chopin_mcp_creates_total", &[("result", result)]);
        assert_eq!(got[&key], count, "{result}");
    }
    for (operation, count) in [
        ("read", 4.0),
        ("list", 1.0),
        ("create", 3.0),
        ("ready", 0.0),
    ] {
        let key = series(
            "chopin_mcp_store_operation_duration_seconds_count",
            &[("operation", operation)],
        );
        assert_eq!(got[&key], count, "{operation}");
    }
    let latency = series(
        "chopin_mcp_request_duration_seconds_count",
        &[("method", "tools/call"), ("tool", "read_document")],
    );
    assert_eq!(got[&latency], 4.0);
    // The encoder writes `le` after the metric's own labels.
    let infinite = r#"chopin_mcp_request_duration_seconds_bucket{method="tools/call",tool="read_document",le="+Inf"}"#;
    assert_eq!(got[infinite], 4.0);
    assert_eq!(got["chopin_mcp_requests_in_flight"], 0.0);
    assert_eq!(got["chopin_mcp_store_errors_total"], 0.0);
}

#[test]
fn label_values_come_from_closed_sets_only() {
    let (server, metrics) = metered();
    let odd = [
        r#"{"jsonrpc":"2.0","id":1,"method":"zz-method-1"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zz-tool-1"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"zz\"escaped"}"#,
    ];
    for body in odd {
        assert_eq!(status(&authed(&server, body)), 200);
    }
    let version = post(
        &server,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        &format!("authorization: Bearer {TOKEN}\r\nmcp-protocol-version: zz-version\r\n{JSON}"),
    );
    assert_eq!(status(&version), 400);
    let odd_method =
        server.raw(b"ZZMETHOD /zz-path HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert_eq!(status(&odd_method), 404);
    let text = scrape(metrics);
    let got = settled(metrics, 5.0);
    assert!(!text.contains("zz"), "{text}");
    assert_eq!(
        got[&series(
            "chopin_mcp_requests_total",
            &[("method", "other"), ("tool", "none"), ("status", "200")]
        )],
        2.0
    );
    assert_eq!(
        got[&series(
            "chopin_mcp_requests_total",
            &[
                ("method", "tools/call"),
                ("tool", "other"),
                ("status", "200")
            ]
        )],
        1.0
    );
}

#[test]
fn the_metrics_listener_serves_get_metrics_only() {
    let (server, metrics) = metered();
    let ok = http(
        metrics,
        "GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(status(&ok), 200, "{ok}");
    assert!(
        ok.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{ok}"
    );
    assert!(
        ok.contains("# TYPE chopin_mcp_requests_in_flight gauge"),
        "{ok}"
    );
    let post = http(
        metrics,
        "POST /metrics HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(status(&post), 405, "{post}");
    assert!(post.to_ascii_lowercase().contains("allow: get"), "{post}");
    let elsewhere = http(
        metrics,
        "GET /mcp HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    assert_eq!(status(&elsewhere), 404, "{elsewhere}");
    // The MCP listener does not serve metrics.
    let on_mcp = server.raw(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert_eq!(status(&on_mcp), 404);
}

#[test]
fn without_the_flag_there_is_no_metrics_listener() {
    let server = Server::seeded(SERVER);
    assert_eq!(server.banner_line("metrics: "), None);
}
