//! What the reads answer (`list_documents`, `read_document`), on either
//! engine, and how a stored document's columns are read back. Each engine's
//! statements are its `read.rs`.

use chopin_mcp::Brief;

use super::StoreError;

/// A list's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing<T> {
    /// The caller has a grant for the repository: its live documents
    /// (with the archived ones, when asked for; maybe none).
    Listed(T),
    /// The caller has no grant for the repository.
    Forbidden,
}

/// A stored brief (compact JSON, as create stored it) as a document's.
pub(super) fn brief_of(stored: Option<&str>) -> Result<Option<Brief>, StoreError> {
    stored
        .map(|json| {
            serde_json::from_str(json)
                .map_err(|_| StoreError::Invalid("a stored brief does not parse".to_owned()))
        })
        .transpose()
}

/// A document's canonical URL as the store answers it: `/documents/<id>`
/// (what [`document_id`](super::document_id) resolves back to the id).
pub(crate) fn url_of(id: &str) -> String {
    let mut url = String::with_capacity(11 + id.len());
    write_url(&mut url, id);
    url
}

/// Writes [`url_of`]`(id)` into `url`, reusing its buffer.
pub(crate) fn write_url(url: &mut String, id: &str) {
    url.clear();
    url.push_str("/documents/");
    url.push_str(id);
}

/// A stored revision as a document's.
pub(crate) fn revision_of(stored: i64) -> u64 {
    // Both schemas keep revisions non-negative (CHECK).
    u64::try_from(stored).unwrap_or_default()
}
