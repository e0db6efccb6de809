//! `rename_document` (LIFECYCLE.md §3): a document's new title, trimmed.

use chopin_dialect::is_js_whitespace;

use super::{Code, DocumentSummary, Frame, code_schema, locator, text};
use crate::json::{self, Raw};
use crate::jsonrpc::RpcError;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"rename_document","title":"Rename a plan document","description":"Change a Chopin document's title.","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":2048},"title":{"type":"string","minLength":1,"maxLength":120}},"required":["id","title"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"}},"required":["id","title"],"additionalProperties":false},"#,
    code_schema!(),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "rename_document requires an id and valid title",
};

/// The most scalar values a title may have as sent (the schema's limit).
const MAX_TITLE: usize = 120;

/// The host's answer to a rename effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameAnswer<'a> {
    /// Renamed (or already had the title): the document's id and its title.
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

/// Validates `arguments`: the locator as sent and the title trimmed;
/// `None` is `rename_document requires an id and valid title`.
pub(crate) fn arguments(raw: Raw<'_>) -> Option<(String, String)> {
    let members = json::members(raw, ["id", "title"])?;
    if members.other {
        return None;
    }
    let [id, title] = members.values;
    let id = locator(id?)?;
    let title = text(title?, MAX_TITLE)?;
    let trimmed = title.trim_matches(is_js_whitespace);
    let title = if trimmed.len() == title.len() {
        title
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

    #[test]
    fn titles_are_judged_as_sent_and_trimmed_for_the_host() {
        let read = |title: &str| {
            let raw = format!(
                r#"{{"id":"d","title":{}}}"#,
                serde_json::to_string(title).unwrap()
            );
            arguments(Raw::new(&raw)).map(|(_, title)| title)
        };
        assert_eq!(read("  Launch plan  ").as_deref(), Some("Launch plan"));
        assert_eq!(read("\u{feff}\u{a0}T\u{2028}").as_deref(), Some("T"));
        assert_eq!(read(&"x".repeat(120)).map(|t| t.len()), Some(120));
        // 121 as sent, although 119 once trimmed.
        assert_eq!(read(&format!(" {} ", "x".repeat(119))), None);
        assert_eq!(read(" \t\n"), None);
        assert_eq!(read(""), None);
    }
}
