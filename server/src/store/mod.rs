//! The servers' document store: documents, grants and access-token digests,
//! on one of two engines with the same semantics.
//!
//! - [`Sqlite`]: one embedded database file (or memory), the default. Several
//!   server processes may share the file, on one machine.
//! - [`Postgres`]: a PostgreSQL database, for replicas on many machines. Async
//!   on the server's tokio runtime (tokio-postgres, deadpool pools).
//!
//! What both guarantee:
//! - a list is ordered by title then id, compared byte-wise;
//! - a create is keyed by caller + idempotency key: it is new, a replay of
//!   the earlier creation (the stored document, unchanged), a conflict (the
//!   key was used for another request) or forbidden; it is answered only
//!   after its transaction committed (and, on SQLite files, was synced);
//! - reads never wait for a connection held by a create: each engine keeps
//!   reader connections apart from writer connections;
//! - bearer tokens are stored as SHA-256 digests (lower-case hex), never in
//!   plain text;
//! - the schema is versioned and set up at start in one transaction, which
//!   is safe when several replicas start at once on an empty database; a
//!   schema newer than this server's is refused;
//! - a request waits for the database a bounded time ([`Limits`]): then it
//!   fails with [`StoreError::Busy`] (the servers answer 503 with
//!   `retry-after`), and what it had begun is rolled back.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chopin_mcp::{Document, DocumentSummary};
use sha2::{Digest, Sha256};

/// Where the documents live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    File(PathBuf),
    Memory,
    /// A `postgres://` or `postgresql://` URL, checked when parsed.
    Postgres(String),
}

impl Database {
    /// `--db VALUE`: a PostgreSQL URL by its scheme, else a SQLite path.
    pub fn parse(value: &str) -> Result<Database, String> {
        if !(value.starts_with("postgres://") || value.starts_with("postgresql://")) {
            return Ok(Database::File(PathBuf::from(value)));
        }
        postgres::parse_url(value).map_err(|e| format!("--db: {e}"))?;
        Ok(Database::Postgres(value.to_owned()))
    }
}

pub mod postgres;
mod sqlite;
pub mod tls;
mod tokens;

pub use postgres::Postgres;
pub use sqlite::Sqlite;
pub use tokens::TokenAdded;

/// The grant that opens every repository.
pub const ALL_REPOSITORIES: &str = "*";

/// The schema this server writes and reads. 1: token digests (SQLite
/// databases without a version are the earlier plain-token layout, and are
/// migrated at start).
pub const SCHEMA_VERSION: i64 = 1;

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

/// A document as imported with `--import` (a JSON array of these).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    pub id: String,
    pub repository: String,
    pub title: String,
    pub source: String,
    pub revision: u64,
}

/// What a `create_document` call asks to store. `fingerprint` identifies the
/// request's content: the same idempotency key with the same fingerprint is a
/// retry, with another one a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub idempotency_key: String,
    pub fingerprint: String,
    pub repository: String,
    pub title: String,
    pub source: String,
    /// The brief, as compact JSON.
    pub brief: String,
}

/// A stored created document, as `create_document` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub document: Document,
    pub brief: String,
    pub url: String,
}

/// How a create ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateOutcome {
    /// A new document was stored.
    New(Created),
    /// The caller already created this (same key, same fingerprint): the
    /// stored document, unchanged.
    Replayed(Created),
    /// The caller used this key for a different request.
    Conflict,
    /// The caller may not write to the repository.
    Forbidden,
}

/// A token to store when the database holds none, with the grants of its
/// caller. Only its digest is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstToken {
    pub token: String,
    pub caller: String,
    pub repositories: Vec<String>,
}

/// What a server writes at start, in the set-up transaction (after the
/// schema), in this order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setup {
    /// Inserted when the database is new (its schema made by this set-up).
    pub samples: Vec<Imported>,
    /// Stored when the database holds no token.
    pub first_token: Option<FirstToken>,
    /// `(caller, repositories)`: replaces each caller's grants.
    pub grants: Vec<(String, Vec<String>)>,
    /// Inserted or replaced, all or none.
    pub import: Vec<Imported>,
}

