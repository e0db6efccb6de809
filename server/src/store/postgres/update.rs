//! Updates on PostgreSQL (LIFECYCLE.md §2): one statement in a transaction
//! of its own, sent with its `BEGIN; SET LOCAL statement_timeout` and
//! `COMMIT` in one round trip ([`in_transaction`]), unnamed (nothing a
//! pooler in transaction mode breaks), in READ COMMITTED, and answered only
//! after `COMMIT` returned. The update's statement is a PL/pgSQL function's
//! (`chopin_update_v4`, made at start like the read's and the list's), so
//! PostgreSQL plans it once per server connection instead of on every call
//! (an unnamed statement is parsed and planned each time): about half the
//! round trip of a 4 KiB update on this machine.
//!
//! An update is a compare-and-set of the revision: the function's `UPDATE …
//! WHERE revision = p_revision` waits for a racing write of the row and then
//! sees that write's revision. Its statement's other parts read one
//! snapshot, taken before any wait, so every answer it gives but `updated` is true of that
//! snapshot. When the snapshot said the update should apply and it did not
//! (a racer committed between the snapshot and the row's lock), the racer's
//! revision and key were not in the snapshot: the update is tried again,
//! in a new transaction whose snapshot has them, so a racer with the same
//! key and fingerprint is `replayed`, never `revision-conflict`. A racer
//! with the same key on another document fails on the key's primary key
//! once the first commits (its whole transaction rolled back), and its
//! next try answers `conflict`.

use chopin_mcp::Document;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Row};

use super::Postgres;
use super::query::{Deadline, in_transaction, text};
use crate::store::documents::brief_of;
use crate::store::update::revised;
use crate::store::{StoreError, Update, UpdateOutcome, document_id, revision_of};

/// `update`: a call of `chopin_update_v4` (see `schema::FUNCTIONS`): $1
/// caller, $2 document id, $3 revision, $4 plan, $5 key, $6 fingerprint.
const UPDATE: &str = "SELECT * FROM chopin_update_v4($1, $2, $3, $4, $5, $6)";

/// The primary key of update idempotency records: a racing update of
/// another document under the same key fails on it.
const UPDATE_KEY: &str = "updates_pkey";

/// How many times an update is tried: a try that loses the compare-and-set
/// to a racer decides on the next (whose snapshot has the racer), so a
/// third is needed only when a racer's write changed nothing an update
/// looks at (an `--import` of the same revision).
const TRIES: usize = 3;

impl Postgres {
    /// See [`crate::store::Store::update`].
    pub async fn update(&self, caller: &str, update: &Update) -> Result<UpdateOutcome, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.write, &deadline).await?;
        let work = update_on(&client, &deadline, caller, update);
        let outcome = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, outcome)
    }
}

/// An update, tried until a try decides (see the module's notes).
async fn update_on(
    client: &Client,
    deadline: &Deadline,
    caller: &str,
    update: &Update,
) -> Result<UpdateOutcome, StoreError> {
    let id = document_id(&update.locator);
    // A revision no stored one can be followed by (past i64) is sent as -1,
    // which matches none: the answer is then about the stored one.
    let revision = i64::try_from(update.revision)
        .ok()
        .filter(|revision| *revision < i64::MAX)
        .unwrap_or(-1);
    let (id_bytes, plan, key) = (
        id.as_bytes(),
        update.plan.as_bytes(),
        update.idempotency_key.as_bytes(),
    );
    let params: [(&(dyn ToSql + Sync), Type); 6] = [
        (&caller, Type::TEXT),
        (&id_bytes, Type::BYTEA),
        (&revision, Type::INT8),
        (&plan, Type::BYTEA),
        (&key, Type::BYTEA),
        (&update.fingerprint, Type::TEXT),
    ];
    for _ in 0..TRIES {
        let row =
            match in_transaction(client, deadline, client.query_typed_one(UPDATE, &params)).await {
                Ok(row) => row,
                Err(StoreError::Postgres(e)) if lost_the_key(&e) => continue,
                Err(e) => return Err(e),
            };
        if let Some(outcome) = outcome_of(&row, update)? {
            return Ok(outcome);
        }
    }
    Err(StoreError::Invalid(
        "an update lost its compare-and-set to racers three times".to_owned(),
    ))
}

/// Whether `e` is this update's key taken by a racing update (of another
/// document) that committed first.
fn lost_the_key(e: &tokio_postgres::Error) -> bool {
    e.as_db_error().is_some_and(|db| {
        *db.code() == SqlState::UNIQUE_VIOLATION && db.constraint() == Some(UPDATE_KEY)
    })
}

/// What an [`UPDATE`] row answers (the columns of `chopin_update_v4`), in
/// the order of LIFECYCLE.md §2; `None`
/// when the update lost its compare-and-set to a racer (to be tried again).
fn outcome_of(row: &Row, update: &Update) -> Result<Option<UpdateOutcome>, StoreError> {
    let Some(id) = row.try_get::<_, Option<Vec<u8>>>(0)? else {
        return Ok(Some(UpdateOutcome::Unavailable));
    };
    if !row.try_get::<_, Option<bool>>(13)?.unwrap_or(false) {
        return Ok(Some(UpdateOutcome::Forbidden));
    }
    let utf8 = |bytes: Vec<u8>| {
        String::from_utf8(bytes)
            .map_err(|_| StoreError::Invalid("a stored text is not UTF-8".to_owned()))
    };
    if let Some(title) = row.try_get::<_, Option<Vec<u8>>>(3)? {
        let brief: Option<&str> = row.try_get(4)?;
        // A no-op stored nothing but the key: the current revision.
        let no_op: bool = row.try_get::<_, Option<bool>>(11)?.unwrap_or(false);
        return Ok(Some(UpdateOutcome::Updated(revised(Document {
            id: utf8(id)?,
            title: utf8(title)?,
            brief: brief_of(brief)?,
            source: update.plan.clone(),
            revision: update.revision + u64::from(!no_op),
            ..Document::default()
        }))));
    }
    match row.try_get::<_, Option<bool>>(5)? {
        Some(false) => return Ok(Some(UpdateOutcome::Conflict)),
        Some(true) => {
            let revision: i64 = row.try_get(7)?;
            let source = row.try_get::<_, Option<Vec<u8>>>(9)?.ok_or_else(|| {
                StoreError::Invalid(format!("the plan of revision {revision} is not stored"))
            })?;
            let brief: Option<&str> = row.try_get(10)?;
            return Ok(Some(UpdateOutcome::Replayed(revised(Document {
                id: text(row, 6)?,
                title: text(row, 8)?,
                brief: brief_of(brief)?,
                source: utf8(source)?,
                revision: revision_of(revision),
                ..Document::default()
            }))));
        }
        None => {}
    }
    if row.try_get(12)? {
        return Ok(Some(UpdateOutcome::Locked));
    }
    if row.try_get(2)? {
        return Ok(Some(UpdateOutcome::Archived));
    }
    let current = revision_of(row.try_get(1)?);
    if current != update.revision {
        return Ok(Some(UpdateOutcome::RevisionConflict { current }));
    }
    Ok(None)
}
