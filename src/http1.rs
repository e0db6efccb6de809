//! An HTTP/1.1 adapter on `httparse`: parse a request head into
//! [`RequestParts`], frame its body (`content-length` or `chunked`), and write a
//! [`Response`] as HTTP/1.1 bytes ([`write_response`]; [`write_head_with`] for
//! the head alone, when the host sends the body from where it is). With it, a
//! blocking `std::net` server is a few lines (see
//! `server/src/bin/chopin-mcp-blocking.rs`).
//!
//! Everything here is incremental and bounded: [`parse_head`] answers
//! `Ok(None)` until the head is complete and refuses heads over
//! [`MAX_HEAD_BYTES`] or with more than [`MAX_HEADERS`] headers; the
//! [`BodyDecoder`] hands out body bytes as borrowed slices of the input it is
//! given, keeping only a few integers of state, and bounds chunk extensions
//! and trailers. Rejections are values carrying their status
//! ([`HttpError::response`]).

use crate::json::decimal;
use crate::request::{Header, RequestParts, trim_ows};
use crate::response::Response;

/// The most headers a request head may have (more: 431).
pub const MAX_HEADERS: usize = 64;
/// The most bytes a request head may take, request line included (more: 431).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most bytes of chunk extensions and trailers one body may carry.
pub const MAX_CHUNK_METADATA: usize = 16 * 1024;

/// A request the adapter refuses, with the status it should get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{status} {reason}")]
pub struct HttpError {
    status: u16,
    reason: &'static str,
}

impl HttpError {
    const fn new(status: u16, reason: &'static str) -> Self {
        HttpError { status, reason }
    }

    /// The status code: 400, 431 or 501.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response to send before closing the connection.
    pub fn response(&self) -> Response {
        Response::text(self.status, self.reason)
    }
}

const BAD_REQUEST: HttpError = HttpError::new(400, "bad request");
const HEAD_TOO_LARGE: HttpError = HttpError::new(431, "request header fields too large");
const BAD_FRAMING: HttpError = HttpError::new(400, "bad message framing");
const UNSUPPORTED_CODING: HttpError = HttpError::new(501, "transfer coding not implemented");

/// How a request's body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Exactly this many bytes (0 when the request declares no body).
    Length(u64),
    /// `transfer-encoding: chunked`.
    Chunked,
}

/// A parsed request head, borrowing from the bytes it was parsed from.
#[derive(Debug, Clone)]
pub struct RequestHead<'b> {
    method: &'b str,
    target: &'b str,
    minor_version: u8,
    headers: [Header<'b>; MAX_HEADERS],
    count: usize,
    len: usize,
    framing: Framing,
}

impl<'b> RequestHead<'b> {
    /// The head as the endpoint takes it.
    pub fn parts(&self) -> RequestParts<'_> {
        RequestParts::new(self.method, self.target, self.headers())
    }

    /// The headers, in order.
    pub fn headers(&self) -> &[Header<'b>] {
        &self.headers[..self.count]
    }

    /// How many bytes of the input the head took; the body starts there.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a head has at least a request line. (Here for the
    /// `len`/`is_empty` convention.)
    pub fn is_empty(&self) -> bool {
        false
    }

    /// How the body is delimited.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Whether the connection may carry another request after this one:
    /// HTTP/1.1 unless `connection: close`, HTTP/1.0 only with
    /// `connection: keep-alive`.
    pub fn keep_alive(&self) -> bool {
        let has = |token: &str| {
            self.parts()
                .all("connection")
                .flat_map(|value| value.split(|&b| b == b','))
                .any(|option| trim_ows(option).eq_ignore_ascii_case(token.as_bytes()))
        };
        if self.minor_version == 0 {
            has("keep-alive")
        } else {
            !has("close")
        }
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    pub fn expects_continue(&self) -> bool {
        self.minor_version == 1
            && self
                .parts()
                .all("expect")
                .any(|value| trim_ows(value).eq_ignore_ascii_case(b"100-continue"))
    }
}

