//! The HTTP/1.1 adapter's response bytes: the host's extra headers after the
//! response's own, the length in decimal, no length on a 204, and the head
//! alone for a host that sends the body from where it is.

mod common;

use chopin_mcp::http1;
use chopin_mcp::{Config, Header, Outcome, RequestParts};
use common::endpoint_with;

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

#[test]
fn extra_headers_follow_the_responses_own_and_the_length_is_exact() {
    // A refused head (400 "bad request"): 11 bytes of body.
    let refused = http1::parse_head(b"NOT A REQUEST LINE\r\n\r\n").unwrap_err();
    let mut out = Vec::new();
    let date = Header::new("date", b"Thu, 03 Dec 2026 10:00:00 GMT");
    http1::write_response_with(&refused.response(), true, &[date], &mut out);
    let written = text(&out);
    assert!(
        written.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{written}"
    );
    let own = written.find("content-type:").unwrap();
    let dated = written
        .find("date: Thu, 03 Dec 2026 10:00:00 GMT\r\n")
        .unwrap();
    let length = written.find("content-length: 11\r\n").unwrap();
    assert!(own < dated && dated < length, "{written}");
    assert!(!written.contains("connection:"), "{written}");
    assert!(written.ends_with("\r\n\r\nbad request"), "{written}");
    // Without extras, the same bytes less the date line.
    let mut plain = Vec::new();
    http1::write_response(&refused.response(), true, &mut plain);
    assert_eq!(
        text(&plain),
        written.replace("date: Thu, 03 Dec 2026 10:00:00 GMT\r\n", "")
    );
}

#[test]
fn a_204_is_written_without_a_length() {
    // A CORS preflight from an allowed origin is answered 204.
    let endpoint = endpoint_with(Config::new().allow_origin("http://app.example"));
    let headers = [
        Header::new("host", b"localhost"),
        Header::new("origin", b"http://app.example"),
        Header::new("access-control-request-method", b"POST"),
    ];
    let parts = RequestParts::new("OPTIONS", "/mcp", &headers);
    let Outcome::Respond(response) = endpoint.begin::<String>(&parts) else {
        panic!("a preflight is answered at once");
    };
    assert_eq!(response.status(), 204);
    for keep in [true, false] {
        let mut out = Vec::new();
        http1::write_response(&response, keep, &mut out);
        let written = text(&out);
        assert!(written.starts_with("HTTP/1.1 204 "), "{written}");
        assert!(!written.contains("content-length"), "{written}");
        assert!(written.ends_with("\r\n\r\n"), "{written}");
        assert_eq!(written.contains("connection: close"), !keep, "{written}");
    }
}

#[test]
fn the_head_alone_is_the_response_less_its_body() {
    let refused = http1::parse_head(b"NOT A REQUEST LINE\r\n\r\n").unwrap_err();
    let response = refused.response();
    let date = [Header::new("date", b"Thu, 03 Dec 2026 10:00:00 GMT")];
    for keep in [true, false] {
        let mut whole = Vec::new();
        http1::write_response_with(&response, keep, &date, &mut whole);
        let mut head = Vec::new();
        http1::write_head_with(&response, keep, &date, &mut head);
        assert!(text(&head).ends_with("\r\n\r\n"), "{}", text(&head));
        assert!(!text(&head).contains("bad request"), "{}", text(&head));
        head.extend_from_slice(response.body());
        assert_eq!(text(&head), text(&whole));
    }
}
