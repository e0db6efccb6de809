//! The PostgreSQL engine: async on the server's tokio runtime
//! (tokio-postgres), with two pools of connections (deadpool-postgres): one
//! for reads, one for creates and the set-up. A read never waits for a
//! connection that a create holds while it waits for its commit.
//!
//! Creates run in READ COMMITTED (the default) and are serialized by the
//! unique key `(created_by, idempotency_key)` alone: `INSERT … ON CONFLICT
//! DO NOTHING` waits for a concurrent uncommitted insert of the same key; if
//! that one commits, this one inserts nothing and the following `SELECT`
//! (a fresh snapshot) sees the winner's row; if it aborts, this one inserts.
//! So replicas on many machines agree without retries, and no table is ever
//! locked against readers. A create is answered only after `COMMIT` returned
//! (with the default `synchronous_commit=on`, the commit is on disk).
//!
//! Behind a pooler in transaction mode each transaction may run on another
//! server connection, so nothing outlives a transaction: no named statement
//! (tokio-postgres's `*_typed` calls send unnamed ones; reads and lists are
//! simple queries calling PL/pgSQL functions, as updates call one, whose
//! plans PostgreSQL caches per server connection), no session setting (`SET
//! LOCAL`), no session lock (`pg_advisory_xact_lock`). A create is one round
//! trip: `BEGIN; SET LOCAL statement_timeout`, the insert and `COMMIT` sent
//! at once; so is each lifecycle write (`update.rs`, `lifecycle.rs`).
//!
//! Text that users choose (id, title, source, idempotency key) is stored as
//! `bytea`: it compares byte-wise whatever the database's collation, and may
//! hold NUL, as it may on SQLite. Repositories and callers are `text
//! COLLATE "C"`.
//!
//! One file per tool family: `read.rs` (list, read, readiness), `create.rs`,
//! `update.rs`, `lifecycle.rs` (rename, archive, restore), `tokens.rs`,
//! `setup.rs` and `schema.rs` (the set-up and the tables and functions it
//! makes). Beside them: the `--db` URL (`url.rs`) and its TLS (`tls.rs`),
//! and how a request's statements are sent under its deadline (`query.rs`).

mod create;
mod images;
mod implementations;
mod lifecycle;
mod planner;
mod query;
mod read;
mod schema;
mod setup;
pub mod tls;
mod tokens;
mod update;
mod url;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime, Timeouts};
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{CancelToken, Config, NoTls, Socket};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{Limits, StoreError};
use query::Deadline;
use url::describe;
pub use url::{Target, parse_url};

/// How long a cancel request for an abandoned connection may take.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// A PostgreSQL database: a read pool and a write pool, of
/// [`Limits::pool_size`] connections each.
///
/// Every statement is unnamed (tokio-postgres's `*_typed` calls: Parse,
/// Bind, Execute and Sync in one message, no statement kept on the server)
/// or a simple query, and no setting outlives its transaction, so that a
/// pooler in transaction mode (PgBouncer, and the poolers of hosted
/// PostgreSQL) may hand each transaction to another server connection.
#[derive(Clone)]
pub struct Postgres {
    read: Pool,
    write: Pool,
    connector: Connector,
    limits: Limits,
    /// Where, and how (TLS, pools), for the start-up banner.
    summary: String,
}

fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => StoreError::from(e),
        deadpool_postgres::PoolError::Timeout(_) => {
            StoreError::Busy("PostgreSQL: no connection before the request's deadline".to_owned())
        }
        other => StoreError::Unavailable(other.to_string()),
    }
}

/// Plaintext or rustls, for the pools and for cancel requests.
#[derive(Clone)]
enum Connector {
    Plain,
    Rustls(MakeRustlsConnect),
}

