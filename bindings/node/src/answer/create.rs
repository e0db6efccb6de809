//! The create effect's answer: the created (or replayed) document, or
//! why not.

use chopin_mcp::{Brief, CreateAnswer, CreatedDocument};
use serde::Deserialize;

use crate::exchanges::{Core, Misuse, Pending};

/// The host's answer to a create effect, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateKind {
    /// Stored now.
    Created,
    /// Stored before, same fingerprint.
    Replayed,
    /// Stored before, another fingerprint.
    Conflict,
    /// The caller may not create here.
    Forbidden,
    /// The store cannot create now.
    Unavailable,
    /// The title is taken in the repository (`title-taken`).
    TitleTaken,
}

impl CreateKind {
    pub(crate) fn of(code: u32) -> Result<CreateKind, Misuse> {
        Ok(match code {
            0 => CreateKind::Created,
            1 => CreateKind::Replayed,
            2 => CreateKind::Conflict,
            3 => CreateKind::Forbidden,
            4 => CreateKind::Unavailable,
            5 => CreateKind::TitleTaken,
            _ => return Err(Misuse(format!("{code} is not a create answer"))),
        })
    }
}

/// A created document but its source.
#[derive(Deserialize)]
struct CreatedFields {
    id: String,
    title: String,
    brief: Brief,
    revision: u64,
    url: String,
}

impl Core {
    /// Answers the create effect in `slot`. For [`CreateKind::Created`] and
    /// [`CreateKind::Replayed`], `fields` is the document but its source, as
    /// JSON (`{id, title, brief, revision, url}`), and `source` its source,
    /// or `None` when it is the canonical plan the effect carried (the host
    /// stored what it was given: it need not cross back).
    pub fn answer_create(
        &mut self,
        slot: u32,
        kind: CreateKind,
        fields: Option<&str>,
        source: Option<&str>,
    ) -> Result<&[u8], Misuse> {
        let create = self.take(slot, "create", Pending::into_create)?;
        let created = match (kind, fields) {
            (CreateKind::Created | CreateKind::Replayed, Some(json)) => {
                let fields: CreatedFields = serde_json::from_str(json)
                    .map_err(|error| Misuse(format!("a created document: {error}")))?;
                Some(CreatedDocument {
                    id: fields.id,
                    title: fields.title,
                    brief: fields.brief,
                    source: source.map_or_else(|| create.document().plan.clone(), str::to_owned),
                    revision: fields.revision,
                    url: fields.url,
                })
            }
            (CreateKind::Created | CreateKind::Replayed, None) => {
                return Err(Misuse("a created document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &created) {
            (CreateKind::Created, Some(document)) => CreateAnswer::Created(document),
            (CreateKind::Replayed, Some(document)) => CreateAnswer::Replayed(document),
            (CreateKind::Conflict, _) => CreateAnswer::Conflict,
            (CreateKind::Forbidden, _) => CreateAnswer::Forbidden,
            (CreateKind::TitleTaken, _) => CreateAnswer::TitleTaken,
            _ => CreateAnswer::Unavailable,
        };
        let outcome = create.answer(answer);
        self.settle(slot, outcome)
    }
}
