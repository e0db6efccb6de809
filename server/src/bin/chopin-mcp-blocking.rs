//! The same MCP server as `chopin-mcp-server`, on `std::net` and threads only: no async
//! runtime, with the crate's HTTP/1.1 adapter (`chopin_mcp::http1`) doing the
//! parsing and framing. Its store is SQLite only (`--db PATH` or `--memory`):
//! it refuses `--db postgres://…` at start, since the PostgreSQL store is
//! async on tokio (use `chopin-mcp-server` for that).
//!
//! ```sh
//! cargo run -p chopin-mcp-server --bin chopin-mcp-blocking -- --memory
//! ```
//!
//! One thread per connection, at most [`MAX_CONNECTIONS`] at once. Every read
//! has a deadline, so a slow or silent client costs one thread for a bounded
//! time and never holds up another connection.
// The host owns the clock: deadlines are this server's business, not the
// endpoint's (clippy.toml forbids `Instant::now` for the crate's core).
#![allow(clippy::disallowed_methods)]

use std::io::{self, IoSlice, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chopin_mcp::http1::{self, BodyDecoder, Framing};
use chopin_mcp::{DocumentOutcome, Header, ImageAnswer, ImageOutcome, Outcome, sse};

use chopin_mcp_server::health;
use chopin_mcp_server::host::{Caller, DATABASE_BUSY, Host, INTERNAL_ERROR, RETRY_AFTER};
use chopin_mcp_server::store::StoreError;
use chopin_mcp_server::{options, wire};

/// Open connections (threads) at most; more get a 503.
const MAX_CONNECTIONS: usize = 512;
/// How long a kept-alive connection may sit idle before it is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may take to send a head once it started one (then 408).
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to send a body (then 408).
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a write may block on a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an open event stream gets a keep-alive comment.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(15);

/// The same allocator as `chopin-mcp-server` (see its `ALLOC`).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let options = match options::from_command_line() {
        Ok(options) => options,
        Err(code) => return code,
    };
    chopin_mcp_server::sqlite::configure();
    match serve(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn serve(options: &options::Options) -> Result<(), String> {
    let defaults = options::parse(Vec::new())
        .ok()
        .and_then(|command| match command {
            options::Command::Serve(defaults) => Some(defaults),
            options::Command::Help
            | options::Command::Token(_)
            | options::Command::Graph(_)
            | options::Command::Runs(_) => None,
        });
    let operated = defaults.is_some_and(|d| {
        options.log_format != d.log_format
            || options.shutdown_timeout != d.shutdown_timeout
            || options.metrics_listen.is_some()
            || options.workers.is_some()
            || options.pin != d.pin
            || options.db_limits.pool_size != d.db_limits.pool_size
    });
    if operated {
        eprintln!(
            "note: chopin-mcp-blocking ignores --log-format, --shutdown-timeout, --metrics-listen, --workers, --no-pin and --db-pool-size (chopin-mcp-server has them; this one serves a thread per connection)"
        );
    }
    let host = Arc::new(Host::prepare_blocking(options, options.listen)?);
    let listener = TcpListener::bind(options.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    host.print_banner(bound);
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                eprintln!("accept failed: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::AcqRel);
            let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
            let _ = write(&mut stream, plain(503, "server busy", false), false);
            continue;
        }
        let host = Arc::clone(&host);
        let open = Arc::clone(&open);
        let spawned = std::thread::Builder::new()
            .name("connection".to_owned())
            .spawn(move || {
                connection(&host, stream);
                open.fetch_sub(1, Ordering::AcqRel);
            });
        if let Err(e) = spawned {
            eprintln!("cannot start a connection thread: {e}");
        }
    }
    Ok(())
}

/// Whether a connection can carry another request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    KeepAlive,
    Close,
}

fn connection(host: &Host, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    // Bytes read but not yet used: the rest of a head, body bytes, or the
    // start of a pipelined next request.
    let mut buf = Vec::with_capacity(4096);
    while let Ok(Next::KeepAlive) = exchange(host, &mut stream, &mut buf) {}
    linger(&mut stream);
}

