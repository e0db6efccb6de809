//! Creates on SQLite: one `BEGIN IMMEDIATE` transaction on the writer
//! connection, keyed by caller and idempotency key, answered only after it
//! committed and was synced.

use chopin_mcp::Document;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{OnRuntime, Sqlite};
use crate::store::create::{created, new_document};
use crate::store::{CreateOutcome, Draft, StoreError};

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

impl Sqlite {
    /// See [`crate::store::Store::create`]. Blocks for the commit's fsync.
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
               AND (repository = '*' OR repository = ?2) AND may_write)",
            params![caller, draft.repository],
            |row| row.get(0),
        )?;
        if !granted {
            return Ok(CreateOutcome::Forbidden);
        }
        let earlier = tx
            .query_row(AS_CREATED, params![caller, draft.idempotency_key], |row| {
                let document = Document {
                    archived_at: None,
                    description: None,
                    url: None,
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
               created_by, idempotency_key, fingerprint, brief, base_branch, base_commit)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                draft.repository,
                draft.title,
                draft.source,
                caller,
                draft.idempotency_key,
                draft.fingerprint,
                draft.brief,
                draft.base.as_ref().map(|(branch, _)| branch),
                draft.base.as_ref().map(|(_, commit)| commit)
            ],
        )?;
        before_commit();
        tx.commit()?;
        Ok(new_document(id, draft))
    }
}

impl OnRuntime<'_> {
    /// See [`Sqlite::create`]: off the runtime.
    pub(in crate::store) async fn create(
        self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        let (caller, id, draft) = (caller.to_owned(), id.to_owned(), draft.clone());
        self.blocking(move |store| store.create(&caller, &id, &draft))
            .await
    }
}
