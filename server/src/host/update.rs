//! `update_document` against the store (LIFECYCLE.md §2): the effect as the
//! store's update, and the store's outcome as the tool's answer.

use chopin_mcp::{UpdateAnswer, UpdateDocument, UpdatedDocument};

use super::{Caller, Done, Host};
use crate::labels::{UpdateResult, Written};
use crate::store::{Revised, Sqlite, StoreError, Update, UpdateOutcome};

impl Host {
    /// Stores the revised plan if the document is still at the revision the
    /// caller read, or replays the caller's earlier update under the same
    /// key; answered once it committed.
    pub(super) async fn update(&self, update: UpdateDocument<Caller>) -> Result<Done, StoreError> {
        let stored = self.store.update(update.caller(), &input(&update)).await?;
        Ok(answer(update, stored, self.public_url()))
    }
}

/// [`Host::update`] on the calling thread, for the blocking server.
pub(super) fn update_blocking(
    store: &Sqlite,
    update: UpdateDocument<Caller>,
    public_url: Option<&str>,
) -> Result<Done, StoreError> {
    let stored = store.update(update.caller(), &input(&update))?;
    Ok(answer(update, stored, public_url))
}

/// What the store is asked: the locator as sent, the canonical plan.
fn input(update: &UpdateDocument<Caller>) -> Update {
    let asked = update.update();
    Update {
        locator: asked.id.clone(),
        revision: asked.revision,
        plan: asked.plan.clone(),
        idempotency_key: asked.idempotency_key.clone(),
        fingerprint: asked.fingerprint.clone(),
    }
}

/// Answers an update with what the store did, and names the result for
/// logs and metrics. The store answers `forbidden` only to a caller who
/// may read the document (a read-only grant: a document the caller may not
/// see is `unavailable`), and never `protected`.
fn answer(update: UpdateDocument<Caller>, stored: UpdateOutcome, public_url: Option<&str>) -> Done {
    let (result, next) = match stored {
        UpdateOutcome::Updated(revised) => (
            UpdateResult::Updated,
            update.answer(UpdateAnswer::Updated(&document(revised, public_url))),
        ),
        UpdateOutcome::Replayed(revised) => (
            UpdateResult::Replayed,
            update.answer(UpdateAnswer::Replayed(&document(revised, public_url))),
        ),
        UpdateOutcome::Conflict => (
            UpdateResult::Conflict,
            update.answer(UpdateAnswer::Conflict),
        ),
        UpdateOutcome::RevisionConflict { current } => (
            UpdateResult::RevisionConflict,
            update.answer(UpdateAnswer::RevisionConflict(current)),
        ),
        UpdateOutcome::Locked => (UpdateResult::Locked, update.answer(UpdateAnswer::Locked)),
        UpdateOutcome::Archived => (
            UpdateResult::Archived,
            update.answer(UpdateAnswer::Archived),
        ),
        UpdateOutcome::Forbidden => (
            UpdateResult::Forbidden,
            update.answer(UpdateAnswer::Forbidden),
        ),
        UpdateOutcome::Unavailable => (
            UpdateResult::Unavailable,
            update.answer(UpdateAnswer::Unavailable),
        ),
    };
    (Written::Update(result), next)
}

/// The document as the tool returns it (the store parsed its brief).
fn document(revised: Revised, public_url: Option<&str>) -> UpdatedDocument {
    let Revised { document, url } = revised;
    let url = super::public_url_of(public_url, url);
    UpdatedDocument {
        id: document.id,
        title: document.title,
        brief: document.brief,
        source: document.source,
        revision: document.revision,
        url,
    }
}
