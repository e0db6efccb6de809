//! `restore_document` (LIFECYCLE.md §4): an archived document back in
//! every reader's sight.

use super::{Code, DocumentSummary, Frame, code_schema, locator_input_schema};
use crate::jsonrpc::RpcError;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"restore_document","title":"Restore a plan document","description":"Restore an archived Chopin document by ID or canonical URL.","inputSchema":"#,
    locator_input_schema!(),
    r#","outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"}},"required":["id","title"],"additionalProperties":false},"#,
    code_schema!("repository-forbidden", "document-unavailable"),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "restore_document requires an id or URL",
};

/// The host's answer to a restore effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestoreAnswer<'a> {
    /// Restored (or was not archived: upstream's `unchanged`, a success
    /// alike): the document's id, title and description, if any
    /// (its `archived_at` is never written).
    Restored(&'a DocumentSummary),
    /// The caller may see the document but not restore it
    /// (`repository-forbidden`).
    Forbidden,
    /// No such document for this caller, or the store cannot restore now
    /// (`document-unavailable`).
    Unavailable,
}

/// Appends the result for the host's answer (LIFECYCLE.md §1, §4).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: RestoreAnswer<'_>) {
    let code = match answer {
        RestoreAnswer::Restored(document) => {
            return super::write_text_result(out, frame, document, false);
        }
        RestoreAnswer::Forbidden => "repository-forbidden",
        RestoreAnswer::Unavailable => "document-unavailable",
    };
    super::write_code(out, frame, Code::new(code));
}
