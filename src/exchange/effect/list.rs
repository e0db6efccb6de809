//! The list effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::tools::Text;
use crate::tools::{DocumentSummary, DocumentSummaryRef, Summary, list};

/// The list effect: the documents of [`repository`](Self::repository) that
/// [`caller`](Self::caller) may see.
pub struct ListDocuments<C> {
    pending: Pending<C>,
    repository: Text,
}

impl<C> ListDocuments<C> {
    /// Built by a call, as [`Pending`] is: written where it goes.
    #[inline(never)]
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        repository: Text,
        include_archived: bool,
    ) -> Self {
        let mut list = ListDocuments {
            pending: Pending::new(dispatch, id),
            repository,
        };
        list.pending.dispatch.include_archived = include_archived;
        list
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The repository, `owner/name`, already validated.
    pub fn repository(&self) -> &str {
        self.pending.text(&self.repository)
    }

    /// Whether the caller asked for archived documents too
    /// (`includeArchived`, `false` when absent; SURFACE.md §2): then an
    /// archived one is answered with its
    /// [`archived_at`](DocumentSummary::archived_at).
    pub fn include_archived(&self) -> bool {
        self.pending.dispatch.include_archived
    }

    /// Answers with the documents, in the order to present them.
    pub fn answer(self, documents: &[DocumentSummary]) -> Outcome<C> {
        self.answer_with(documents)
    }

    /// [`answer`](Self::answer) with summaries borrowed from the host's own
    /// buffers: the same result, byte for byte.
    pub fn answer_borrowed(self, documents: &[DocumentSummaryRef<'_>]) -> Outcome<C> {
        self.answer_with(documents)
    }

    /// Answers that the caller may not see the repository:
    /// `{"code":"repository-forbidden"}` (LIFECYCLE.md §5). A repository the
    /// caller may see that holds no document is an empty answer instead.
    pub fn forbidden(self) -> Outcome<C> {
        self.pending.answer(list::write_forbidden)
    }

    fn answer_with<T: Summary>(self, documents: &[T]) -> Outcome<C> {
        self.pending
            .answer(|out, frame| list::write_result(out, frame, documents))
    }
}

impl<C> fmt::Debug for ListDocuments<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListDocuments")
            .field("repository", &self.pending.text(&self.repository))
            .field("include_archived", &self.include_archived())
            .finish_non_exhaustive()
    }
}
