//! What both binaries write on the wire besides the endpoint's responses:
//! the server's own plain-text replies (404, 408, 500, 503, health probes),
//! the `date` header, the path a request target names, and the document a
//! path names.
// The host owns the clock: the `date` header is read from it here, never
// in the crate's core (clippy.toml forbids it there).
#![allow(clippy::disallowed_methods)]

use std::cell::Cell;
use std::time::{SystemTime, UNIX_EPOCH};

use chopin_mcp::Header;

/// The length of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub const DATE_LEN: usize = 29;

/// Bodies up to this many bytes are copied behind their head and sent with
/// it from the head's buffer; larger ones (a list's 14 kB) are sent from
/// where they are, in one vectored write with the head ([`behind_head`]).
pub const COPIED_BODY: usize = 4096;

/// What of `body` is left to send after `head`: nothing for a `HEAD`
/// (`head_only`, RFC 9110 §9.3.2); nothing when it is at most
/// [`COPIED_BODY`] bytes, which are appended to `head`; otherwise all of
/// it, to go out from where it is.
pub fn behind_head<'b>(head: &mut Vec<u8>, body: &'b [u8], head_only: bool) -> &'b [u8] {
    if head_only {
        &[]
    } else if body.len() <= COPIED_BODY {
        head.extend_from_slice(body);
        &[]
    } else {
        body
    }
}

/// Moves `head` and then `body` past the `written` bytes of a vectored
/// write of the two (at most their lengths together).
pub fn advance(head: &mut &[u8], body: &mut &[u8], written: usize) {
    match written.checked_sub(head.len()) {
        None => *head = &head[written..],
        Some(of_body) => {
            *head = &[];
            *body = &body[of_body.min(body.len())..];
        }
    }
}

