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
//!
//! One file per tool family: `read.rs` (list, read, readiness), `create.rs`,
//! `update.rs`, `lifecycle.rs` (rename, archive, restore), `tokens.rs`,
//! `setup.rs` and `schema.rs` (the set-up and the tables it makes). Each
//! also gives its operations to [`OnRuntime`], the engine as the async
//! server's [`Store`](super::Store) runs it.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// The current time in SQL as the history records it (RFC 3339 UTC with
/// milliseconds, as `archived_at` is written), for `concat!`: the
/// statements that record it stay constant text.
macro_rules! now {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    };
}

mod create;
mod handle;
mod images;
mod implementations;
mod lifecycle;
mod memory;
mod planner;
mod read;
mod schema;
mod setup;
mod tokens;
mod update;

use handle::Handle;

use super::{Database, Limits, StoreError};

/// Reader connections per database, at least: more than the runtime's
/// workers (one per core), so each worker has a connection of its own.
const READERS: usize = 4;

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

/// The SQLite engine as [`Store`](super::Store) runs it on the async
/// server: a read (one indexed SELECT on a reader connection), the set-up
/// and the token commands inline, on the calling task; a write (a create,
/// an update, a rename, an archive, a restore) off the runtime
/// ([`OnRuntime::blocking`]). Each family's file gives it that family's
/// operations, by the names and arguments of the contract (`store/mod.rs`).
#[derive(Clone, Copy)]
pub(super) struct OnRuntime<'a>(pub(super) &'a Arc<Sqlite>);

impl OnRuntime<'_> {
    /// A SQLite write, which waits for the file's lock and its fsync, on a
    /// blocking thread, off the runtime's workers.
    async fn blocking<T: Send + 'static>(
        self,
        job: impl FnOnce(&Sqlite) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = Arc::clone(self.0);
        tokio::task::spawn_blocking(move || job(&store))
            .await
            .map_err(|e| StoreError::Invalid(format!("store task failed: {e}")))?
    }
}
