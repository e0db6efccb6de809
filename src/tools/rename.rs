//! `rename_document` (LIFECYCLE.md §3, SURFACE.md §6): a document's new
//! title, trimmed, for a document named by its id.

use chopin_dialect::is_js_whitespace;

use super::{Code, DocumentSummary, Frame, code_schema, not_blank_within, text};
use crate::json;
use crate::jsonrpc::RpcError;
use crate::record::Arguments;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"rename_document","title":"Rename a plan document","description":"Rename a Chopin document without changing its canonical plan or revision.","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128,"pattern":"\\S"},"title":{"type":"string","minLength":1,"maxLength":120}},"required":["id","title"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"}},"required":["id","title"],"additionalProperties":false},"#,
    code_schema!(
        "document-archived",
        "title-conflict",
        "repository-forbidden",
        "document-unavailable"
    ),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "rename_document requires an id and valid title",
};

/// The most scalar values a title may have once trimmed (upstream's
/// `title.ts`).
const MAX_TITLE: usize = 120;

/// The most scalar values a document id may have (an id only: upstream's
/// "use the returned UUID").
const MAX_ID: usize = 128;

/// The host's answer to a rename effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameAnswer<'a> {
    /// Renamed (or already had the title: upstream's `unchanged`, a success
    /// alike): the document's id, its title and description, if any (its
    /// `archived_at` is never written).
    Renamed(&'a DocumentSummary),
    /// The document is archived (`document-archived`).
    Archived,
    /// The title is taken, on a host whose titles are unique
    /// (`title-conflict`).
    Conflict,
    /// The caller may see the document but not change it
    /// (`repository-forbidden`).
    Forbidden,
    /// No such document for this caller, or the store cannot rename now
    /// (`document-unavailable`).
    Unavailable,
}

/// Validates `arguments`: the id as sent (1–128, not blank) and the title
/// trimmed as JavaScript trims, then 1–120; `None` is `rename_document
/// requires an id and valid title`.
pub(crate) fn arguments(arguments: &Arguments<'_>) -> Option<(String, String)> {
    let members = arguments.members(["id", "title"])?;
    if members.other {
        return None;
    }
    let [id, title] = members.values;
    let id = text(id?, MAX_ID)?;
    let title = json::string(title?)?;
    let trimmed = title.trim_matches(is_js_whitespace);
    if !not_blank_within(trimmed, MAX_TITLE) {
        return None;
    }
    let title = if trimmed.len() == title.len() {
        title.into_owned()
    } else {
        trimmed.to_owned()
    };
    Some((id, title))
}

/// Appends the result for the host's answer (LIFECYCLE.md §1, §3).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: RenameAnswer<'_>) {
    let code = match answer {
        RenameAnswer::Renamed(document) => {
            return super::write_text_result(out, frame, document, false);
        }
        RenameAnswer::Archived => "document-archived",
        RenameAnswer::Conflict => "title-conflict",
        RenameAnswer::Forbidden => "repository-forbidden",
        RenameAnswer::Unavailable => "document-unavailable",
    };
    super::write_code(out, frame, Code::new(code));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Raw;

    #[test]
    fn titles_are_trimmed_then_judged() {
        let read = |title: &str| {
            let raw = format!(
                r#"{{"id":"d","title":{}}}"#,
                serde_json::to_string(title).unwrap()
            );
            arguments(&Arguments::walked(Raw::new(&raw))).map(|(_, title)| title)
        };
        assert_eq!(read("  Launch plan  ").as_deref(), Some("Launch plan"));
        assert_eq!(read("\u{feff}\u{a0}T\u{2028}").as_deref(), Some("T"));
        assert_eq!(read(&"x".repeat(120)).map(|t| t.len()), Some(120));
        // 122 as sent, 120 once trimmed; 121 once trimmed is refused.
        assert_eq!(
            read(&format!(" {} ", "x".repeat(120))),
            Some("x".repeat(120))
        );
        assert_eq!(read(&"x".repeat(121)), None);
        assert_eq!(read(" \t\n"), None);
        assert_eq!(read(""), None);
    }
}
