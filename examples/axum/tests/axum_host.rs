//! The axum example end to end: the official MCP TypeScript SDK client
//! (`server/tests/interop/interop.mjs --read-only`), the ordinary route beside
//! `/mcp`, the 413 of an oversized body before it is sent whole, and the held
//! `GET` event stream.
//!
//! The SDK client needs `npm ci` in `server/tests/interop`; without
//! `node_modules` that test says so and passes, except under CI (env `CI`
//! set), where it fails.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const TOKEN: &str = "allowed";

/// The example binary on an ephemeral port, killed when dropped.
struct Example {
    child: Child,
    addr: SocketAddr,
}

impl Example {
    fn start() -> Example {
        Example::start_with(&[])
    }

    /// [`Example::start`] with more flags.
    fn start_with(extra: &[&str]) -> Example {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chopin-mcp-axum-example"))
            .args(["--listen", "127.0.0.1:0", "--token", "allowed=octocat"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the example");
        let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let line = lines.next().and_then(Result::ok).unwrap_or_default();
        let Some(addr) = line.strip_prefix("listening on http://") else {
            let _ = child.kill();
            panic!("no address line: {line:?}");
        };
        let addr = addr.trim_end_matches("/mcp").parse().expect("an address");
        std::thread::spawn(move || lines.for_each(drop));
        Example { child, addr }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream
    }

    /// Sends `request` and reads until the server closes.
    fn raw(&self, request: &str) -> String {
        let mut stream = self.connect();
        stream.write_all(request.as_bytes()).expect("send");
        let mut out = String::new();
        let _ = stream.read_to_string(&mut out);
        out
    }
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads until `wanted` has arrived (or the server closes, or 10 s pass).
fn read_until(stream: &mut TcpStream, wanted: &str) -> String {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&out).contains(wanted) {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn head(method: &str, addr: SocketAddr, extra: &str) -> String {
    format!(
        "{method} /mcp HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {TOKEN}\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n{extra}\r\n"
    )
}

#[test]
fn the_typescript_sdk_client_works_with_the_axum_host() {
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../server/tests/interop");
    if !interop.join("node_modules").exists() {
        let message = format!(
            "{} has no node_modules (run `npm ci` there)",
            interop.display()
        );
        assert!(std::env::var_os("CI").is_none(), "under CI: {message}");
        println!("skipped: {message}");
        return;
    }
    let example = Example::start();
    let url = format!("http://{}/mcp", example.addr);
    let output = Command::new("node")
        .args(["interop.mjs", "--read-only", &url, TOKEN])
        .current_dir(&interop)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "interop failed\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for check in [
        "initialize",
        "tools/list",
        "read_document (found)",
        "read_document (absent)",
    ] {
        assert!(
            stdout.contains(&format!("ok   {check}")),
            "{check} not passed:\n{stdout}"
        );
    }
}

#[test]
fn an_ordinary_route_answers_beside_mcp() {
    let example = Example::start();
    let hello = example.raw("GET / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    assert!(hello.starts_with("HTTP/1.1 200"), "{hello}");
    assert!(hello.ends_with("hello from an ordinary route\n"), "{hello}");
    let missing = example.raw("GET /nope HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    // The endpoint decides for /mcp: a PUT is refused by it, not by axum.
    let put = example.raw(&head(
        "PUT",
        example.addr,
        "content-length: 0\r\nconnection: close\r\n",
    ));
    assert!(put.starts_with("HTTP/1.1 405"), "{put}");
    assert!(
        put.to_ascii_lowercase().contains("allow: get, post"),
        "{put}"
    );
}

#[test]
fn a_chunked_body_over_the_budget_gets_413_before_it_is_sent_whole() {
    let example = Example::start();
    let mut stream = example.connect();
    // One chunk declared 1 MiB long; only 70 000 bytes of it are sent (the
    // budget is 65 536), then the client waits.
    let start = head("POST", example.addr, "transfer-encoding: chunked\r\n");
    stream.write_all(start.as_bytes()).expect("send the head");
    stream
        .write_all(b"100000\r\n")
        .expect("send the chunk size");
    stream
        .write_all(&[b' '; 70_000])
        .expect("send part of the chunk");
    let response = read_until(&mut stream, "request too large");
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(response.contains("request too large"), "{response}");
}

#[test]
fn a_declared_length_over_the_budget_gets_413_at_once() {
    let example = Example::start();
    let mut stream = example.connect();
    // The head alone: not one byte of the declared megabyte follows.
    let start = head("POST", example.addr, "content-length: 1048576\r\n");
    stream.write_all(start.as_bytes()).expect("send the head");
    let response = read_until(&mut stream, "request too large");
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
}

#[test]
fn a_get_event_stream_is_held_open_with_keep_alives() {
    let example = Example::start();
    let mut stream = example.connect();
    let request = format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\n\
         accept: text/event-stream\r\n\r\n",
        example.addr
    );
    stream.write_all(request.as_bytes()).expect("send");
    let keep_alive = String::from_utf8_lossy(chopin_mcp::sse::keep_alive()).into_owned();
    let response = read_until(&mut stream, &keep_alive);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let lower = response.to_ascii_lowercase();
    assert!(
        lower.contains("content-type: text/event-stream"),
        "{response}"
    );
    assert!(lower.contains("cache-control: no-cache"), "{response}");
    assert!(response.contains(&keep_alive), "{response}");
    // Still open: a short read times out instead of seeing the end.
    stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .expect("timeout");
    let mut byte = [0u8; 1];
    assert!(
        stream.read(&mut byte).is_err(),
        "the stream ended or sent more at once"
    );
}

#[test]
fn mcp_without_a_token_is_refused() {
    let example = Example::start();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        example.addr,
        body.len()
    );
    let response = example.raw(&request);
    assert!(response.starts_with("HTTP/1.1 401"), "{response}");
    assert!(
        response
            .to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{response}"
    );
}

#[test]
fn protected_resource_metadata_is_routed_before_mcp() {
    let resource = "https://mcp.example.com/mcp";
    let issuer = "https://login.example.com";
    let example = Example::start_with(&["--resource", resource, "--oauth-issuer", issuer]);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = example.raw(&format!(
            "GET {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
            example.addr
        ));
        assert!(response.starts_with("HTTP/1.1 200"), "{path}: {response}");
        let lower = response.to_ascii_lowercase();
        assert!(
            lower.contains("access-control-allow-origin: *"),
            "{response}"
        );
        assert!(
            lower.contains("cache-control: public, max-age=3600"),
            "{response}"
        );
        let document = response.split("\r\n\r\n").nth(1).unwrap_or_default();
        let document: serde_json::Value = serde_json::from_str(document).expect("JSON");
        assert_eq!(document["resource"], resource);
        assert_eq!(document["authorization_servers"][0], issuer);
    }
    // Other paths stay 404, and /mcp's 401 names the metadata.
    let other = example.raw(&format!(
        "GET /elsewhere HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
        example.addr
    ));
    assert!(other.starts_with("HTTP/1.1 404"), "{other}");
    let mcp = example.raw(&format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n",
        example.addr
    ));
    assert!(
        mcp.contains(r#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#),
        "{mcp}"
    );
}
