//! Graceful shutdown: one [`Shutdown`] per process, shared by every accept
//! loop (on any number of runtimes or threads), every connection and every
//! open event stream.
//!
//! On SIGTERM or SIGINT ([`on_signals`]) the signal is [`trigger`]ed: accept
//! loops stop and drop their listeners (so a new connection is refused by
//! the kernel), each connection is told to finish its request in flight and
//! close (idle keep-alive connections close at once), event streams end,
//! and [`drained`] returns once every tracked connection is gone or the
//! deadline passed.
//!
//! [`trigger`]: Shutdown::trigger
//! [`drained`]: Shutdown::drained

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper_util::server::graceful::GracefulConnection;
use tokio::sync::{Notify, watch};

mod stop;

use stop::Parked;
pub use stop::Stop;

const TARGET: &str = "chopin_mcp_server::shutdown";

/// The shutdown signal and the count of open connections.
pub struct Shutdown {
    signal: watch::Sender<bool>,
    /// Set when the shutdown starts, before `signal` says so: what
    /// [`is_triggered`](Self::is_triggered) and [`Stop`] read, one load
    /// that no connection's request writes to.
    stopped: AtomicBool,
    /// The connections' [`Stop`]s waiting for the shutdown.
    parked: Mutex<Parked>,
    open: AtomicUsize,
    closed: Notify,
}

impl Shutdown {
    pub fn new() -> Arc<Shutdown> {
        Arc::new(Shutdown {
            signal: watch::Sender::new(false),
            stopped: AtomicBool::new(false),
            parked: Mutex::new(Parked::default()),
            open: AtomicUsize::new(0),
            closed: Notify::new(),
        })
    }

    /// Starts the shutdown (idempotent).
    pub fn trigger(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.signal.send_replace(true);
        stop::wake_all(self);
    }

    pub fn is_triggered(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Resolves once the shutdown started.
    pub fn triggered(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut receiver = self.signal.subscribe();
        async move {
            // An error means the sender is gone: nothing will trigger it.
            if receiver.wait_for(|&stop| stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// [`triggered`](Self::triggered) for a connection, polled whenever it
    /// waits for its client: see [`Stop`].
    pub fn stop(self: &Arc<Self>) -> Stop {
        Stop::new(Arc::clone(self))
    }

    /// [`triggered`](Self::triggered), boxed, for a body to poll.
    pub fn stop_signal(&self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(self.triggered())
    }

    /// Counts a connection as open until the guard is dropped.
    pub fn track(self: &Arc<Self>) -> Tracked {
        self.open.fetch_add(1, Ordering::AcqRel);
        Tracked(Arc::clone(self))
    }

    /// Open connections.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Waits until no tracked connection is open, or `deadline` passed;
    /// true when all closed in time.
    pub async fn drained(&self, deadline: Duration) -> bool {
        let all_closed = async {
            loop {
                let notified = self.closed.notified();
                if self.open() == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(deadline, all_closed).await.is_ok()
    }

    /// [`drained`](Self::drained), logging what happened.
    pub async fn drain(&self, deadline: Duration) {
        if self.drained(deadline).await {
            tracing::info!(target: TARGET, "all connections closed");
        } else {
            tracing::warn!(
                target: TARGET,
                open = self.open(),
                "shutdown deadline passed: closing the connections still open"
            );
        }
    }
}

/// An open connection; dropping it closes it in [`Shutdown`]'s count.
pub struct Tracked(Arc<Shutdown>);

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.closed.notify_waiters();
        }
    }
}

/// Drives a hyper connection; once the shutdown starts it is told to finish
/// the request in flight and close (an idle one closes at once).
pub async fn serve<C: GracefulConnection>(
    connection: C,
    shutdown: &Shutdown,
) -> Result<(), C::Error> {
    let mut connection = std::pin::pin!(connection);
    let stop = shutdown.triggered();
    tokio::select! {
        done = connection.as_mut() => return done,
        () = stop => connection.as_mut().graceful_shutdown(),
    }
    connection.await
}

/// Triggers `shutdown` on the first SIGTERM or SIGINT.
pub async fn on_signals(shutdown: Arc<Shutdown>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!(target: TARGET, "shutting down: no new connections");
    shutdown.trigger();
}