/// Closes gently: stop writing, then read and drop what the client still
/// sends for a moment. Closing with unread bytes would make the kernel send
/// a reset, which can destroy the response (413, 431) before the client
/// reads it.
fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let until = Instant::now() + Duration::from_secs(1);
    let mut sink = Vec::new();
    let mut drained = 0;
    while drained < 256 * 1024 {
        sink.clear();
        match fill(stream, &mut sink, until) {
            Ok(0) | Err(_) => break,
            Ok(read) => drained += read,
        }
    }
}

/// Serves one request: head, body, effects, response.
fn exchange(host: &Host, stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Next> {
    let idle_until = Instant::now() + IDLE_TIMEOUT;
    let mut head_until = None;
    // Looks at each byte once, so a client sending its head a byte at a
    // time costs linear time; the head is parsed once, when it is complete.
    let mut scanner = http1::HeadScanner::new();
    loop {
        // Empty lines before a request line are allowed (RFC 9112 §2.2):
        // drop them, so that the blank line the scanner looks for is the
        // one that ends a head.
        let blank = buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        if blank > 0 {
            buf.drain(..blank);
            scanner = http1::HeadScanner::new();
        }
        match scanner.scan(buf) {
            Ok(true) => break,
            Ok(false) => {}
            Err(error) => return send(stream, &error.response(), false, false),
        }
        let started = !buf.is_empty();
        let until = match (started, head_until) {
            (false, _) => idle_until,
            (true, Some(until)) => until,
            (true, None) => *head_until.insert(Instant::now() + HEAD_TIMEOUT),
        };
        match fill(stream, buf, until) {
            Ok(0) => return Ok(Next::Close),
            Ok(_) => {}
            // An idle keep-alive connection just closes; a half-sent head
            // gets told why.
            Err(e) if timed_out(&e) && !started => return Ok(Next::Close),
            Err(e) if timed_out(&e) => {
                return write(stream, plain(408, "request timeout", false), false);
            }
            Err(e) => return Err(e),
        }
    }
    let head = match http1::parse_head(buf) {
        Ok(Some(head)) => head,
        Ok(None) => return write(stream, plain(400, "bad request", false), false),
        Err(error) => return send(stream, &error.response(), false, false),
    };
    let (head_len, framing) = (head.len(), head.framing());
    let keep_alive = head.keep_alive();
    let expects_continue = head.expects_continue();
    let target = wire::path(head.parts().target());
    // A response to HEAD is its head only.
    let bodiless = head.parts().method() == "HEAD";
    // The health endpoints: no authentication, no body read.
    if let Some(probe) = health::Probe::of(target) {
        let answer = health::answer(probe, head.parts().method(), || {
            health::store_ready_blocking(&host.store)
        });
        let keep = keep_alive && framing == Framing::Length(0);
        buf.drain(..head_len);
        let allow = [Header::new("allow", health::ALLOW.as_bytes())];
        let extra = if answer.allow_get { &allow[..] } else { &[] };
        let reply = plain_with(answer.status, answer.body, keep, extra);
        return write(stream, reply, bodiless);
    }
    if let Some(id) = wire::document_id(target) {
        let outcome = host.endpoint.document(&head.parts(), &id);
        buf.drain(..head_len);
        // A body sent with it is never read: the connection closes after.
        let keep = keep_alive && framing == Framing::Length(0);
        return serve_document(host, stream, outcome, keep, bodiless);
    }
    if let Some(file) = wire::image_file(target) {
        let outcome = host.endpoint.image(&head.parts(), file);
        buf.drain(..head_len);
        let keep = keep_alive && framing == Framing::Length(0);
        return serve_image(host, stream, outcome, keep, bodiless);
    }
    let path = target == "/mcp";
    let outcome: Outcome<Caller> = if path {
        host.endpoint.begin(&head.parts())
    } else {
        let no_body = framing == Framing::Length(0);
        let keep = keep_alive && no_body;
        buf.drain(..head_len);
        return write(stream, plain(404, "not found", keep), bodiless);
    };
    buf.drain(..head_len);
    let mut decoder = BodyDecoder::new(framing);
    let body_until = Instant::now() + BODY_TIMEOUT;
    let mut continued = false;
    let mut outcome = outcome;
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => {
                let caller = host.caller(auth.bearer_token());
                auth.answer(caller)
            }
            Outcome::Body(mut intake) => loop {
                if decoder.is_done() {
                    break intake.finish();
                }
                if buf.is_empty() {
                    // The client waits for this before sending the body, and
                    // only gets it once the request passed every check.
                    if expects_continue && !continued {
                        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
                        continued = true;
                    }
                    match fill(stream, buf, body_until) {
                        Ok(0) => return Ok(Next::Close),
                        Ok(_) => {}
                        Err(e) if timed_out(&e) => {
                            return write(stream, plain(408, "request timeout", false), bodiless);
                        }
                        Err(e) => return Err(e),
                    }
                }
                let decoded = match decoder.decode(buf) {
                    Ok(decoded) => decoded,
                    Err(error) => return send(stream, &error.response(), false, bodiless),
                };
                let pushed = intake.push(decoded.data);
                let consumed = decoded.consumed;
                buf.drain(..consumed);
                intake = match pushed {
                    Ok(intake) => intake,
                    // Over budget: answer and stop reading; the rest of the
                    // body is never read, so the connection closes.
                    Err(response) => return send(stream, &response, false, bodiless),
                };
            },
            effect => match host.carry_out_blocking(effect) {
                Ok(next) => next,
                Err(e) => {
                    let keep = keep_alive && decoder.is_done();
                    return store_failed(stream, &e, keep, bodiless);
                }
            },
        };
    };
    if response.is_event_stream() {
        return hold_event_stream(stream, &response);
    }
    // A response given before the body was read (401, 413 by declared length,
    // …) leaves the body on the wire: close rather than parse it as a head.
    send(stream, &response, keep_alive && decoder.is_done(), bodiless)
}

