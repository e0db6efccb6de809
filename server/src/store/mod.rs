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
//! - a read, an update, an archive and a restore (LIFECYCLE.md §2, §4;
//!   SURFACE.md §3) name their document by id or canonical URL
//!   ([`document_id`]); a rename by its id only (SURFACE.md §6); a caller
//!   without a grant on its repository gets `Unavailable`, as for a missing
//!   one. An update is a compare-and-set of the revision, keyed by caller +
//!   idempotency key among updates (an applied update records its key, and
//!   so does a no-op one, whose plan equals the stored one: it stores no
//!   revision; a replay answers the document as that update left it);
//!   every replaced plan and title stays in the store (`plan_history`,
//!   `title_history`); archived documents are out of lists unless asked
//!   for, and are read, with their `archivedAt` (SURFACE.md §2, §3);
//! - an image is kept once per repository and digest, linked to each
//!   document it was uploaded to, and read by a caller who may see one of
//!   those documents;
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
//!
//! How it is laid out: this file is the contract ([`Store`]'s operations,
//! each named once in `contract!`), the error type and the choice of
//! engine. What an operation takes and answers is its tool family's file
//! here (`documents.rs` for list and read, `create.rs`, `update.rs`,
//! `lifecycle.rs` for rename, archive and restore, `tokens.rs`,
//! `setup.rs`); each engine has one file per family of its own
//! (`sqlite/read.rs`, `postgres/read.rs`, …). A new tool family is a file
//! in each engine and one entry in the contract.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use chopin_mcp::{Document, DocumentSummary};

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

mod create;
mod documents;
mod images;
mod implementations;
mod lifecycle;
mod limits;
mod locator;
mod planner;
pub mod postgres;
mod setup;
mod sqlite;
mod tokens;
mod update;

pub use create::{CreateOutcome, Created, Draft};
pub use documents::Listing;
pub use images::{ImageOutcome, NewImage, StoredImage, quota_bytes};
pub use implementations::{
    Broken, ClaimOutcome, Claimant, GraphDraft, GraphOutcome, Loaded, ReportOutcome, Reported,
    StoredRun,
};
pub use lifecycle::{ArchiveOutcome, RenameOutcome, RestoreOutcome, timestamp};
pub use limits::{DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT, Limits, UNBOUNDED_REQUEST};
pub use locator::document_id;
pub use planner::{InvokeOutcome, NewTurn, TurnEnd, UNFINISHED};
pub use postgres::{Postgres, tls};
pub use setup::{ALL_REPOSITORIES, FirstToken, Imported, SCHEMA_VERSION, Setup, Started};
pub use sqlite::Sqlite;
pub use tokens::{TokenAdded, token_digest};
pub use update::{Revised, Update, UpdateOutcome};

pub(crate) use documents::{revision_of, url_of, write_url};
pub(crate) use tokens::push_hex;

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
}

