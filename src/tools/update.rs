//! `update_document` (LIFECYCLE.md §2): a revised plan, canonicalized and
//! checked as create_document's is, stored by the host only if the document
//! is still at the revision the caller read, idempotently by key.

use serde::{Deserialize, Serialize};

use super::create::Brief;
use super::{
    Code, Frame, brief_schema, code_schema, document_extras_schema, fingerprint_of, issues_schema,
    locator, revision, text,
};
use crate::json::{self, Level, Raw, WriteJson};
use crate::jsonrpc::RpcError;
use crate::record::Arguments;

pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"update_document","title":"Revise a plan document","description":"Replace a Chopin document's canonical plan against the revision last read.","inputSchema":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":2048,"pattern":"\\S"},"revision":{"type":"integer","minimum":0},"plan":{"type":"string","minLength":1},"idempotencyKey":{"type":"string","minLength":1,"maxLength":128}},"required":["id","revision","plan","idempotencyKey"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"#,
    document_extras_schema!(),
    r#","brief":"#,
    brief_schema!(),
    r#","source":{"type":"string"},"revision":{"type":"integer","minimum":0},"url":{"type":"string"}},"required":["id","title","source","revision","url"],"additionalProperties":false},{"type":"object","properties":{"code":{"const":"revision-conflict"},"revision":{"type":"integer","minimum":0}},"required":["code","revision"],"additionalProperties":false},"#,
    code_schema!(
        "idempotency-conflict",
        "document-locked",
        "protected-projection",
        "document-archived",
        "repository-forbidden",
        "document-unavailable"
    ),
    ",",
    issues_schema!(),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "update_document requires a valid revision and plan",
};

/// What the update effect asks the host to store (LIFECYCLE.md §2's host
/// input).
///
/// Serializes with its keys in that order: `id`, `revision`, `plan`,
/// `idempotencyKey`, `fingerprint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentUpdate {
    /// The document's locator exactly as sent (untrimmed): an id, or its
    /// canonical URL as the host gives it in `url`. The host resolves it.
    pub id: String,
    /// The revision the caller read: store the plan only if the document is
    /// still at it.
    pub revision: u64,
    /// The **canonical** revised plan: the submitted plan with minted ids,
    /// already checked clean.
    pub plan: String,
    /// The caller's idempotency key: the host keys updates on caller + key
    /// (apart from create keys).
    pub idempotency_key: String,
    /// Lowercase hex SHA-256 of the submitted key, locator, revision and
    /// plan (LIFECYCLE.md §2). Equal for a retry of the same update,
    /// different for a changed one.
    pub fingerprint: String,
}

/// A document as an update left it (or as the update a replay repeats
/// left it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdatedDocument {
    /// The document's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its brief, when the host keeps one; answered between `title` and
    /// `source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brief: Option<Brief>,
    /// The canonical plan as stored.
    pub source: String,
    /// Its revision: the one the update made.
    pub revision: u64,
    /// Where people open it.
    pub url: String,
}

/// The host's answer to an update effect.
///
/// Every answer but [`Unavailable`](Self::Unavailable) tells the caller the
/// document exists: give it only to a caller who may see the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateAnswer<'a> {
    /// Stored now as the next revision.
    Updated(&'a UpdatedDocument),
    /// The same caller, key and fingerprint were stored before: the
    /// document as that update left it.
    Replayed(&'a UpdatedDocument),
    /// The same caller and key were stored before with another fingerprint
    /// (`idempotency-conflict`).
    Conflict,
    /// The document is no longer at the revision sent; this is its current
    /// one (`revision-conflict`).
    RevisionConflict(u64),
    /// The document is held by other work (`document-locked`).
    Locked,
    /// The document is a protected projection of something else
    /// (`protected-projection`).
    Protected,
    /// The document is archived (`document-archived`).
    Archived,
    /// The caller may see the document but not change it
    /// (`repository-forbidden`).
    Forbidden,
    /// No such document for this caller, or the store cannot update now
    /// (`document-unavailable`).
    Unavailable,
}

/// Validated arguments: the submitted values.
pub(crate) struct Revision {
    id: String,
    revision: u64,
    pub plan: String,
    idempotency_key: String,
}

const KEYS: [&str; 4] = ["id", "revision", "plan", "idempotencyKey"];

/// Caps in scalar values.
const MAX_PLAN: usize = 786_432;
const MAX_KEY: usize = 128;

/// Validates `arguments`; `None` is `update_document requires a valid
/// revision and plan`.
pub(crate) fn arguments(arguments: &Arguments<'_>) -> Option<Revision> {
    let members = arguments.members(KEYS)?;
    if members.other {
        return None;
    }
    let [id, revision_raw, plan, key] = members.values;
    Some(Revision {
        id: locator(id?)?,
        revision: revision::revision(revision_raw?.get())?,
        plan: text(plan?, MAX_PLAN)?,
        idempotency_key: text(key?, MAX_KEY)?,
    })
}

/// The fingerprinted object: the submitted values in LIFECYCLE.md §2's
/// key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fingerprinted<'a> {
    idempotency_key: &'a str,
    id: &'a str,
    revision: u64,
    plan: &'a str,
}

impl Revision {
    /// Lowercase hex SHA-256 of the compact JSON of the submitted values:
    /// the id untrimmed, the submitted plan, the revision as an integer.
    pub(crate) fn fingerprint(&self) -> String {
        fingerprint_of(&Fingerprinted {
            idempotency_key: &self.idempotency_key,
            id: &self.id,
            revision: self.revision,
            plan: &self.plan,
        })
    }

