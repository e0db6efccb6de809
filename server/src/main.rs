//! An MCP server on tokio, backed by SQLite or PostgreSQL.
//!
//! ```sh
//! cargo run --release -p chopin-mcp-server            # ./chopin.db, seeded on first run
//! cargo run --release -p chopin-mcp-server -- --help
//! ```
//!
//! The endpoint decides everything; this file only moves bytes, with the
//! crate's HTTP/1.1 adapter (`chopin_mcp::http1`, the one
//! `chopin-mcp-blocking` uses): it reads a request head into a connection's
//! buffer and lends it to the endpoint, pushes body bytes into it as they
//! arrive (and stops reading at the 413), hands the list, read and write
//! effects to the store (`Host::read_now` inline for SQLite reads,
//! `Host::carry_out` otherwise), writes the response, and hands `GET` event
//! streams, their head written, to the streams thread ([`Holder`]), which
//! holds them with nothing of the connection's buffers (`benches/history/host-floor.md`,
//! "Held event streams" and "The crate's adapter in place of hyper").
//!
//! One single-threaded runtime per core, each kept on its core, serves
//! connections handed out in turn (see [`serve`]; `benches/load.sh` and
//! `benches/history/loopback.md` measure why); one more, on every core, holds the streams.
//!
//! Operating it (lines marked `ops:`): request logs and metrics
//! (`record::Record` per request), `/healthz` and `/readyz`, a metrics
//! listener (on hyper), and graceful shutdown on SIGTERM/SIGINT
//! (`shutdown::Shutdown`).

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chopin_mcp::http1::{self, BodyDecoder, Framing};
use chopin_mcp::{DocumentOutcome, Granted, Header, Outcome};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use chopin_mcp_server::affinity::{self, Mask};
use chopin_mcp_server::host::{Caller, DATABASE_BUSY, Host, INTERNAL_ERROR, Now, RETRY_AFTER};
use chopin_mcp_server::labels::StoreOperation;
use chopin_mcp_server::oauth::{self, Verdict};
use chopin_mcp_server::shutdown::{self, Shutdown, Tracked};
use chopin_mcp_server::store::StoreError;
use chopin_mcp_server::{health, metrics, options, record, telemetry, wire};

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
/// `benches/history/host-floor.md` ("On the issue's kind of machine") has what it changed
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

/// Serves a connection with the crate's HTTP/1.1 adapter: requests one after
/// another (pipelined ones from the bytes already read), until the client
/// leaves, a response closes it, a head is too slow, or the shutdown begins.
/// A connection whose response is an event stream is handed, its head
/// written, to the streams thread ([`Holder`]), and keeps nothing here.
async fn connection(
    host: Arc<Host>,
    stream: TcpStream,
    shutdown: Arc<Shutdown>,
    tracked: Tracked, // ops: open until it is dropped
    streams: Streams,
) {
    // Replies are small and written whole: don't let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    let mut conn = Conn {
        stream,
        read: Vec::new(),
        out: Vec::new(),
    };
    // ops: once the shutdown starts, finish the request in flight and close.
    let stop = shutdown.triggered();
    tokio::pin!(stop);
    // The head deadline: one timer for the connection, which only runs out
    // every HEAD_TIMEOUT and then looks at when the wait began, rather than
    // one armed (registered and cancelled) for every request.
    let check = tokio::time::sleep(HEAD_TIMEOUT);
    tokio::pin!(check);
    let next = loop {
        let waits = Waits {
            stop: stop.as_mut(),
            check: check.as_mut(),
        };
        match exchange(&host, &shutdown, &mut conn, waits).await {
            Next::KeepAlive => {}
            next => break next,
        }
    };
    // Nothing of the buffers is kept while a stream is held or a close
    // lingers.
    let Conn { stream, read, out } = conn;
    drop((read, out));
    match next {
        Next::Stream(expires) => streams.hold(stream, tracked, &shutdown, expires).await,
        Next::Close => linger(stream).await,
        Next::KeepAlive | Next::Gone => {}
    }
}