/// What the set-up found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The schema version found: 0 when there was none.
    pub found_version: i64,
    /// Whether this set-up made the schema (and inserted the samples).
    pub new_database: bool,
    /// Whether [`Setup::first_token`] was stored: print it now, it is never
    /// shown again.
    pub first_token_stored: bool,
    /// Plain tokens of an earlier layout replaced by their digests.
    pub tokens_migrated: usize,
    /// `(digest, caller)` of every stored token.
    pub tokens: Vec<(String, String)>,
}

/// Why a store operation failed. Requests in flight answer a generic 500;
/// at start the message is printed and the server exits.
#[derive(Debug)]
pub enum StoreError {
    Sqlite(rusqlite::Error),
    Postgres(tokio_postgres::Error),
    /// No PostgreSQL connection could be had (down, unreachable, timed out).
    Unavailable(String),
    /// The database's schema is newer than this server's.
    NewerSchema {
        found: i64,
    },
    /// A value that cannot be stored, or a stored value that cannot be read.
    Invalid(String),
    /// The database did not answer within the request's deadline (a
    /// statement cancelled by its timeout, no pooled connection in time,
    /// SQLite's lock still held), or has no connection slot left. Nothing
    /// is answered as stored; worth retrying, a create with its idempotency
    /// key (503 with `retry-after`).
    Busy(String),
}

impl StoreError {
    /// Whether this is [`StoreError::Busy`]: the request may be retried.
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Busy(_))
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "SQLite: {e}"),
            StoreError::Postgres(e) => {
                // tokio-postgres keeps the cause (refused, the server's
                // message) in the source chain.
                write!(f, "PostgreSQL: {e}")?;
                let mut source = std::error::Error::source(e);
                while let Some(cause) = source {
                    write!(f, ": {cause}")?;
                    source = cause.source();
                }
                Ok(())
            }
            StoreError::Unavailable(e) => write!(f, "PostgreSQL unavailable: {e}"),
            StoreError::NewerSchema { found } => write!(
                f,
                "the database has schema version {found}, newer than this server's \
                 {SCHEMA_VERSION}: run the newer server (nothing was changed)"
            ),
            StoreError::Invalid(e) | StoreError::Busy(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
        match e.sqlite_error_code() {
            Some(DatabaseBusy | DatabaseLocked) => StoreError::Busy(format!(
                "SQLite: {e} (another connection held the lock past the busy timeout)"
            )),
            _ => StoreError::Sqlite(e),
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        use tokio_postgres::error::SqlState;
        match e.as_db_error() {
            // A statement cancelled (its timeout, or a cancel request), or
            // no connection slot left: the database is busy, not broken.
            Some(db)
                if *db.code() == SqlState::QUERY_CANCELED
                    || *db.code() == SqlState::TOO_MANY_CONNECTIONS =>
            {
                StoreError::Busy(format!("PostgreSQL: {}", db.message()))
            }
            _ => StoreError::Postgres(e),
        }
    }
}

/// The SHA-256 of a bearer token, as lower-case hex: what the store keeps
/// and looks tokens up by.
pub fn token_digest(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut hex = String::with_capacity(2 * digest.len());
    push_hex(&mut hex, &digest);
    hex
}

/// Appends `bytes` as lower-case hex: by table, no allocation of its own
/// (not a `format!` per byte); every request's token and every PostgreSQL
/// query's parameters go through here.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}

/// The store of a server: one engine or the other.
#[derive(Clone)]
pub enum Store {
    Sqlite(Arc<Sqlite>),
    Postgres(Postgres),
}

impl Store {
    /// Opens the database with the default [`Limits`] (no schema work yet:
    /// see [`Store::setup`]).
    pub async fn open(database: &Database) -> Result<Store, StoreError> {
        Store::open_with(database, Limits::default()).await
    }

