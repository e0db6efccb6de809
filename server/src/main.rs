//! An MCP server on tokio and hyper 1, backed by SQLite or PostgreSQL.
//!
//! ```sh
//! cargo run --release -p chopin-mcp-server            # ./chopin.db, seeded on first run
//! cargo run --release -p chopin-mcp-server -- --help
//! ```
//!
//! The endpoint decides everything; this file only moves bytes: it lends
//! hyper's request head to the endpoint (the `http` feature), pushes body
//! frames into it as they arrive (and stops reading at the 413), hands list,
//! read and create effects to the store (`Host::read_now` inline for SQLite
//! reads, `Host::carry_out` otherwise), and holds `GET` event streams open.
//! A connection whose first request opens an event stream is answered by
//! [`first_request`] itself, without hyper's buffers, and then held by the
//! streams thread ([`Holder`]) (BENCHMARKS.md, "Held event streams"); every
//! other connection is hyper's.
//!
//! One single-threaded runtime per core, each kept on its core, serves
//! connections handed out in turn (see [`serve`]; `benches/load.sh` and
//! BENCHMARKS.md measure why); one more, on every core, holds the streams.
//!
//! Operating it (lines marked `ops:`): request logs and metrics
//! (`record::Record` per request), `/healthz` and `/readyz`, a metrics
//! listener, and graceful shutdown on SIGTERM/SIGINT (`shutdown::Shutdown`).

use std::convert::Infallible;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use chopin_mcp::{Outcome, RequestParts};
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

use chopin_mcp_server::affinity::{self, Mask};
use chopin_mcp_server::host::{Caller, DATABASE_BUSY, Host, INTERNAL_ERROR, Now, RETRY_AFTER};
use chopin_mcp_server::labels::StoreOperation;
use chopin_mcp_server::oauth::{self, Verdict};
use chopin_mcp_server::shutdown::{self, Shutdown, Tracked};
use chopin_mcp_server::{health, metrics, options, record, telemetry};

/// How long a client may take to send a request head before the connection
/// is closed: a slow or stalled client holds a task, never a thread.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an open event stream gets a keep-alive comment.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(15);

/// How long until a new stream's second keep-alive comment (the first goes
/// with its head): a fraction of [`KEEP_ALIVE_EVERY`] that steps on with each
/// stream opened, so that streams opened together (clients reconnecting
/// after a restart, or a load test) write their comments spread over the
/// period rather than all in the same instant, every period after.
fn keep_alive_phase() -> Duration {
    static OPENED: AtomicU64 = AtomicU64::new(0);
    let step = OPENED.fetch_add(1, Ordering::Relaxed) % 1024;
    KEEP_ALIVE_EVERY * (step as u32 + 1) / 1024
}

