//! Renames, archives and restores on PostgreSQL (LIFECYCLE.md §3–§4). Each
//! is one statement in a transaction of its own, sent with its `BEGIN; SET
//! LOCAL statement_timeout` and `COMMIT` in one round trip
//! ([`in_transaction`]), unnamed (nothing a pooler in transaction mode
//! breaks), in READ COMMITTED, and answered only after `COMMIT` returned.
//!
//! Rename, archive and restore lock the document's row first (`FOR NO KEY
//! UPDATE`, as an `UPDATE` of other columns would: in READ COMMITTED it
//! gives the row's latest version), so the title they replace and the state
//! they keep are the latest, and racing renames each keep the title they
//! replaced.

use std::time::SystemTime;

use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

use super::Postgres;
use super::query::{Deadline, in_transaction, text};
use crate::store::{
    ArchiveOutcome, RenameOutcome, RestoreOutcome, StoreError, document_id, timestamp,
};

/// `rename`: $1 caller, $2 document id, $3 title. The document the caller
/// may see, locked (id, archived, whether the caller may write it); the
/// title replaced when it may, the document is live and the title differs,
/// the old one kept.
const RENAME: &str = "WITH doc AS (
    SELECT d.id, d.title, d.archived_at IS NOT NULL AS archived,
      EXISTS (SELECT 1 FROM grants w WHERE w.caller = $1 AND w.may_write
      AND (w.repository = '*' OR w.repository = d.repository)) AS writable FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
    FOR NO KEY UPDATE OF d
), renamed AS (
    UPDATE documents d SET title = $3 FROM doc
    WHERE d.id = doc.id AND doc.writable AND NOT doc.archived AND doc.title <> $3
    RETURNING d.id
), kept AS (
    INSERT INTO title_history (document_id, title, replaced_by)
    SELECT doc.id, doc.title, $1 FROM doc, renamed
)
SELECT doc.id, doc.archived, doc.writable FROM doc";

/// `archive`: $1 caller, $2 document id, $3 the time. The document the
/// caller may see, locked (id, title, when archived: this time unless it
/// already was; whether the caller may write it: archived only then).
const ARCHIVE: &str = "WITH doc AS (
    SELECT d.id, d.title, d.archived_at,
      EXISTS (SELECT 1 FROM grants w WHERE w.caller = $1 AND w.may_write
      AND (w.repository = '*' OR w.repository = d.repository)) AS writable FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
    FOR NO KEY UPDATE OF d
), archived AS (
    UPDATE documents d SET archived_at = $3, archived_by = $1 FROM doc
    WHERE d.id = doc.id AND doc.writable AND doc.archived_at IS NULL
    RETURNING d.id
)
SELECT doc.id, doc.title, coalesce(doc.archived_at, $3), doc.writable FROM doc";

/// `restore`: $1 caller, $2 document id. The document the caller may see,
/// locked (id, title, whether the caller may write it), live again when it
/// may.
const RESTORE: &str = "WITH doc AS (
    SELECT d.id, d.title, d.archived_at,
      EXISTS (SELECT 1 FROM grants w WHERE w.caller = $1 AND w.may_write
      AND (w.repository = '*' OR w.repository = d.repository)) AS writable FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
    FOR NO KEY UPDATE OF d
), restored AS (
    UPDATE documents d SET archived_at = NULL, archived_by = NULL FROM doc
    WHERE d.id = doc.id AND doc.writable AND doc.archived_at IS NOT NULL
    RETURNING d.id
)
SELECT doc.id, doc.title, doc.writable FROM doc";

impl Postgres {
    /// See [`crate::store::Store::rename`]: the document named by its id
    /// only.
    pub async fn rename(
        &self,
        caller: &str,
        id: &str,
        title: &str,
    ) -> Result<RenameOutcome, StoreError> {
        let (id, title_bytes) = (id.as_bytes(), title.as_bytes());
        let params: [(&(dyn ToSql + Sync), Type); 3] = [
            (&caller, Type::TEXT),
            (&id, Type::BYTEA),
            (&title_bytes, Type::BYTEA),
        ];
        let Some(row) = self.write_one(RENAME, &params).await? else {
            return Ok(RenameOutcome::Unavailable);
        };
        if !row.try_get::<_, bool>(2)? {
            return Ok(RenameOutcome::Forbidden);
        }
        if row.try_get(1)? {
            return Ok(RenameOutcome::Archived);
        }
        Ok(RenameOutcome::Renamed {
            id: text(&row, 0)?,
            title: title.to_owned(),
        })
    }

    /// See [`crate::store::Store::archive`].
    pub async fn archive(
        &self,
        caller: &str,
        locator: &str,
        now: SystemTime,
    ) -> Result<ArchiveOutcome, StoreError> {
        let id = document_id(locator);
        let (id, now) = (id.as_bytes(), timestamp(now));
        let params: [(&(dyn ToSql + Sync), Type); 3] = [
            (&caller, Type::TEXT),
            (&id, Type::BYTEA),
            (&now, Type::TEXT),
        ];
        let Some(row) = self.write_one(ARCHIVE, &params).await? else {
            return Ok(ArchiveOutcome::Unavailable);
        };
        if !row.try_get::<_, bool>(3)? {
            return Ok(ArchiveOutcome::Forbidden);
        }
        Ok(ArchiveOutcome::Archived {
            id: text(&row, 0)?,
            title: text(&row, 1)?,
            archived_at: row.try_get(2)?,
        })
    }

    /// See [`crate::store::Store::restore`].
    pub async fn restore(&self, caller: &str, locator: &str) -> Result<RestoreOutcome, StoreError> {
        let id = document_id(locator);
        let id = id.as_bytes();
        let params: [(&(dyn ToSql + Sync), Type); 2] = [(&caller, Type::TEXT), (&id, Type::BYTEA)];
        let Some(row) = self.write_one(RESTORE, &params).await? else {
            return Ok(RestoreOutcome::Unavailable);
        };
        if !row.try_get::<_, bool>(2)? {
            return Ok(RestoreOutcome::Forbidden);
        }
        Ok(RestoreOutcome::Restored {
            id: text(&row, 0)?,
            title: text(&row, 1)?,
        })
    }

    /// `statement` with `params` in a transaction of its own on the write
    /// pool, under the request's deadline: its row, if any.
    pub(super) async fn write_one(
        &self,
        statement: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Option<Row>, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.write, &deadline).await?;
        let work = in_transaction(
            &client,
            &deadline,
            client.query_typed_opt(statement, params),
        );
        let outcome = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, outcome)
    }
}
