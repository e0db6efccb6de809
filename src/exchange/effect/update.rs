//! The update effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::session::ClientInfo;
use crate::tools::update::{self, DocumentUpdate, UpdateAnswer};

/// The update effect: store [`update`](Self::update)'s canonical plan as the
/// document's next revision, for [`caller`](Self::caller), if the document
/// is still at [`DocumentUpdate::revision`] — atomically and idempotently
/// (LIFECYCLE.md §2).
///
/// The plan was checked clean by the dialect; the host never sees a plan
/// with issues. The host keys updates on caller +
/// [`DocumentUpdate::idempotency_key`] (apart from create keys): a key seen
/// before with the same [`DocumentUpdate::fingerprint`] answers
/// [`UpdateAnswer::Replayed`] with the document as that update left it,
/// with another fingerprint [`UpdateAnswer::Conflict`]. Only an update that
/// stored records its key. A document the caller may not see is
/// [`UpdateAnswer::Unavailable`], never `Forbidden`.
pub struct UpdateDocument<C> {
    pending: Pending<C>,
    update: Box<DocumentUpdate>,
    client: Box<ClientInfo>,
}

impl<C> UpdateDocument<C> {
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        update: Box<DocumentUpdate>,
        client: Box<ClientInfo>,
    ) -> Self {
        UpdateDocument {
            pending: Pending::new(dispatch, id),
            update,
            client,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The client making the call (SURFACE.md §10): from the request's one
    /// well-formed `mcp-session-id` (handshake era) or its `_meta`'s
    /// `io.modelcontextprotocol/clientInfo` (2026-07-28), else `{unknown,
    /// unknown}`. Attribution only: it authorizes nothing.
    pub fn client(&self) -> &ClientInfo {
        &self.client
    }

    /// The locator as sent, the revision read, the canonical plan, the
    /// idempotency key and the fingerprint.
    pub fn update(&self) -> &DocumentUpdate {
        &self.update
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: UpdateAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| update::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for UpdateDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateDocument")
            .field("revision", &self.update.revision)
            .field("fingerprint", &self.update.fingerprint)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}
