//! `create_document` (DIALECT.md §11): validate a draft, canonicalize and check
//! its plan, and only then ask the host to create it, with a fingerprint that
//! lets the host tell a replay from a conflicting retry.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{
    Code, Frame, brief_schema, code_schema, document_extras_schema, fingerprint_of, issues_schema,
    list::is_repository, text,
};
use crate::json::{self, Compact, Level, Raw, WriteJson};
use crate::jsonrpc::RpcError;

/// The definition: DIALECT.md §11.2's, with the output schema a `oneOf` of
/// the document, the code and the issues results (LIFECYCLE.md §5), so a
/// client validating `structuredContent` accepts every answer.
pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"create_document","title":"Create a plan document","description":"Create a Chopin document from a structured brief and canonical plan.","inputSchema":{"type":"object","properties":{"idempotencyKey":{"type":"string","minLength":1,"maxLength":128},"repository":{"type":"string","pattern":"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"},"baseBranch":{"type":"string","minLength":1,"maxLength":255},"baseCommit":{"type":"string","minLength":1,"maxLength":64},"title":{"type":"string","minLength":1,"maxLength":120},"brief":"#,
    brief_schema!(),
    r#","plan":{"type":"string","minLength":1}},"required":["idempotencyKey","repository","baseBranch","baseCommit","title","brief","plan"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"#,
    document_extras_schema!(),
    r#","brief":"#,
    brief_schema!(),
    r#","source":{"type":"string"},"revision":{"type":"integer","minimum":0},"url":{"type":"string"}},"required":["id","title","brief","source","revision","url"],"additionalProperties":false},"#,
    code_schema!(
        "idempotency-conflict",
        "title-taken",
        "document-unavailable"
    ),
    ",",
    issues_schema!(),
    r#"]},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: RpcError = RpcError {
    code: -32602,
    message: "create_document requires a valid draft",
};

/// The structured brief of a new document. Unknown keys sent inside it are
/// dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Brief {
    /// What the plan is for (1–4096 characters, not blank).
    pub goal: String,
    /// Constraints the plan keeps.
    pub constraints: Vec<String>,
    /// Decisions already made.
    pub settled_decisions: Vec<String>,
    /// Questions still open.
    pub open_questions: Vec<String>,
    /// What was learned from the repository.
    pub repository_findings: Vec<String>,
}

impl Brief {
    fn members(&self) -> [(&str, &dyn WriteJson); 5] {
        [
            ("goal", &self.goal),
            ("constraints", &self.constraints),
            ("settledDecisions", &self.settled_decisions),
            ("openQuestions", &self.open_questions),
            ("repositoryFindings", &self.repository_findings),
        ]
    }
}

/// Written as `serde` serializes it, keys in the order of §11.2, without a
/// scratch copy (a read answers it inside a [`Document`](crate::Document)).
impl WriteJson for Brief {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        json::object(out, level, &self.members());
    }

    fn len_hint(&self) -> usize {
        json::object_len_hint(&self.members())
    }
}

/// What the create effect asks the host to store (DIALECT.md §11.6).
///
/// Serializes with its keys in the order of §11.6.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewDocument {
    /// The caller's idempotency key: the host keys creation on caller + key.
    pub idempotency_key: String,
    /// `owner/name`.
    pub repository: String,
    /// The branch the plan was written against.
    pub base_branch: String,
    /// The commit the plan was written against.
    pub base_commit: String,
    /// The document title.
    pub title: String,
    /// The brief, rebuilt from its five known keys.
    pub brief: Brief,
    /// The **canonical** plan: the submitted plan with minted ids.
    pub plan: String,
    /// Lowercase hex SHA-256 of the submitted values (§11.7). Equal for a
    /// replay of the same draft, different for a changed one.
    pub fingerprint: String,
}

/// A document the host created (or had created before, for a replay).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedDocument {
    /// The new document's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its brief.
    pub brief: Brief,
    /// The canonical plan as stored.
    pub source: String,
    /// Its revision (0 for a new document).
    pub revision: u64,
    /// Where people open it.
    pub url: String,
}

/// The host's answer to a create effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateAnswer<'a> {
    /// Stored now.
    Created(&'a CreatedDocument),
    /// The same caller, key and fingerprint were stored before: that document.
    Replayed(&'a CreatedDocument),
    /// The same caller and key were stored before with another fingerprint.
    Conflict,
    /// The title is taken in the repository, on a host whose titles are
    /// unique per repository, ignoring case (`title-taken`, SURFACE.md §4).
    TitleTaken,
    /// The caller may not create in this repository.
    Forbidden,
    /// The store cannot create documents right now.
    Unavailable,
}

/// A validated draft: the submitted values.
pub(crate) struct Draft {
    pub idempotency_key: String,
    pub repository: String,
    pub base_branch: String,
    pub base_commit: String,
    pub title: String,
    pub brief: Brief,
    pub plan: String,
}

const KEYS: [&str; 7] = [
    "idempotencyKey",
    "repository",
    "baseBranch",
    "baseCommit",
    "title",
    "brief",
    "plan",
];

/// Caps in Unicode scalar values (§8), in the order of the string fields.
const MAX_KEY: usize = 128;
const MAX_BRANCH: usize = 255;
const MAX_COMMIT: usize = 64;
const MAX_TITLE: usize = 120;
const MAX_PLAN: usize = 786_432;
const MAX_GOAL: usize = 4096;

/// Validates `arguments` (§11.3); `None` is `create_document requires a valid draft`.
pub(crate) fn arguments(raw: Raw<'_>) -> Option<Draft> {
    let members = json::members(raw, KEYS)?;
    if members.other {
        return None;
    }
    let [key, repository, branch, commit, title, brief, plan] = members.values;
    let repository = json::string(repository?)?;
    if !is_repository(&repository) {
        return None;
    }
    Some(Draft {
        idempotency_key: text(key?, MAX_KEY)?,
        repository: repository.into_owned(),
        base_branch: text(branch?, MAX_BRANCH)?,
        base_commit: text(commit?, MAX_COMMIT)?,
        title: text(title?, MAX_TITLE)?,
        brief: brief_of(brief?)?,
        plan: text(plan?, MAX_PLAN)?,
    })
}

fn brief_of(raw: Raw<'_>) -> Option<Brief> {
    let members = json::members(
        raw,
        [
            "goal",
            "constraints",
            "settledDecisions",
            "openQuestions",
            "repositoryFindings",
        ],
    )?;
    let [goal, constraints, settled, open, findings] = members.values;
    let strings = |raw: Option<Raw<'_>>| {
        json::elements(raw?)?
            .map(|element| json::string(element).map(Cow::into_owned))
            .collect::<Option<Vec<String>>>()
    };
    Some(Brief {
        goal: text(goal?, MAX_GOAL)?,
        constraints: strings(constraints)?,
        settled_decisions: strings(settled)?,
        open_questions: strings(open)?,
        repository_findings: strings(findings)?,
    })
}

