//! The list effect's answer: the documents of a repository, as ids and
//! titles (with descriptions and archive times when a host gives them), or
//! `repository-forbidden`.

use std::borrow::Cow;

use chopin_mcp::DocumentSummaryRef;
use serde::Deserialize;

use crate::exchanges::{Core, Misuse, Pending};

/// A list answer's summaries, as JSON: `[id, title, id, title, …]`, or,
/// when a summary has a description or an archive time, `null` then four
/// items each, `[null, id, title, description, archivedAt, …]` (the last
/// two a string or `null`).
#[derive(Deserialize)]
struct Flat<'a>(#[serde(borrow)] Vec<Option<Cow<'a, str>>>);

impl Core {
    /// Answers the list effect in `slot` with its summaries (JSON, see
    /// `Flat`).
    pub fn answer_list(&mut self, slot: u32, flat: &str) -> Result<&[u8], Misuse> {
        let list = self.take(slot, "list", Pending::into_list)?;
        let Flat(items) = serde_json::from_str(flat)
            .map_err(|_| Misuse("a list answer is an array of strings".into()))?;
        let (width, items) = match items.split_first() {
            Some((None, rest)) => (4, rest),
            _ => (2, &items[..]),
        };
        if items.len() % width != 0 {
            return Err(Misuse(
                "a list answer pairs ids and titles (or has four items a summary)".into(),
            ));
        }
        let summaries = items
            .chunks_exact(width)
            .map(|item| {
                let (Some(id), Some(title)) = (&item[0], &item[1]) else {
                    return Err(Misuse("a summary's id and title are strings".into()));
                };
                let optional = |at: usize| item.get(at).and_then(Option::as_deref);
                Ok(DocumentSummaryRef {
                    id,
                    title,
                    description: optional(2),
                    archived_at: optional(3),
                })
            })
            .collect::<Result<Vec<DocumentSummaryRef<'_>>, Misuse>>()?;
        let outcome = list.answer_borrowed(&summaries);
        self.settle(slot, outcome)
    }

    /// Answers the list effect in `slot`: the caller may not list the
    /// repository (`repository-forbidden`).
    pub fn answer_list_forbidden(&mut self, slot: u32) -> Result<&[u8], Misuse> {
        let list = self.take(slot, "list", Pending::into_list)?;
        let outcome = list.forbidden();
        self.settle(slot, outcome)
    }
}
