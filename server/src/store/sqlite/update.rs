//! Updates on SQLite (LIFECYCLE.md §2): a compare-and-set of the revision,
//! keyed by caller and idempotency key, in one `BEGIN IMMEDIATE`
//! transaction on the writer connection (the writer taken once, the file's
//! write lock held from the first look to the commit, so processes sharing
//! the file take turns), answered only after it committed and was synced.
//! An answer that changes nothing writes nothing.

use chopin_mcp::Document;
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::implementations::has_active_run;
use super::lifecycle::find;
use super::{OnRuntime, Sqlite};
use crate::store::documents::brief_of;
use crate::store::update::revised;
use crate::store::{Revised, StoreError, Update, UpdateOutcome, revision_of};

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

impl Sqlite {
    /// See [`crate::store::Store::update`]. Blocks for the commit's fsync.
    pub fn update(&self, caller: &str, update: &Update) -> Result<UpdateOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, caller, &update.locator)? else {
            return Ok(UpdateOutcome::Unavailable);
        };
        if !found.writable {
            return Ok(UpdateOutcome::Forbidden);
        }
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
        if has_active_run(&tx, &found.id)? {
            return Ok(UpdateOutcome::Locked);
        }
        if found.archived_at.is_some() {
            return Ok(UpdateOutcome::Archived);
        }
        if found.revision != update.revision {
            return Ok(UpdateOutcome::RevisionConflict {
                current: found.revision,
            });
        }
        // Before anything is written: a brief that cannot be answered
        // leaves nothing behind.
        let brief = brief_of(found.brief.as_deref())?;
        let unchanged: bool = tx
            .prepare_cached("SELECT source = ?2 FROM documents WHERE id = ?1")?
            .query_row(params![found.id, update.plan], |row| row.get(0))?;
        if unchanged {
            // A no-op (SURFACE.md §5): no revision stored, the key recorded
            // at the current one, so that a retry replays it.
            record(&tx, caller, update, &found.id, found.revision, &found.title)?;
            tx.commit()?;
            return Ok(UpdateOutcome::Updated(revised(Document {
                id: found.id,
                title: found.title,
                brief,
                source: update.plan.clone(),
                revision: found.revision,
                ..Document::default()
            })));
        }
        let next = found.revision + 1;
        tx.prepare_cached(concat!(
            "INSERT INTO plan_history (document_id, revision, source, replaced_at, replaced_by)
             SELECT id, revision, source, ",
            now!(),
            ", ?2 FROM documents WHERE id = ?1"
        ))?
        .execute(params![found.id, caller])?;
        let stored_next = stored(next)?;
        tx.prepare_cached("UPDATE documents SET source = ?2, revision = ?3 WHERE id = ?1")?
            .execute(params![found.id, update.plan, stored_next])?;
        record(&tx, caller, update, &found.id, next, &found.title)?;
        tx.commit()?;
        Ok(UpdateOutcome::Updated(revised(Document {
            id: found.id,
            title: found.title,
            brief,
            source: update.plan.clone(),
            revision: next,
            ..Document::default()
        })))
    }
}

/// A revision as the store keeps it.
fn stored(revision: u64) -> Result<i64, StoreError> {
    i64::try_from(revision)
        .map_err(|_| StoreError::Invalid(format!("revision {revision} is out of range")))
}

/// Records `caller`'s key for `update`, which left document `id` at
/// `revision` with `title`.
fn record(
    tx: &Transaction<'_>,
    caller: &str,
    update: &Update,
    id: &str,
    revision: u64,
    title: &str,
) -> Result<(), StoreError> {
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
        id,
        stored(revision)?,
        title
    ])?;
    Ok(())
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
        ..Document::default()
    }))
}

impl OnRuntime<'_> {
    /// See [`Sqlite::update`]: off the runtime.
    pub(in crate::store) async fn update(
        self,
        caller: &str,
        update: &Update,
    ) -> Result<UpdateOutcome, StoreError> {
        let (caller, update) = (caller.to_owned(), update.clone());
        self.blocking(move |store| store.update(&caller, &update))
            .await
    }
}
