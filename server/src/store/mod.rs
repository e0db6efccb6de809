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
//!   the earlier creation (the document as created: revision 0, its first
//!   title and plan), a conflict (the key was used for another request) or
//!   forbidden;
//! - an update, a rename, an archive and a restore (LIFECYCLE.md §2–§4) name
//!   their document by id or canonical URL ([`document_id`]); a caller
//!   without a grant on its repository gets `Unavailable`, as for a missing
//!   one. An update is a compare-and-set of the revision, keyed by caller +
//!   idempotency key among updates (only an applied update records its key;
//!   a replay answers the document as that update left it); every replaced
//!   plan and title stays in the store (`plan_history`, `title_history`);
//!   archived documents are out of lists and reads;
//! - every write is one transaction, answered only after it committed (and,
//!   on SQLite files, was synced);
//! - reads never wait for a connection held by a create: each engine keeps
//!   reader connections apart from writer connections;
//! - bearer tokens are stored as SHA-256 digests (lower-case hex), never in
//!   plain text;
//! - the schema is versioned and set up (or migrated in place from an
//!   earlier version) at start in one transaction, which is safe when
//!   several replicas start at once; a schema newer than this server's is
//!   refused;
//! - a request waits for the database a bounded time ([`Limits`]): then it
//!   fails with [`StoreError::Busy`] (the servers answer 503 with
//!   `retry-after`), and what it had begun is rolled back.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chopin_mcp::{Brief, Document, DocumentSummary};
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

mod locator;
pub mod postgres;
mod sqlite;
pub mod tls;
mod tokens;

pub use locator::document_id;
pub use postgres::Postgres;
pub use sqlite::Sqlite;
pub use tokens::TokenAdded;

/// The grant that opens every repository.
pub const ALL_REPOSITORIES: &str = "*";

/// The schema this server writes and reads, made at start in place from
/// an earlier one. 1: token digests (SQLite databases without a version are
/// the earlier plain-token layout). 2: archives, the plan and title
/// history, update idempotency records.
pub const SCHEMA_VERSION: i64 = 2;

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
    /// document as it was created (revision 0, its first title and plan),
    /// whatever happened to it since.
    Replayed(Created),
    /// The caller used this key for a different request.
    Conflict,
    /// The caller may not write to the repository.
    Forbidden,
}

/// What an `update_document` call asks to store (LIFECYCLE.md §2).
/// `fingerprint` identifies the request: the same idempotency key with the
/// same fingerprint is a retry, with another one a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// The document's id or canonical URL, as sent ([`document_id`]).
    pub locator: String,
    /// The revision the caller read: the update applies only if the
    /// document is still at it.
    pub revision: u64,
    /// The canonical plan, stored as revision `revision + 1`.
    pub plan: String,
    pub idempotency_key: String,
    pub fingerprint: String,
}

/// A document as an update answers it: its brief (the creation's, when it
/// has one) in [`Document::brief`], and its canonical URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revised {
    pub document: Document,
    pub url: String,
}

/// How an update ended. LIFECYCLE.md §2 decides in the order: unavailable,
/// replayed or conflict, archived, revision conflict, updated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateOutcome {
    /// The plan was stored as the next revision; the replaced one is kept.
    Updated(Revised),
    /// The caller made this update before (same key, same fingerprint): the
    /// document as that update left it (its revision, its plan, the title
    /// then), whatever happened to it since.
    Replayed(Revised),
    /// The caller used this key for a different update.
    Conflict,
    /// The document is at another revision: `current`.
    RevisionConflict { current: u64 },
    /// The document is archived.
    Archived,
    /// No document the caller may see.
    Unavailable,
}

/// How a rename ended. Titles need not be unique, so there is no conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameOutcome {
    /// The document has this title now (also when it had it already).
    Renamed { id: String, title: String },
    /// The document is archived.
    Archived,
    /// No document the caller may see.
    Unavailable,
}

/// How an archive ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveOutcome {
    /// The document is archived, since `archived_at` (RFC 3339 UTC with
    /// milliseconds, [`timestamp`]): the time of this archive, or of the
    /// earlier one when it already was.
    Archived {
        id: String,
        title: String,
        archived_at: String,
    },
    /// No document the caller may see.
    Unavailable,
}

/// How a restore ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreOutcome {
    /// The document is live (also when it was not archived).
    Restored { id: String, title: String },
    /// No document the caller may see.
    Unavailable,
}

