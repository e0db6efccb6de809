//! The HTTP/1.1 adapter: heads, body framing and response bytes, with every
//! request split at every byte giving the same bytes back.

mod common;

use chopin_mcp::http1::{self, BodyDecoder, Framing};
use chopin_mcp::{Endpoint, Outcome};
use common::{Host, endpoint};

/// Serves one connection's worth of bytes, arriving in `pieces`, the way a
/// blocking host would: head, then body through the budgeted intake, then the
/// response bytes (or the adapter's rejection).
fn serve(endpoint: &Endpoint, pieces: &[&[u8]]) -> Vec<u8> {
    let mut buffered: Vec<u8> = Vec::new();
    let mut pieces = pieces.iter();
    let mut out = Vec::new();
    let mut scanner = http1::HeadScanner::new();
    let head = loop {
        let parsed = match scanner.scan(&buffered) {
            Ok(true) => http1::parse_head(&buffered),
            Ok(false) => Ok(None),
            Err(error) => Err(error),
        };
        match parsed {
            Ok(Some(_)) => break http1::parse_head(&buffered).unwrap().unwrap(),
            Ok(None) => match pieces.next() {
                Some(piece) => buffered.extend_from_slice(piece),
                None => return b"incomplete head".to_vec(),
            },
            Err(error) => {
                http1::write_response(&error.response(), false, &mut out);
                return out;
            }
        }
    };
    let mut rest: Vec<u8> = buffered[head.len()..].to_vec();
    let mut host = Host::seed();
    let mut outcome: Outcome<String> = endpoint.begin(&head.parts());
    let mut decoder = BodyDecoder::new(head.framing());
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Body(mut intake) => loop {
                if decoder.is_done() {
                    break intake.finish();
                }
                if rest.is_empty() {
                    match pieces.next() {
                        Some(piece) => rest.extend_from_slice(piece),
                        None => return b"incomplete body".to_vec(),
                    }
                }
                let decoded = match decoder.decode(&rest) {
                    Ok(decoded) => decoded,
                    Err(error) => {
                        http1::write_response(&error.response(), false, &mut out);
                        return out;
                    }
                };
                intake = match intake.push(decoded.data) {
                    Ok(intake) => intake,
                    Err(response) => break Outcome::Respond(response),
                };
                rest.drain(..decoded.consumed);
            },
            Outcome::Authenticate(auth) => {
                let caller = auth
                    .bearer_token()
                    .and_then(|token| host.tokens.get(token))
                    .cloned();
                auth.answer(caller)
            }
            effect => break host.drive(effect, &mut std::iter::empty()),
        };
    };
    http1::write_response(&response, head.keep_alive(), &mut out);
    out
}

fn request(body: &str, chunked: bool) -> Vec<u8> {
    let mut bytes = b"POST /mcp HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer allowed\r\ncontent-type: application/json\r\n".to_vec();
    if chunked {
        bytes.extend_from_slice(b"transfer-encoding: chunked\r\n\r\n");
        for (index, part) in body.as_bytes().chunks(7).enumerate() {
            let extension = if index == 0 { ";ext=1" } else { "" };
            bytes.extend_from_slice(format!("{:x}{extension}\r\n", part.len()).as_bytes());
            bytes.extend_from_slice(part);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"0\r\ntrailer: x\r\n\r\n");
    } else {
        bytes.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
        bytes.extend_from_slice(body.as_bytes());
    }
    bytes
}

const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;

#[test]
fn a_read_over_http1_returns_the_document_with_its_length() {
    let out = String::from_utf8(serve(&endpoint(), &[&request(READ, false)])).unwrap();
    assert!(
        out.starts_with(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncache-control: no-store\r\n"
        ),
        "{out}"
    );
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    assert!(head.contains(&format!("content-length: {}", body.len())));
    assert!(body.contains("Release readiness"));
    assert!(!head.contains("connection: close"));
}

#[test]
fn splitting_a_request_at_every_byte_gives_the_same_response() {
    let endpoint = endpoint();
    for chunked in [false, true] {
        let bytes = request(READ, chunked);
        let whole = serve(&endpoint, &[&bytes]);
        assert!(whole.starts_with(b"HTTP/1.1 200 OK"));
        for at in 0..=bytes.len() {
            let (a, b) = bytes.split_at(at);
            assert_eq!(
                serve(&endpoint, &[a, b]),
                whole,
                "chunked={chunked} split at {at}"
            );
        }
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(
            serve(&endpoint, &bytewise),
            whole,
            "chunked={chunked} byte by byte"
        );
    }
}