    /// Opens the database with these limits (no schema work yet: see
    /// [`Store::setup`]).
    pub async fn open_with(database: &Database, limits: Limits) -> Result<Store, StoreError> {
        Ok(match database {
            Database::Postgres(url) => Store::Postgres(Postgres::connect(url, limits).await?),
            other => Store::Sqlite(Arc::new(Sqlite::open_database_with(other, limits)?)),
        })
    }

    /// For the start-up banner: where a PostgreSQL database is, how it is
    /// reached and how many connections this server may hold.
    pub fn summary(&self) -> Option<&str> {
        match self {
            Store::Sqlite(_) => None,
            Store::Postgres(store) => Some(store.summary()),
        }
    }

    /// `sqlite` or `postgres`.
    pub fn engine(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    /// Sets up or checks the schema and applies `setup`, in one transaction.
    pub async fn setup(&self, setup: &Setup) -> Result<Started, StoreError> {
        match self {
            Store::Sqlite(store) => store.setup(setup),
            Store::Postgres(store) => store.setup(setup).await,
        }
    }

    /// Replaces `caller`'s grants with `repositories` (`owner/name`, or `*`).
    pub async fn set_grants(
        &self,
        caller: &str,
        repositories: &[String],
    ) -> Result<(), StoreError> {
        let setup = Setup {
            grants: vec![(caller.to_owned(), repositories.to_vec())],
            ..Setup::default()
        };
        self.setup(&setup).await.map(drop)
    }

    /// Inserts or replaces these documents, all or none.
    pub async fn import(&self, documents: &[Imported]) -> Result<(), StoreError> {
        let setup = Setup {
            import: documents.to_vec(),
            ..Setup::default()
        };
        self.setup(&setup).await.map(drop)
    }

    /// Whether the database answers a trivial query that reads the schema
    /// (for `/readyz`).
    pub async fn ready(&self) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.ready(),
            Store::Postgres(store) => store.ready().await,
        }
    }

    /// The documents of `repository`, ordered by title then id (byte-wise),
    /// or none when `caller` has no grant for it.
    pub async fn list(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Vec<DocumentSummary>, StoreError> {
        match self {
            // One indexed SELECT on a reader connection: run inline.
            Store::Sqlite(store) => store.list(caller, repository),
            Store::Postgres(store) => store.list(caller, repository).await,
        }
    }

    /// The document `id`, when it exists and `caller` may see it. A missing
    /// document and a forbidden one both give `None`.
    pub async fn read(&self, caller: &str, id: &str) -> Result<Option<Document>, StoreError> {
        match self {
            Store::Sqlite(store) => store.read(caller, id),
            Store::Postgres(store) => store.read(caller, id).await,
        }
    }

    /// Creates a document with the fresh id `id`, or replays the caller's
    /// earlier creation under the same idempotency key. Returns only once
    /// a new document is committed.
    pub async fn create(
        &self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        match self {
            Store::Sqlite(store) => {
                // A create on a file waits for fsync: keep it off the
                // runtime's workers.
                let (store, caller, id, draft) = (
                    Arc::clone(store),
                    caller.to_owned(),
                    id.to_owned(),
                    draft.clone(),
                );
                tokio::task::spawn_blocking(move || store.create(&caller, &id, &draft))
                    .await
                    .map_err(|e| StoreError::Invalid(format!("store task failed: {e}")))?
            }
            Store::Postgres(store) => store.create(caller, id, draft).await,
        }
    }
}

fn created(document: Document, brief: String) -> Created {
    let url = format!("/documents/{}", document.id);
    Created {
        document,
        brief,
        url,
    }
}

pub(crate) fn revision_of(stored: i64) -> u64 {
    // Both schemas keep revisions non-negative (CHECK).
    u64::try_from(stored).unwrap_or_default()
}

fn stored_revision(doc: &Imported) -> Result<i64, StoreError> {
    i64::try_from(doc.revision).map_err(|_| {
        StoreError::Invalid(format!(
            "document {}: revision {} is out of range",
            doc.id, doc.revision
        ))
    })
}
