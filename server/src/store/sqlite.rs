//! The SQLite engine: one database file in WAL mode with `synchronous=FULL`
//! (a document whose creation was answered survives a `kill -9` or a power
//! cut), or a private in-memory database of the same shape.
//!
//! Connections: one writer, behind a mutex, for creates and the set-up; and a
//! few readers for list and read. A reader never waits for the writer: WAL
//! lets readers see the last commit while a write (and its fsync) is under
//! way, and the readers are never lent to a create. An in-memory database is
//! the same: WAL on files and a WAL index in this process's memory
//! ([`memory`]), so its reads never wait for each other nor for a create
//! either, and nothing is written to disk.
//!
//! Several processes may share one file (on one machine): each create is one
//! `BEGIN IMMEDIATE` transaction, so two racing creates of one key cannot
//! both miss the lookup and both insert. A connection waits for another
//! process's lock at most `--db-statement-timeout` (SQLite's busy timeout;
//! 0: without limit), then the request fails as busy (503); the start-up
//! set-up waits without limit.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use chopin_mcp::{Document, DocumentSummary, DocumentSummaryRef};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

/// The current time in SQL as the history records it (RFC 3339 UTC with
/// milliseconds, as `archived_at` is written), for `concat!`: the
/// statements that record it stay constant text.
macro_rules! now {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    };
}

mod handle;
mod lifecycle;
mod memory;
mod schema;
mod tokens;

use handle::Handle;

use super::Database;
use super::{
    CreateOutcome, Draft, Limits, Listing, SCHEMA_VERSION, Setup, Started, StoreError, created,
    revision_of, stored_revision, token_digest,
};

/// The readiness query: it reads the schema, so a database that lost its
/// tables is not ready.
const READY: &str = "SELECT count(*) FROM tokens";

/// Reader connections per database, at least: more than the runtime's
/// workers (one per core), so each worker has a connection of its own.
const READERS: usize = 4;

/// `list`: the live summaries of repository ?2 that `caller` (?1) may see.
/// SQLite compares TEXT with BINARY collation: byte-wise.
///
/// The grant depends on the repository alone, so it is checked once, as
/// the index seek's key: `repository = CASE WHEN granted THEN ?2 END` seeks
/// `NULL` (no rows) without a grant. As a condition beside the seek, SQLite
/// evaluates it (cached, but still five opcodes) for every row. And it is
/// two lookups of the `grants` key (`*`, then the repository), not one with
/// `repository = '*' OR repository = ...`: SQLite runs that OR as an `IN`
/// over an ephemeral table, created, filled and dropped by every statement
/// (two zeroed pages: about 25,000 instructions of a read's 31,000 in
/// SQLite, `benches/history/host-floor.md`).
///
/// `archived_at IS NULL` is the seek's second key (the index is
/// `(repository, archived_at, title, id)`): the live documents, in title and
/// id order, from the index alone. A list that finds nothing asks [`GRANTED`]
/// whether the repository is empty or forbidden: a second statement for
/// empty answers only.
///
/// [`Sqlite::list`] runs it through rusqlite; [`Sqlite::list_summaries`]
/// (what the servers answer with) steps it through SQLite's C interface,
/// prepared once per connection ([`handle`]).
const LIST: &str = "SELECT d.id, d.title FROM documents d
    WHERE d.repository = CASE
      WHEN EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = ?2)
      THEN ?2 END
      AND d.archived_at IS NULL
    ORDER BY d.title, d.id";

/// Whether `caller` (?1) has a grant for repository ?2.
const GRANTED: &str =
    "SELECT EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
    OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = ?2)";

/// `read`: document ?2 if it is live and `caller` (?1) may see it (the
/// grant's two lookups as in [`LIST`]), with its brief: the one it was
/// created with, none for an imported document (whose `brief` column holds
/// the schema's default). Constant text, so each connection prepares it once
/// (`prepare_cached`).
const READ: &str = "SELECT d.id, d.title, d.source, d.revision,
      CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END
    FROM documents d
    WHERE d.id = ?2 AND d.archived_at IS NULL
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))";