#[test]
fn the_budget_counts_decoded_chunked_bytes() {
    let endpoint = endpoint();
    // 65536 decoded bytes of JSON: a string padded to the budget exactly.
    let pad = 65_536 - r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":""}}"#.len();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"p":"{}"}}}}"#,
        "x".repeat(pad)
    );
    assert_eq!(body.len(), 65_536);
    let fits = serve(&endpoint, &[&request(&body, true)]);
    assert!(
        fits.starts_with(b"HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&fits[..40])
    );
    let over = format!("{body} ");
    let refused = String::from_utf8(serve(&endpoint, &[&request(&over, true)])).unwrap();
    assert!(refused.starts_with("HTTP/1.1 413 Content Too Large"));
    assert!(refused.ends_with("\r\n\r\nrequest too large"));
}

#[test]
fn bad_heads_get_their_status_as_values() {
    let endpoint = endpoint();
    let status =
        |bytes: &[u8]| String::from_utf8(serve(&endpoint, &[bytes])).unwrap()[..12].to_owned();
    assert_eq!(
        status(b"POST /mcp HTTP/1.1\r\nbad header\r\n\r\n"),
        "HTTP/1.1 400"
    );
    assert_eq!(status(b"GARBAGE\0\r\n\r\n"), "HTTP/1.1 400");
    let many: String = (0..65).map(|i| format!("x-{i}: y\r\n")).collect();
    assert_eq!(
        status(format!("GET /mcp HTTP/1.1\r\n{many}\r\n").as_bytes()),
        "HTTP/1.1 431"
    );
    let long = format!(
        "GET /mcp HTTP/1.1\r\nx: {}\r\n\r\n",
        "y".repeat(http1::MAX_HEAD_BYTES)
    );
    assert_eq!(status(long.as_bytes()), "HTTP/1.1 431");
    assert_eq!(
        status(b"POST /mcp HTTP/1.1\r\ntransfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n"),
        "HTTP/1.1 400"
    );
    assert_eq!(
        status(b"POST /mcp HTTP/1.1\r\ntransfer-encoding: gzip\r\n\r\n"),
        "HTTP/1.1 501"
    );
}

#[test]
fn an_oversized_partial_head_is_refused_before_it_completes() {
    let partial = format!(
        "GET /mcp HTTP/1.1\r\nx: {}",
        "y".repeat(http1::MAX_HEAD_BYTES)
    );
    assert_eq!(
        http1::parse_head(partial.as_bytes()).unwrap_err().status(),
        431
    );
    assert!(
        http1::parse_head(b"GET /mcp HTTP/1.1\r\nx: y")
            .unwrap()
            .is_none()
    );
}

#[test]
fn keep_alive_follows_the_http_version_and_connection_header() {
    let keep = |head: &str| {
        http1::parse_head(head.as_bytes())
            .unwrap()
            .unwrap()
            .keep_alive()
    };
    assert!(keep("GET / HTTP/1.1\r\n\r\n"));
    assert!(!keep("GET / HTTP/1.1\r\nconnection: Close\r\n\r\n"));
    assert!(!keep("GET / HTTP/1.0\r\n\r\n"));
    assert!(keep("GET / HTTP/1.0\r\nconnection: keep-alive\r\n\r\n"));
    let continues = http1::parse_head(b"POST / HTTP/1.1\r\nexpect: 100-continue\r\n\r\n")
        .unwrap()
        .unwrap();
    assert!(continues.expects_continue());
}

#[test]
fn event_streams_are_written_as_a_head_that_closes() {
    let get =
        b"GET /mcp HTTP/1.1\r\nauthorization: Bearer allowed\r\naccept: text/event-stream\r\n\r\n";
    let out = String::from_utf8(serve(&endpoint(), &[get])).unwrap();
    assert_eq!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n"
    );
}

#[test]
fn a_fixed_length_body_yields_exactly_its_bytes() {
    let mut decoder = BodyDecoder::new(Framing::Length(5));
    let first = decoder.decode(b"abc").unwrap();
    assert_eq!((first.consumed, first.data), (3, &b"abc"[..]));
    let second = decoder.decode(b"deNEXT").unwrap();
    assert_eq!((second.consumed, second.data), (2, &b"de"[..]));
    assert!(decoder.is_done());
}
