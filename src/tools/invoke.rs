//! `invoke_planner` (SURFACE.md §9): an instruction posted to a document's
//! planner, attributed to the caller; the host answers with the document
//! without waiting for the planner's turn.

use chopin_dialect::is_js_whitespace;
use serde::{Deserialize, Serialize};

use super::{Code, Frame, locator};
use crate::json::{self, Level, WriteJson};
use crate::jsonrpc::RpcError;
use crate::record::Arguments;

/// The default description (ours, SURFACE.md §1.2), unless
/// [`Config::planner_description`](crate::Config::planner_description)
/// replaces it; a macro, so that the definition stays one `concat!`ed
/// constant.
macro_rules! description {
    () => {
        "Post an instruction to a document's planner, attributed to the caller, and return the document without waiting for the turn."
    };
}

/// The definition up to its description's value.
macro_rules! head {
    () => {
        r#"{"name":"invoke_planner","title":"Ask a document's planner","description":"#
    };
}

/// The definition after its description's value: schemas and annotations
/// (SURFACE.md §1.3, §9).
macro_rules! tail {
    () => {
        concat!(
            r#","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":2048,"pattern":"\\S"},"instruction":{"type":"string","minLength":1,"maxLength":65536,"pattern":"\\S","description":"Instruction text, at most 64 KiB in UTF-8."},"checkout":{"type":"string","description":"Absolute path, on the server's machine, to a checkout of the document's repository; hosts that cannot verify one ignore it."}},"required":["id","instruction"],"additionalProperties":false},"#,
            r#""outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},"url":{"type":"string"}},"required":["id","title","url"],"additionalProperties":false},"#,
            r#"{"type":"object","properties":{"code":{"type":"string","enum":["document-unavailable","repository-forbidden","document-archived","planner-owner-unavailable","checkout-unverified","planner-unavailable","planner-queue-full"]}},"required":["code"],"additionalProperties":false}]},"#,
            r#""annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}"#
        )
    };
}

/// The definition with the default description.
pub(crate) const DEFINITION: &str = concat!(head!(), "\"", description!(), "\"", tail!());

/// Appends the definition with `description` in place of the default.
pub(crate) fn write_definition(out: &mut Vec<u8>, description: &str) {
    out.extend_from_slice(head!().as_bytes());
    json::write_string(out, description);
    out.extend_from_slice(tail!().as_bytes());
}

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "invoke_planner requires an id or URL, instruction, and optional absolute checkout",
};

/// The most UTF-8 bytes an instruction may have.
const MAX_INSTRUCTION: usize = 65_536;
/// The most UTF-8 bytes a checkout path may have (ours: SURFACE.md §13).
const MAX_CHECKOUT: usize = 4096;

/// A checked call: the locator, the instruction and the checkout, each
/// exactly as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    pub locator: String,
    pub instruction: String,
    pub checkout: Option<String>,
}

/// Validates `arguments` (SURFACE.md §9): keys among `id`, `instruction`,
/// `checkout`; `id` a locator; `instruction` a string that is not blank, of
/// at most 65,536 UTF-8 bytes, never trimmed; `checkout`, when present, a
/// string starting with `/` of at most 4096 bytes without U+0000. `None` is
/// [`INVALID`].
pub(crate) fn arguments(arguments: &Arguments<'_>) -> Option<Invocation> {
    let members = arguments.members(["id", "instruction", "checkout"])?;
    if members.other {
        return None;
    }
    let [id, instruction, checkout] = members.values;
    let locator = locator(id?)?;
    let instruction = json::string(instruction?)?;
    let blank = !instruction.chars().any(|c| !is_js_whitespace(c));
    if instruction.len() > MAX_INSTRUCTION || blank {
        return None;
    }
    let checkout = match checkout {
        None => None,
        Some(raw) => {
            let path = json::string(raw)?;
            let absolute = path.starts_with('/');
            if !absolute || path.len() > MAX_CHECKOUT || path.contains('\0') {
                return None;
            }
            Some(path.into_owned())
        }
    };
    Some(Invocation {
        locator,
        instruction: instruction.into_owned(),
        checkout,
    })
}

/// The document a planner was asked about, as `invoke_planner` answers it:
/// `{id, title, description?, url}` (SURFACE.md §1.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannerDocument {
    /// The document's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its generated one-line description, when the host has one; `None`
    /// writes no member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where the document is read, as the host writes it (the reference
    /// server: `<public-url>/documents/<id>`, or `/documents/<id>`).
    pub url: String,
}

impl PlannerDocument {
    fn with_members<R>(&self, f: impl FnOnce(&[(&str, &dyn WriteJson)]) -> R) -> R {
        match &self.description {
            None => f(&[("id", &self.id), ("title", &self.title), ("url", &self.url)]),
            Some(description) => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("description", description),
                ("url", &self.url),
            ]),
        }
    }
}

