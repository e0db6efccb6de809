//! The read effect's answer: the document the host read, or none for this
//! caller.

use chopin_mcp::Brief;

use crate::exchanges::{Core, Misuse, Pending};

/// A document the host read, its text borrowed from the call.
#[derive(Debug, Clone, Copy)]
pub struct DocumentRef<'a> {
    /// The document id; `None` for the id the read asked for (the host
    /// answered with it: it need not cross again).
    pub id: Option<&'a str>,
    /// Its title.
    pub title: &'a str,
    /// The canonical plan source.
    pub source: &'a str,
    /// The revision number, from 0.
    pub revision: u64,
    /// A generated line about it, when the host keeps one.
    pub description: Option<&'a str>,
    /// When it was archived (the host's string), for an archived document.
    pub archived_at: Option<&'a str>,
    /// Where people open it, when the host gives it.
    pub url: Option<&'a str>,
}

/// `to` holding `from`, reusing its buffer.
fn keep(to: &mut Option<String>, from: Option<&str>) {
    match from {
        None => *to = None,
        Some(from) => {
            let mut kept = to.take().unwrap_or_default();
            kept.clear();
            kept.push_str(from);
            *to = Some(kept);
        }
    }
}

impl Core {
    /// Answers the read effect in `slot` with a document. Its text is
    /// copied into the endpoint's one scratch document, whose strings keep
    /// their capacity: a read allocates nothing for it.
    pub fn answer_found(
        &mut self,
        slot: u32,
        found: DocumentRef<'_>,
        brief: Option<Brief>,
    ) -> Result<&[u8], Misuse> {
        let read = self.take(slot, "read", Pending::into_read)?;
        let document = &mut self.document;
        for (to, from) in [
            (&mut document.id, found.id.unwrap_or(read.id())),
            (&mut document.title, found.title),
            (&mut document.source, found.source),
        ] {
            to.clear();
            to.push_str(from);
        }
        document.brief = brief;
        document.revision = found.revision;
        keep(&mut document.description, found.description);
        keep(&mut document.archived_at, found.archived_at);
        keep(&mut document.url, found.url);
        let outcome = read.answer(Some(&self.document));
        self.settle(slot, outcome)
    }

    /// Answers the read effect in `slot`: no such document for this caller.
    pub fn answer_absent(&mut self, slot: u32) -> Result<&[u8], Misuse> {
        let read = self.take(slot, "read", Pending::into_read)?;
        let outcome = read.answer(None);
        self.settle(slot, outcome)
    }
}
