//! What an `update_document` call asks to store and how it ended
//! (LIFECYCLE.md §2), on either engine. Each engine's transaction is its
//! `update.rs`.

use chopin_mcp::Document;

/// What an `update_document` call asks to store (LIFECYCLE.md §2).
/// `fingerprint` identifies the request: the same idempotency key with the
/// same fingerprint is a retry, with another one a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// The document's id or canonical URL, as sent
    /// ([`document_id`](super::document_id)).
    pub locator: String,
    /// The revision the caller read: the update applies only if the
    /// document is still at it.
    pub revision: u64,
    /// The canonical plan, stored as revision `revision + 1`.
    pub plan: String,
    pub idempotency_key: String,
    pub fingerprint: String,
}

/// A document as an update answers it: its brief (the creation's, when it
/// has one) in [`Document::brief`], and its canonical URL (here and in
/// [`Document::url`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revised {
    pub document: Document,
    pub url: String,
}

/// How an update ended. LIFECYCLE.md §2 decides in the order: unavailable,
/// forbidden (IMPLEMENTATION.md §4), replayed or conflict, archived, revision conflict, updated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateOutcome {
    /// The plan was stored as the next revision, the replaced one kept; or
    /// it equals the stored plan, and the document is answered at its
    /// current revision (nothing stored but the key).
    Updated(Revised),
    /// The caller made this update before (same key, same fingerprint): the
    /// document as that update left it (its revision, its plan, the title
    /// then), whatever happened to it since.
    Replayed(Revised),
    /// The caller used this key for a different update.
    Conflict,
    /// The document is at another revision: `current`.
    RevisionConflict { current: u64 },
    /// An implementation run is active on the document (`document-locked`,
    /// IMPLEMENTATION.md §4: after the replay check, before `archived`).
    Locked,
    /// The document is archived.
    Archived,
    /// The caller may see the document but not write it (a read-only
    /// grant): decided first, after unavailable.
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// A document as an update answers it, with its canonical URL (also in
/// the document's `url`, as a read gives it).
pub(super) fn revised(mut document: Document) -> Revised {
    let url = super::documents::url_of(&document.id);
    document.url = Some(url.clone());
    Revised { document, url }
}
