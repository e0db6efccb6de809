//! What a `create_document` call asks to store and how it ended, on either
//! engine. Each engine's transaction is its `create.rs`.

use chopin_mcp::Document;

/// What a `create_document` call asks to store. `fingerprint` identifies the
/// request's content: the same idempotency key with the same fingerprint is a
/// retry, with another one a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub idempotency_key: String,
    pub fingerprint: String,
    pub repository: String,
    pub title: String,
    pub source: String,
    /// The brief, as compact JSON.
    pub brief: String,
    /// The base branch and commit the plan was written against: the
    /// document's provenance (IMPLEMENTATION.md §4), which
    /// `read_implementation` needs.
    pub base: Option<(String, String)>,
}

/// A stored created document, as `create_document` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub document: Document,
    pub brief: String,
    pub url: String,
}

/// How a create ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateOutcome {
    /// A new document was stored.
    New(Created),
    /// The caller already created this (same key, same fingerprint): the
    /// document as it was created (revision 0, its first title and plan),
    /// whatever happened to it since.
    Replayed(Created),
    /// The caller used this key for a different request.
    Conflict,
    /// The caller may not write to the repository.
    Forbidden,
}

/// A created document as a create answers it, with its canonical URL (also
/// in the document's `url`, as a read gives it).
pub(super) fn created(mut document: Document, brief: String) -> Created {
    let url = super::documents::url_of(&document.id);
    document.url = Some(url.clone());
    Created {
        document,
        brief,
        url,
    }
}

/// A create that stored `draft` as the new document `id` (revision 0), as
/// each engine answers it once it committed.
pub(super) fn new_document(id: &str, draft: &Draft) -> CreateOutcome {
    let document = Document {
        archived_at: None,
        description: None,
        url: None,
        id: id.to_owned(),
        title: draft.title.clone(),
        brief: None,
        source: draft.source.clone(),
        revision: 0,
    };
    CreateOutcome::New(created(document, draft.brief.clone()))
}
