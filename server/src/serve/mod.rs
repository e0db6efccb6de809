//! The async server's connection driver: `chopin-mcp-server`'s main calls
//! [`serve`] with the parsed command line, and it serves until the
//! shutdown has drained.
//!
//! The endpoint decides everything; this module only moves bytes, with the
//! crate's HTTP/1.1 adapter (`chopin_mcp::http1`, the one
//! `chopin-mcp-blocking` uses): it reads a request head into a connection's
//! buffer and lends it to the endpoint, pushes body bytes into it as they
//! arrive (and stops reading at the 413), hands the list, read and write
//! effects to the store (`Host::read_now` inline for SQLite reads,
//! `Host::carry_out` otherwise), writes the response, and hands `GET` event
//! streams, their head written, to the streams thread (`streams::Holder`), which
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
//!
//! The rooms: this file starts the runtimes and workers and accepts
//! connections; `connection` serves one connection's requests, one after
//! another; `effects` carries out what a request asks of the host (its
//! token judged, the store's effects, a document's URL); `read` holds a
//! connection's buffers and reads heads and bodies into them; `write`
//! writes responses and closes; `streams` holds the event streams.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use crate::affinity::{self, Mask};
use crate::host::Host;
use crate::options::Options;
use crate::shutdown::{self, Shutdown, Tracked};
use crate::{metrics, telemetry};

mod connection;
mod effects;
mod head;
mod known;
mod read;
mod streams;
mod write;

use connection::connection;
use streams::{Holder, Streams};

/// Serves on one single-threaded runtime per core ("workers"): a connection
/// lives on one thread from accept to close, so a request never crosses
/// threads and no worker wakes another (a work-stealing runtime spends more
/// on parking, waking and stealing than these requests cost). This thread is
/// worker 0 and the only one accepting; it hands connections out in turn.
/// A PostgreSQL connection's task lives on the runtime that opened it; every
/// runtime runs until the process ends its shutdown, so each can use any.
/// Each worker is kept on a CPU of its own when there is one per worker
/// (`affinity`: two runtimes sharing a CPU make the latency's tail).
///
/// Returns once the shutdown has drained, or at once with the message to
/// print when the server cannot start (its runtime, store or listeners).
pub fn serve(options: Options) -> Result<(), String> {
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