/// mimalloc for the server's own allocations (SQLite keeps the C library's
/// malloc): a request's dozen-odd small allocations come from the worker's
/// own heap, freed on the same thread, without glibc's arena bookkeeping.
/// BENCHMARKS.md ("On the issue's kind of machine") has what it changed
/// per read and per held stream.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let options = match options::from_command_line() {
        Ok(options) => options,
        Err(code) => return code,
    };
    let _logs = telemetry::init(options.log_format); // ops: logging, flushed at exit
    // The one rustls crypto provider of the process (ring: the OAuth client
    // here, PostgreSQL TLS too). Already installed is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
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
/// A PostgreSQL connection's task lives on the runtime that opened it; every
/// runtime runs until the process ends its shutdown, so each can use any.
/// Each worker is kept on a CPU of its own when there is one per worker
/// (`affinity`: two runtimes sharing a CPU make the latency's tail).
fn serve(options: options::Options) -> Result<(), String> {
    // Read before any thread is pinned: the CPUs the workers share out.
    let mask = Mask::current();
    let runtime = runtime(mask).map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let host = Arc::new(Host::prepare(&options, options.listen).await?);
        let listener = TcpListener::bind(options.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        // ops: one shutdown signal for every accept loop, connection and stream.
        let shutdown = Shutdown::new();
        let workers = options
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let cpus = options
            .pin
            .then(|| affinity::plan(mask.as_ref(), workers))
            .flatten();
        let cpu = |index: usize| cpus.as_ref().map(|cpus| cpus[index]);
        let holder = match Holder::start(&shutdown, options.shutdown_timeout, mask) {
            Ok(holder) => Some(holder),
            // The workers then hold their streams themselves.
            Err(e) => {
                tracing::error!("cannot start the streams thread: {e}");
                None
            }
        };
        let streams = Streams(holder.as_ref().map(|holder| holder.streams.clone()));
        let mut others = Vec::with_capacity(workers - 1);
        for index in 1..workers {
            let place = Place {
                cpu: cpu(index),
                mask,
            };
            let holding = streams.clone();
            match Worker::start(
                index,
                &host,
                &shutdown,
                holding,
                options.shutdown_timeout,
                place,
            ) {
                Ok(worker) => others.push(worker),
                // Fewer workers still serve everything.
                Err(e) => tracing::error!("cannot start worker {index}: {e}"),
            }
        }
        // ops: the metrics listener, announced before the banner's last line.
        if let Some(addr) = options.metrics_listen {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr} for metrics: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            println!("metrics: http://{bound}/metrics");
            metrics::spawn(listener, Arc::clone(&shutdown));
        }
        // This thread is worker 0; the others were started unpinned from it.
        if let Some(cpu) = cpu(0) {
            keep_on(0, cpu);
        }
        match &cpus {
            Some(cpus) => println!("workers: {workers}, each kept on one CPU of {cpus:?}"),
            None => println!("workers: {workers}"),
        }
        host.print_banner(bound);
        tokio::spawn(shutdown::on_signals(Arc::clone(&shutdown))); // ops
        accept(&host, listener, &others, &shutdown, streams).await;
        // ops: the listener is closed (new connections are refused); let the
        // requests in flight on every worker finish within the deadline.
        let mut threads: Vec<_> = others.into_iter().map(Worker::stop).collect();
        threads.extend(holder.map(|holder| holder.thread));
        shutdown.drain(options.shutdown_timeout).await;
        for thread in threads {
            let _ = thread.join();
        }
        Ok(())
    })
}

/// A worker's runtime: one thread, I/O and timers. The threads it starts
/// for blocking work (SQLite creates) run on every CPU of `mask`, not on
/// the worker's own.
fn runtime(mask: Option<Mask>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    // ops: a worker with nothing to do hands its request lines to the log
    // writer (they wait in the thread otherwise: see `telemetry`).
    builder.on_thread_park(telemetry::flush_thread);
    if let Some(mask) = mask {
        builder.on_thread_start(move || mask.restore());
    }
    builder.enable_all().build()
}

/// A worker thread serving the connections handed to it.
struct Worker {
    streams: tokio::sync::mpsc::UnboundedSender<(std::net::TcpStream, Tracked)>,
    thread: std::thread::JoinHandle<()>,
}

impl Worker {
    fn start(
        index: usize,
        host: &Arc<Host>,
        shutdown: &Arc<Shutdown>,
        holding: Streams,
        deadline: Duration,
        place: Place,
    ) -> std::io::Result<Worker> {
        let runtime = runtime(place.mask)?;
        let (host, shutdown) = (Arc::clone(host), Arc::clone(shutdown));
        let (streams, mut handed) = tokio::sync::mpsc::unbounded_channel();
        // Started means placed: the banner comes after every worker is.
        let (placed, started) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name(format!("worker-{index}"))
            .spawn(move || {
                if let Some(cpu) = place.cpu {
                    keep_on(index, cpu);
                }
                let _ = placed.send(());
                runtime.block_on(async move {
                    while let Some((stream, tracked)) = handed.recv().await {
                        match TcpStream::from_std(stream) {
                            Ok(stream) => drop(tokio::spawn(connection(
                                Arc::clone(&host),
                                stream,
                                Arc::clone(&shutdown),
                                tracked,
                                holding.clone(),
                            ))),
                            Err(e) => tracing::error!("cannot serve a connection: {e}"),
                        }
                    }
                    // ops: no more connections come; keep this runtime (its
                    // connections, and any store connection it opened) until
                    // every worker's requests in flight are done.
                    shutdown.drained(deadline).await;
                });
            })?;
        let _ = started.recv();
        Ok(Worker { streams, thread })
    }