/// `create`'s replay: the creation that holds caller ?1's key ?2, as it was
/// created (LIFECYCLE.md §6): revision 0, its first title (the oldest
/// replaced one, else the current) and the plan of revision 0 (the oldest
/// kept, else the current); its fingerprint and brief.
const AS_CREATED: &str = "SELECT d.id,
      coalesce((SELECT t.title FROM title_history t WHERE t.document_id = d.id
        ORDER BY t.seq LIMIT 1), d.title),
      coalesce((SELECT p.source FROM plan_history p WHERE p.document_id = d.id
        AND p.revision = 0 ORDER BY p.seq LIMIT 1), d.source),
      d.fingerprint, d.brief
    FROM documents d WHERE d.created_by = ?1 AND d.idempotency_key = ?2";

/// How long a connection waits for another's lock when there is to be no
/// limit: SQLite takes milliseconds as a C int (about 24 days).
const NO_LIMIT: Duration = Duration::from_millis(i32::MAX as u64);

/// A SQLite database: a writer connection and reader connections.
pub struct Sqlite {
    writer: Mutex<Handle>,
    readers: Readers,
    /// SQLite's busy timeout for requests.
    busy: Duration,
}

/// `--db-statement-timeout` as SQLite's busy timeout: zero means no limit
/// (SQLite's own zero would fail at once).
fn busy_timeout(limits: &Limits) -> Duration {
    if limits.statement_timeout.is_zero() {
        NO_LIMIT
    } else {
        limits.statement_timeout
    }
}

impl Sqlite {
    /// Opens (creating if needed) the database file at `path`, with the
    /// default [`Limits`].
    pub fn open(path: &Path) -> Result<Sqlite, StoreError> {
        Sqlite::open_with(path, Limits::default())
    }

    /// Opens (creating if needed) the database file at `path`.
    pub fn open_with(path: &Path, limits: Limits) -> Result<Sqlite, StoreError> {
        Sqlite::connect(|| Connection::open(path), limits)
    }

