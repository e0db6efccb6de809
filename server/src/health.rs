//! Health endpoints, outside `/mcp` and without authentication:
//!
//! - `GET /healthz`: the process serves requests → 200 `ok`.
//! - `GET /readyz`: the store answers a trivial query → 200 `ok`, else 503
//!   `not ready` (also while shutting down).
//!
//! Another method on either path → 405 with `allow: GET`. The bodies say the
//! state and nothing else.

use crate::labels::StoreOperation;
use crate::metrics;
use crate::store::Store;

/// Which health endpoint a path is, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    Live,
    Ready,
}

impl Probe {
    pub fn of(path: &str) -> Option<Probe> {
        match path {
            "/healthz" => Some(Probe::Live),
            "/readyz" => Some(Probe::Ready),
            _ => None,
        }
    }
}

/// A plain-text answer: status, body, and whether to send `allow: GET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub body: &'static str,
    pub allow_get: bool,
}

pub const ALLOW: &str = "GET";

/// The answer to `method` on `probe`; `ready` is asked only for a `GET
/// /readyz`.
pub fn answer(probe: Probe, method: &str, ready: impl FnOnce() -> bool) -> Answer {
    if method != "GET" {
        return Answer {
            status: 405,
            body: "method not allowed",
            allow_get: true,
        };
    }
    let up = match probe {
        Probe::Live => true,
        Probe::Ready => ready(),
    };
    if up {
        Answer {
            status: 200,
            body: "ok",
            allow_get: false,
        }
    } else {
        Answer {
            status: 503,
            body: "not ready",
            allow_get: false,
        }
    }
}

/// Whether the store answers, for the blocking server (whose store is
/// SQLite): one trivial query on a reader connection, timed as the `ready`
/// store operation.
pub fn store_ready_blocking(store: &Store) -> bool {
    metrics::time_store(StoreOperation::Ready, || match store {
        Store::Sqlite(store) => store.ready().is_ok(),
        Store::Postgres(_) => false,
    })
}

/// How long `/readyz` waits for the store before answering 503.
pub const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The answer to `method` on `probe` for the async server: the readiness
/// query is awaited (SQLite reads run inline, as for `/mcp`) within [`READY_TIMEOUT`]; while shutting down `/readyz` is 503.
pub async fn respond(
    probe: Probe,
    method: &str,
    store: &Store,
    shutdown: &crate::shutdown::Shutdown,
) -> Answer {
    let ready = if probe == Probe::Ready && method == "GET" && !shutdown.is_triggered() {
        let query = metrics::time_store_async(StoreOperation::Ready, store.ready());
        matches!(tokio::time::timeout(READY_TIMEOUT, query).await, Ok(Ok(())))
    } else {
        false
    };
    let answer = answer(probe, method, || ready);
    tracing::debug!(
        target: "chopin_mcp_server::health",
        probe = ?probe,
        status = answer.status,
        "probe"
    );
    answer
}