/// A connection's socket and buffers: bytes read and not yet used (the rest
/// of a head, body bytes, pipelined requests), and the response being
/// written.
struct Conn {
    stream: TcpStream,
    read: Vec<u8>,
    out: Vec<u8>,
}

/// The room a read is given at least.
const READ_ROOM: usize = 4096;
/// A buffer grown past this (a large head, body or document) is let go
/// after its request rather than kept for the connection's life.
const BUFFER_KEPT: usize = 64 * 1024;

/// What the connection waits on besides its socket: the shutdown signal,
/// and the head deadline's timer.
struct Waits<'a, S: std::future::Future<Output = ()>> {
    stop: Pin<&'a mut S>,
    check: Pin<&'a mut tokio::time::Sleep>,
}

/// What a request left its connection fit for.
enum Next {
    /// The next request.
    KeepAlive,
    /// Nothing: the client left, its head was too slow, the shutdown began
    /// while it was idle, or its last response was a `connection: close`
    /// with nothing left unread. Dropping the socket closes it.
    Gone,
    /// Closing after a response that left bytes unread (a body refused
    /// before its end, a refused head): lingered over, so that the client
    /// reads the response before the close resets the connection.
    Close,
    /// An event stream, its head written: held until it ends, and at the
    /// OAuth token's expiry (seconds since the epoch) if it was opened with
    /// one (AUTH.md §2).
    Stream(Option<u64>),
}

/// A reply that is not the endpoint's: the server's own plain text.
struct Plain {
    status: u16,
    text: &'static str,
    /// With `retry-after` (a 503 for a busy database).
    retry: bool,
}

/// What a request is answered with.
enum Reply {
    Endpoint(chopin_mcp::Response),
    Plain(Plain),
}

const fn plain(status: u16, text: &'static str) -> Reply {
    Reply::Plain(Plain {
        status,
        text,
        retry: false,
    })
}