/// The contract: declares each operation of [`Store`] once, with its
/// arguments and what it answers, and makes it a method of [`Store`] that
/// runs it on the store's engine. Each engine has a method of the same name
/// and arguments: [`Postgres`]'s is async; [`Sqlite`]'s async form is
/// `sqlite::OnRuntime`'s (a read inline, a write on a blocking thread),
/// beside the blocking one the blocking server calls.
macro_rules! contract {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($($arg:ident: $type:ty),*) -> $answer:ty;
    )*) => {
        impl Store {
            $(
                $(#[$doc])*
                pub async fn $name(&self, $($arg: $type),*) -> Result<$answer, StoreError> {
                    match self {
                        Store::Sqlite(store) => sqlite::OnRuntime(store).$name($($arg),*).await,
                        Store::Postgres(store) => store.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

contract! {
    // The set-up (`setup.rs`).

    /// Sets up or checks the schema and applies `setup`, in one transaction.
    fn setup(setup: &Setup) -> Started;

    // Reads (`documents.rs`).

    /// Whether the database answers a trivial query that reads the schema
    /// (for `/readyz`).
    fn ready() -> ();

    /// The live documents of `repository` (with `include_archived`, the
    /// archived ones too, with their `archived_at`), ordered by title then
    /// id (byte-wise), or [`Listing::Forbidden`] when `caller` has no grant
    /// for it.
    fn list(caller: &str, repository: &str, include_archived: bool) -> Listing<Vec<DocumentSummary>>;

    /// The document `locator` names ([`document_id`]), when it exists and
    /// `caller` may see it, with the brief it was created with (none when
    /// it was imported), its `archived_at` when archived, and its `url`
    /// (`/documents/<id>`). A missing or forbidden document gives `None`.
    fn read(caller: &str, locator: &str) -> Option<Document>;

    // Creates (`create.rs`).

    /// Creates a document with the fresh id `id`, or replays the caller's
    /// earlier creation under the same idempotency key. Returns only once
    /// a new document is committed.
    fn create(caller: &str, id: &str, draft: &Draft) -> CreateOutcome;

    // Updates (`update.rs`).

    /// Stores `update.plan` as the next revision of the document
    /// `update.locator` names, if it is still at `update.revision`, or
    /// replays the caller's earlier update under the same idempotency key
    /// (LIFECYCLE.md §2). Returns only once an update is committed.
    fn update(caller: &str, update: &Update) -> UpdateOutcome;

    // Renames, archives and restores (`lifecycle.rs`).

    /// Gives the document `id` (an id only: a URL names none) the title
    /// `title` (the last rename wins; the replaced title is kept).
    fn rename(caller: &str, id: &str, title: &str) -> RenameOutcome;

    /// Archives the document `locator` names, as of `now` (the host's
    /// clock); one already archived keeps its time.
    fn archive(caller: &str, locator: &str, now: SystemTime) -> ArchiveOutcome;

    /// Restores the document `locator` names (a live one stays live).
    fn restore(caller: &str, locator: &str) -> RestoreOutcome;

    // Implementation runs (`implementations.rs`).

    /// `graph draft`: stores a draft (a new version, or the latest draft's
    /// next revision), recording the document's provenance if it had
    /// none, in one transaction.
    fn graph_draft(asked: &GraphDraft) -> GraphOutcome;

    /// `graph approve`: approves the latest version, a draft at exactly
    /// (`number`, `revision`), superseding the one approved before.
    fn graph_approve(locator: &str, number: u64, revision: u64, by: &str) -> GraphOutcome;

    /// Every implementation row of the document `locator` names, archived
    /// or not, for the operator (`graph show`, `runs show`); no grant
    /// checked.
    fn implementation_rows(locator: &str) -> Option<Loaded>;

    /// `runs check`: how many runs are stored, and every one whose log no
    /// longer folds.
    fn runs_check() -> (usize, Vec<Broken>);

    /// `read_implementation`: the document's rows when `caller` may see it,
    /// it has provenance and its latest version is approved or locked
    /// (archived too); else `None`.
    fn read_implementation(caller: &str, locator: &str) -> Option<Loaded>;

    /// `start_implementation`: claims the document's approved graph under
    /// its lock (§2.4's order), or answers the active run.
    fn claim(caller: &str, asked: &Claimant) -> ClaimOutcome;

    /// A lifecycle call: records its event exactly once per key (§1.2's
    /// order), ending the run and unlocking its version when due.
    fn report(caller: &str, asked: &Reported) -> ReportOutcome;

    // The planner's turns (`planner.rs`).

    /// Records `turn` as `queued` for the document its locator names, if
    /// the caller may see it, it is live and `turn.admitted`; else says
    /// which of those it is not (in that order), writing nothing.
    fn invoke(turn: &NewTurn) -> InvokeOutcome;

    /// Marks turn `turn` `running`, with the time.
    fn start_turn(turn: i64) -> ();

    /// Records how turn `turn` ended, with the time (also over a turn
    /// marked `interrupted` meanwhile: what happened wins).
    fn finish_turn(turn: i64, end: &TurnEnd) -> ();

    /// Marks every turn `server` left `queued` or `running` as
    /// `interrupted`; how many there were.
    fn interrupt_turns(server: &str) -> usize;
    // Images (`images.rs`).

    /// Keeps `image` for the repository of the document `locator` names
    /// (one copy per repository and digest) and links it to the document, in
    /// one transaction: none the caller may see → `Unavailable`; archived →
    /// `Archived`; a new image that would bring the repository's images past
    /// `quota` bytes → `QuotaExceeded`; else `Stored`.
    fn store_image(caller: &str, locator: &str, image: &NewImage, quota: i64) -> ImageOutcome;

    /// The image with digest `sha256` (lowercase hex), when it is linked to a
    /// document `caller` may see (archived too).
    fn read_image(caller: &str, sha256: &str) -> Option<StoredImage>;

    // Tokens (`tokens.rs`).

    /// Stores `token`'s digest for `caller`, in a database a server has set
    /// up, and says what the caller may reach. A running server reads its
    /// tokens when it starts.
    fn add_token(token: &str, caller: &str) -> TokenAdded;

    /// Removes every stored token of `caller`; how many there were.
    fn revoke_tokens(caller: &str) -> usize;

    /// `(digest, caller)` of every stored token, by caller then digest.
    fn stored_tokens() -> Vec<(String, String)>;
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