/// Appends a `text/plain` reply with `status` and `text`, `extra` headers
/// after the server's own, and `connection: close` unless `keep`.
pub fn plain(status: u16, text: &str, keep: bool, extra: &[Header<'_>], out: &mut Vec<u8>) {
    plain_head(status, text, keep, extra, out);
    out.extend_from_slice(text.as_bytes());
}

/// The head [`plain`] writes, without `text`.
pub fn plain_head(status: u16, text: &str, keep: bool, extra: &[Header<'_>], out: &mut Vec<u8>) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    };
    let status = status.to_string();
    let length = text.len().to_string();
    for part in [
        "HTTP/1.1 ",
        &status,
        " ",
        reason,
        "\r\ncontent-type: text/plain; charset=utf-8\r\ncache-control: no-store\r\ncontent-length: ",
        &length,
        "\r\n",
    ] {
        out.extend_from_slice(part.as_bytes());
    }
    for header in extra {
        out.extend_from_slice(header.name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(header.value);
        out.extend_from_slice(b"\r\n");
    }
    if !keep {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// The path of a request target: the origin form's (`/mcp?x` → `/mcp`) or
/// the absolute form's (`http://host/mcp` → `/mcp`, RFC 9112 §3.2.2); `""`
/// for anything else (`*`, an authority).
pub fn path(target: &str) -> &str {
    let target = target.split(['?', '#']).next().unwrap_or_default();
    if target.starts_with('/') {
        return target;
    }
    let scheme = |name: &[u8]| {
        target
            .as_bytes()
            .get(..name.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(name))
    };
    // Both schemes are ASCII: what follows them starts on a char boundary.
    let rest = if scheme(b"http://") {
        &target[7..]
    } else if scheme(b"https://") {
        &target[8..]
    } else {
        return "";
    };
    match rest.find('/') {
        Some(at) => &rest[at..],
        // `http://host` names the root.
        None => "/",
    }
}

thread_local! {
    /// The second the thread's cached date was written for, and the date.
    static DATE: Cell<(u64, [u8; DATE_LEN])> = const { Cell::new((u64::MAX, [0; DATE_LEN])) };
}

/// The current time as an IMF-fixdate, for the `date` header (RFC 9110
/// §6.6.1), formatted once a second per thread.
pub fn date() -> [u8; DATE_LEN] {
    date_now().1
}

/// The time now, and [`date`] of it: for a response whose request line
/// is stamped with the same clock reading.
pub fn date_now() -> (SystemTime, [u8; DATE_LEN]) {
    let now = SystemTime::now();
    (now, date_at(now))
}

/// [`date`] of `now`.
fn date_at(now: SystemTime) -> [u8; DATE_LEN] {
    let second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (cached, text) = DATE.get();
    if cached == second {
        return text;
    }
    let mut text = [b' '; DATE_LEN];
    let formatted = httpdate::fmt_http_date(now);
    let bytes = formatted.as_bytes();
    let n = bytes.len().min(DATE_LEN);
    text[..n].copy_from_slice(&bytes[..n]);
    DATE.set((second, text));
    text
}

/// Where a document's URL starts: `create_document` answers a document's
/// `url` as this prefix and its id.
pub const DOCUMENTS: &str = "/documents/";

/// Where an image's URL starts: `upload_image` answers `/images/<file>`.
pub const IMAGES: &str = "/images/";

/// The file an image path names: `/images/<file>`, the rest of the path as
/// it is (the endpoint judges it: no name it serves needs decoding).
pub fn image_file(path: &str) -> Option<&str> {
    path.strip_prefix(IMAGES)
}

/// The document id a path names: `/documents/<id>`, the id one path segment,
/// percent-decoded (`%2F` is a `/` of the id) and UTF-8; `None` for any
/// other path.
pub fn document_id(path: &str) -> Option<String> {
    let segment = path.strip_prefix(DOCUMENTS)?;
    if segment.contains('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(segment.len());
    let mut rest = segment.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let digit = |at: usize| tail.get(at).and_then(|&b| char::from(b).to_digit(16));
            let (high, low) = (digit(0)?, digit(1)?);
            bytes.push((high * 16 + low) as u8);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_of_each_target_form() {
        assert_eq!(path("/mcp"), "/mcp");
        assert_eq!(path("/mcp?session=1"), "/mcp");
        assert_eq!(path("http://localhost:8080/mcp?x"), "/mcp");
        assert_eq!(path("HTTPS://example.com/healthz"), "/healthz");
        assert_eq!(path("http://example.com"), "/");
        assert_eq!(path("*"), "");
        assert_eq!(path("example.com:443"), "");
        assert_eq!(path("ftp://x/mcp"), "");
        // Not ASCII where the scheme would be: no panic on a char boundary.
        assert_eq!(path("aéééé/mcp"), "");
        assert_eq!(path("httpé://x/mcp"), "");
    }

    #[test]
    fn a_plain_reply_is_framed_and_closes_unless_kept() {
        let mut out = Vec::new();
        plain(404, "not found", true, &[], &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain; charset=utf-8\r\n\
             cache-control: no-store\r\ncontent-length: 9\r\n\r\nnot found"
        );
        let mut out = Vec::new();
        plain(
            503,
            "busy",
            false,
            &[Header::new("retry-after", b"1")],
            &mut out,
        );
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{text}"
        );
        assert!(
            text.ends_with("retry-after: 1\r\nconnection: close\r\n\r\nbusy"),
            "{text}"
        );
    }

    #[test]
    fn a_small_body_is_copied_behind_its_head_a_large_one_left_where_it_is() {
        let mut head = b"head ".to_vec();
        assert!(behind_head(&mut head, b"small", false).is_empty());
        assert_eq!(head, b"head small");
        let large = vec![b'x'; COPIED_BODY + 1];
        assert_eq!(behind_head(&mut head, &large, false), &large[..]);
        assert!(behind_head(&mut head, &large, true).is_empty());
        assert!(behind_head(&mut head, b"small", true).is_empty());
        assert_eq!(head, b"head small");
    }

    #[test]
    fn a_vectored_write_moves_through_the_head_then_the_body() {
        let (mut head, mut body) = (&b"head"[..], &b"body"[..]);
        advance(&mut head, &mut body, 3);
        assert_eq!((head, body), (&b"d"[..], &b"body"[..]));
        advance(&mut head, &mut body, 2);
        assert_eq!((head, body), (&b""[..], &b"ody"[..]));
        advance(&mut head, &mut body, 3);
        assert_eq!((head, body), (&b""[..], &b""[..]));
    }

    #[test]
    fn a_plain_head_is_the_reply_less_its_text() {
        let mut head = Vec::new();
        plain_head(200, "ok\r\n\r\nmore", true, &[], &mut head);
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\n\
             cache-control: no-store\r\ncontent-length: 10\r\n\r\n"
        );
    }

    #[test]
    fn the_date_is_an_imf_fixdate_of_now() {
        let date = date();
        let text = std::str::from_utf8(&date).unwrap();
        let parsed = httpdate::parse_http_date(text).unwrap();
        let off = SystemTime::now().duration_since(parsed).unwrap();
        assert!(off.as_secs() < 5, "{text}");
        assert!(text.ends_with(" GMT"), "{text}");
    }

    #[test]
    fn a_document_path_names_one_percent_decoded_segment() {
        assert_eq!(
            document_id("/documents/01JD2X7K").as_deref(),
            Some("01JD2X7K")
        );
        assert_eq!(
            document_id("/documents/a%20b%2Fc").as_deref(),
            Some("a b/c")
        );
        assert_eq!(document_id("/documents/%C3%A9").as_deref(), Some("é"));
        assert_eq!(document_id("/documents/").as_deref(), Some(""));
        for path in [
            "/documents",
            "/documents/a/b",
            "/documents/a/",
            "/documents/%",
            "/documents/%2",
            "/documents/%zz",
            "/documents/%FF",
            "/mcp",
            "/documentsx",
        ] {
            assert_eq!(document_id(path), None, "{path}");
        }
    }
}
