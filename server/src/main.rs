//! An MCP server on tokio and hyper 1, backed by SQLite.
//!
//! ```sh
//! cargo run --release -p chopin-mcp-server            # ./chopin.db, seeded on first run
//! cargo run --release -p chopin-mcp-server -- --help
//! ```
//!
//! The endpoint decides everything; this file only moves bytes: it maps
//! hyper's request head to `RequestParts`, pushes body frames into the
//! endpoint as they arrive (and stops reading at the 413), runs reads inline
//! and creates on tokio's blocking pool, and holds `GET` event streams open.

use std::convert::Infallible;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use chopin_mcp::{Header, Outcome, RequestParts};
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

use chopin_mcp_server::host::{self, Host, INTERNAL_ERROR};
use chopin_mcp_server::options;

/// How long a client may take to send a request head before the connection
/// is closed: a slow or stalled client holds a task, never a thread.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an open event stream gets a keep-alive comment.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(15);

fn main() -> ExitCode {
    let options = match options::from_command_line() {
        Ok(options) => options,
        Err(code) => return code,
    };
    chopin_mcp_server::sqlite::configure();
    match serve(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Serves on one single-threaded runtime per core ("workers"): a connection
/// lives on one thread from accept to close, so a request never crosses
/// threads and no worker wakes another (a work-stealing runtime spends more
/// on parking, waking and stealing than these requests cost). This thread is
/// worker 0 and the only one accepting; it hands connections out in turn.
fn serve(options: options::Options) -> Result<(), String> {
    let host = Arc::new(Host::prepare(&options, options.listen)?);
    let listener = std::net::TcpListener::bind(options.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut others = Vec::with_capacity(workers - 1);
    for index in 1..workers {
        match Worker::start(index, Arc::clone(&host)) {
            Ok(worker) => others.push(worker),
            // Fewer workers still serve everything.
            Err(e) => eprintln!("cannot start worker {index}: {e}"),
        }
    }
    let runtime = runtime().map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = TcpListener::from_std(listener).map_err(|e| e.to_string())?;
        host.print_banner(bound);
        accept(host, listener, others).await
    })
}

/// A worker's runtime: one thread, I/O and timers.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// A worker thread serving the connections handed to it.
struct Worker {
    streams: tokio::sync::mpsc::UnboundedSender<std::net::TcpStream>,
}

impl Worker {
    fn start(index: usize, host: Arc<Host>) -> std::io::Result<Worker> {
        let runtime = runtime()?;
        let (streams, mut handed) = tokio::sync::mpsc::unbounded_channel::<std::net::TcpStream>();
        std::thread::Builder::new()
            .name(format!("worker-{index}"))
            .spawn(move || {
                runtime.block_on(async move {
                    while let Some(stream) = handed.recv().await {
                        match TcpStream::from_std(stream) {
                            Ok(stream) => drop(tokio::spawn(connection(Arc::clone(&host), stream))),
                            Err(e) => eprintln!("cannot serve a connection: {e}"),
                        }
                    }
                });
            })?;
        Ok(Worker { streams })
    }
}

/// Accepts connections until Ctrl-C, serving every `others.len() + 1`th on
/// this thread and handing the rest to the other workers in turn.
async fn accept(host: Arc<Host>, listener: TcpListener, others: Vec<Worker>) -> Result<(), String> {
    // One signal listener for the whole run. Stopping drops the open
    // connections; every answered create is already committed and synced.
    let stop = tokio::signal::ctrl_c();
    tokio::pin!(stop);
    let mut next = 0;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    next = (next + 1) % (others.len() + 1);
                    let Some(worker) = next.checked_sub(1).map(|i| &others[i]) else {
                        tokio::spawn(connection(Arc::clone(&host), stream));
                        continue;
                    };
                    match stream.into_std() {
                        Ok(stream) => {
                            // A worker only stops with the process.
                            let _ = worker.streams.send(stream);
                        }
                        Err(e) => eprintln!("cannot hand a connection over: {e}"),
                    }
                }
                Err(e) => {
                    // Usually out of file descriptors: back off instead of
                    // spinning, and keep serving the connections we have.
                    eprintln!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            _ = &mut stop => return Ok(()),
        }
    }
}