    /// A private in-memory database (gone when the store is dropped): its
    /// own name in the in-memory VFS, so no other store sees it.
    pub fn memory() -> Result<Sqlite, StoreError> {
        let name = memory::database_name()?;
        // "Multi-thread" mode, as `Connection::open` opens the file's
        // connections: each connection is used by one thread at a time.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Sqlite::connect(
            || Connection::open_with_flags_and_vfs(&name, flags, memory::VFS),
            Limits::default(),
        )
    }

    /// The writer, then the readers, each from `open`, on one database.
    fn connect(
        open: impl Fn() -> rusqlite::Result<Connection>,
        limits: Limits,
    ) -> Result<Sqlite, StoreError> {
        let busy = busy_timeout(&limits);
        let writer = open()?;
        writer.busy_timeout(busy)?;
        // WAL lets readers run beside the one writer; FULL syncs the WAL on
        // every commit, which is what makes a created document durable.
        let mode: String =
            writer.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Invalid(format!(
                "SQLite kept journal_mode={mode}, not WAL: readers would wait for the writer"
            )));
        }
        // Deleted content (a replaced grant, a migrated plain token) is
        // overwritten, not left in free pages.
        writer.pragma_update(None, "secure_delete", "ON")?;
        let writer = prepare(writer, busy)?;
        let count = std::thread::available_parallelism()
            .map_or(READERS, |cores| cores.get() + 2)
            .max(READERS);
        let mut readers = Vec::with_capacity(count);
        for _ in 0..count {
            let reader = prepare(open()?, busy)?;
            reader.pragma_update(None, "query_only", "ON")?;
            readers.push(reader);
        }
        Ok(Sqlite {
            writer: Mutex::new(Handle::new(writer)),
            readers: Readers::new(readers),
            busy,
        })
    }

    /// [`Sqlite::open`] or [`Sqlite::memory`] with the default [`Limits`];
    /// PostgreSQL is not SQLite.
    pub fn open_database(database: &Database) -> Result<Sqlite, StoreError> {
        Sqlite::open_database_with(database, Limits::default())
    }

    /// [`Sqlite::open_with`] or [`Sqlite::memory`]; PostgreSQL is not SQLite.
    pub fn open_database_with(database: &Database, limits: Limits) -> Result<Sqlite, StoreError> {
        match database {
            Database::File(path) => Sqlite::open_with(path, limits),
            Database::Memory => Sqlite::memory(),
            Database::Postgres(_) => Err(StoreError::Invalid(
                "a postgres:// database is not a SQLite file".to_owned(),
            )),
        }
    }

    fn writer(&self) -> MutexGuard<'_, Handle> {
        // A poisoned lock only means a job panicked; the connection itself
        // is sound (its transaction rolled back when dropped).
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on a reader connection.
    fn reading<T>(&self, job: impl FnOnce(&mut Handle) -> T) -> T {
        self.readers.with(job)
    }

    /// Sets up or migrates the schema and applies `setup`, in one
    /// `BEGIN IMMEDIATE` transaction (so replicas starting at once on one
    /// file take turns).
    pub fn setup(&self, setup: &Setup) -> Result<Started, StoreError> {
        let mut conn = self.writer();
        // The set-up waits for other processes' locks without limit (as
        // PostgreSQL's set-up has no statement timeout), then requests
        // wait their busy timeout again.
        conn.busy_timeout(NO_LIMIT)?;
        let started = Sqlite::setup_on(&mut conn, setup);
        conn.busy_timeout(self.busy)?;
        started
    }

    fn setup_on(conn: &mut Connection, setup: &Setup) -> Result<Started, StoreError> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found_version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if found_version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found: found_version,
            });
        }
        let had_documents: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents')",
            [],
            |row| row.get(0),
        )?;
        let mut tokens_migrated = 0;
        if found_version < SCHEMA_VERSION {
            tokens_migrated = schema::migrate(&tx, found_version)?;
        }
        let new_database = !had_documents;
        if new_database {
            import(&tx, &setup.samples)?;
        }
        let mut first_token_stored = false;
        if let Some(first) = &setup.first_token {
            let none: bool =
                tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM tokens)", [], |row| {
                    row.get(0)
                })?;
            if none {
                tx.execute(
                    "INSERT INTO tokens (token_sha256, caller) VALUES (?1, ?2)",
                    params![token_digest(&first.token), first.caller],
                )?;
                set_grants(&tx, &first.caller, &first.repositories)?;
                first_token_stored = true;
            }
        }
        for (caller, repositories) in &setup.grants {
            set_grants(&tx, caller, repositories)?;
        }
        import(&tx, &setup.import)?;
        let tokens = tokens::token_rows(&tx)?;
        tx.commit()?;
        if tokens_migrated > 0 {
            // The plain tokens' pages were zeroed (secure_delete) in the WAL;
            // write them into the file and empty the WAL.
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(Started {
            found_version,
            new_database,
            first_token_stored,
            tokens_migrated,
            tokens,
        })
    }

    /// See [`super::Store::list`].
    pub fn list(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        self.reading(|conn| {
            let mut statement = conn.prepare_cached(LIST)?;
            let rows = statement.query_map(params![caller, repository], |row| {
                Ok(DocumentSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                })
            })?;
            let documents: Vec<DocumentSummary> = rows.collect::<Result<_, _>>()?;
            let empty = documents.is_empty();
            listing(conn, caller, repository, documents, empty)
        })
    }

    /// [`Sqlite::list`] into one buffer: the summaries' text read from each
    /// row as it comes (no `String` per field), for answering with
    /// `Summaries::borrowed`.
    pub fn list_summaries(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Listing<Summaries>, StoreError> {
        self.reading(|conn| {
            let mut text = Vec::with_capacity(4096);
            let mut ends = Vec::with_capacity(128);
            conn.list_into([caller, repository], &mut text, &mut ends)?;
            // UTF-8 checked once for the whole buffer, and each field's
            // end checked to be a character boundary: every field is then
            // UTF-8 (a character split between a title and the next id is
            // caught at the title's end).
            let invalid = || StoreError::Invalid("a stored summary is not UTF-8".to_owned());
            let text = String::from_utf8(text).map_err(|_| invalid())?;
            if !ends.iter().all(|&(id_end, title_end)| {
                text.is_char_boundary(id_end) && text.is_char_boundary(title_end)
            }) {
                return Err(invalid());
            }
            let empty = ends.is_empty();
            listing(conn, caller, repository, Summaries { text, ends }, empty)
        })
    }

    /// See [`super::Store::read`].
    pub fn read(&self, caller: &str, id: &str) -> Result<Option<Document>, StoreError> {
        self.reading(|conn| {
            let mut statement = conn.prepare_cached(READ)?;
            Ok(statement
                .query_row(params![caller, id], document_row)
                .optional()?)
        })
    }

    /// [`Sqlite::read`] into `document`, reusing its buffers: `true` with
    /// the document there, `false` (and `document` untouched) when it is
    /// missing, archived or the caller may not see it. Stepped through
    /// SQLite's C interface (`handle`); the same answers and failures as
    /// [`Sqlite::read`].
    pub fn read_into(
        &self,
        caller: &str,
        id: &str,
        document: &mut Document,
    ) -> Result<bool, StoreError> {
        self.reading(|conn| Ok(conn.read_into([caller, id], document)?))
    }

    /// See [`super::Store::ready`]: one trivial query on a reader connection.
    pub fn ready(&self) -> Result<(), StoreError> {
        self.reading(|conn| {
            conn.prepare_cached(READY)?.query_row([], |_| Ok(()))?;
            Ok(())
        })
    }

    /// Test hook, not for servers: runs `inside` on a reader connection
    /// in an open read transaction (its snapshot taken), as a list or a read
    /// holds one while it steps; then ends it.
    #[doc(hidden)]
    pub fn in_read_transaction<T>(&self, inside: impl FnOnce() -> T) -> Result<T, StoreError> {
        self.reading(|conn| {
            let tx = conn.transaction()?;
            tx.query_row("SELECT count(*) FROM documents", [], |_| Ok(()))?;
            let answer = inside();
            tx.commit()?;
            Ok(answer)
        })
    }

    /// See [`super::Store::create`]. Blocks for the commit's fsync.
    pub fn create(
        &self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        self.create_before_commit(caller, id, draft, || {})
    }

    /// Test hook, not for servers: [`Sqlite::create`], running
    /// `before_commit` inside its transaction, holding the writer, once a
    /// new document is inserted and before it is committed.
    #[doc(hidden)]
    pub fn create_before_commit(
        &self,
        caller: &str,
        id: &str,
        draft: &Draft,
        before_commit: impl FnOnce(),
    ) -> Result<CreateOutcome, StoreError> {
        let mut conn = self.writer();
        // IMMEDIATE takes the write lock up front, so two racing retries of
        // one key (from another process on this file) cannot both miss the
        // lookup and both insert.
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let granted: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM grants WHERE caller = ?1
               AND (repository = '*' OR repository = ?2))",
            params![caller, draft.repository],
            |row| row.get(0),
        )?;
        if !granted {
            return Ok(CreateOutcome::Forbidden);
        }
        let earlier = tx
            .query_row(AS_CREATED, params![caller, draft.idempotency_key], |row| {
                let document = Document {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    brief: None,
                    source: row.get(2)?,
                    revision: 0,
                };
                Ok((document, row.get::<_, String>(3)?, row.get(4)?))
            })
            .optional()?;
        if let Some((document, fingerprint, brief)) = earlier {
            if fingerprint != draft.fingerprint {
                return Ok(CreateOutcome::Conflict);
            }
            return Ok(CreateOutcome::Replayed(created(document, brief)));
        }
        tx.execute(
            "INSERT INTO documents (id, repository, title, source, revision,
               created_by, idempotency_key, fingerprint, brief)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8)",
            params![
                id,
                draft.repository,
                draft.title,
                draft.source,
                caller,
                draft.idempotency_key,
                draft.fingerprint,
                draft.brief
            ],
        )?;
        before_commit();
        tx.commit()?;
        let document = Document {
            id: id.to_owned(),
            title: draft.title.clone(),
            brief: None,
            source: draft.source.clone(),
            revision: 0,
        };
        Ok(CreateOutcome::New(created(document, draft.brief.clone())))
    }
}

