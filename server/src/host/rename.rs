//! `rename_document` against the store (LIFECYCLE.md §3).

use chopin_mcp::{DocumentSummary, RenameAnswer, RenameDocument};

use super::{Caller, Done, Host};
use crate::labels::{RenameResult, Written};
use crate::store::{RenameOutcome, Sqlite, StoreError};

impl Host {
    /// Gives the document its new title (the last rename wins; the
    /// replaced title is kept); answered once it committed.
    pub(super) async fn rename(&self, rename: RenameDocument<Caller>) -> Result<Done, StoreError> {
        let stored = (self.store)
            .rename(rename.caller(), rename.id(), rename.title())
            .await?;
        Ok(answer(rename, stored))
    }
}

/// [`Host::rename`] on the calling thread, for the blocking server.
pub(super) fn rename_blocking(
    store: &Sqlite,
    rename: RenameDocument<Caller>,
) -> Result<Done, StoreError> {
    let stored = store.rename(rename.caller(), rename.id(), rename.title())?;
    Ok(answer(rename, stored))
}

/// Answers a rename with what the store did, and names the result. Titles
/// need not be unique in this store: it never answers `conflict`.
fn answer(rename: RenameDocument<Caller>, stored: RenameOutcome) -> Done {
    let (result, next) = match stored {
        RenameOutcome::Renamed { id, title } => (
            RenameResult::Renamed,
            rename.answer(RenameAnswer::Renamed(&DocumentSummary {
                archived_at: None,
                description: None,
                id,
                title,
            })),
        ),
        RenameOutcome::Archived => (
            RenameResult::Archived,
            rename.answer(RenameAnswer::Archived),
        ),
        RenameOutcome::Forbidden => (
            RenameResult::Forbidden,
            rename.answer(RenameAnswer::Forbidden),
        ),
        RenameOutcome::Unavailable => (
            RenameResult::Unavailable,
            rename.answer(RenameAnswer::Unavailable),
        ),
    };
    (Written::Rename(result), next)
}