/// The fingerprinted object: the submitted values in a fixed key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fingerprinted<'a> {
    idempotency_key: &'a str,
    repository: &'a str,
    base_branch: &'a str,
    base_commit: &'a str,
    title: &'a str,
    brief: &'a Brief,
    plan: &'a str,
}

impl Draft {
    /// Lowercase hex SHA-256 of the compact JSON of the submitted values
    /// (§11.7); `serde_json` escapes strings as `JSON.stringify` does.
    pub(crate) fn fingerprint(&self) -> String {
        let object = Fingerprinted {
            idempotency_key: &self.idempotency_key,
            repository: &self.repository,
            base_branch: &self.base_branch,
            base_commit: &self.base_commit,
            title: &self.title,
            brief: &self.brief,
            plan: &self.plan,
        };
        fingerprint_of(&object)
    }

    /// The host input, with the canonical plan in place of the submitted one.
    pub(crate) fn into_new_document(self, canonical: String) -> NewDocument {
        let fingerprint = self.fingerprint();
        NewDocument {
            idempotency_key: self.idempotency_key,
            repository: self.repository,
            base_branch: self.base_branch,
            base_commit: self.base_commit,
            title: self.title,
            brief: self.brief,
            plan: canonical,
            fingerprint,
        }
    }
}

/// Serializes a result value once; it is then written at both levels.
fn compact(value: &impl Serialize) -> Compact {
    // Plain structs of strings and integers always serialize.
    Compact(serde_json::to_vec(value).unwrap_or_default())
}

/// Appends the result for the host's answer (§11.5).
pub(crate) fn write_result(out: &mut Vec<u8>, frame: Frame<'_>, answer: CreateAnswer<'_>) {
    match answer {
        CreateAnswer::Created(document) | CreateAnswer::Replayed(document) => {
            super::write_text_result(out, frame, &compact(document), false)
        }
        CreateAnswer::Conflict => super::write_code(out, frame, Code::new("idempotency-conflict")),
        CreateAnswer::TitleTaken => super::write_code(out, frame, Code::new("title-taken")),
        CreateAnswer::Forbidden => super::write_absent(out, frame),
        CreateAnswer::Unavailable => {
            super::write_code(out, frame, Code::new("document-unavailable"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = r##"{"idempotencyKey":"create-plan-1","repository":"githubnext/chopin","baseBranch":"main","baseCommit":"0123456789abcdef0123456789abcdef01234567","title":"Ship MCP creation","brief":{"goal":"Create a collaborative plan.","constraints":["Keep plans immutable through MCP."],"settledDecisions":["Use the documented dialect."],"openQuestions":["Which reviewer owns the rollout?"],"repositoryFindings":["The plan becomes a hosted channel."]},"plan":"# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n"}"##;

    #[test]
    fn the_fingerprint_matches_the_spec_vector() {
        let draft = arguments(Raw::new(SEED)).unwrap();
        let json = serde_json::to_vec(&Fingerprinted {
            idempotency_key: &draft.idempotency_key,
            repository: &draft.repository,
            base_branch: &draft.base_branch,
            base_commit: &draft.base_commit,
            title: &draft.title,
            brief: &draft.brief,
            plan: &draft.plan,
        })
        .unwrap();
        assert_eq!(json, SEED.as_bytes());
        assert_eq!(json.len(), 515);
        assert_eq!(
            draft.fingerprint(),
            "76c4bab01ff1132bc2d596f03ef07d21cac77a9722f62482820689eb1d4a8dde"
        );
        let changed = SEED.replace("Ship MCP creation", "A changed title");
        let changed = arguments(Raw::new(&changed)).unwrap();
        assert_eq!(
            changed.fingerprint(),
            "7018777a3f4c516d4aa764584fad7125d47eae2c30a7d58ba2bf98c5b053a459"
        );
    }

    #[test]
    fn the_definition_is_one_json_object_with_a_shared_brief_schema() {
        let definition: serde_json::Value = serde_json::from_str(DEFINITION).unwrap();
        assert_eq!(
            definition["inputSchema"]["properties"]["brief"],
            definition["outputSchema"]["oneOf"][0]["properties"]["brief"]
        );
    }
}