async fn connection(host: Arc<Host>, stream: TcpStream) {
    // Replies are small and written whole: don't let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    let clock = Arc::new(HeadClock::started());
    let service = {
        let clock = Arc::clone(&clock);
        service_fn(move |request| {
            clock.head_complete();
            let (host, clock) = (Arc::clone(&host), Arc::clone(&clock));
            async move {
                let reply = handle(host, request).await;
                // An event stream holds the connection until the client
                // leaves: no next head to wait for.
                if !matches!(reply, Ok(ref r) if matches!(r.body(), Body::Events(_))) {
                    clock.waiting_for_head();
                }
                reply
            }
        })
    };
    let served = http1::Builder::new()
        // The same head limits as the crate's own HTTP/1.1 adapter (431
        // beyond them). Bodies are streamed, so the buffer bound costs
        // nothing there.
        .max_buf_size(chopin_mcp::http1::MAX_HEAD_BYTES)
        .max_headers(chopin_mcp::http1::MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    // The head deadline, kept here rather than by hyper's
    // `header_read_timeout`, which arms (allocates, registers and cancels) a
    // timer for every request: this connection has one timer, which only
    // runs out every HEAD_TIMEOUT and then looks at the clock.
    let check = tokio::time::sleep(HEAD_TIMEOUT);
    tokio::pin!(check);
    loop {
        tokio::select! {
            biased;
            // Errors here are the client's doing (reset, bad bytes) and
            // concern that connection only.
            _ = &mut served => return,
            () = &mut check => match clock.deadline() {
                // Too slow (or idle too long): close without an answer, as
                // hyper does.
                Some(deadline) if deadline <= tokio::time::Instant::now() => return,
                Some(deadline) => check.as_mut().reset(deadline),
                None => check.as_mut().reset(tokio::time::Instant::now() + HEAD_TIMEOUT),
            },
        }
    }
}

/// When a connection began waiting for its next request head, if it is
/// waiting: from its start, and again from each response on. The head must
/// be complete within [`HEAD_TIMEOUT`] of that.
struct HeadClock {
    /// Nanoseconds since [`epoch`] when the wait began, plus one; 0 while a
    /// request is being served.
    since: AtomicU64,
}

impl HeadClock {
    fn started() -> HeadClock {
        let clock = HeadClock {
            since: AtomicU64::new(0),
        };
        clock.waiting_for_head();
        clock
    }

    fn waiting_for_head(&self) {
        let since = tokio::time::Instant::now().saturating_duration_since(epoch());
        let nanos = u64::try_from(since.as_nanos()).unwrap_or(u64::MAX - 1);
        self.since.store(nanos + 1, Ordering::Relaxed);
    }

    fn head_complete(&self) {
        self.since.store(0, Ordering::Relaxed);
    }

    /// When the awaited head must be complete, if one is awaited.
    fn deadline(&self) -> Option<tokio::time::Instant> {
        match self.since.load(Ordering::Relaxed) {
            0 => None,
            since => Some(epoch() + Duration::from_nanos(since - 1) + HEAD_TIMEOUT),
        }
    }
}

/// The process's reference instant for [`HeadClock`].
fn epoch() -> tokio::time::Instant {
    static EPOCH: OnceLock<tokio::time::Instant> = OnceLock::new();
    *EPOCH.get_or_init(tokio::time::Instant::now)
}

type Reply = hyper::Response<Body>;

async fn handle(host: Arc<Host>, request: hyper::Request<Incoming>) -> Result<Reply, Infallible> {
    if request.uri().path() != "/mcp" {
        return Ok(plain(404, "not found"));
    }
    let (head, mut body) = request.into_parts();
    let target = head.uri.path_and_query().map_or("/mcp", |p| p.as_str());
    let mut outcome: Outcome<String> = {
        // The head as the endpoint reads it, on the stack: hyper refuses
        // heads with more than MAX_HEADERS lines (431).
        let mut headers = [Header::new("", b""); chopin_mcp::http1::MAX_HEADERS];
        let mut count = 0;
        for ((name, value), slot) in head.headers.iter().zip(headers.iter_mut()) {
            *slot = Header::new(name.as_str(), value.as_bytes());
            count += 1;
        }
        let parts = RequestParts::new(head.method.as_str(), target, &headers[..count]);
        host.endpoint.begin(&parts)
    };
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => return Ok(reply(response)),
            Outcome::Authenticate(auth) => {
                let caller = host.caller(auth.bearer_token());
                auth.answer(caller)
            }
            Outcome::Body(mut intake) => loop {
                let frame = match body.frame().await {
                    None => break intake.finish(),
                    Some(Ok(frame)) => frame,
                    // The client broke off or mis-framed the body.
                    Some(Err(_)) => return Ok(plain(400, "bad request body")),
                };
                let Ok(data) = frame.into_data() else {
                    continue; // trailers carry nothing the endpoint reads
                };
                intake = match intake.push(&data) {
                    Ok(intake) => intake,
                    // Over budget: answer now and read no further. hyper closes
                    // the connection since the body was left unread.
                    Err(response) => return Ok(reply(response)),
                };
            },
            // A list or read is one indexed SELECT on a WAL database: a few
            // microseconds that never wait for a writer's fsync. Run inline:
            // handing it to the blocking pool costs more than it takes
            // (measured: ~25% fewer reads/s through spawn_blocking).
            effect @ (Outcome::List(_) | Outcome::Read(_)) => {
                match host.pool.with(|store| host::carry_out(store, effect)) {
                    Ok(next) => next,
                    Err(e) => {
                        eprintln!("store error: {e}");
                        return Ok(plain(500, INTERNAL_ERROR));
                    }
                }
            }
            effect => {
                // A create waits for fsync: keep it off the runtime's workers.
                let pool = Arc::clone(&host.pool);
                let done = tokio::task::spawn_blocking(move || {
                    pool.with(|store| host::carry_out(store, effect))
                })
                .await;
                match done {
                    Ok(Ok(next)) => next,
                    Ok(Err(e)) => {
                        eprintln!("store error: {e}");
                        return Ok(plain(500, INTERNAL_ERROR));
                    }
                    Err(e) => {
                        eprintln!("store task failed: {e}");
                        return Ok(plain(500, INTERNAL_ERROR));
                    }
                }
            }
        };
    }
}

