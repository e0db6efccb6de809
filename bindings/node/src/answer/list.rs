//! The list effect's answer: the documents of a repository, as ids and
//! titles, or `repository-forbidden`.

use std::borrow::Cow;

use chopin_mcp::DocumentSummaryRef;
use serde::Deserialize;

use crate::exchanges::{Core, Misuse, Pending};

/// A list answer's summaries: `[id, title, id, title, …]`, as JSON.
#[derive(Deserialize)]
struct Flat<'a>(#[serde(borrow)] Vec<Cow<'a, str>>);

impl Core {
    /// Answers the list effect in `slot` with `[id, title, …]` (JSON).
    pub fn answer_list(&mut self, slot: u32, flat: &str) -> Result<&[u8], Misuse> {
        let list = self.take(slot, "list", Pending::into_list)?;
        let Flat(items) = serde_json::from_str(flat)
            .map_err(|_| Misuse("a list answer is an array of strings".into()))?;
        if items.len() % 2 != 0 {
            return Err(Misuse("a list answer pairs ids and titles".into()));
        }
        let summaries: Vec<DocumentSummaryRef<'_>> = items
            .chunks_exact(2)
            .map(|pair| DocumentSummaryRef {
                id: &pair[0],
                title: &pair[1],
            })
            .collect();
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
