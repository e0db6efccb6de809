//! `archive_document` (LIFECYCLE.md §4): a document out of every reader's
//! sight until it is restored.

use serde::{Deserialize, Serialize};

use super::{Code, Frame, code_schema, locator_input_schema};
use crate::json::{self, Level, WriteJson};
use crate::jsonrpc::RpcError;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"archive_document","title":"Archive a plan document","description":"Archive a Chopin document by ID or canonical URL.","inputSchema":"#,
    locator_input_schema!(),
    r#","outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"archivedAt":{"type":"string","format":"date-time"}},"required":["id","title","archivedAt"],"additionalProperties":false},"#,
    code_schema!("repository-forbidden", "document-unavailable"),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "archive_document requires an id or URL",
};

/// A document the host archived (now, or before: then with the time it was
/// first archived).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchivedDocument {
    /// The document's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// A generated line about it, when the host keeps one (SURFACE.md
    /// §1.5): written between `title` and `archivedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it was archived, as the host writes times (the reference server:
    /// RFC 3339 UTC with milliseconds, `2026-08-23T12:34:56.000Z`). Passed
    /// through untouched: the endpoint has no clock.
    pub archived_at: String,
}

impl ArchivedDocument {
    /// Calls `f` with the result's members, `description` only when there
    /// is one.
    fn with_members<R>(&self, f: impl FnOnce(&[(&str, &dyn WriteJson)]) -> R) -> R {
        match &self.description {
            None => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("archivedAt", &self.archived_at),
            ]),
            Some(description) => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("description", description),
                ("archivedAt", &self.archived_at),
            ]),
        }
    }
}

impl WriteJson for ArchivedDocument {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.with_members(|members| json::object(out, level, members));
    }

    fn len_hint(&self) -> usize {
        self.with_members(json::object_len_hint)
    }
}

/// The host's answer to an archive effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveAnswer<'a> {
    /// Archived, now or before (archiving twice changes nothing: a host
    /// that tells the two apart answers both with this; upstream's
    /// `unchanged` is a success alike).
    Archived(&'a ArchivedDocument),
    /// The caller may see the document but not archive it
    /// (`repository-forbidden`).
    Forbidden,
    /// No such document for this caller, or the store cannot archive now
    /// (`document-unavailable`).
    Unavailable,
}

/// Appends the result for the host's answer (LIFECYCLE.md §1, §4).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: ArchiveAnswer<'_>) {
    let code = match answer {
        ArchiveAnswer::Archived(document) => {
            return super::write_text_result(out, frame, document, false);
        }
        ArchiveAnswer::Forbidden => "repository-forbidden",
        ArchiveAnswer::Unavailable => "document-unavailable",
    };
    super::write_code(out, frame, Code::new(code));
}