/// Serves a request to a document's URL: static tokens judged as for
/// `/mcp`, the document read as `read_document` reads it.
fn serve_document(
    host: &Host,
    stream: &mut TcpStream,
    mut outcome: DocumentOutcome<Caller>,
    keep: bool,
    bodiless: bool,
) -> io::Result<Next> {
    let response = loop {
        outcome = match outcome {
            DocumentOutcome::Respond(response) => break response,
            DocumentOutcome::Authenticate(auth) => {
                let caller = host.caller(auth.bearer_token());
                auth.answer(caller)
            }
            DocumentOutcome::Read(read) => {
                match host.read_document_blocking(read.caller(), read.id()) {
                    Ok(document) => break read.answer(document.as_ref()),
                    Err(e) => return store_failed(stream, &e, keep, bodiless),
                }
            }
        };
    };
    send(stream, &response, keep, bodiless)
}

/// Serves a request to an image's URL, as [`serve_document`] does a
/// document's: a store that cannot answer now is the endpoint's 503.
fn serve_image(
    host: &Host,
    stream: &mut TcpStream,
    mut outcome: ImageOutcome<Caller>,
    keep: bool,
    bodiless: bool,
) -> io::Result<Next> {
    let response = loop {
        outcome = match outcome {
            ImageOutcome::Respond(response) => break response,
            ImageOutcome::Authenticate(auth) => {
                let caller = host.caller(auth.bearer_token());
                auth.answer(caller)
            }
            ImageOutcome::Read(read) => match host.read_image_blocking(&read) {
                Ok(answer) => break read.answer(answer),
                Err(e) if e.is_busy() => {
                    eprintln!("store error: {e}");
                    break read.answer(ImageAnswer::Unavailable);
                }
                Err(e) => return store_failed(stream, &e, keep, bodiless),
            },
        };
    };
    send(stream, &response, keep, bodiless)
}

/// Answers a store error: 503 with `retry-after` when SQLite's lock was
/// held past `--db-statement-timeout`, else 500.
fn store_failed(
    stream: &mut TcpStream,
    e: &StoreError,
    keep: bool,
    bodiless: bool,
) -> io::Result<Next> {
    eprintln!("store error: {e}");
    if e.is_busy() {
        let retry = [Header::new("retry-after", RETRY_AFTER.as_bytes())];
        return write(
            stream,
            plain_with(503, DATABASE_BUSY, keep, &retry),
            bodiless,
        );
    }
    write(stream, plain(500, INTERNAL_ERROR, keep), bodiless)
}