impl WriteJson for PlannerDocument {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.with_members(|members| json::object(out, level, members));
    }

    fn len_hint(&self) -> usize {
        self.with_members(json::object_len_hint)
    }
}

/// Why a host did not post the instruction: one variant per code of
/// SURFACE.md §9.
///
/// Every refusal but [`DocumentUnavailable`](Self::DocumentUnavailable)
/// tells the caller the document exists: give it only to a caller who may
/// see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlannerRefusal {
    /// No such document for this caller, or the store cannot answer now
    /// (`document-unavailable`).
    DocumentUnavailable,
    /// The caller may see the document but not invoke its planner
    /// (`repository-forbidden`).
    RepositoryForbidden,
    /// The document is archived (`document-archived`).
    DocumentArchived,
    /// The planner runs as the document's owner, who cannot be reached now
    /// (`planner-owner-unavailable`).
    PlannerOwnerUnavailable,
    /// The host verifies checkouts and could not verify this one
    /// (`checkout-unverified`).
    CheckoutUnverified,
    /// The host has no planner to run now (`planner-unavailable`).
    PlannerUnavailable,
    /// The planner's queue is full; try again later (`planner-queue-full`).
    PlannerQueueFull,
}

impl PlannerRefusal {
    /// Every refusal, in the order of the output schema's code enum.
    pub const ALL: [PlannerRefusal; 7] = [
        PlannerRefusal::DocumentUnavailable,
        PlannerRefusal::RepositoryForbidden,
        PlannerRefusal::DocumentArchived,
        PlannerRefusal::PlannerOwnerUnavailable,
        PlannerRefusal::CheckoutUnverified,
        PlannerRefusal::PlannerUnavailable,
        PlannerRefusal::PlannerQueueFull,
    ];

    /// The refusal's code, as the result writes it.
    pub const fn code(self) -> &'static str {
        match self {
            PlannerRefusal::DocumentUnavailable => "document-unavailable",
            PlannerRefusal::RepositoryForbidden => "repository-forbidden",
            PlannerRefusal::DocumentArchived => "document-archived",
            PlannerRefusal::PlannerOwnerUnavailable => "planner-owner-unavailable",
            PlannerRefusal::CheckoutUnverified => "checkout-unverified",
            PlannerRefusal::PlannerUnavailable => "planner-unavailable",
            PlannerRefusal::PlannerQueueFull => "planner-queue-full",
        }
    }

    /// The refusal whose code is `code`.
    pub fn from_code(code: &str) -> Option<PlannerRefusal> {
        PlannerRefusal::ALL
            .into_iter()
            .find(|refusal| refusal.code() == code)
    }
}

/// The host's answer to an [`InvokePlanner`](crate::InvokePlanner) effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvokeAnswer<'a> {
    /// The instruction is posted (the turn may not have begun): the
    /// document, `text({id, title, description?, url})`.
    Invoked(&'a PlannerDocument),
    /// Not posted: `text({"code":…}, error)`.
    Refused(PlannerRefusal),
}

/// Appends the result for the host's answer (SURFACE.md §9).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: InvokeAnswer<'_>) {
    match answer {
        InvokeAnswer::Invoked(document) => super::write_text_result(out, frame, document, false),
        InvokeAnswer::Refused(refusal) => super::write_code(out, frame, Code::new(refusal.code())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Raw;

    #[test]
    fn the_definition_written_with_the_default_description_is_the_constant() {
        let mut out = Vec::new();
        write_definition(&mut out, description!());
        assert_eq!(out, DEFINITION.as_bytes());
    }

    #[test]
    fn every_code_reads_back_as_its_refusal() {
        for refusal in PlannerRefusal::ALL {
            assert_eq!(PlannerRefusal::from_code(refusal.code()), Some(refusal));
            assert!(DEFINITION.contains(&format!("\"{}\"", refusal.code())));
        }
        assert_eq!(PlannerRefusal::from_code("planner-busy"), None);
    }

    #[test]
    fn the_instruction_counts_utf8_bytes_and_is_never_trimmed() {
        let read = |instruction: &str| {
            let raw = serde_json::json!({"id": "d", "instruction": instruction}).to_string();
            arguments(&Arguments::walked(Raw::new(&raw))).map(|call| call.instruction)
        };
        assert_eq!(read("  Plan this.\n").as_deref(), Some("  Plan this.\n"));
        assert!(read(&"é".repeat(32_768)).is_some());
        assert!(read(&"é".repeat(32_769)).is_none());
        assert!(read(&"😀".repeat(16_384)).is_some());
        assert!(read(&"😀".repeat(16_385)).is_none());
        assert!(read("\u{feff}\u{a0}\u{2028}").is_none());
    }
}
