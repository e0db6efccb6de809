//! The servers' document store: one SQLite database holding documents,
//! access tokens and grants.
//!
//! Every operation is one statement or one transaction, so several server
//! processes (replicas) can share one database file. The file runs in WAL
//! mode with `synchronous=FULL`: a document whose creation was answered
//! survives a `kill -9` or a power cut.

use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use chopin_mcp::{Document, DocumentSummary};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

pub use rusqlite::Error as StoreError;

/// The grant that opens every repository.
pub const ALL_REPOSITORIES: &str = "*";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS documents (
    id              TEXT PRIMARY KEY,
    repository      TEXT NOT NULL,
    title           TEXT NOT NULL,
    source          TEXT NOT NULL,
    revision        INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_by      TEXT,
    idempotency_key TEXT,
    fingerprint     TEXT,
    brief           TEXT NOT NULL DEFAULT '{}',
    UNIQUE (created_by, idempotency_key)
);
CREATE INDEX IF NOT EXISTS documents_in_repository ON documents (repository, title, id);
CREATE TABLE IF NOT EXISTS tokens (
    token  TEXT PRIMARY KEY,
    caller TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    caller     TEXT NOT NULL,
    repository TEXT NOT NULL,
    PRIMARY KEY (caller, repository)
);
";

/// The condition under which `caller` (?1) may see a document row `d`.
const GRANTED: &str = "EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1
    AND (g.repository = '*' OR g.repository = d.repository))";

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

/// One connection to the database.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if needed) the database file at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        // WAL lets readers run beside the one writer; FULL syncs the WAL on
        // every commit, which is what makes a created document durable.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        Store::prepare(conn)
    }

    /// A private in-memory database (gone when the connection closes).
    pub fn memory() -> Result<Store, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        Store::prepare(Connection::open_in_memory_with_flags(flags)?)
    }

    fn prepare(conn: Connection) -> Result<Store, StoreError> {
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Replicas or pooled connections writing at once wait for each other
        // instead of failing with SQLITE_BUSY.
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(Store { conn })
    }

    /// Whether the database holds no token yet: a first run.
    pub fn is_fresh(&self) -> Result<bool, StoreError> {
        let tokens: i64 = self
            .conn
            .query_row("SELECT count(*) FROM tokens", [], |row| row.get(0))?;
        Ok(tokens == 0)
    }

    /// Every stored token and its caller.
    pub fn tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement = self
            .conn
            .prepare_cached("SELECT token, caller FROM tokens ORDER BY caller, token")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect()
    }

    pub fn add_token(&self, token: &str, caller: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT OR REPLACE INTO tokens (token, caller) VALUES (?1, ?2)",
            params![token, caller],
        )?;
        Ok(())
    }

    /// Replaces `caller`'s grants with `repositories` (`owner/name`, or `*`
    /// for all), in one transaction.
    pub fn set_grants(&mut self, caller: &str, repositories: &[String]) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM grants WHERE caller = ?1", [caller])?;
        for repository in repositories {
            tx.execute(
                "INSERT OR IGNORE INTO grants (caller, repository) VALUES (?1, ?2)",
                params![caller, repository],
            )?;
        }
        tx.commit()
    }

    /// Inserts or replaces these documents, all or none.
    pub fn import(&mut self, documents: &[Imported]) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        for doc in documents {
            let revision = i64::try_from(doc.revision)
                .map_err(|_| StoreError::IntegralValueOutOfRange(4, i64::MAX))?;
            tx.execute(
                "INSERT INTO documents (id, repository, title, source, revision)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
                   title = excluded.title, source = excluded.source,
                   revision = excluded.revision",
                params![doc.id, doc.repository, doc.title, doc.source, revision],
            )?;
        }
        tx.commit()
    }

    /// The documents of `repository`, ordered by title then id, or none when
    /// `caller` has no grant for it.
    pub fn list(&self, caller: &str, repository: &str) -> Result<Vec<DocumentSummary>, StoreError> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT d.id, d.title FROM documents d
             WHERE d.repository = ?2 AND {GRANTED} ORDER BY d.title, d.id"
        ))?;
        let rows = statement.query_map(params![caller, repository], |row| {
            Ok(DocumentSummary {
                id: row.get(0)?,
                title: row.get(1)?,
            })
        })?;
        rows.collect()
    }

    /// The document `id`, when it exists and `caller` may see it. A missing
    /// document and a forbidden one both give `None`.
    pub fn read(&self, caller: &str, id: &str) -> Result<Option<Document>, StoreError> {
        let mut statement = self.conn.prepare_cached(&format!(
            "SELECT d.id, d.title, d.source, d.revision FROM documents d
             WHERE d.id = ?2 AND {GRANTED}"
        ))?;
        statement
            .query_row(params![caller, id], document_row)
            .optional()
    }

    /// Creates a document with the fresh id `id`, or replays the caller's
    /// earlier creation under the same idempotency key, in one transaction.
    pub fn create(
        &mut self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        // IMMEDIATE takes the write lock up front, so two racing retries of
        // one key cannot both miss the lookup and both insert.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
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
            .query_row(
                "SELECT d.id, d.title, d.source, d.revision, d.fingerprint, d.brief
                 FROM documents d WHERE d.created_by = ?1 AND d.idempotency_key = ?2",
                params![caller, draft.idempotency_key],
                |row| Ok((document_row(row)?, row.get::<_, String>(4)?, row.get(5)?)),
            )
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
        tx.commit()?;
        let document = Document {
            id: id.to_owned(),
            title: draft.title.clone(),
            source: draft.source.clone(),
            revision: 0,
        };
        Ok(CreateOutcome::New(created(document, draft.brief.clone())))
    }
}

fn document_row(row: &rusqlite::Row<'_>) -> Result<Document, StoreError> {
    let revision: i64 = row.get(3)?;
    Ok(Document {
        id: row.get(0)?,
        title: row.get(1)?,
        source: row.get(2)?,
        // The CHECK constraint keeps revisions non-negative.
        revision: u64::try_from(revision).unwrap_or_default(),
    })
}

fn created(document: Document, brief: String) -> Created {
    let url = format!("/documents/{}", document.id);
    Created {
        document,
        brief,
        url,
    }
}

/// A fixed set of connections handed out one at a time, so that threads (or
/// `spawn_blocking` tasks) never share a connection and never open one per
/// request.
pub struct Pool {
    idle: Mutex<Vec<Store>>,
    returned: Condvar,
}

impl Pool {
    pub fn new(stores: Vec<Store>) -> Pool {
        Pool {
            idle: Mutex::new(stores),
            returned: Condvar::new(),
        }
    }

    /// Runs `job` on a connection, waiting for one to be free.
    pub fn with<T>(&self, job: impl FnOnce(&mut Store) -> T) -> T {
        let mut store = {
            // A poisoned lock only means another job panicked; the list of
            // idle connections itself is still sound.
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(store) = idle.pop() {
                    break store;
                }
                idle = self.returned.wait(idle).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = job(&mut store);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(store);
        self.returned.notify_one();
        result
    }
}