    /// The host input, with the canonical plan in place of the submitted one.
    pub(crate) fn into_update(self, canonical: String) -> DocumentUpdate {
        let fingerprint = self.fingerprint();
        DocumentUpdate {
            id: self.id,
            revision: self.revision,
            plan: canonical,
            idempotency_key: self.idempotency_key,
            fingerprint,
        }
    }
}

/// What [`prepare_update`] gives: what an update effect would carry, or
/// the plan's issues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreparedUpdate {
    /// The host input the update effect carries: the canonical plan with
    /// its minted ids, and the fingerprint of the submitted values.
    Update(DocumentUpdate),
    /// The submitted plan is not clean: the issues `update_document`
    /// answers, in the order found. Nothing would reach the host.
    Issues(Vec<chopin_dialect::Issue>),
}

/// Prepares `update_document`'s `arguments` (the JSON text of its arguments
/// object) as the endpoint does before its update effect, minting ids from
/// `ids`: the [`DocumentUpdate`] the effect would carry, or the plan's
/// issues; `None` where the endpoint answers `update_document requires a
/// valid revision and plan` (or `arguments` is not a JSON object).
///
/// For hosts that store an update outside the endpoint (SURFACE.md §11's
/// `prepareUpdate`). Pure: the time and entropy of minted ids come from
/// `ids` only.
pub fn prepare_update(
    arguments: &str,
    ids: &dyn chopin_dialect::IdSource,
) -> Option<PreparedUpdate> {
    let raw: &serde_json::value::RawValue =
        serde_json::from_str(arguments.trim_matches([' ', '\t', '\n', '\r'])).ok()?;
    let raw = Raw::from(raw);
    if !json::is_object(raw) {
        return None;
    }
    let revision = self::arguments(&Arguments::walked(raw))?;
    let report = chopin_dialect::check(&revision.plan, ids);
    Some(if report.issues.is_empty() {
        PreparedUpdate::Update(revision.into_update(report.canonical))
    } else {
        PreparedUpdate::Issues(report.issues)
    })
}

impl UpdatedDocument {
    fn with_members<R>(&self, f: impl FnOnce(&[(&str, &dyn WriteJson)]) -> R) -> R {
        match &self.brief {
            None => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("source", &self.source),
                ("revision", &self.revision),
                ("url", &self.url),
            ]),
            Some(brief) => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("brief", brief),
                ("source", &self.source),
                ("revision", &self.revision),
                ("url", &self.url),
            ]),
        }
    }
}

impl WriteJson for UpdatedDocument {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.with_members(|members| json::object(out, level, members));
    }

    fn len_hint(&self) -> usize {
        self.with_members(json::object_len_hint)
    }
}

/// Appends the result for the host's answer (LIFECYCLE.md §1, §2).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: UpdateAnswer<'_>) {
    let code = match answer {
        UpdateAnswer::Updated(document) | UpdateAnswer::Replayed(document) => {
            return super::write_text_result(out, frame, document, false);
        }
        UpdateAnswer::RevisionConflict(revision) => Code {
            code: "revision-conflict",
            revision: Some(revision),
        },
        UpdateAnswer::Conflict => Code::new("idempotency-conflict"),
        UpdateAnswer::Locked => Code::new("document-locked"),
        UpdateAnswer::Protected => Code::new("protected-projection"),
        UpdateAnswer::Archived => Code::new("document-archived"),
        UpdateAnswer::Forbidden => Code::new("repository-forbidden"),
        UpdateAnswer::Unavailable => Code::new("document-unavailable"),
    };
    super::write_code(out, frame, code);
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

    fn submitted(revision: &str, plan: &str) -> Revision {
        let plan = serde_json::to_string(plan).unwrap();
        let raw = format!(
            r#"{{"id":"{ID}","revision":{revision},"plan":{plan},"idempotencyKey":"update-plan-1"}}"#
        );
        arguments(&Arguments::walked(Raw::new(&raw))).expect("valid arguments")
    }

    #[test]
    fn the_fingerprint_matches_the_spec_vectors() {
        let first = submitted("4", "# Revised\n\nUpdated prose.\n");
        let json = serde_json::to_vec(&Fingerprinted {
            idempotency_key: &first.idempotency_key,
            id: &first.id,
            revision: first.revision,
            plan: &first.plan,
        })
        .unwrap();
        assert_eq!(json.len(), 130);
        assert_eq!(
            first.fingerprint(),
            "2465e740e953d416d664661bf4064354c397b6afe602aadab4556d012ab03970"
        );
        assert_eq!(
            submitted("5", "# Revised\n\nUpdated prose.\n").fingerprint(),
            "afce82ac37344bc0054a6af8d97a0c6c90f465199943848a57440b3240da2163"
        );
        // The revision as an integer, whatever its spelling.
        assert_eq!(
            submitted("4.0e0", "# Revised\n\nUpdated prose.\n").fingerprint(),
            first.fingerprint()
        );
        let callout = "<Callout type=\"note\">\nA note.\n</Callout>\n";
        assert_eq!(
            submitted("4", callout).fingerprint(),
            "47de85ef8680e43b358506492410405c7a195b8ae0b362546cb1d6b79ef3f01d"
        );
    }

    #[test]
    fn the_output_schema_has_the_document_the_revision_conflict_the_codes_and_the_issues() {
        let definition: serde_json::Value = serde_json::from_str(DEFINITION).unwrap();
        let variants = definition["outputSchema"]["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), 4);
        assert_eq!(
            variants[1]["properties"]["code"],
            serde_json::json!({"const": "revision-conflict"})
        );
        assert_eq!(
            variants[1]["required"],
            serde_json::json!(["code", "revision"])
        );
        let codes = variants[2]["properties"]["code"]["enum"]
            .as_array()
            .unwrap();
        assert_eq!(codes.len(), 6);
        assert!(variants[3]["properties"]["issues"].is_object());
    }
}
