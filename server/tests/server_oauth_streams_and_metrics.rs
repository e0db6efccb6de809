//! AUTH.md §2: a `GET /mcp` event stream opened with a JWT ends when the
//! token expires; OAuth refusals are counted under
//! `rejections_total{reason}` (`invalid_token`, `insufficient_scope`).

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use serde_json::json;
use support::status;

#[test]
fn an_event_stream_ends_when_its_token_expires() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let mut claims = auth.claims(&resource, "alice", "chopin:read");
    claims["exp"] = json!(oauth::now() + 3);
    let token = auth.mint(json!({ "claims": claims }));
    let mut stream = server.connect();
    let request = format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {token}\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(request.as_bytes()).unwrap();
    let began = Instant::now();
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let elapsed = began.elapsed();
    // Ended by the expiry (about 3 s), long before a keep-alive-only stream
    // would end (never) or the read timeout (20 s).
    assert!(
        elapsed >= Duration::from_secs(1) && elapsed < Duration::from_secs(10),
        "{elapsed:?}"
    );
}

#[test]
fn oauth_refusals_are_counted_by_reason() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics = server
        .banner_line("metrics: http://")
        .expect("a metrics line");
    let metrics = metrics.trim_end_matches("/metrics").to_owned();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let forged = auth
        .mint(json!({"claims": auth.claims(&resource, "alice", "chopin:read"), "key": "forged"}));
    assert_eq!(status(&server.post(body, Some(&forged))), 401);
    let creator = auth.client_token(oauth::READER_BOT, "chopin:create", &resource);
    assert_eq!(status(&server.post(body, Some(&creator))), 403);
    std::thread::sleep(Duration::from_millis(200));
    let (code, text) = oauth::http(
        metrics.rsplit(':').next().unwrap().parse().unwrap(),
        "GET",
        "/metrics",
        "text/plain",
        "",
        None,
    );
    assert_eq!(code, 200);
    for reason in ["invalid_token", "insufficient_scope"] {
        let line = format!("chopin_mcp_rejections_total{{reason=\"{reason}\"}} 1");
        assert!(text.contains(&line), "no {line:?} in\n{text}");
    }
    assert!(!text.contains(&forged[..20]), "a token in the metrics");
}
