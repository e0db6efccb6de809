//! Held event streams: the streams thread ([`Holder`]) that holds the
//! `GET` event streams the workers open, where a worker puts them
//! ([`Streams`]), and holding one ([`hold`]): a keep-alive comment every
//! [`KEEP_ALIVE_EVERY`], in a phase of its own, until it ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::net::TcpStream;

use super::runtime;
use super::write::write_all;
use crate::affinity::Mask;
use crate::oauth;
use crate::shutdown::{Shutdown, Tracked};

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

/// A held stream on its way to the streams thread, with its place in the
/// shutdown's count and its OAuth token's expiry.
type Handed = (std::net::TcpStream, Tracked, Option<u64>);

/// The streams thread: one single-threaded runtime, on every CPU of the
/// process, holding the event streams that
/// [`connection`](super::connection::connection) opened on the workers. The
/// comments a client leaves unread stay queued on its socket in the kernel
/// pages the sending thread's writes filled, which that thread can then no
/// longer reuse: written from a worker, every reply after them goes to a
/// fresh, cold page (and the pages add up, 32 KiB each). Written from here, the unread comments fill this thread's
/// pages only, a few bytes each (`benches/history/host-floor.md`, "Held event streams").
pub(super) struct Holder {
    pub(super) streams: tokio::sync::mpsc::UnboundedSender<Handed>,
    pub(super) thread: std::thread::JoinHandle<()>,
}

impl Holder {
    pub(super) fn start(
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
pub(super) struct Streams(pub(super) Option<tokio::sync::mpsc::UnboundedSender<Handed>>);

impl Streams {
    /// Holds `stream`, whose head is written, until it ends (at the latest
    /// at `expires`, seconds since the epoch).
    pub(super) async fn hold(
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
