//! The restore effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::tools::restore::{self, RestoreAnswer};

/// The restore effect: bring the archived document [`id`](Self::id) back
/// into every reader's sight, for [`caller`](Self::caller) (LIFECYCLE.md §4).
///
/// Restoring a document that is not archived answers
/// [`RestoreAnswer::Restored`].
pub struct RestoreDocument<C> {
    pending: Pending<C>,
    document: String,
}

impl<C> RestoreDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, document: String) -> Self {
        RestoreDocument {
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
    pub fn answer(self, answer: RestoreAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| restore::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for RestoreDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestoreDocument")
            .field("id", &self.document)
            .finish_non_exhaustive()
    }
}