/// Finds where a request head ends in a buffer that grows as bytes arrive,
/// looking at each byte once.
///
/// Calling [`parse_head`] after every read re-parses the head from its start,
/// which costs time quadratic in the head's size when a client sends it a
/// byte at a time. A host calls [`scan`](Self::scan) after each read instead,
/// and [`parse_head`] only once the blank line that ends the head is there.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadScanner {
    scanned: usize,
}

impl HeadScanner {
    /// A scanner for a new head.
    pub fn new() -> Self {
        HeadScanner::default()
    }

    /// Looks at the bytes of `buf` not seen before: `Ok(true)` once `buf`
    /// holds a blank line (`\r\n\r\n` or `\n\n`), `Ok(false)` to read more,
    /// or 431 once the head outgrows [`MAX_HEAD_BYTES`]. `buf` must only grow
    /// between calls.
    pub fn scan(&mut self, buf: &[u8]) -> Result<bool, HttpError> {
        // Step back far enough to see a terminator split across reads.
        let end = buf.len().min(MAX_HEAD_BYTES + 4);
        let from = self.scanned.saturating_sub(3).min(end);
        let window = &buf[from..end];
        let found = window.windows(2).any(|pair| pair == b"\n\n")
            || window.windows(4).any(|quad| quad == b"\r\n\r\n");
        self.scanned = buf.len();
        match found {
            true => Ok(true),
            false if buf.len() >= MAX_HEAD_BYTES => Err(HEAD_TOO_LARGE),
            false => Ok(false),
        }
    }
}

/// Parses a request head from the start of `buf`: `Ok(None)` while it is
/// incomplete, the head once it is, or the rejection (400, 431, 501).
/// Leading empty lines are skipped, as RFC 9112 allows.
pub fn parse_head(buf: &[u8]) -> Result<Option<RequestHead<'_>>, HttpError> {
    let mut raw = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut raw);
    let len = match request.parse(buf) {
        Ok(httparse::Status::Complete(len)) if len <= MAX_HEAD_BYTES => len,
        Ok(httparse::Status::Complete(_)) => return Err(HEAD_TOO_LARGE),
        Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD_BYTES => return Ok(None),
        Ok(httparse::Status::Partial) => return Err(HEAD_TOO_LARGE),
        Err(httparse::Error::TooManyHeaders) => return Err(HEAD_TOO_LARGE),
        Err(_) => return Err(BAD_REQUEST),
    };
    let (Some(method), Some(target), Some(minor_version)) =
        (request.method, request.path, request.version)
    else {
        return Err(BAD_REQUEST);
    };
    let mut headers = [Header::new("", b""); MAX_HEADERS];
    let count = request.headers.len();
    for (slot, header) in headers.iter_mut().zip(request.headers.iter()) {
        *slot = Header::new(header.name, header.value);
    }
    let framing = framing(&headers[..count])?;
    Ok(Some(RequestHead {
        method,
        target,
        minor_version,
        headers,
        count,
        len,
        framing,
    }))
}

