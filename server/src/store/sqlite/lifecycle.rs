//! The lifecycle writes on SQLite (LIFECYCLE.md §2–§4): update, rename,
//! archive and restore. Each is one `BEGIN IMMEDIATE` transaction on the
//! writer connection (the writer taken once, the file's write lock held
//! from the first look to the commit, so processes sharing the file take
//! turns), answered only after it committed and was synced. An answer that
//! changes nothing writes nothing.

use std::time::SystemTime;

use chopin_mcp::Document;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::Sqlite;
use crate::store::{
    ArchiveOutcome, RenameOutcome, RestoreOutcome, Revised, StoreError, Update, UpdateOutcome,
    brief_of, document_id, revised, revision_of, timestamp,
};

/// The document ?2 if `caller` (?1) may see it, archived or not: id, title,
/// revision, `archived_at`, brief (as [`super::READ`] gives it).
const FIND: &str = "SELECT d.id, d.title, d.revision, d.archived_at,
      CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END
    FROM documents d
    WHERE d.id = ?2
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))";

/// Caller ?1's update under key ?2: its fingerprint, document, the
/// revision it made and the title then.
const EARLIER: &str = "SELECT fingerprint, document_id, revision, title FROM updates
    WHERE caller = ?1 AND idempotency_key = ?2";

/// The plan of revision ?2 of document ?1 (the current one, else the kept
/// one, the latest kept if an import made the revision twice) and the
/// document's brief.
const PLAN_OF: &str = "SELECT CASE WHEN d.revision = ?2 THEN d.source
        ELSE (SELECT p.source FROM plan_history p WHERE p.document_id = d.id
          AND p.revision = ?2 ORDER BY p.seq DESC LIMIT 1) END,
      CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END
    FROM documents d WHERE d.id = ?1";

/// A document the caller may see, as [`FIND`] gives it.
struct Found {
    id: String,
    title: String,
    revision: u64,
    archived_at: Option<String>,
    brief: Option<String>,
}

fn find(tx: &Transaction<'_>, caller: &str, locator: &str) -> Result<Option<Found>, StoreError> {
    let id = document_id(locator);
    Ok(tx
        .prepare_cached(FIND)?
        .query_row(params![caller, id], |row| {
            Ok(Found {
                id: row.get(0)?,
                title: row.get(1)?,
                revision: revision_of(row.get(2)?),
                archived_at: row.get(3)?,
                brief: row.get(4)?,
            })
        })
        .optional()?)
}

impl Sqlite {
    /// See [`crate::store::Store::update`]. Blocks for the commit's fsync.
    pub fn update(&self, caller: &str, update: &Update) -> Result<UpdateOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, caller, &update.locator)? else {
            return Ok(UpdateOutcome::Unavailable);
        };
        let earlier = tx
            .prepare_cached(EARLIER)?
            .query_row(params![caller, update.idempotency_key], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, String>(3)?,
                ))
            })
            .optional()?;
        if let Some((fingerprint, id, revision, title)) = earlier {
            if fingerprint != update.fingerprint {
                return Ok(UpdateOutcome::Conflict);
            }
            return as_left(&tx, id, revision, title).map(UpdateOutcome::Replayed);
        }
        if found.archived_at.is_some() {
            return Ok(UpdateOutcome::Archived);
        }
        if found.revision != update.revision {
            return Ok(UpdateOutcome::RevisionConflict {
                current: found.revision,
            });
        }
        let next = found.revision + 1;
        let stored_next = i64::try_from(next)
            .map_err(|_| StoreError::Invalid(format!("revision {next} is out of range")))?;
        // Before anything is written: a brief that cannot be answered
        // leaves nothing behind.
        let brief = brief_of(found.brief.as_deref())?;
        tx.prepare_cached(concat!(
            "INSERT INTO plan_history (document_id, revision, source, replaced_at, replaced_by)
             SELECT id, revision, source, ",
            now!(),
            ", ?2 FROM documents WHERE id = ?1"
        ))?
        .execute(params![found.id, caller])?;
        tx.prepare_cached("UPDATE documents SET source = ?2, revision = ?3 WHERE id = ?1")?
            .execute(params![found.id, update.plan, stored_next])?;
        tx.prepare_cached(concat!(
            "INSERT INTO updates (caller, idempotency_key, fingerprint, document_id, revision,
               title, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ",
            now!(),
            ")"
        ))?
        .execute(params![
            caller,
            update.idempotency_key,
            update.fingerprint,
            found.id,
            stored_next,
            found.title
        ])?;
        tx.commit()?;
        Ok(UpdateOutcome::Updated(revised(Document {
            id: found.id,
            title: found.title,
            brief,
            source: update.plan.clone(),
            revision: next,
        })))
    }

    /// See [`crate::store::Store::rename`]. Blocks for the commit's fsync.
    pub fn rename(
        &self,
        caller: &str,
        locator: &str,
        title: &str,
    ) -> Result<RenameOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, caller, locator)? else {
            return Ok(RenameOutcome::Unavailable);
        };
        if found.archived_at.is_some() {
            return Ok(RenameOutcome::Archived);
        }
        if found.title != title {
            tx.execute(
                concat!(
                    "INSERT INTO title_history (document_id, title, replaced_at, replaced_by)
                     VALUES (?1, ?2, ",
                    now!(),
                    ", ?3)"
                ),
                params![found.id, found.title, caller],
            )?;
            tx.execute(
                "UPDATE documents SET title = ?2 WHERE id = ?1",
                params![found.id, title],
            )?;
            tx.commit()?;
        }
        Ok(RenameOutcome::Renamed {
            id: found.id,
            title: title.to_owned(),
        })
    }

    /// See [`crate::store::Store::archive`]. Blocks for the commit's fsync.
    pub fn archive(
        &self,
        caller: &str,
        locator: &str,
        now: SystemTime,
    ) -> Result<ArchiveOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, caller, locator)? else {
            return Ok(ArchiveOutcome::Unavailable);
        };
        let archived_at = match found.archived_at {
            Some(earlier) => earlier,
            None => {
                let now = timestamp(now);
                tx.execute(
                    "UPDATE documents SET archived_at = ?2, archived_by = ?3 WHERE id = ?1",
                    params![found.id, now, caller],
                )?;
                tx.commit()?;
                now
            }
        };
        Ok(ArchiveOutcome::Archived {
            id: found.id,
            title: found.title,
            archived_at,
        })
    }

    /// See [`crate::store::Store::restore`]. Blocks for the commit's fsync.
    pub fn restore(&self, caller: &str, locator: &str) -> Result<RestoreOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, caller, locator)? else {
            return Ok(RestoreOutcome::Unavailable);
        };
        if found.archived_at.is_some() {
            tx.execute(
                "UPDATE documents SET archived_at = NULL, archived_by = NULL WHERE id = ?1",
                [&found.id],
            )?;
            tx.commit()?;
        }
        Ok(RestoreOutcome::Restored {
            id: found.id,
            title: found.title,
        })
    }
}

/// The document `id` as the update that made `revision` left it, with
/// `title`, the title then.
fn as_left(
    tx: &Transaction<'_>,
    id: String,
    revision: i64,
    title: String,
) -> Result<Revised, StoreError> {
    let (source, brief): (Option<String>, Option<String>) = tx
        .prepare_cached(PLAN_OF)?
        .query_row(params![id, revision], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let source = source.ok_or_else(|| {
        StoreError::Invalid(format!("the plan of revision {revision} is not stored"))
    })?;
    Ok(revised(Document {
        id,
        title,
        brief: brief_of(brief.as_deref())?,
        source,
        revision: revision_of(revision),
    }))
}
