//! What bounds a server's use of the database: how many connections it may
//! hold and how long a request may wait (`--db-pool-size`,
//! `--db-statement-timeout`), for both engines.

use std::time::Duration;

/// How many connections a server may hold and how long a request may wait
/// for the database (`--db-pool-size`, `--db-statement-timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// PostgreSQL: connections in each of the read and write pools, so at
    /// most twice this many per server.
    pub pool_size: usize,
    /// How long one request may wait for the database, connection and
    /// statement together; zero: no statement timeout (PostgreSQL: none is
    /// set, the role's or database's applies, and a request still gives up
    /// after [`UNBOUNDED_REQUEST`]; SQLite: the lock is waited for without
    /// limit).
    pub statement_timeout: Duration,
}

/// `--db-pool-size` unless given.
pub const DEFAULT_POOL_SIZE: usize = 8;
/// `--db-statement-timeout` unless given.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// A PostgreSQL request's deadline without a statement timeout, so that
/// nothing hangs.
pub const UNBOUNDED_REQUEST: Duration = Duration::from_secs(10);

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            pool_size: DEFAULT_POOL_SIZE,
            statement_timeout: DEFAULT_STATEMENT_TIMEOUT,
        }
    }
}

impl Limits {
    /// How long after it starts a PostgreSQL request gives up.
    pub fn request_deadline(&self) -> Duration {
        if self.statement_timeout.is_zero() {
            UNBOUNDED_REQUEST
        } else {
            self.statement_timeout
        }
    }
}