/// RFC 9112 §6: `transfer-encoding` (only `chunked`) or one agreed
/// `content-length`; both at once is refused, as a smuggling guard.
fn framing(headers: &[Header<'_>]) -> Result<Framing, HttpError> {
    let named = |name: &'static str| {
        headers
            .iter()
            .filter(move |h| h.name.eq_ignore_ascii_case(name))
    };
    let mut codings = named("transfer-encoding")
        .flat_map(|h| h.value.split(|&b| b == b','))
        .map(trim_ows)
        .peekable();
    if codings.peek().is_some() {
        let chunked = codings
            .next()
            .is_some_and(|c| c.eq_ignore_ascii_case(b"chunked"))
            && codings.next().is_none();
        if !chunked {
            return Err(UNSUPPORTED_CODING);
        }
        if named("content-length").next().is_some() {
            return Err(BAD_FRAMING);
        }
        return Ok(Framing::Chunked);
    }
    let mut length = None;
    for value in named("content-length").flat_map(|h| h.value.split(|&b| b == b',')) {
        let digits = trim_ows(value);
        let parsed =
            (!digits.is_empty() && digits.len() <= 19 && digits.iter().all(u8::is_ascii_digit))
                .then(|| {
                    digits
                        .iter()
                        .fold(0u64, |acc, d| acc * 10 + u64::from(d - b'0'))
                })
                .ok_or(BAD_FRAMING)?;
        if length.is_some_and(|known| known != parsed) {
            return Err(BAD_FRAMING);
        }
        length = Some(parsed);
    }
    Ok(Framing::Length(length.unwrap_or(0)))
}

/// Body bytes decoded from one call to [`BodyDecoder::decode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded<'i> {
    /// How many bytes of the input were used.
    pub consumed: usize,
    /// Body bytes, borrowed from the input (possibly empty).
    pub data: &'i [u8],
}

/// Decodes a request body from its framing, a slice of input at a time.
///
/// Call [`decode`](Self::decode) with the bytes after the head; it uses what it
/// can, returns body bytes as a slice of that input, and says how much it
/// used. Call again with the rest (or with more input once all was used)
/// until [`is_done`](Self::is_done).
#[derive(Debug, Clone)]
pub struct BodyDecoder {
    state: State,
    metadata: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading a fixed-length body.
    Length(u64),
    /// Reading a chunk-size line's hex digits.
    Size {
        size: u64,
        digits: u8,
    },
    /// Skipping a chunk extension up to CR.
    Extension {
        size: u64,
    },
    /// Expecting LF after a chunk-size line.
    SizeLf {
        size: u64,
    },
    /// Reading chunk data.
    Data(u64),
    /// Expecting CR, then LF, after chunk data.
    DataCr,
    DataLf,
    /// At the start of a trailer line (or the final CRLF).
    TrailerStart,
    /// Inside a trailer field line.
    Trailer,
    TrailerLf,
    EndLf,
    Done,
}

impl BodyDecoder {
    /// A decoder for a body with this framing.
    pub fn new(framing: Framing) -> Self {
        let state = match framing {
            Framing::Length(0) => State::Done,
            Framing::Length(n) => State::Length(n),
            Framing::Chunked => State::Size { size: 0, digits: 0 },
        };
        BodyDecoder { state, metadata: 0 }
    }

