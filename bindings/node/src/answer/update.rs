//! The update effect's answer: the updated (or replayed) document, or
//! why not (a revision conflict with the document's revision).

use chopin_mcp::{Brief, UpdateAnswer, UpdatedDocument};
use serde::Deserialize;

use crate::exchanges::{Core, Misuse, Pending};

/// The host's answer to an update effect, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    /// Stored now as the next revision.
    Updated,
    /// Stored before, same fingerprint.
    Replayed,
    /// Stored before, another fingerprint.
    Conflict,
    /// The document is at another revision.
    RevisionConflict,
    /// Held by other work.
    Locked,
    /// A protected projection.
    Protected,
    /// Archived.
    Archived,
    /// The caller may not change it.
    Forbidden,
    /// No such document for this caller, or the store cannot update now.
    Unavailable,
}

impl UpdateKind {
    pub(crate) fn of(code: u32) -> Result<UpdateKind, Misuse> {
        const KINDS: [UpdateKind; 9] = [
            UpdateKind::Updated,
            UpdateKind::Replayed,
            UpdateKind::Conflict,
            UpdateKind::RevisionConflict,
            UpdateKind::Locked,
            UpdateKind::Protected,
            UpdateKind::Archived,
            UpdateKind::Forbidden,
            UpdateKind::Unavailable,
        ];
        KINDS
            .get(code as usize)
            .copied()
            .ok_or_else(|| Misuse(format!("{code} is not an update answer")))
    }
}

/// An updated document but its source.
#[derive(Deserialize)]
struct UpdatedFields {
    id: String,
    title: String,
    #[serde(default)]
    brief: Option<Brief>,
    revision: u64,
    url: String,
}

impl Core {
    /// Answers the update effect in `slot`. For [`UpdateKind::Updated`] and
    /// [`UpdateKind::Replayed`], `fields` is the document but its source,
    /// as JSON (`{id, title, brief?, revision, url}`), and `source` its
    /// source, or `None` when it is the canonical plan the effect carried;
    /// for [`UpdateKind::RevisionConflict`], `current` is the document's
    /// revision.
    pub fn answer_update(
        &mut self,
        slot: u32,
        kind: UpdateKind,
        fields: Option<&str>,
        source: Option<&str>,
        current: u64,
    ) -> Result<&[u8], Misuse> {
        let update = self.take(slot, "update", Pending::into_update)?;
        let document = match (kind, fields) {
            (UpdateKind::Updated | UpdateKind::Replayed, Some(json)) => {
                let fields: UpdatedFields = serde_json::from_str(json)
                    .map_err(|error| Misuse(format!("an updated document: {error}")))?;
                Some(UpdatedDocument {
                    id: fields.id,
                    title: fields.title,
                    brief: fields.brief,
                    source: source.map_or_else(|| update.update().plan.clone(), str::to_owned),
                    revision: fields.revision,
                    url: fields.url,
                })
            }
            (UpdateKind::Updated | UpdateKind::Replayed, None) => {
                return Err(Misuse("an updated document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &document) {
            (UpdateKind::Updated, Some(document)) => UpdateAnswer::Updated(document),
            (UpdateKind::Replayed, Some(document)) => UpdateAnswer::Replayed(document),
            (UpdateKind::Conflict, _) => UpdateAnswer::Conflict,
            (UpdateKind::RevisionConflict, _) => UpdateAnswer::RevisionConflict(current),
            (UpdateKind::Locked, _) => UpdateAnswer::Locked,
            (UpdateKind::Protected, _) => UpdateAnswer::Protected,
            (UpdateKind::Archived, _) => UpdateAnswer::Archived,
            (UpdateKind::Forbidden, _) => UpdateAnswer::Forbidden,
            _ => UpdateAnswer::Unavailable,
        };
        let outcome = update.answer(answer);
        self.settle(slot, outcome)
    }
}