/// Serves one request: head, body, effects, response.
async fn exchange<S: std::future::Future<Output = ()>>(
    host: &Host,
    shutdown: &Shutdown,
    conn: &mut Conn,
    waits: Waits<'_, S>,
) -> Next {
    match read_head(conn, waits).await {
        Ok(true) => {}
        Ok(false) => return Next::Gone,
        Err(refused) => return refuse(conn, refused).await,
    }
    let head = match http1::parse_head(&conn.read) {
        Ok(Some(head)) => head,
        // The scanner saw a whole head: only a refusal is left.
        Ok(None) => return Next::Gone,
        Err(refused) => return refuse(conn, refused).await,
    };
    let (head_len, framing) = (head.len(), head.framing());
    let (keep_alive, expects_continue) = (head.keep_alive(), head.expects_continue());
    let parts = head.parts();
    let bodiless_reply = parts.method() == "HEAD";
    let path = wire::path(parts.target());
    // ops: health endpoints, outside /mcp and its authentication.
    if let Some(probe) = health::Probe::of(path) {
        // Boxed, as the store's futures below are.
        let answer = Box::pin(health::respond(
            probe,
            parts.method(),
            &host.store,
            shutdown,
        ))
        .await;
        let no_body = framing == Framing::Length(0);
        let keep = keep_alive && no_body && !shutdown.is_triggered();
        let date = wire::date();
        let headers = [
            Header::new("date", &date),
            Header::new("allow", health::ALLOW.as_bytes()),
        ];
        let extra = if answer.allow_get {
            &headers[..]
        } else {
            &headers[..1]
        };
        wire::plain_head(answer.status, answer.body, keep, extra, &mut conn.out);
        conn.read.drain(..head_len);
        return send(conn, answer.body.as_bytes(), keep, no_body, bodiless_reply).await;
    }
    // ops: one record per request: a log line and metrics when it ends.
    let mut record =
        record::Record::begin(parts.method(), path, parts.header("mcp-protocol-version"));
    // When the token expires, if it is an OAuth token: an event stream
    // opened with it ends then (AUTH.md §2).
    let mut expires = None;
    let mut decoder = BodyDecoder::new(framing);
    let mut continued = false;
    // Protected Resource Metadata (with --oauth-issuer), before routing.
    let reply = if let Some(response) = host.endpoint.metadata(&parts) {
        conn.read.drain(..head_len);
        Reply::Endpoint(response)
    } else if let Some(id) = wire::document_id(path) {
        // A document's URL: its plan, read as read_document reads it.
        let outcome = host.endpoint.document(&parts, &id);
        conn.read.drain(..head_len);
        Box::pin(serve_document(host, outcome, &mut record)).await
    } else if path != "/mcp" {
        conn.read.drain(..head_len);
        plain(404, "not found")
    } else {
        let mut outcome: Outcome<Caller> = host.endpoint.begin(&parts);
        conn.read.drain(..head_len);
        'request: loop {
            outcome = match outcome {
                Outcome::Respond(response) => break Reply::Endpoint(response),
                Outcome::Authenticate(auth) => {
                    let judged =
                        judge(host, auth.bearer_token(), auth.authorization(), &mut record);
                    match judged.await {
                        Judged::Caller(caller, grant, exp) => {
                            expires = exp;
                            auth.answer_scoped(caller, grant)
                        }
                        Judged::Refused => auth.answer(None),
                        Judged::Unavailable => auth.unavailable(),
                    }
                }
                Outcome::Body(mut intake) => loop {
                    if decoder.is_done() {
                        break intake.finish();
                    }
                    if conn.read.is_empty() {
                        // The client waits for this before sending the body,
                        // and only gets it once the request passed every
                        // check.
                        if expects_continue && !continued {
                            continued = true;
                            if write_continue(&mut conn.stream).await.is_err() {
                                return Next::Gone;
                            }
                        }
                        if !read_more(conn).await {
                            // The client broke off the body.
                            break 'request plain(400, "bad request body");
                        }
                    }
                    let Ok(decoded) = decoder.decode(&conn.read) else {
                        // Mis-framed (a bad chunk size, say).
                        break 'request plain(400, "bad request body");
                    };
                    record.body(decoded.data); // ops
                    let pushed = intake.push(decoded.data);
                    let consumed = decoded.consumed;
                    conn.read.drain(..consumed);
                    intake = match pushed {
                        Ok(intake) => intake,
                        // Over budget: answer now and read no further; the
                        // rest of the body is left unread, so the
                        // connection closes.
                        Err(response) => break 'request Reply::Endpoint(response),
                    };
                },
                // List and read: one SELECT (inline on a SQLite reader
                // connection, awaited on PostgreSQL); the writes (create,
                // update, rename, archive, restore): on tokio's blocking
                // pool for SQLite (they wait for fsync), awaited on
                // PostgreSQL.
                effect => match carry_out(host, effect, &mut record).await {
                    Ok(next) => next,
                    Err(reply) => break reply,
                },
            };
        }
    };
    respond(
        conn,
        shutdown,
        record,
        reply,
        Respond {
            keep_alive,
            read_whole: decoder.is_done(),
            bodiless: bodiless_reply,
            expires,
        },
    )
    .await
}

/// How a response goes out.
struct Respond {
    /// Whether the client asked for the connection to carry another
    /// request (it does when the request's body was also read to its end).
    keep_alive: bool,
    /// Whether the request's body was read to its end.
    read_whole: bool,
    /// A response to `HEAD`: its head only.
    bodiless: bool,
    /// When the OAuth token the request was made with expires.
    expires: Option<u64>,
}

/// Writes `reply`, finishing its `record` first.
async fn respond(
    conn: &mut Conn,
    shutdown: &Shutdown,
    record: record::Record,
    reply: Reply,
    how: Respond,
) -> Next {
    let date = wire::date();
    let date = [Header::new("date", &date)];
    let out = &mut conn.out;
    if let Reply::Endpoint(response) = &reply
        && response.is_event_stream()
    {
        http1::write_response_with(response, false, &date, out);
        out.extend_from_slice(chopin_mcp::sse::keep_alive());
        record.finish(record::Ending {
            status: 200,
            body: b"",
        });
        if conn.stream.write_all(out).await.is_err() {
            return Next::Gone;
        }
        return Next::Stream(how.expires);
    }
    let keep = how.keep_alive && how.read_whole && !shutdown.is_triggered();
    let body = match &reply {
        Reply::Endpoint(response) => {
            http1::write_head_with(response, keep, &date, out);
            record.finish(record::Ending {
                status: response.status(),
                body: response.body(),
            });
            response.body()
        }
        Reply::Plain(plain) => {
            let retry = [date[0], Header::new("retry-after", RETRY_AFTER.as_bytes())];
            let extra = if plain.retry { &retry[..] } else { &date[..] };
            wire::plain_head(plain.status, plain.text, keep, extra, out);
            record.finish(record::Ending {
                status: plain.status,
                body: plain.text.as_bytes(),
            });
            plain.text.as_bytes()
        }
    };
    send(conn, body, keep, how.read_whole, how.bodiless).await
}

