//! The rename effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::tools::rename::{self, RenameAnswer};

/// The rename effect: give the document [`id`](Self::id) the title
/// [`title`](Self::title), for [`caller`](Self::caller) (LIFECYCLE.md §3).
///
/// Renaming to the title the document already has answers
/// [`RenameAnswer::Renamed`] and changes nothing.
pub struct RenameDocument<C> {
    pending: Pending<C>,
    /// The locator and the title, boxed: an [`Outcome`] stays as small as
    /// its other effects.
    renaming: Box<(String, String)>,
}

impl<C> RenameDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, document: String, title: String) -> Self {
        RenameDocument {
            pending: Pending::new(dispatch, id),
            renaming: Box::new((document, title)),
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn id(&self) -> &str {
        &self.renaming.0
    }

    /// The new title, trimmed of leading and trailing whitespace (1–120
    /// characters).
    pub fn title(&self) -> &str {
        &self.renaming.1
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: RenameAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| rename::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for RenameDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenameDocument")
            .field("id", &self.renaming.0)
            .finish_non_exhaustive()
    }
}
