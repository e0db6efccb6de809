//! `archive_document` against the store (LIFECYCLE.md §4). The time of the
//! archive is the host's clock, read here: the endpoint has none.
// The host owns the clock.
#![allow(clippy::disallowed_methods)]

use std::time::SystemTime;

use chopin_mcp::{ArchiveAnswer, ArchiveDocument, ArchivedDocument};

use super::{Caller, Done, Host};
use crate::labels::{ArchiveResult, Written};
use crate::store::{ArchiveOutcome, Sqlite, StoreError};

impl Host {
    /// Archives the document as of now (one already archived keeps its
    /// time); answered once it committed.
    pub(super) async fn archive(
        &self,
        archive: ArchiveDocument<Caller>,
    ) -> Result<Done, StoreError> {
        let stored = (self.store)
            .archive(archive.caller(), archive.id(), SystemTime::now())
            .await?;
        Ok(answer(archive, stored))
    }
}

/// [`Host::archive`] on the calling thread, for the blocking server.
pub(super) fn archive_blocking(
    store: &Sqlite,
    archive: ArchiveDocument<Caller>,
) -> Result<Done, StoreError> {
    let stored = store.archive(archive.caller(), archive.id(), SystemTime::now())?;
    Ok(answer(archive, stored))
}

/// Answers an archive with what the store did, and names the result.
fn answer(archive: ArchiveDocument<Caller>, stored: ArchiveOutcome) -> Done {
    let (result, next) = match stored {
        ArchiveOutcome::Archived {
            id,
            title,
            archived_at,
        } => (
            ArchiveResult::Archived,
            archive.answer(ArchiveAnswer::Archived(&ArchivedDocument {
                description: None,
                id,
                title,
                archived_at,
            })),
        ),
        ArchiveOutcome::Forbidden => (
            ArchiveResult::Forbidden,
            archive.answer(ArchiveAnswer::Forbidden),
        ),
        ArchiveOutcome::Unavailable => (
            ArchiveResult::Unavailable,
            archive.answer(ArchiveAnswer::Unavailable),
        ),
    };
    (Written::Archive(result), next)
}