/// Carries out a list, read or write effect, noting it in `record`; a
/// store error is answered (503 when the database is busy, else 500).
async fn carry_out(
    host: &Host,
    effect: Outcome<Caller>,
    record: &mut record::Record,
) -> Result<Outcome<Caller>, Reply> {
    record.effect(&effect); // ops
    let operation = StoreOperation::of(&effect); // ops
    // ops: carry_out says what became of a write.
    let mut written = None;
    let now = metrics::time_store_when(
        operation,
        || host.read_now(effect),
        |now| matches!(now, Now::Done(_)),
    );
    let done = match now {
        Now::Done(done) => done,
        // Boxed: a PostgreSQL operation's state is large, and would
        // otherwise be part of every connection's for its whole life.
        Now::Await(effect) => {
            let done = Box::pin(host.carry_out(effect, &mut written));
            metrics::time_store_async(operation, done).await
        }
    };
    match done {
        Ok(next) => {
            record.written(written); // ops
            Ok(next)
        }
        Err(e) => Err(store_failed(&e)),
    }
}

/// The answer to a store error: 503 with `retry-after` when the database
/// is busy (nothing was answered as done: a create or update may be retried
/// with its idempotency key, and is applied once), else 500.
fn store_failed(e: &StoreError) -> Reply {
    record::store_error(e); // ops
    if e.is_busy() {
        return Reply::Plain(Plain {
            status: 503,
            text: DATABASE_BUSY,
            retry: true,
        });
    }
    plain(500, INTERNAL_ERROR)
}

/// What the token check decided for a request.
enum Judged {
    /// The caller, the scopes its token grants, and when it expires (an
    /// OAuth token's, seconds since the epoch).
    Caller(Caller, Granted, Option<u64>),
    /// 401.
    Refused,
    /// 503: the authorization server did not answer.
    Unavailable,
}

/// Judges a request's bearer token (`/mcp` and a document's URL alike),
/// noting the verdict in `record`.
async fn judge(
    host: &Host,
    bearer: Option<&str>,
    authorization: Option<&[u8]>,
    record: &mut record::Record,
) -> Judged {
    match host.authenticate(bearer).await {
        Verdict::Static(caller) => {
            record.caller(Some(&caller)); // ops
            record.auth(Some("static"), false);
            Judged::Caller(caller, Granted::ALL, None)
        }
        Verdict::OAuth {
            caller,
            grant,
            kind,
            exp,
        } => {
            record.caller(Some(&caller)); // ops
            record.auth(Some(kind.as_str()), false);
            Judged::Caller(caller, grant, exp)
        }
        Verdict::Refused(_) => {
            // ops: a presented token refused is `invalid_token`.
            let bearer = authorization.is_some_and(|value| {
                value
                    .get(..6)
                    .is_some_and(|s| s.eq_ignore_ascii_case(b"bearer"))
            });
            record.auth(None, bearer);
            Judged::Refused
        }
        Verdict::Unavailable(_) => Judged::Unavailable,
    }
}

