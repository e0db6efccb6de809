//! The read effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::tools::Text;
use crate::tools::{Document, read};

/// The read effect: the document [`id`](Self::id), if
/// [`caller`](Self::caller) may see it.
pub struct ReadDocument<C> {
    pending: Pending<C>,
    document: Text,
}

impl<C> ReadDocument<C> {
    /// Built by a call, as [`Pending`] is: written where it goes.
    #[inline(never)]
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, document: Text) -> Self {
        ReadDocument {
            pending: Pending::new(dispatch, id),
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document asked for, as sent (1–128 characters, not blank): an
    /// id, or a locator the host resolves as its write tools do (its
    /// canonical URL or path).
    pub fn id(&self) -> &str {
        self.pending.text(&self.document)
    }

    /// Answers with the document, or `None` when it is missing or the
    /// caller may not see it (the two must be indistinguishable). An
    /// archived document is read, with its
    /// [`archived_at`](Document::archived_at) (SURFACE.md §3). Each
    /// optional member ([`description`](Document::description),
    /// [`brief`](Document::brief), [`url`](Document::url)) is answered
    /// when the document has it.
    pub fn answer(self, document: Option<&Document>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| read::write_result(out, frame, document))
    }
}

impl<C> fmt::Debug for ReadDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadDocument")
            .field("id", &self.pending.text(&self.document))
            .finish_non_exhaustive()
    }
}