    /// Whether the whole body has been decoded.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes from `input` until it yields body bytes, runs out of input,
    /// or reaches the end of the body.
    pub fn decode<'i>(&mut self, input: &'i [u8]) -> Result<Decoded<'i>, HttpError> {
        let mut used = 0;
        while used < input.len() {
            let byte = input[used];
            self.state = match self.state {
                State::Done => break,
                State::Length(remaining) | State::Data(remaining) => {
                    let take = usize::try_from(remaining)
                        .unwrap_or(usize::MAX)
                        .min(input.len() - used);
                    let left = remaining - take as u64;
                    self.state = match (self.state, left) {
                        (State::Length(_), 0) => State::Done,
                        (State::Length(_), _) => State::Length(left),
                        (_, 0) => State::DataCr,
                        _ => State::Data(left),
                    };
                    return Ok(Decoded {
                        consumed: used + take,
                        data: &input[used..used + take],
                    });
                }
                State::Size { size, digits } => match hex(byte) {
                    Some(value) if digits < 16 => State::Size {
                        size: size << 4 | u64::from(value),
                        digits: digits + 1,
                    },
                    None if digits > 0 && byte == b'\r' => State::SizeLf { size },
                    None if digits > 0 && matches!(byte, b';' | b' ' | b'\t') => {
                        self.count_metadata()?;
                        State::Extension { size }
                    }
                    _ => return Err(BAD_FRAMING),
                },
                State::Extension { size } => {
                    self.count_metadata()?;
                    match byte {
                        b'\r' => State::SizeLf { size },
                        b'\n' => return Err(BAD_FRAMING),
                        _ => State::Extension { size },
                    }
                }
                State::SizeLf { size } => match (byte, size) {
                    (b'\n', 0) => State::TrailerStart,
                    (b'\n', size) => State::Data(size),
                    _ => return Err(BAD_FRAMING),
                },
                State::DataCr if byte == b'\r' => State::DataLf,
                State::DataLf if byte == b'\n' => State::Size { size: 0, digits: 0 },
                State::DataCr | State::DataLf => return Err(BAD_FRAMING),
                State::TrailerStart if byte == b'\r' => State::EndLf,
                State::TrailerStart | State::Trailer if byte != b'\r' && byte != b'\n' => {
                    self.count_metadata()?;
                    State::Trailer
                }
                State::Trailer if byte == b'\r' => State::TrailerLf,
                State::TrailerLf if byte == b'\n' => State::TrailerStart,
                State::EndLf if byte == b'\n' => {
                    self.state = State::Done;
                    return Ok(Decoded {
                        consumed: used + 1,
                        data: &[],
                    });
                }
                State::TrailerStart | State::Trailer | State::TrailerLf | State::EndLf => {
                    return Err(BAD_FRAMING);
                }
            };
            used += 1;
        }
        Ok(Decoded {
            consumed: used,
            data: &[],
        })
    }

    fn count_metadata(&mut self) -> Result<(), HttpError> {
        self.metadata += 1;
        if self.metadata > MAX_CHUNK_METADATA {
            return Err(BAD_FRAMING);
        }
        Ok(())
    }
}