/// Serves a request to a document's URL: the endpoint's answer, once the
/// token is judged and the store has read the document for its caller.
async fn serve_document(
    host: &Host,
    mut outcome: DocumentOutcome<Caller>,
    record: &mut record::Record,
) -> Reply {
    loop {
        outcome = match outcome {
            DocumentOutcome::Respond(response) => return Reply::Endpoint(response),
            DocumentOutcome::Authenticate(auth) => {
                let judged = judge(host, auth.bearer_token(), auth.authorization(), record);
                match judged.await {
                    Judged::Caller(caller, grant, _) => auth.answer_scoped(caller, grant),
                    Judged::Refused => auth.answer(None),
                    Judged::Unavailable => auth.unavailable(),
                }
            }
            DocumentOutcome::Read(read) => {
                let found = host.read_document(read.caller(), read.id());
                return match metrics::time_store_async(StoreOperation::Read, found).await {
                    Ok(document) => Reply::Endpoint(read.answer(document.as_ref())),
                    Err(e) => store_failed(&e),
                };
            }
        };
    }
}

/// Writes the head in `conn.out` and `body` after it; `keep`: the
/// connection carries on, `read_whole`: nothing of the request is left
/// unread, `head_only`: the request was a `HEAD`, whose response is its
/// head only (RFC 9110 §9.3.2).
async fn send(conn: &mut Conn, body: &[u8], keep: bool, read_whole: bool, head_only: bool) -> Next {
    let body = wire::behind_head(&mut conn.out, body, head_only);
    let written = write_both(&mut conn.stream, &conn.out, body).await;
    conn.out.clear();
    if conn.out.capacity() > BUFFER_KEPT {
        conn.out = Vec::new();
    }
    match written {
        Err(_) => Next::Gone,
        Ok(()) if keep => Next::KeepAlive,
        Ok(()) if read_whole && conn.read.is_empty() => Next::Gone,
        Ok(()) => Next::Close,
    }
}

/// Writes `head`, then `body`, both from where they are: vectored writes
/// until the head is out, then the rest of the body.
async fn write_both(stream: &mut TcpStream, mut head: &[u8], mut body: &[u8]) -> io::Result<()> {
    while !head.is_empty() {
        let written = stream
            .write_vectored(&[IoSlice::new(head), IoSlice::new(body)])
            .await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        wire::advance(&mut head, &mut body, written);
    }
    stream.write_all(body).await
}

/// Answers a head the adapter refused (400, 431, 501) and closes.
async fn refuse(conn: &mut Conn, refused: http1::HttpError) -> Next {
    record::refused_head(refused.status()); // ops
    let date = wire::date();
    let response = refused.response();
    let date = [Header::new("date", &date)];
    http1::write_head_with(&response, false, &date, &mut conn.out);
    match send(conn, response.body(), false, false, false).await {
        Next::Gone => Next::Gone,
        _ => Next::Close,
    }
}

/// Reads until `conn.read` begins with a whole head: false if the client
/// left, or did not finish the head within [`HEAD_TIMEOUT`] of the wait's
/// start (closed without an answer, as an idle connection is), or the
/// shutdown began first.
async fn read_head<S: std::future::Future<Output = ()>>(
    conn: &mut Conn,
    mut waits: Waits<'_, S>,
) -> Result<bool, http1::HttpError> {
    if conn.read.capacity() > BUFFER_KEPT && conn.read.len() < READ_ROOM {
        conn.read.shrink_to(READ_ROOM);
    }
    // Looks at each byte once, so a client sending its head a byte at a time
    // costs linear time; the head is parsed once, when it is complete.
    let mut scanner = http1::HeadScanner::new();
    let mut since = None;
    loop {
        // Empty lines before a request line are allowed (RFC 9112 §2.2):
        // dropped, so that the blank line the scanner looks for is the one
        // that ends a head.
        let blank = conn
            .read
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        if blank > 0 {
            conn.read.drain(..blank);
            scanner = http1::HeadScanner::new();
        }
        if scanner.scan(&conn.read)? {
            return Ok(true);
        }
        let since = *since.get_or_insert_with(tokio::time::Instant::now);
        conn.read.reserve(READ_ROOM);
        tokio::select! {
            biased;
            read = conn.stream.read_buf(&mut conn.read) => match read {
                Ok(0) | Err(_) => return Ok(false),
                Ok(_) => {}
            },
            () = waits.stop.as_mut() => return Ok(false),
            () = waits.check.as_mut() => {
                let deadline = since + HEAD_TIMEOUT;
                if deadline <= tokio::time::Instant::now() {
                    return Ok(false);
                }
                waits.check.as_mut().reset(deadline);
            }
        }
    }
}