/// A list's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing<T> {
    /// The caller has a grant for the repository: its live documents
    /// (maybe none).
    Listed(T),
    /// The caller has no grant for the repository.
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

    /// The live documents of `repository`, ordered by title then id
    /// (byte-wise), or [`Listing::Forbidden`] when `caller` has no grant
    /// for it.
    pub async fn list(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        match self {
            // One indexed SELECT on a reader connection: run inline.
            Store::Sqlite(store) => store.list(caller, repository),
            Store::Postgres(store) => store.list(caller, repository).await,
        }
    }

    /// The document `id`, when it exists, is not archived and `caller` may
    /// see it, with the brief it was created with (none when it was
    /// imported). A missing, archived or forbidden document gives `None`.
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
                let (caller, id, draft) = (caller.to_owned(), id.to_owned(), draft.clone());
                off_the_runtime(store, move |store| store.create(&caller, &id, &draft)).await
            }
            Store::Postgres(store) => store.create(caller, id, draft).await,
        }
    }

    /// Stores `update.plan` as the next revision of the document
    /// `update.locator` names, if it is still at `update.revision`, or
    /// replays the caller's earlier update under the same idempotency key
    /// (LIFECYCLE.md §2). Returns only once an update is committed.
    pub async fn update(&self, caller: &str, update: &Update) -> Result<UpdateOutcome, StoreError> {
        match self {
            Store::Sqlite(store) => {
                let (caller, update) = (caller.to_owned(), update.clone());
                off_the_runtime(store, move |store| store.update(&caller, &update)).await
            }
            Store::Postgres(store) => store.update(caller, update).await,
        }
    }

    /// Gives the document `locator` names the title `title` (the last
    /// rename wins; the replaced title is kept).
    pub async fn rename(
        &self,
        caller: &str,
        locator: &str,
        title: &str,
    ) -> Result<RenameOutcome, StoreError> {
        match self {
            Store::Sqlite(store) => {
                let (caller, locator, title) =
                    (caller.to_owned(), locator.to_owned(), title.to_owned());
                off_the_runtime(store, move |store| store.rename(&caller, &locator, &title)).await
            }
            Store::Postgres(store) => store.rename(caller, locator, title).await,
        }
    }

    /// Archives the document `locator` names, as of `now` (the host's
    /// clock); one already archived keeps its time.
    pub async fn archive(
        &self,
        caller: &str,
        locator: &str,
        now: SystemTime,
    ) -> Result<ArchiveOutcome, StoreError> {
        match self {
            Store::Sqlite(store) => {
                let (caller, locator) = (caller.to_owned(), locator.to_owned());
                off_the_runtime(store, move |store| store.archive(&caller, &locator, now)).await
            }
            Store::Postgres(store) => store.archive(caller, locator, now).await,
        }
    }

    /// Restores the document `locator` names (a live one stays live).
    pub async fn restore(&self, caller: &str, locator: &str) -> Result<RestoreOutcome, StoreError> {
        match self {
            Store::Sqlite(store) => {
                let (caller, locator) = (caller.to_owned(), locator.to_owned());
                off_the_runtime(store, move |store| store.restore(&caller, &locator)).await
            }
            Store::Postgres(store) => store.restore(caller, locator).await,
        }
    }
}

/// A SQLite write, which waits for the file's lock and its fsync, on a
/// blocking thread, off the runtime's workers.
async fn off_the_runtime<T: Send + 'static>(
    store: &Arc<Sqlite>,
    job: impl FnOnce(&Sqlite) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let store = Arc::clone(store);
    tokio::task::spawn_blocking(move || job(&store))
        .await
        .map_err(|e| StoreError::Invalid(format!("store task failed: {e}")))?
}

/// `at` as RFC 3339 in UTC with milliseconds, `2026-08-23T12:34:56.000Z`
/// (a time before 1970 as 1970's first instant): how the store writes
/// `archivedAt`.
pub fn timestamp(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (year, month, day) = civil_date(seconds / 86_400);
    let of_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days from the epoch on).
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Days from 0000-03-01, in eras of 400 years (146,097 days).
    let days = days + 719_468;
    let era = days / 146_097;
    let of_era = days % 146_097;
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March, so that February's length comes last.
    let shifted_month = (5 * of_year + 2) / 153;
    let day = of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// A stored brief (compact JSON, as create stored it) as a document's.
fn brief_of(stored: Option<&str>) -> Result<Option<Brief>, StoreError> {
    stored
        .map(|json| {
            serde_json::from_str(json)
                .map_err(|_| StoreError::Invalid("a stored brief does not parse".to_owned()))
        })
        .transpose()
}

fn revised(document: Document) -> Revised {
    let url = format!("/documents/{}", document.id);
    Revised { document, url }
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
