//! `restore_document` against the store (LIFECYCLE.md §4).

use chopin_mcp::{DocumentSummary, RestoreAnswer, RestoreDocument};

use super::{Caller, Done, Host};
use crate::labels::{RestoreResult, Written};
use crate::store::{RestoreOutcome, Sqlite, StoreError};

impl Host {
    /// Brings the archived document back (a live one stays live); answered
    /// once it committed.
    pub(super) async fn restore(
        &self,
        restore: RestoreDocument<Caller>,
    ) -> Result<Done, StoreError> {
        let stored = self.store.restore(restore.caller(), restore.id()).await?;
        Ok(answer(restore, stored))
    }
}

/// [`Host::restore`] on the calling thread, for the blocking server.
pub(super) fn restore_blocking(
    store: &Sqlite,
    restore: RestoreDocument<Caller>,
) -> Result<Done, StoreError> {
    let stored = store.restore(restore.caller(), restore.id())?;
    Ok(answer(restore, stored))
}

/// Answers a restore with what the store did, and names the result.
fn answer(restore: RestoreDocument<Caller>, stored: RestoreOutcome) -> Done {
    let (result, next) = match stored {
        RestoreOutcome::Restored { id, title } => (
            RestoreResult::Restored,
            restore.answer(RestoreAnswer::Restored(&DocumentSummary {
                archived_at: None,
                description: None,
                id,
                title,
            })),
        ),
        RestoreOutcome::Forbidden => (
            RestoreResult::Forbidden,
            restore.answer(RestoreAnswer::Forbidden),
        ),
        RestoreOutcome::Unavailable => (
            RestoreResult::Unavailable,
            restore.answer(RestoreAnswer::Unavailable),
        ),
    };
    (Written::Restore(result), next)
}
