//! The archive effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::tools::archive::{self, ArchiveAnswer};

/// The archive effect: take the document [`id`](Self::id) out of every
/// reader's sight until it is restored, for [`caller`](Self::caller)
/// (LIFECYCLE.md §4).
///
/// Archiving an archived document answers [`ArchiveAnswer::Archived`] with
/// the time it was first archived. The time is the host's: the endpoint
/// has no clock.
pub struct ArchiveDocument<C> {
    pending: Pending<C>,
    document: String,
}

impl<C> ArchiveDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, document: String) -> Self {
        ArchiveDocument {
            pending: Pending::new(dispatch, id),
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn id(&self) -> &str {
        &self.document
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: ArchiveAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| archive::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for ArchiveDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArchiveDocument")
            .field("id", &self.document)
            .finish_non_exhaustive()
    }
}