/// Writes the event stream's head, then keep-alive comments until the
/// client goes away (a write fails).
fn hold_event_stream(stream: &mut TcpStream, response: &chopin_mcp::Response) -> io::Result<Next> {
    let mut out = Vec::new();
    http1::write_response(response, false, &mut out);
    out.extend_from_slice(sse::keep_alive());
    stream.write_all(&out)?;
    loop {
        std::thread::sleep(KEEP_ALIVE_EVERY);
        stream.write_all(sse::keep_alive())?;
    }
}

/// Writes `response`; `head_only`: see [`write()`].
fn send(
    stream: &mut TcpStream,
    response: &chopin_mcp::Response,
    keep: bool,
    head_only: bool,
) -> io::Result<Next> {
    let mut head = Vec::with_capacity(256);
    http1::write_head_with(response, keep, &[], &mut head);
    let reply = Reply {
        head,
        body: response.body(),
        keep,
    };
    write(stream, reply, head_only)
}

/// A response to write: its head, its body from where it is, and whether
/// the connection carries on after it.
struct Reply<'b> {
    head: Vec<u8>,
    body: &'b [u8],
    keep: bool,
}

/// Writes `reply`, only its head when `head_only` (the request was a
/// `HEAD`, RFC 9110 §9.3.2), and says whether the connection carries on.
fn write(stream: &mut TcpStream, reply: Reply<'_>, head_only: bool) -> io::Result<Next> {
    let Reply {
        mut head,
        body,
        keep,
    } = reply;
    let mut body = wire::behind_head(&mut head, body, head_only);
    // The head and the body from where they are, in vectored writes until
    // the head is out, then the rest of the body.
    let mut head = &head[..];
    while !head.is_empty() {
        let written = stream.write_vectored(&[IoSlice::new(head), IoSlice::new(body)])?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        wire::advance(&mut head, &mut body, written);
    }
    stream.write_all(body)?;
    Ok(if keep { Next::KeepAlive } else { Next::Close })
}

/// A response the endpoint does not make (400, 404, 408, 500, 503), with
/// whether the connection stays open.
fn plain(status: u16, text: &'static str, keep: bool) -> Reply<'static> {
    plain_with(status, text, keep, &[])
}

/// [`plain`] with `extra` headers.
fn plain_with(status: u16, text: &'static str, keep: bool, extra: &[Header<'_>]) -> Reply<'static> {
    let mut head = Vec::with_capacity(160);
    wire::plain_head(status, text, keep, extra, &mut head);
    Reply {
        head,
        body: text.as_bytes(),
        keep,
    }
}

/// Reads what is available into `buf`, waiting until `until` at most.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>, until: Instant) -> io::Result<usize> {
    READER.with_borrow_mut(|reader| {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            // The socket's read timeout is only changed when it would overshoot
            // the deadline (by more than TIMEOUT_SLACK) or is much shorter than
            // needed: a keep-alive request then costs no setsockopt call.
            let set = match reader.timeout {
                Some(timeout) => timeout > left + TIMEOUT_SLACK || timeout < left / 2,
                None => true,
            };
            if set {
                stream.set_read_timeout(Some(left))?;
                reader.timeout = Some(left);
            }
            match stream.read(&mut reader.chunk[..]) {
                Ok(read) => {
                    buf.extend_from_slice(&reader.chunk[..read]);
                    return Ok(read);
                }
                // A timeout set for an earlier, farther deadline ran out before
                // this one: wait on.
                Err(e) if timed_out(&e) && Instant::now() < until => {}
                Err(e) => return Err(e),
            }
        }
    })
}

/// How late a read may give up after its deadline.
const TIMEOUT_SLACK: Duration = Duration::from_millis(100);

/// Per connection thread: the read timeout set on its socket, and the
/// buffer reads land in (zeroed once per connection, not per read).
struct Reader {
    timeout: Option<Duration>,
    chunk: Box<[u8]>,
}

thread_local! {
    // Each connection has a thread of its own, so this is per connection.
    static READER: std::cell::RefCell<Reader> = std::cell::RefCell::new(Reader {
        timeout: None,
        chunk: vec![0; 16 * 1024].into_boxed_slice(),
    });
}

fn timed_out(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}