/// Reads more of a body: false if the client left.
async fn read_more(conn: &mut Conn) -> bool {
    conn.read.reserve(READ_ROOM);
    matches!(conn.stream.read_buf(&mut conn.read).await, Ok(n) if n > 0)
}

async fn write_continue(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await
}

/// Closes gently: stop writing, then read and drop what the client still
/// sends for a moment (256 KiB, one second at most). Closing with unread
/// bytes would make the kernel reset the connection, which can destroy the
/// response (413, 431) before the client reads it.
async fn linger(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let drain = async {
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < 256 * 1024 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(read) => drained += read,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
}

/// Writes `bytes` whole; false if the client went away or the shutdown
/// began first.
async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    stop: &mut Pin<&mut impl std::future::Future<Output = ()>>,
) -> bool {
    tokio::select! {
        written = stream.write_all(bytes) => written.is_ok(),
        () = stop.as_mut() => false,
    }
}

/// A held stream on its way to the streams thread, with its place in the
/// shutdown's count and its OAuth token's expiry.
type Handed = (std::net::TcpStream, Tracked, Option<u64>);

/// The streams thread: one single-threaded runtime, on every CPU of the
/// process, holding the event streams that [`first_request`] opened on
/// the workers. The comments a client leaves unread stay queued on its
/// socket in the kernel pages the sending thread's writes filled, which
/// that thread can then no longer reuse: written from a worker, every
/// reply after them goes to a fresh, cold page (and the pages add up, 32
/// KiB each). Written from here, the unread comments fill this thread's
/// pages only, a few bytes each (`benches/history/host-floor.md`, "Held event streams").
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
                                Some((stream, tracked, expires)) => {
                                    let shutdown = Arc::clone(&shutdown);
                                    drop(tokio::spawn(held(stream, shutdown, tracked, expires)));
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
async fn held(
    stream: std::net::TcpStream,
    shutdown: Arc<Shutdown>,
    tracked: Tracked,
    expires: Option<u64>,
) {
    let _tracked = tracked; // ops: open until this returns
    match TcpStream::from_std(stream) {
        Ok(stream) => hold(stream, &shutdown, expires).await,
        Err(e) => tracing::error!("cannot hold an event stream: {e}"),
    }
}

/// Where a worker puts the event streams it opened: the streams thread's
/// queue ([`Holder`]), or, if that thread could not be started, nowhere
/// (the worker holds them).
#[derive(Clone)]
struct Streams(Option<tokio::sync::mpsc::UnboundedSender<Handed>>);

impl Streams {
    /// Holds `stream`, whose head is written, until it ends (at the latest
    /// at `expires`, seconds since the epoch).
    async fn hold(
        self,
        stream: TcpStream,
        tracked: Tracked,
        shutdown: &Shutdown,
        expires: Option<u64>,
    ) {
        let Some(streams) = self.0 else {
            let _tracked = tracked;
            return hold(stream, shutdown, expires).await;
        };
        // Taken off this worker's reactor; a failed send means the streams
        // thread is shutting down, and dropping the stream closes it.
        match stream.into_std() {
            Ok(stream) => drop(streams.send((stream, tracked, expires))),
            Err(e) => tracing::error!("cannot hand an event stream over: {e}"),
        }
    }
}

/// Holds an event stream whose head is written: a keep-alive comment every
/// [`KEEP_ALIVE_EVERY`], until the client closes, the shutdown begins or
/// the OAuth token it was opened with expires (`expires`, seconds since the
/// epoch); then the connection closes, which ends the stream (its length is
/// the connection's).
async fn hold(mut stream: TcpStream, shutdown: &Shutdown, expires: Option<u64>) {
    let stream = &mut stream;
    let stop = shutdown.triggered();
    tokio::pin!(stop);
    let stop = &mut stop;
    let expiry = async move {
        match expires {
            Some(exp) => {
                let left = Duration::from_secs(exp.saturating_sub(oauth::now()));
                tokio::time::sleep(left).await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::pin!(expiry);
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
            () = &mut expiry => return,
        }
    }
}
