//! The set-up on SQLite: the schema made or migrated ([`super::schema`]),
//! then the samples, the first token, grants and an import, in one
//! `BEGIN IMMEDIATE` transaction on the writer connection.

use rusqlite::{Connection, TransactionBehavior, params};

use super::{NO_LIMIT, OnRuntime, Sqlite, schema, tokens};
use crate::store::setup::{granted_callers, stored_revision};
use crate::store::{Imported, SCHEMA_VERSION, Setup, Started, StoreError, token_digest};

impl Sqlite {
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
        replace_grants(&tx, setup)?;
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

/// Replaces the grants of every caller [`Setup`] names: read and write
/// where `--grant` names the repository, read only where `--grant-read`
/// alone does.
fn replace_grants(tx: &rusqlite::Transaction<'_>, setup: &Setup) -> Result<(), StoreError> {
    for caller in granted_callers(setup) {
        tx.execute("DELETE FROM grants WHERE caller = ?1", [caller])?;
    }
    for (caller, repositories) in &setup.grants {
        for repository in repositories {
            tx.execute(
                "INSERT INTO grants (caller, repository, may_write) VALUES (?1, ?2, 1)
                 ON CONFLICT (caller, repository) DO UPDATE SET may_write = 1",
                params![caller, repository],
            )?;
        }
    }
    for (caller, repositories) in &setup.read_grants {
        for repository in repositories {
            tx.execute(
                "INSERT OR IGNORE INTO grants (caller, repository, may_write) VALUES (?1, ?2, 0)",
                params![caller, repository],
            )?;
        }
    }
    Ok(())
}

fn import(tx: &rusqlite::Transaction<'_>, documents: &[Imported]) -> Result<(), StoreError> {
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

impl OnRuntime<'_> {
    /// See [`Sqlite::setup`]: inline (once, at start).
    pub(in crate::store) async fn setup(self, setup: &Setup) -> Result<Started, StoreError> {
        self.0.setup(setup)
    }
}