/// The endpoint's response as hyper's: the same status and headers; an event
/// stream becomes a body that never ends on its own.
fn reply(response: chopin_mcp::Response) -> Reply {
    let mut reply = hyper::Response::new(Body::Full(None));
    *reply.status_mut() =
        hyper::StatusCode::from_u16(response.status()).unwrap_or(hyper::StatusCode::OK);
    let headers = reply.headers_mut();
    for (name, value) in response.headers() {
        if let Some(value) = static_value(value).or_else(|| HeaderValue::from_bytes(value).ok()) {
            headers.append(HeaderName::from_static(name), value);
        }
    }
    *reply.body_mut() = if response.is_event_stream() {
        Body::Events(tokio::time::interval(KEEP_ALIVE_EVERY))
    } else {
        Body::Full(Some(response.into_body()))
    };
    reply
}

/// The endpoint's usual header values, without copying them into a new
/// allocation each.
fn static_value(value: &[u8]) -> Option<HeaderValue> {
    const USUAL: [&str; 6] = [
        "application/json",
        "no-store",
        "nosniff",
        "text/event-stream",
        "no-cache",
        "GET, POST",
    ];
    USUAL
        .iter()
        .find(|usual| usual.as_bytes() == value)
        .map(|usual| HeaderValue::from_static(usual))
}

fn plain(status: u16, text: &'static str) -> Reply {
    let mut reply = hyper::Response::new(Body::Full(Some(Bytes::from_static(text.as_bytes()))));
    *reply.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = reply.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    reply
}

/// A response body: bytes known up front, or an event stream that writes a
/// keep-alive comment at once (so the client sees the head straight away)
/// and then every [`KEEP_ALIVE_EVERY`], until hyper drops it because the
/// client went away.
enum Body {
    Full(Option<Bytes>),
    Events(tokio::time::Interval),
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Events(interval) => interval.poll_tick(cx).map(|_| {
                Some(Ok(Frame::data(Bytes::from_static(
                    chopin_mcp::sse::keep_alive(),
                ))))
            }),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Body::Full(None) => SizeHint::with_exact(0),
            Body::Events(_) => SizeHint::default(),
        }
    }
}
