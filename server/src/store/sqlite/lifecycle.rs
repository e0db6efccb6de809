//! Renames, archives and restores on SQLite (LIFECYCLE.md §3–§4). Each is
//! one `BEGIN IMMEDIATE` transaction on the writer connection (the writer
//! taken once, the file's write lock held from the first look to the
//! commit, so processes sharing the file take turns), answered only after
//! it committed and was synced. An answer that changes nothing writes
//! nothing. [`find`] is how they and an update look their document up.

use std::time::SystemTime;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::{OnRuntime, Sqlite};
use crate::store::{
    ArchiveOutcome, RenameOutcome, RestoreOutcome, StoreError, document_id, revision_of, timestamp,
};

/// The document ?2 if `caller` (?1) may see it, archived or not: id, title,
/// revision, `archived_at`, brief (as [`super::read::READ`] gives it), and
/// whether the caller may write it too (a grant that is not read-only).
const FIND: &str = "SELECT d.id, d.title, d.revision, d.archived_at,
      CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END,
      EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*' AND g.may_write)
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1
          AND g.repository = d.repository AND g.may_write)
    FROM documents d
    WHERE d.id = ?2
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))";

/// A document the caller may see, as [`FIND`] gives it.
pub(super) struct Found {
    pub(super) id: String,
    pub(super) title: String,
    pub(super) revision: u64,
    pub(super) archived_at: Option<String>,
    pub(super) brief: Option<String>,
    /// Whether the caller may write it: without, every write answers
    /// `forbidden` (IMPLEMENTATION.md §4, read-only grants).
    pub(super) writable: bool,
}

/// The document `locator` names, if `caller` may see it, archived or not.
pub(super) fn find(
    tx: &Transaction<'_>,
    caller: &str,
    locator: &str,
) -> Result<Option<Found>, StoreError> {
    find_id(tx, caller, &document_id(locator))
}

/// The document `id` (an id only), if `caller` may see it, archived or not.
fn find_id(tx: &Transaction<'_>, caller: &str, id: &str) -> Result<Option<Found>, StoreError> {
    Ok(tx
        .prepare_cached(FIND)?
        .query_row(params![caller, id], |row| {
            Ok(Found {
                id: row.get(0)?,
                title: row.get(1)?,
                revision: revision_of(row.get(2)?),
                archived_at: row.get(3)?,
                brief: row.get(4)?,
                writable: row.get(5)?,
            })
        })
        .optional()?)
}

impl Sqlite {
    /// See [`crate::store::Store::rename`]: the document named by its id
    /// only. Blocks for the commit's fsync.
    pub fn rename(&self, caller: &str, id: &str, title: &str) -> Result<RenameOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find_id(&tx, caller, id)? else {
            return Ok(RenameOutcome::Unavailable);
        };
        if !found.writable {
            return Ok(RenameOutcome::Forbidden);
        }
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
        if !found.writable {
            return Ok(ArchiveOutcome::Forbidden);
        }
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
        if !found.writable {
            return Ok(RestoreOutcome::Forbidden);
        }
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

impl OnRuntime<'_> {
    /// See [`Sqlite::rename`]: off the runtime.
    pub(in crate::store) async fn rename(
        self,
        caller: &str,
        locator: &str,
        title: &str,
    ) -> Result<RenameOutcome, StoreError> {
        let (caller, locator, title) = (caller.to_owned(), locator.to_owned(), title.to_owned());
        self.blocking(move |store| store.rename(&caller, &locator, &title))
            .await
    }

    /// See [`Sqlite::archive`]: off the runtime.
    pub(in crate::store) async fn archive(
        self,
        caller: &str,
        locator: &str,
        now: SystemTime,
    ) -> Result<ArchiveOutcome, StoreError> {
        let (caller, locator) = (caller.to_owned(), locator.to_owned());
        self.blocking(move |store| store.archive(&caller, &locator, now))
            .await
    }

    /// See [`Sqlite::restore`]: off the runtime.
    pub(in crate::store) async fn restore(
        self,
        caller: &str,
        locator: &str,
    ) -> Result<RestoreOutcome, StoreError> {
        let (caller, locator) = (caller.to_owned(), locator.to_owned());
        self.blocking(move |store| store.restore(&caller, &locator))
            .await
    }
}