impl Connector {
    fn pool(&self, config: &Config, size: usize) -> Result<Pool, StoreError> {
        fn build<T>(config: &Config, tls: T, size: usize) -> Result<Pool, StoreError>
        where
            T: MakeTlsConnect<Socket> + Clone + Sync + Send + 'static,
            T::Stream: Sync + Send,
            T::TlsConnect: Sync + Send,
            <T::TlsConnect as tokio_postgres::tls::TlsConnect<Socket>>::Future: Send,
        {
            let manager = Manager::from_config(
                config.clone(),
                tls,
                ManagerConfig {
                    // No query on recycling: a closed connection is
                    // dropped, a broken one fails its next request (5xx).
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .build()
                .map_err(|e| StoreError::Invalid(format!("cannot make a pool: {e}")))
        }
        match self {
            Connector::Plain => build(config, NoTls, size),
            Connector::Rustls(tls) => build(config, tls.clone(), size),
        }
    }

    async fn cancel(&self, token: &CancelToken) {
        let _ = match self {
            Connector::Plain => token.cancel_query(NoTls).await,
            Connector::Rustls(tls) => token.cancel_query(tls.clone()).await,
        };
    }
}

impl Postgres {
    /// Makes the pools and one connection (TLS as the URL asks), so that a
    /// wrong URL, an unreadable CA file, a failed handshake or verification,
    /// or an unreachable server is reported at start.
    pub async fn connect(url: &str, limits: Limits) -> Result<Postgres, StoreError> {
        let Target { config, tls } = parse_url(url).map_err(StoreError::Invalid)?;
        let place = describe(&config);
        let connector = match tls.client_config().map_err(StoreError::Invalid)? {
            None => Connector::Plain,
            Some(client_config) => Connector::Rustls(MakeRustlsConnect::new(client_config)),
        };
        let size = limits.pool_size.max(1);
        let store = Postgres {
            read: connector.pool(&config, size)?,
            write: connector.pool(&config, size)?,
            connector,
            limits,
            summary: format!(
                "PostgreSQL at {place}, {}; pools of {size} connections for reads and {size} \
                 for creates (--db-pool-size: at most {} connections); {}",
                tls.describe(),
                2 * size,
                if limits.statement_timeout.is_zero() {
                    format!(
                        "no statement timeout (a request gives up after {} s)",
                        limits.request_deadline().as_secs()
                    )
                } else {
                    format!("statement timeout {} s", limits.statement_timeout.as_secs())
                }
            ),
        };
        let first = store.write.get().await.map_err(|e| {
            StoreError::Unavailable(format!("cannot connect to {place}: {}", pool_error(e)))
        })?;
        drop(first); // back to the pool, for the set-up

        Ok(store)
    }

    /// Where the database is, how it is reached and how many connections
    /// this server may hold: for the start-up banner.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// A connection from `pool` before `deadline`.
    async fn client(&self, pool: &Pool, deadline: &Deadline) -> Result<Object, StoreError> {
        let left = deadline.left()?;
        let timeouts = Timeouts {
            wait: Some(left),
            create: Some(left),
            recycle: Some(left),
        };
        pool.timeout_get(&timeouts).await.map_err(pool_error)
    }

    /// The outcome of work on `client` that ran against the backstop: a
    /// connection whose work was cut off is cancelled (PostgreSQL stops the
    /// statement), then closed and never returned to the pool. It keeps its
    /// place in the pool until it is closed, so the pool never holds more
    /// than its size.
    fn settle<T>(
        &self,
        client: Object,
        outcome: Result<Result<T, StoreError>, tokio::time::error::Elapsed>,
    ) -> Result<T, StoreError> {
        match outcome {
            Ok(result) => result,
            Err(_) => {
                let token = client.cancel_token();
                let connector = self.connector.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(CANCEL_TIMEOUT, connector.cancel(&token)).await;
                    // Out of the pool, then closed.
                    drop(Object::take(client));
                });
                Err(StoreError::Busy(
                    "PostgreSQL: no answer before the request's deadline".to_owned(),
                ))
            }
        }
    }
}