    /// Hands no more connections to the worker; its thread ends once the
    /// shutdown has drained.
    fn stop(self) -> std::thread::JoinHandle<()> {
        drop(self.streams);
        self.thread
    }
}

/// Where a worker runs: the CPU it is kept on (none: anywhere), and the
/// process's CPUs, for the threads its runtime starts.
#[derive(Clone, Copy)]
struct Place {
    cpu: Option<usize>,
    mask: Option<Mask>,
}

/// Keeps the calling worker thread on `cpu`; a worker that cannot be pinned
/// still serves, wherever the scheduler puts it.
fn keep_on(index: usize, cpu: usize) {
    if let Err(e) = affinity::pin(cpu) {
        tracing::warn!("worker {index} not kept on CPU {cpu}: {e}");
    }
}

/// Accepts connections until the shutdown starts, serving every
/// `others.len() + 1`th on this thread and handing the rest to the other
/// workers in turn. Returns with the listener closed.
async fn accept(
    host: &Arc<Host>,
    listener: TcpListener,
    others: &[Worker],
    shutdown: &Arc<Shutdown>,
    streams: Streams,
) {
    let stop = shutdown.triggered(); // ops
    tokio::pin!(stop);
    let mut next = 0;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let tracked = shutdown.track(); // ops: counted before it runs
                    next = (next + 1) % (others.len() + 1);
                    let Some(worker) = next.checked_sub(1).map(|i| &others[i]) else {
                        let (host, shutdown) = (Arc::clone(host), Arc::clone(shutdown));
                        tokio::spawn(connection(host, stream, shutdown, tracked, streams.clone()));
                        continue;
                    };
                    match stream.into_std() {
                        // A worker only stops after this loop has ended.
                        Ok(stream) => drop(worker.streams.send((stream, tracked))),
                        Err(e) => tracing::error!("cannot hand a connection over: {e}"),
                    }
                }
                Err(e) => {
                    // Usually out of file descriptors: back off instead of
                    // spinning, and keep serving the connections we have.
                    tracing::error!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut stop => return,
        }
    }
}

async fn connection(
    host: Arc<Host>,
    stream: TcpStream,
    shutdown: Arc<Shutdown>,
    tracked: Tracked, // ops: open until it is dropped
    streams: Streams,
) {
    // Replies are small and written whole: don't let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    let started = tokio::time::Instant::now();
    let mut stream = stream;
    // A connection that opens with an event stream is held without any
    // hyper state, by the streams thread; every other one is hyper's
    // (boxed: its state is then allocated only for connections that use it).
    let read = match first_request(&host, &mut stream, &shutdown, started).await {
        First::Stream => return streams.hold(stream, tracked, &shutdown).await,
        First::Gone => return,
        First::Hyper(read) => read,
    };
    let _tracked = tracked;
    let io = Prefixed {
        read: read.map(|read| (read, 0)),
        stream,
    };
    Box::pin(serve_hyper(&host, io, &shutdown, started)).await;
}

