//! `read_document`: one document's canonical source and revision.

use std::borrow::Cow;

use super::{Document, Frame, is_js_whitespace, write_absent};
use crate::json;

pub(crate) const DEFINITION: &str = r#"{"name":"read_document","description":"Read a Chopin channel's canonical source and revision.","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128,"pattern":"\\S"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"source":{"type":"string"},"revision":{"type":"integer","minimum":0}},"required":["id","title","source","revision"],"additionalProperties":false}}"#;

pub(crate) const INVALID: crate::jsonrpc::RpcError = crate::jsonrpc::RpcError {
    code: -32602,
    message: "read_document requires an id",
};

/// The most characters (Unicode scalar values, as JSON Schema counts) an id may have.
pub const MAX_ID_CHARS: usize = 128;

/// The id named by exactly `{id}`, if it is 1–128 characters with at least one
/// that is not whitespace.
/// `raw` is valid JSON (read with the message).
pub(crate) fn arguments(raw: &str) -> Option<Cow<'_, str>> {
    let (id, other) = match compact_id(raw) {
        Some(id) => (Cow::Borrowed(id), false),
        None => {
            let members = json::members(raw, ["id"])?;
            (json::string(members.values[0]?)?, members.other)
        }
    };
    let valid =
        !other && id.chars().count() <= MAX_ID_CHARS && id.chars().any(|c| !is_js_whitespace(c));
    valid.then_some(id)
}

/// The id of the compact form clients send, `{"id":"…"}` without an escape
/// in the id: in valid JSON that is exactly one member, `id`, whose string
/// ends at the first `"`, so no parser is needed. `None` for any other form.
fn compact_id(raw: &str) -> Option<&str> {
    let id = raw.strip_prefix(r#"{"id":""#)?.strip_suffix(r#""}"#)?;
    (!id.as_bytes().iter().any(|&b| b == b'"' || b == b'\\')).then_some(id)
}

/// Appends the result for the host's answer.
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, document: Option<&Document>) {
    match document {
        Some(document) => super::write_text_result(out, frame, document, false),
        None => write_absent(out, frame),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_form_reads_as_the_parser_reads_it() {
        for raw in [
            r#"{"id":"plan-1"}"#,
            r#"{"id":""}"#,
            r#"{"id":" "}"#,
            r#"{"id":"é😀"}"#,
            r#"{"id":"a\"b"}"#,
            r#"{"id":"a\u0062"}"#,
            r#"{"id":"a","x":"b"}"#,
            r#"{"x":"a","id":"b"}"#,
            r#"{"id":"a","id":"b"}"#,
            r#"{"id":1}"#,
            r#"{ "id":"a"}"#,
            "{}",
        ] {
            let parsed = json::members(raw, ["id"]).and_then(|members| {
                let id = json::string(members.values[0]?)?;
                Some((id.into_owned(), members.other))
            });
            let compact = compact_id(raw).map(|id| (id.to_owned(), false));
            if compact.is_some() {
                assert_eq!(compact, parsed, "{raw}");
            }
            assert_eq!(
                arguments(raw).map(Cow::into_owned),
                {
                    parsed
                        .filter(|(id, other)| {
                            !other
                                && id.chars().count() <= MAX_ID_CHARS
                                && id.chars().any(|c| !is_js_whitespace(c))
                        })
                        .map(|(id, _)| id)
                },
                "{raw}"
            );
        }
        assert_eq!(compact_id(r#"{"id":"plan-1"}"#), Some("plan-1"));
        assert_eq!(compact_id(r#"{"id":"a\"b"}"#), None);
        assert_eq!(compact_id(r#"{"id":"a","id":"b"}"#), None);
    }
}
