//! The implementation effects (IMPLEMENTATION.md §2.4): read a document's
//! implementation, claim its graph, report a lifecycle event. The host
//! applies [`crate::implementation`]'s rules inside its transaction and
//! answers with the projection they give.

use std::fmt;

use serde::Serialize;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::implementation::{Command, Event};
use crate::session::ClientInfo;
use crate::tools::implementation::{
    self as tools, LifecycleAnswer, ReadImplementationAnswer, StartAnswer, StartRequest,
};

/// The read effect of `read_implementation`: the implementation of the
/// document [`locator`](Self::locator) names, for [`caller`](Self::caller).
pub struct ReadImplementation<C> {
    pending: Pending<C>,
    locator: String,
}

impl<C> ReadImplementation<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, locator: String) -> Self {
        ReadImplementation {
            pending: Pending::new(dispatch, id),
            locator,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document's id or canonical URL, as sent (1–2048 scalar values,
    /// not blank).
    pub fn locator(&self) -> &str {
        &self.locator
    }

    /// Answers with the document's implementation (`IMPL`), or why not.
    pub fn answer<B: Serialize>(self, answer: ReadImplementationAnswer<'_, B>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| tools::write_read(out, frame, answer))
    }
}

/// The claim effect of `start_implementation`: claim the document's current
/// approved graph for [`caller`](Self::caller), atomically, as run
/// [`run_id`](Self::run_id), unless a run is active.
pub struct StartImplementation<C> {
    pending: Pending<C>,
    claim: Box<Claim>,
}

/// What a claim carries, boxed once (every effect moves by value through
/// the host's loop).
struct Claim {
    request: StartRequest,
    client: ClientInfo,
    run_id: String,
}

impl<C> StartImplementation<C> {
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        request: StartRequest,
        client: ClientInfo,
        run_id: String,
    ) -> Self {
        StartImplementation {
            pending: Pending::new(dispatch, id),
            claim: Box::new(Claim {
                request,
                client,
                run_id,
            }),
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document (an id, as sent), the revisions read, and where the work
    /// happens.
    pub fn request(&self) -> &StartRequest {
        &self.claim.request
    }

    /// The client claiming (the run's `client` and `session`): its name and
    /// version from the session id (handshake era) or `_meta` (2026-07-28),
    /// else `unknown`; `session` is the session id's ULID, or the run id
    /// where there is no session (2026-07-28, or sessions not issued): the
    /// run stands in for it.
    pub fn client(&self) -> &ClientInfo {
        &self.claim.client
    }

    /// The new run's id: a ULID from the configured id source.
    pub fn run_id(&self) -> &str {
        &self.claim.run_id
    }

    /// Answers with what the claim did.
    pub fn answer(self, answer: StartAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| tools::write_start(out, frame, answer))
    }
}

/// The report effect of the six lifecycle tools: record
/// [`event`](Self::event) in run [`run_id`](Self::run_id) of the document
/// [`locator`](Self::locator) names, exactly once per idempotency key.
pub struct ReportLifecycle<C> {
    pending: Pending<C>,
    report: Box<tools::Lifecycle>,
    /// Boxed as `str` (its 64 hex digits fill the `String` exactly): two
    /// words, which keep this effect, and so every `Outcome`, within the
    /// 256 bytes that `memcpy` moves without a loop.
    fingerprint: Box<str>,
    client: Box<ClientInfo>,
}

impl<C> ReportLifecycle<C> {
    pub(crate) fn new(
        dispatch: Dispatch<C>,
        id: Reply,
        report: Box<tools::Lifecycle>,
        client: Box<ClientInfo>,
    ) -> Self {
        let fingerprint =
            crate::implementation::fingerprint(&report.run_id, &report.event).into_boxed_str();
        ReportLifecycle {
            pending: Pending::new(dispatch, id),
            report,
            fingerprint,
            client,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document's id, as sent.
    pub fn locator(&self) -> &str {
        &self.report.id
    }

    /// The run the call names.
    pub fn run_id(&self) -> &str {
        &self.report.run_id
    }

    /// The event to record: the idempotency key and the command.
    pub fn event(&self) -> &Event {
        &self.report.event
    }

    /// The tool and its fields.
    pub fn command(&self) -> &Command {
        &self.report.event.command
    }

    /// The key, unique in the document.
    pub fn idempotency_key(&self) -> &str {
        &self.report.event.idempotency_key
    }

    /// Hex SHA-256 of the call ([`crate::implementation::fingerprint`]): a
    /// key stored with the same fingerprint and caller is a replay.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The client reporting (for the event's `client`).
    pub fn client(&self) -> &ClientInfo {
        &self.client
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: LifecycleAnswer<'_>) -> Outcome<C> {
        self.pending
            .answer(|out, frame| tools::write_lifecycle(out, frame, answer))
    }
}

impl<C> fmt::Debug for ReadImplementation<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadImplementation")
            .field("locator", &self.locator)
            .finish_non_exhaustive()
    }
}

impl<C> fmt::Debug for StartImplementation<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StartImplementation")
            .field("request", &self.claim.request)
            .field("client", &self.claim.client)
            .field("run_id", &self.claim.run_id)
            .finish_non_exhaustive()
    }
}

impl<C> fmt::Debug for ReportLifecycle<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReportLifecycle")
            .field("run_id", &self.report.run_id)
            .field("tool", &self.report.event.command.tool())
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}
