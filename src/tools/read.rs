//! `read_document`: one document's canonical source and revision.

use std::borrow::Cow;

use super::{
    Document, Frame, brief_schema, document_extras_schema, not_blank_within, write_absent,
};
use crate::record::Arguments;

/// The definition: SPEC.md §7's, with upstream's description and the
/// optional `description`, `archivedAt`, `brief` and `url` a document may
/// be answered with (SURFACE.md §3: the id stays the seed's 1–128; `url` is
/// optional here, as a host may give none).
pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"read_document","title":"Read a plan document","description":"Read a Chopin document by ID or canonical URL.","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128,"pattern":"\\S"}},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"#,
    document_extras_schema!(),
    r#","brief":"#,
    brief_schema!(),
    r#","source":{"type":"string"},"revision":{"type":"integer","minimum":0},"url":{"type":"string"}},"required":["id","title","source","revision"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: crate::jsonrpc::RpcError = crate::jsonrpc::RpcError {
    code: -32602,
    message: "read_document requires an id",
};

/// The most characters (Unicode scalar values, as JSON Schema counts) an id may have.
pub const MAX_ID_CHARS: usize = 128;

/// The id named by exactly `{id}`, if it is 1–128 characters with at least one
/// that is not whitespace.
pub(crate) fn arguments<'a>(arguments: &Arguments<'a>) -> Option<Cow<'a, str>> {
    let members = arguments.members(["id"])?;
    let id = members.string(0)?;
    let valid = !members.other && not_blank_within(&id, MAX_ID_CHARS);
    valid.then_some(id)
}

/// Appends the result for the host's answer.
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, document: Option<&Document>) {
    match document {
        Some(document) => document.write_result(out, frame),
        None => write_absent(out, frame),
    }
}