fn prepare(conn: Connection, busy: Duration) -> Result<Connection, StoreError> {
    // Replicas writing at once wait for each other (up to `busy`) instead
    // of failing with SQLITE_BUSY at once. Set first: the pragmas below may
    // meet another process's lock.
    conn.busy_timeout(busy)?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

fn set_grants(
    tx: &rusqlite::Transaction<'_>,
    caller: &str,
    repositories: &[String],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM grants WHERE caller = ?1", [caller])?;
    for repository in repositories {
        tx.execute(
            "INSERT OR IGNORE INTO grants (caller, repository) VALUES (?1, ?2)",
            params![caller, repository],
        )?;
    }
    Ok(())
}

fn import(tx: &rusqlite::Transaction<'_>, documents: &[super::Imported]) -> Result<(), StoreError> {
    for doc in documents {
        let revision = stored_revision(doc)?;
        // What an import replaces is kept, as what a write replaces.
        tx.execute(
            concat!(
                "INSERT INTO plan_history (document_id, revision, source, replaced_at)
                 SELECT id, revision, source, ",
                now!(),
                " FROM documents WHERE id = ?1 AND (source <> ?2 OR revision <> ?3)"
            ),
            params![doc.id, doc.source, revision],
        )?;
        tx.execute(
            concat!(
                "INSERT INTO title_history (document_id, title, replaced_at)
                 SELECT id, title, ",
                now!(),
                " FROM documents WHERE id = ?1 AND title <> ?2"
            ),
            params![doc.id, doc.title],
        )?;
        tx.execute(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            params![doc.id, doc.repository, doc.title, doc.source, revision],
        )?;
    }
    Ok(())
}

/// A list's summaries as one text buffer: each id then its title, and where
/// each of them ends.
#[derive(Debug, Default)]
pub struct Summaries {
    text: String,
    /// Per summary, the end of its id and the end of its title in `text`.
    ends: Vec<(usize, usize)>,
}

impl Summaries {
    /// The summaries, in order, borrowed from the buffer.
    pub fn borrowed(&self) -> Vec<DocumentSummaryRef<'_>> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&(id_end, title_end)| {
                let summary = DocumentSummaryRef {
                    id: &self.text[start..id_end],
                    title: &self.text[id_end..title_end],
                };
                start = title_end;
                summary
            })
            .collect()
    }
}

