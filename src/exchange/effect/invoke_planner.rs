//! The planner effect (SURFACE.md §9).

use std::fmt;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::session::ClientInfo;
use crate::tools::invoke::{self, Invocation, InvokeAnswer};

/// The planner effect: post [`instruction`](Self::instruction) to the
/// planner of the document [`locator`](Self::locator) names, attributed to
/// [`caller`](Self::caller), and answer at once with the document
/// ([`InvokeAnswer::Invoked`]) without waiting for the planner's turn.
///
/// Every argument is as sent: the instruction is never trimmed, and the
/// locator is the host's to resolve. A document the caller may not see is
/// [`PlannerRefusal::DocumentUnavailable`](crate::PlannerRefusal::DocumentUnavailable),
/// never another refusal.
pub struct InvokePlanner<C> {
    pending: Pending<C>,
    /// Boxed: an [`Outcome`] stays as small as its other effects.
    invocation: Box<Invocation>,
    client: Box<ClientInfo>,
}

impl<C> InvokePlanner<C> {
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        invocation: Box<Invocation>,
        client: Box<ClientInfo>,
    ) -> Self {
        InvokePlanner {
            pending: Pending::new(dispatch, id),
            invocation,
            client,
        }
    }

    /// The authenticated caller, to whom the turn is attributed.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The client making the call (SURFACE.md §10): from the request's one
    /// well-formed `mcp-session-id`, or the modern `_meta`
    /// `io.modelcontextprotocol/clientInfo` (2026-07-28), else `{unknown,
    /// unknown}`.
    pub fn client(&self) -> &ClientInfo {
        &self.client
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn locator(&self) -> &str {
        &self.invocation.locator
    }

    /// The instruction exactly as sent: not blank, at most 65,536 UTF-8
    /// bytes, never trimmed.
    pub fn instruction(&self) -> &str {
        &self.invocation.instruction
    }

    /// The checkout the caller named, as sent: an absolute path (it starts
    /// with `/`) of at most 4096 bytes without U+0000, on the server's
    /// machine, to a checkout of the document's repository. A host that
    /// cannot verify it ignores it.
    pub fn checkout(&self) -> Option<&str> {
        self.invocation.checkout.as_deref()
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: InvokeAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| invoke::write_result(out, frame, answer))
    }
}

impl<C> fmt::Debug for InvokePlanner<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InvokePlanner")
            .field("locator", &self.invocation.locator)
            .field("instruction_bytes", &self.invocation.instruction.len())
            .field("checkout", &self.invocation.checkout)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}