fn hex(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// Appends `response` as HTTP/1.1 bytes: status line, the response's headers,
/// `content-length` (none for a 1xx, 204 or 304, which have no body), and
/// `connection: close` unless `keep_alive`.
///
/// An event stream ([`Response::is_event_stream`]) is written as a head only,
/// without a length and with `connection: close`: its body is the events the
/// host writes afterwards, until it closes the connection.
pub fn write_response(response: &Response, keep_alive: bool, out: &mut Vec<u8>) {
    write_response_with(response, keep_alive, &[], out);
}

/// [`write_response`] with `extra` headers written after the response's own:
/// what the host adds, such as `date` (the endpoint has no clock).
pub fn write_response_with(
    response: &Response,
    keep_alive: bool,
    extra: &[Header<'_>],
    out: &mut Vec<u8>,
) {
    write_head_with(response, keep_alive, extra, out);
    out.extend_from_slice(response.body());
}

/// The head [`write_response_with`] writes, without the body: for a host
/// that sends [`Response::body`] after it from where it is (one vectored
/// write of both), rather than copying it behind the head.
pub fn write_head_with(
    response: &Response,
    keep_alive: bool,
    extra: &[Header<'_>],
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(b"HTTP/1.1 ");
    decimal(out, u64::from(response.status()));
    out.push(b' ');
    out.extend_from_slice(reason(response.status()).as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in response.headers() {
        header(out, name.as_bytes(), value);
    }
    for extra in extra {
        header(out, extra.name.as_bytes(), extra.value);
    }
    if response.is_event_stream() {
        header(out, b"connection", b"close");
    } else if bodiless(response.status()) {
        // No body by its status, so no length (RFC 9110 §8.6).
        if !keep_alive {
            header(out, b"connection", b"close");
        }
    } else {
        out.extend_from_slice(b"content-length: ");
        decimal(out, response.body().len() as u64);
        out.extend_from_slice(b"\r\n");
        if !keep_alive {
            header(out, b"connection", b"close");
        }
    }
    out.extend_from_slice(b"\r\n");
}

/// Whether a response with `status` has no body, and so no
/// `content-length` (1xx, 204, 304).
fn bodiless(status: u16) -> bool {
    status < 200 || status == 204 || status == 304
}

fn header(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// The reason phrase for the statuses this crate produces.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        202 => "Accepted",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(framing: Framing, input: &[u8]) -> Result<(Vec<u8>, usize), HttpError> {
        let mut decoder = BodyDecoder::new(framing);
        let mut body = Vec::new();
        let mut at = 0;
        while !decoder.is_done() && at < input.len() {
            let decoded = decoder.decode(&input[at..])?;
            at += decoded.consumed;
            body.extend_from_slice(decoded.data);
        }
        assert!(decoder.is_done(), "incomplete");
        Ok((body, at))
    }

    #[test]
    fn chunked_bodies_decode_with_extensions_and_trailers() {
        let input = b"4;name=value\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nx-trailer: 1\r\n\r\nNEXT";
        let (body, used) = decode_all(Framing::Chunked, input).unwrap();
        assert_eq!(body, b"Wikipedia in\r\n\r\nchunks.");
        assert_eq!(&input[used..], b"NEXT");
    }

    #[test]
    fn bad_chunk_framing_is_refused() {
        for input in [
            &b"g\r\n"[..],
            b"\r\n",
            b"4\r\nWikiX",
            b"4\nWiki\r\n",
            b"11111111111111111\r\n",
            b"0\r\nx\n",
        ] {
            let mut decoder = BodyDecoder::new(Framing::Chunked);
            let mut at = 0;
            let result = loop {
                match decoder.decode(&input[at..]) {
                    Err(error) => break Err(error),
                    Ok(d) if d.consumed == 0 => break Ok(()),
                    Ok(d) => at += d.consumed,
                }
            };
            assert_eq!(
                result,
                Err(BAD_FRAMING),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn the_scanner_finds_a_head_end_split_across_reads() {
        let head = b"GET / HTTP/1.1\r\nhost: x\r\n\r\n";
        for at in 0..head.len() {
            let mut scanner = HeadScanner::new();
            let first = scanner.scan(&head[..at]).unwrap();
            assert!(!first || at == head.len());
            assert!(scanner.scan(head).unwrap(), "split at {at}");
        }
        let mut scanner = HeadScanner::new();
        let endless = vec![b'x'; MAX_HEAD_BYTES];
        for end in 1..=endless.len() {
            if let Err(error) = scanner.scan(&endless[..end]) {
                assert_eq!(error.status(), 431);
                return;
            }
        }
        panic!("an endless head was never refused");
    }

    #[test]
    fn framing_refuses_smuggling_shapes() {
        let head = |extra: &str| format!("POST / HTTP/1.1\r\nhost: x\r\n{extra}\r\n");
        let framing_of =
            |extra: &str| parse_head(head(extra).as_bytes()).map(|h| h.unwrap().framing());
        assert_eq!(framing_of(""), Ok(Framing::Length(0)));
        assert_eq!(framing_of("content-length: 5\r\n"), Ok(Framing::Length(5)));
        assert_eq!(
            framing_of("content-length: 5\r\ncontent-length: 5\r\n"),
            Ok(Framing::Length(5))
        );
        assert_eq!(
            framing_of("content-length: 5\r\ncontent-length: 6\r\n"),
            Err(BAD_FRAMING)
        );
        assert_eq!(framing_of("content-length: +5\r\n"), Err(BAD_FRAMING));
        assert_eq!(
            framing_of("transfer-encoding: chunked\r\n"),
            Ok(Framing::Chunked)
        );
        assert_eq!(
            framing_of("transfer-encoding: gzip, chunked\r\n"),
            Err(UNSUPPORTED_CODING)
        );
        assert_eq!(
            framing_of("transfer-encoding: chunked\r\ncontent-length: 5\r\n"),
            Err(BAD_FRAMING)
        );
    }
}
