//! `create_document` against the store: the effect as the store's draft, and
//! the store's outcome as the tool's answer.

use chopin_mcp::{CreateAnswer, CreateDocument, CreatedDocument, IdSource, SystemIds};

use super::{Caller, Done, Host};
use crate::labels::{CreateResult, Written};
use crate::store::{CreateOutcome, Created, Draft, Sqlite, StoreError};

impl Host {
    /// Creates the document, or replays the caller's earlier creation under
    /// the same key; answered once it committed.
    pub(super) async fn create(&self, create: CreateDocument<Caller>) -> Result<Done, StoreError> {
        let (draft, id) = draft(&create);
        let stored = self.store.create(create.caller(), &id, &draft).await?;
        Ok(answer(create, stored, self.public_url()))
    }
}

/// [`Host::create`] on the calling thread, for the blocking server.
pub(super) fn create_blocking(
    store: &Sqlite,
    create: CreateDocument<Caller>,
    public_url: Option<&str>,
) -> Result<Done, StoreError> {
    let (draft, id) = draft(&create);
    let stored = store.create(create.caller(), &id, &draft)?;
    Ok(answer(create, stored, public_url))
}

/// The create's draft for the store, and a fresh document id.
fn draft(create: &CreateDocument<Caller>) -> (Draft, String) {
    let input = create.document();
    let draft = Draft {
        idempotency_key: input.idempotency_key.clone(),
        fingerprint: input.fingerprint.clone(),
        repository: input.repository.clone(),
        title: input.title.clone(),
        source: input.plan.clone(),
        brief: serde_json::to_string(&input.brief).unwrap_or_default(),
        base: Some((input.base_branch.clone(), input.base_commit.clone())),
    };
    // Document ids are ULIDs too; the host owns its clock and randomness.
    (draft, SystemIds.mint().to_string())
}

/// Answers a create with what the store did, and names the result for logs
/// and metrics.
fn answer(create: CreateDocument<Caller>, stored: CreateOutcome, public_url: Option<&str>) -> Done {
    let (result, next) = match stored {
        CreateOutcome::New(created) => match document(created, public_url) {
            Some(document) => (
                CreateResult::Created,
                create.answer(CreateAnswer::Created(&document)),
            ),
            None => (
                CreateResult::Unavailable,
                create.answer(CreateAnswer::Unavailable),
            ),
        },
        CreateOutcome::Replayed(created) => match document(created, public_url) {
            Some(document) => (
                CreateResult::Replayed,
                create.answer(CreateAnswer::Replayed(&document)),
            ),
            None => (
                CreateResult::Unavailable,
                create.answer(CreateAnswer::Unavailable),
            ),
        },
        CreateOutcome::Conflict => (
            CreateResult::Conflict,
            create.answer(CreateAnswer::Conflict),
        ),
        CreateOutcome::Forbidden => (
            CreateResult::Forbidden,
            create.answer(CreateAnswer::Forbidden),
        ),
    };
    (Written::Create(result), next)
}

/// The stored document as the tool returns it; `None` (logged) if its stored
/// brief no longer parses, so no partial document is ever sent.
fn document(created: Created, public_url: Option<&str>) -> Option<CreatedDocument> {
    let brief = match serde_json::from_str(&created.brief) {
        Ok(brief) => brief,
        Err(error) => {
            eprintln!(
                "stored brief of {} does not parse: {error}",
                created.document.id
            );
            return None;
        }
    };
    Some(CreatedDocument {
        id: created.document.id,
        title: created.document.title,
        brief,
        source: created.document.source,
        revision: created.document.revision,
        url: super::public_url_of(public_url, created.url),
    })
}
