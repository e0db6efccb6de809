//! The create effect.

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::session::ClientInfo;
use crate::tools::create::{self, CreateAnswer, NewDocument};

/// The create effect: store [`document`](Self::document) for
/// [`caller`](Self::caller), atomically and idempotently.
///
/// The host keys creation on caller + [`NewDocument::idempotency_key`]: a key
/// seen before with the same [`NewDocument::fingerprint`] answers
/// [`CreateAnswer::Replayed`] with the stored document, with another
/// fingerprint [`CreateAnswer::Conflict`].
pub struct CreateDocument<C> {
    pending: Pending<C>,
    document: Box<NewDocument>,
    client: Box<ClientInfo>,
}

impl<C> CreateDocument<C> {
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        document: Box<NewDocument>,
        client: Box<ClientInfo>,
    ) -> Self {
        CreateDocument {
            pending: Pending::new(dispatch, id),
            document,
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

    /// The validated draft, its canonical plan and its fingerprint.
    pub fn document(&self) -> &NewDocument {
        &self.document
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: CreateAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| create::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for CreateDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CreateDocument")
            .field("repository", &self.document.repository)
            .field("fingerprint", &self.document.fingerprint)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}