/// A [`READ`] row.
fn document_row(row: &rusqlite::Row<'_>) -> Result<Document, rusqlite::Error> {
    let brief: Option<String> = row.get(4)?;
    Ok(Document {
        id: row.get(0)?,
        title: row.get(1)?,
        brief: brief
            .map(|json| serde_json::from_str(&json))
            .transpose()
            .map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    4,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?,
        source: row.get(2)?,
        revision: revision_of(row.get(3)?),
    })
}

/// A list's `found` as its answer: an `empty` one may be of a repository
/// the caller has no grant for ([`GRANTED`]).
fn listing<T>(
    conn: &Connection,
    caller: &str,
    repository: &str,
    found: T,
    empty: bool,
) -> Result<Listing<T>, StoreError> {
    if !empty {
        return Ok(Listing::Listed(found));
    }
    let granted: bool = conn
        .prepare_cached(GRANTED)?
        .query_row(params![caller, repository], |row| row.get(0))?;
    Ok(if granted {
        Listing::Listed(found)
    } else {
        Listing::Forbidden
    })
}

/// The reader connections, each behind its own mutex. Every thread has a
/// home slot (threads numbered in the order they first read, modulo the
/// count): the runtime's workers, fewer than the readers, each find their own
/// connection free and lock it without contention (one atomic, no shared
/// pool lock, no wake-up). A thread whose home is taken (more threads than
/// readers, as in the blocking server) tries the others, then waits for its
/// home. The writer is never among them, so no read waits behind a create.
struct Readers {
    slots: Box<[Mutex<Handle>]>,
}

impl Readers {
    fn new(connections: Vec<Connection>) -> Readers {
        Readers {
            slots: connections
                .into_iter()
                .map(|conn| Mutex::new(Handle::new(conn)))
                .collect(),
        }
    }

    /// Runs `job` on a reader, waiting for one to be free.
    fn with<T>(&self, job: impl FnOnce(&mut Handle) -> T) -> T {
        use std::sync::TryLockError;
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        thread_local! {
            static HOME: usize = NEXT.fetch_add(1, Ordering::Relaxed);
        }
        let count = self.slots.len();
        let home = HOME.with(|home| *home) % count;
        for step in 0..count {
            match self.slots[(home + step) % count].try_lock() {
                Ok(mut conn) => return job(&mut conn),
                Err(TryLockError::Poisoned(e)) => return job(&mut e.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        // A poisoned lock only means a job panicked; the connection is sound.
        let mut conn = self.slots[home].lock().unwrap_or_else(|e| e.into_inner());
        job(&mut conn)
    }
}
