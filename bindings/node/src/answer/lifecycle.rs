//! The answers of the lifecycle effects: rename, archive and restore, each
//! done with the document, or why not.

use chopin_mcp::{ArchiveAnswer, ArchivedDocument, DocumentSummary, RenameAnswer, RestoreAnswer};

use crate::exchanges::{Core, Misuse, Pending};

/// The host's answer to a rename, archive or restore effect, by its
/// `kind`: `Done` is renamed, archived or restored, with the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Renamed, archived or restored.
    Done,
    /// The document is archived (rename only).
    Archived,
    /// The title is taken (rename only).
    Conflict,
    /// The caller may not change it.
    Forbidden,
    /// No such document for this caller, or the store cannot change it now.
    Unavailable,
}

impl ChangeKind {
    pub(crate) fn of(code: u32) -> Result<ChangeKind, Misuse> {
        Ok(match code {
            0 => ChangeKind::Done,
            1 => ChangeKind::Archived,
            2 => ChangeKind::Conflict,
            3 => ChangeKind::Forbidden,
            4 => ChangeKind::Unavailable,
            _ => {
                return Err(Misuse(format!(
                    "{code} is not a rename, archive or restore answer"
                )));
            }
        })
    }
}

impl Core {
    /// Answers the rename effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id, title and description, if any.
    pub fn answer_rename(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<Described<'_>>,
    ) -> Result<&[u8], Misuse> {
        let rename = self.take(slot, "rename", Pending::into_rename)?;
        let summary = summary(kind, document, "a renamed document")?;
        let answer = match (kind, &summary) {
            (ChangeKind::Done, Some(summary)) => RenameAnswer::Renamed(summary),
            (ChangeKind::Archived, _) => RenameAnswer::Archived,
            (ChangeKind::Conflict, _) => RenameAnswer::Conflict,
            (ChangeKind::Forbidden, _) => RenameAnswer::Forbidden,
            _ => RenameAnswer::Unavailable,
        };
        let outcome = rename.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the archive effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id, title, description (if any) and the time it was
    /// archived.
    pub fn answer_archive(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<(Described<'_>, &str)>,
    ) -> Result<&[u8], Misuse> {
        if matches!(kind, ChangeKind::Archived | ChangeKind::Conflict) {
            return Err(Misuse(
                "an archive is answered archived, forbidden or unavailable".into(),
            ));
        }
        let archive = self.take(slot, "archive", Pending::into_archive)?;
        let archived = match (kind, document) {
            (ChangeKind::Done, Some(((id, title, description), archived_at))) => {
                Some(ArchivedDocument {
                    id: id.to_owned(),
                    title: title.to_owned(),
                    description: description.map(str::to_owned),
                    archived_at: archived_at.to_owned(),
                })
            }
            (ChangeKind::Done, None) => {
                return Err(Misuse("an archived document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &archived) {
            (ChangeKind::Done, Some(document)) => ArchiveAnswer::Archived(document),
            (ChangeKind::Forbidden, _) => ArchiveAnswer::Forbidden,
            _ => ArchiveAnswer::Unavailable,
        };
        let outcome = archive.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the restore effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id, title and description, if any.
    pub fn answer_restore(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<Described<'_>>,
    ) -> Result<&[u8], Misuse> {
        if matches!(kind, ChangeKind::Archived | ChangeKind::Conflict) {
            return Err(Misuse(
                "a restore is answered restored, forbidden or unavailable".into(),
            ));
        }
        let restore = self.take(slot, "restore", Pending::into_restore)?;
        let summary = summary(kind, document, "a restored document")?;
        let answer = match (kind, &summary) {
            (ChangeKind::Done, Some(summary)) => RestoreAnswer::Restored(summary),
            (ChangeKind::Forbidden, _) => RestoreAnswer::Forbidden,
            _ => RestoreAnswer::Unavailable,
        };
        let outcome = restore.answer(answer);
        self.settle(slot, outcome)
    }
}

/// A changed document's id, title and description, if any.
pub type Described<'a> = (&'a str, &'a str, Option<&'a str>);

/// The document of a [`ChangeKind::Done`] answer (`what` names it when
/// missing); none for the others.
fn summary(
    kind: ChangeKind,
    document: Option<Described<'_>>,
    what: &str,
) -> Result<Option<DocumentSummary>, Misuse> {
    match (kind, document) {
        (ChangeKind::Done, Some((id, title, description))) => Ok(Some(DocumentSummary {
            id: id.to_owned(),
            title: title.to_owned(),
            description: description.map(str::to_owned),
            archived_at: None,
        })),
        (ChangeKind::Done, None) => Err(Misuse(format!("{what} is missing"))),
        _ => Ok(None),
    }
}