/// Serves a connection with hyper: `started` is when its first head began
/// to be awaited.
async fn serve_hyper(
    host: &Host,
    io: Prefixed,
    shutdown: &Shutdown,
    started: tokio::time::Instant,
) {
    let clock = &HeadClock::since(started);
    // Requests borrow the host, the shutdown and the clock from this frame:
    // no reference count is touched per request (the host's is shared by
    // every worker's CPU).
    let service = service_fn(move |request| {
        clock.head_complete();
        async move {
            let reply = handle(host, shutdown, request).await;
            // An event stream holds the connection until the client
            // leaves: no next head to wait for.
            if !matches!(reply, Ok(ref r) if matches!(r.body(), Body::Events { .. })) {
                clock.waiting_for_head();
            }
            reply
        }
    });
    let served = http1::Builder::new()
        // The same head limits as the crate's own HTTP/1.1 adapter (431
        // beyond them). Bodies are streamed, so the buffer bound costs
        // nothing there. The header count is checked in `handle`, not with
        // hyper's `max_headers`: set, it makes hyper fill two header arrays
        // element by element for every request (about 2,000 instructions,
        // an eighth of what hyper does per request); unset, hyper's own
        // bound is 100 (431 beyond, as here).
        .max_buf_size(chopin_mcp::http1::MAX_HEAD_BYTES)
        .serve_connection(TokioIo::new(io), service);
    tokio::pin!(served);
    // ops: once the shutdown starts, finish the request in flight and close.
    let stop = shutdown.triggered();
    tokio::pin!(stop);
    let mut stopping = false;
    // The head deadline, kept here rather than by hyper's
    // `header_read_timeout`, which arms (allocates, registers and cancels) a
    // timer for every request: this connection has one timer, which only
    // runs out every HEAD_TIMEOUT and then looks at the clock.
    let check = tokio::time::sleep(HEAD_TIMEOUT);
    tokio::pin!(check);
    let result = loop {
        tokio::select! {
            biased;
            result = &mut served => break result,
            () = &mut stop, if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
            () = &mut check => match clock.deadline() {
                // Too slow (or idle too long): close without an answer, as
                // hyper does.
                Some(deadline) if deadline <= tokio::time::Instant::now() => return,
                Some(deadline) => check.as_mut().reset(deadline),
                None => check.as_mut().reset(tokio::time::Instant::now() + HEAD_TIMEOUT),
            },
        }
    };
    // Errors here are the client's doing (reset, bad bytes) and concern that
    // connection only; a head hyper refused (431, 400) is logged and counted.
    if let Err(e) = &result {
        record::refused_head(e); // ops
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
    /// A clock waiting for a head since `started`.
    fn since(started: tokio::time::Instant) -> HeadClock {
        let clock = HeadClock {
            since: AtomicU64::new(0),
        };
        clock.waiting_since(started);
        clock
    }

    fn waiting_for_head(&self) {
        self.waiting_since(tokio::time::Instant::now());
    }

    fn waiting_since(&self, started: tokio::time::Instant) {
        let since = started.saturating_duration_since(epoch());
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

/// What a connection's first request turned out to be.
enum First {
    /// An event stream whose head (and first keep-alive comment) is
    /// written: the stream to hold.
    Stream,
    /// The client left, was too slow with its head, or the shutdown began.
    Gone,
    /// Anything else: hyper serves it, reading first what was read here.
    Hyper(Option<Vec<u8>>),
}

/// Serves the connection's first request if it is a `GET /mcp` the endpoint
/// answers with an event stream: writes its head and first keep-alive
/// comment, and leaves the stream to hold ([`Streams::hold`]). What a held
/// stream keeps is a small task (the socket, a timer, the shutdown signal);
/// through hyper it would also keep hyper's read and write buffers (8 KiB
/// each) and the connection's request state (BENCHMARKS.md, "Held event
/// streams").
///
/// Anything else is left to hyper, unread (a request that does not start
/// with `GET `) or with the head read here handed over to read again (so
/// hyper answers it, refusals and health probes included, exactly as on
/// any other connection). A GET the endpoint does not answer with a stream
/// is judged twice: here (parsed, and its static token looked up) and
/// again on hyper's path, which is the one that answers and logs it.
async fn first_request(
    host: &Host,
    stream: &mut TcpStream,
    shutdown: &Shutdown,
    started: tokio::time::Instant,
) -> First {
    use tokio::io::AsyncReadExt;
    let deadline = started + HEAD_TIMEOUT;
    let stop = shutdown.triggered();
    tokio::pin!(stop);
    let mut start = [0u8; 4];
    let peeked = tokio::select! {
        peeked = stream.peek(&mut start) => peeked,
        () = tokio::time::sleep_until(deadline) => return First::Gone,
        () = &mut stop => return First::Gone,
    };
    match peeked {
        Ok(0) | Err(_) => return First::Gone,
        Ok(4) if &start == b"GET " => {}
        Ok(_) => return First::Hyper(None),
    }
    let mut read = Vec::with_capacity(1024);
    let mut scanner = chopin_mcp::http1::HeadScanner::new();
    loop {
        match scanner.scan(&read) {
            Ok(true) => break,
            Ok(false) => {}
            // Over the limits or malformed: hyper answers it (431, 400).
            Err(_) => return First::Hyper(Some(read)),
        }
        tokio::select! {
            done = stream.read_buf(&mut read) => match done {
                Ok(0) | Err(_) => return First::Gone,
                Ok(_) => {}
            },
            () = tokio::time::sleep_until(deadline) => return First::Gone,
            () = &mut stop => return First::Gone,
        }
    }
    let Some((response, record)) = event_stream(host, &read) else {
        return First::Hyper(Some(read));
    };
    drop(read);
    let mut head = Vec::with_capacity(512);
    chopin_mcp::http1::write_response(&response, false, &mut head);
    head.extend_from_slice(chopin_mcp::sse::keep_alive());
    drop(response);
    record.finish(record::Ending {
        status: 200,
        body: b"",
    });
    if write_all(stream, &head, &mut stop).await {
        First::Stream
    } else {
        First::Gone
    }
}

/// The endpoint's event stream for a complete head in `read`, and the
/// request's record to finish; `None` when the head is anything else.
fn event_stream(host: &Host, read: &[u8]) -> Option<(chopin_mcp::Response, record::Record)> {
    let head = chopin_mcp::http1::parse_head(read).ok()??;
    let parts = head.parts();
    let path = parts.target().split('?').next().unwrap_or_default();
    let bodiless = head.framing() == chopin_mcp::http1::Framing::Length(0);
    // More than `MAX_HEADERS` headers is a refusal of `parse_head`: `None`
    // above.
    if parts.method() != "GET" || path != "/mcp" || !bodiless || head.len() != read.len() {
        return None;
    }
    let mut record = record::Record::begin("GET", "/mcp", parts.header("mcp-protocol-version"));
    let mut outcome: Outcome<Caller> = host.endpoint.begin(&parts);
    loop {
        outcome = match outcome {
            Outcome::Respond(response) if response.is_event_stream() => {
                return Some((response, record));
            }
            // A static token: its stream is held here. Anything else (no
            // token, an OAuth token, whose stream ends at its expiry) is
            // judged on hyper's path.
            Outcome::Authenticate(auth) => match host.caller(auth.bearer_token()) {
                Some(caller) => {
                    record.caller(Some(&caller)); // ops
                    record.auth(Some("static"), false);
                    auth.answer(Some(caller))
                }
                None => return None,
            },
            // A refusal, a body to read or an effect: hyper's.
            _ => return None,
        };
    }
}

/// Writes `bytes` whole; false if the client went away or the shutdown
/// began first.
async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    stop: &mut Pin<&mut impl std::future::Future<Output = ()>>,
) -> bool {
    use tokio::io::AsyncWriteExt;
    tokio::select! {
        written = stream.write_all(bytes) => written.is_ok(),
        () = stop.as_mut() => false,
    }
}

/// A held stream on its way to the streams thread, with its place in the
/// shutdown's count.
type Handed = (std::net::TcpStream, Tracked);

/// The streams thread: one single-threaded runtime, on every CPU of the
/// process, holding the event streams that [`first_request`] opened on
/// the workers. The comments a client leaves unread stay queued on its
/// socket in the kernel pages the sending thread's writes filled, which
/// that thread can then no longer reuse: written from a worker, every
/// reply after them goes to a fresh, cold page (and the pages add up, 32
/// KiB each). Written from here, the unread comments fill this thread's
/// pages only, a few bytes each (BENCHMARKS.md, "Held event streams").
struct Holder {
    streams: tokio::sync::mpsc::UnboundedSender<Handed>,
    thread: std::thread::JoinHandle<()>,
}

impl Holder {
    fn start(
        shutdown: &Arc<Shutdown>,
        deadline: Duration,
        mask: Option<Mask>,
    ) -> std::io::Result<Holder> {
        let runtime = runtime(mask)?;
        let shutdown = Arc::clone(shutdown);
        let (streams, mut handed) = tokio::sync::mpsc::unbounded_channel::<Handed>();
        let thread = std::thread::Builder::new()
            .name("streams".to_owned())
            .spawn(move || {
                if let Some(mask) = mask {
                    mask.restore();
                }
                runtime.block_on(async move {
                    let stop = shutdown.triggered();
                    tokio::pin!(stop);
                    loop {
                        tokio::select! {
                            next = handed.recv() => match next {
                                Some((stream, tracked)) => {
                                    drop(tokio::spawn(held(stream, Arc::clone(&shutdown), tracked)));
                                }
                                None => break,
                            },
                            () = &mut stop => break,
                        }
                    }
                    // Streams handed over from now on are closed (their send
                    // fails), as are any still queued.
                    drop(handed);
                    // ops: the streams close on the shutdown signal; keep the
                    // runtime until every worker's requests are done too.
                    shutdown.drained(deadline).await;
                });
            })?;
        Ok(Holder { streams, thread })
    }
}

/// A held stream on the streams thread, until the client leaves or the
/// shutdown begins.
async fn held(stream: std::net::TcpStream, shutdown: Arc<Shutdown>, tracked: Tracked) {
    let _tracked = tracked; // ops: open until this returns
    match TcpStream::from_std(stream) {
        Ok(stream) => hold(stream, &shutdown).await,
        Err(e) => tracing::error!("cannot hold an event stream: {e}"),
    }
}

/// Where a worker puts the event streams it opened: the streams thread's
/// queue ([`Holder`]), or, if that thread could not be started, nowhere
/// (the worker holds them).
#[derive(Clone)]
struct Streams(Option<tokio::sync::mpsc::UnboundedSender<Handed>>);

impl Streams {
    /// Holds `stream`, whose head is written, until it ends.
    async fn hold(self, stream: TcpStream, tracked: Tracked, shutdown: &Shutdown) {
        let Some(streams) = self.0 else {
            let _tracked = tracked;
            return hold(stream, shutdown).await;
        };
        // Taken off this worker's reactor; a failed send means the streams
        // thread is shutting down, and dropping the stream closes it.
        match stream.into_std() {
            Ok(stream) => drop(streams.send((stream, tracked))),
            Err(e) => tracing::error!("cannot hand an event stream over: {e}"),
        }
    }
}

/// Holds an event stream whose head is written: a keep-alive comment every
/// [`KEEP_ALIVE_EVERY`], until the client closes or the shutdown begins
/// (then the connection closes, which ends the stream: its length is the
/// connection's).
async fn hold(mut stream: TcpStream, shutdown: &Shutdown) {
    let stream = &mut stream;
    let stop = shutdown.triggered();
    tokio::pin!(stop);
    let stop = &mut stop;
    let tick = tokio::time::sleep(keep_alive_phase());
    tokio::pin!(tick);
    loop {
        tokio::select! {
            () = &mut tick => {
                if !write_all(stream, chopin_mcp::sse::keep_alive(), stop).await {
                    return;
                }
                tick.as_mut().reset(tokio::time::Instant::now() + KEEP_ALIVE_EVERY);
            }
            ready = stream.readable() => {
                if ready.is_err() {
                    return;
                }
                // Nothing is expected from the client: what it sends is
                // dropped; its end of the connection closing ends ours.
                let mut sink = [0u8; 256];
                match stream.try_read(&mut sink) {
                    Ok(0) => return,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => return,
                }
            }
            () = stop.as_mut() => return,
        }
    }
}

/// A connection's socket for hyper, with the bytes already read from it
/// (by [`first_request`]) read first.
struct Prefixed {
    /// The bytes read ahead, and how many hyper has taken.
    read: Option<(Vec<u8>, usize)>,
    stream: TcpStream,
}

impl tokio::io::AsyncRead for Prefixed {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if let Some((read, taken)) = &mut this.read {
            let n = (read.len() - *taken).min(buf.remaining());
            buf.put_slice(&read[*taken..*taken + n]);
            *taken += n;
            if *taken == read.len() {
                this.read = None;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Prefixed {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

type Reply = hyper::Response<Body>;

async fn handle(
    host: &Host,
    shutdown: &Shutdown,
    request: hyper::Request<Incoming>,
) -> Result<Reply, Infallible> {
    if request.headers().len() > chopin_mcp::http1::MAX_HEADERS {
        return Ok(too_many_headers(&request));
    }
    // ops: health endpoints, outside /mcp and its authentication.
    if let Some(probe) = health::Probe::of(request.uri().path()) {
        let method = request.method().as_str();
        // Boxed, as the store's futures below are.
        let answer = Box::pin(health::respond(probe, method, &host.store, shutdown)).await;
        let mut reply = plain(answer.status, answer.body);
        if answer.allow_get {
            let allow = HeaderValue::from_static(health::ALLOW);
            reply.headers_mut().insert(hyper::header::ALLOW, allow);
        }
        return Ok(reply);
    }
    // ops: one record per request: a log line and metrics when it ends.
    let mut record = record::Record::begin(
        request.method().as_str(),
        request.uri().path(),
        request
            .headers()
            .get("mcp-protocol-version")
            .map(HeaderValue::as_bytes),
    );
    let reply = exchange(host, shutdown, request, &mut record).await;
    let body = match reply.body() {
        Body::Full(Some(bytes)) => &bytes[..],
        _ => &[],
    };
    record.finish(record::Ending {
        status: reply.status().as_u16(),
        body,
    });
    Ok(reply)
}

async fn exchange(
    host: &Host,
    shutdown: &Shutdown,
    request: hyper::Request<Incoming>,
    record: &mut record::Record,
) -> Reply {
    let (head, mut body) = request.into_parts();
    // Protected Resource Metadata (with --oauth-issuer), before routing.
    if let Some(response) = host.endpoint.metadata(&RequestParts::from(&head)) {
        return reply(response, shutdown, None);
    }
    if head.uri.path() != "/mcp" {
        return plain(404, "not found");
    }
    // When the token expires, if it is an OAuth token: an event stream
    // opened with it ends then (AUTH.md §2).
    let mut expires = None;
    // The `http` feature: the endpoint borrows hyper's head, no copies.
    let mut outcome: Outcome<Caller> = host.endpoint.begin(&RequestParts::from(&head));
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => return reply(response, shutdown, expires),
            Outcome::Authenticate(auth) => match host.authenticate(auth.bearer_token()).await {
                Verdict::Static(caller) => {
                    record.caller(Some(&caller)); // ops
                    record.auth(Some("static"), false);
                    auth.answer(Some(caller))
                }
                Verdict::OAuth {
                    caller,
                    grant,
                    kind,
                    exp,
                } => {
                    record.caller(Some(&caller)); // ops
                    record.auth(Some(kind.as_str()), false);
                    expires = exp;
                    auth.answer_scoped(caller, grant)
                }
                Verdict::Refused(_) => {
                    // ops: a presented token refused is `invalid_token`.
                    let bearer = auth.authorization().is_some_and(|value| {
                        value
                            .get(..6)
                            .is_some_and(|s| s.eq_ignore_ascii_case(b"bearer"))
                    });
                    record.auth(None, bearer);
                    auth.answer(None)
                }
                Verdict::Unavailable(_) => auth.unavailable(),
            },
            Outcome::Body(mut intake) => loop {
                let frame = match body.frame().await {
                    None => break intake.finish(),
                    Some(Ok(frame)) => frame,
                    // The client broke off or mis-framed the body.
                    Some(Err(_)) => return plain(400, "bad request body"),
                };
                let Ok(data) = frame.into_data() else {
                    continue; // trailers carry nothing the endpoint reads
                };
                record.body(&data); // ops
                intake = match intake.push(&data) {
                    Ok(intake) => intake,
                    // Over budget: answer now and read no further. hyper closes
                    // the connection since the body was left unread.
                    Err(response) => return reply(response, shutdown, expires),
                };
            },
            // List and read: one SELECT (inline on a SQLite reader
            // connection, awaited on PostgreSQL); create: on tokio's blocking
            // pool for SQLite (it waits for fsync), awaited on PostgreSQL.
            effect => {
                record.effect(&effect); // ops
                let operation = StoreOperation::of(&effect); // ops
                // ops: carry_out says what became of a create.
                let mut created = None;
                let now = metrics::time_store_when(
                    operation,
                    || host.read_now(effect),
                    |now| matches!(now, Now::Done(_)),
                );
                let done = match now {
                    Now::Done(done) => done,
                    // Boxed: a PostgreSQL operation's state is large, and
                    // would otherwise be part of every connection's (held
                    // event streams included) for its whole life.
                    Now::Await(effect) => {
                        let done = Box::pin(host.carry_out(effect, &mut created));
                        metrics::time_store_async(operation, done).await
                    }
                };
                match done {
                    Ok(next) => {
                        record.created(created); // ops
                        next
                    }
                    Err(e) => {
                        record::store_error(&e); // ops
                        if e.is_busy() {
                            // Not answered as created: the client may
                            // retry (a create with its idempotency key is
                            // created once).
                            let mut reply = plain(503, DATABASE_BUSY);
                            let after = HeaderValue::from_static(RETRY_AFTER);
                            reply
                                .headers_mut()
                                .insert(hyper::header::RETRY_AFTER, after);
                            return reply;
                        }
                        return plain(500, INTERNAL_ERROR);
                    }
                }
            }
        };
    }
}

/// The endpoint's response as hyper's: the same status and headers; an event
/// stream becomes a body that ends when the shutdown starts, or when the
/// OAuth token it was opened with expires (`expires`, seconds since the
/// epoch).
fn reply(response: chopin_mcp::Response, shutdown: &Shutdown, expires: Option<u64>) -> Reply {
    let streaming = response.is_event_stream();
    response.into_http().map(|body| {
        if streaming {
            // ops: the stream ends when the shutdown starts.
            let stop = shutdown.stop_signal();
            let stop: Pin<Box<dyn std::future::Future<Output = ()> + Send>> = match expires {
                None => stop,
                Some(exp) => {
                    let left = Duration::from_secs(exp.saturating_sub(oauth::now()));
                    Box::pin(async move {
                        tokio::select! {
                            () = stop => {}
                            () = tokio::time::sleep(left) => {}
                        }
                    })
                }
            };
            let next = tokio::time::Instant::now() + keep_alive_phase();
            Body::Events {
                head_sent: false,
                ticks: tokio::time::interval_at(next, KEEP_ALIVE_EVERY),
                stop,
            }
        } else {
            Body::Full(Some(body))
        }
    })
}

/// 431 for a head with more headers than the crate's adapter takes, and
/// the connection closed, as for a head over hyper's own limits; logged
/// with its method and path (hyper's own 431 has no body and is logged as
/// `other`: the head was never parsed).
fn too_many_headers(request: &hyper::Request<Incoming>) -> Reply {
    const TOO_LARGE: &str = "request header fields too large";
    let record = record::Record::begin(request.method().as_str(), request.uri().path(), None);
    let mut reply = plain(431, TOO_LARGE);
    record.finish(record::Ending {
        status: 431,
        body: TOO_LARGE.as_bytes(),
    });
    reply
        .headers_mut()
        .insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    reply
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
/// keep-alive comment at once (so the client sees the head straight away),
/// then after its own phase ([`keep_alive_phase`]) and every
/// [`KEEP_ALIVE_EVERY`] after, until hyper drops it because the client went
/// away, or it ends because the server shuts down.
enum Body {
    Full(Option<Bytes>),
    Events {
        /// Whether the first comment, written with the head, went out.
        head_sent: bool,
        /// The later comments ([`keep_alive_phase`], then every period).
        ticks: tokio::time::Interval,
        stop: Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    },
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
            Body::Events {
                head_sent,
                ticks,
                stop,
            } => {
                // ops: the shutdown ends the stream.
                if stop.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(None);
                }
                let comment = || {
                    Some(Ok(Frame::data(Bytes::from_static(
                        chopin_mcp::sse::keep_alive(),
                    ))))
                };
                if !*head_sent {
                    *head_sent = true;
                    return Poll::Ready(comment());
                }
                ticks.poll_tick(cx).map(|_| comment())
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Body::Full(None) => SizeHint::with_exact(0),
            Body::Events { .. } => SizeHint::default(),
        }
    }
}
