//! JSON-RPC dispatch: the part of an exchange after the body.
//!
//! [`start`] parses the body and decides its era (MODERN.md §2, step 10a, by
//! [`version::route`]), then hands each message to its era's framing:
//! [`legacy`](super::legacy) (SPEC.md §5–§7) or [`modern`](super::modern)
//! (MODERN.md), two peers that share this [`Dispatch`], the tool checks and
//! the effects. A [`Dispatch`] walks the messages of a body (one, or a
//! 2025-03-26 batch), writing each reply as it goes. A tool call that needs
//! the host suspends the walk inside an effect; answering the effect writes
//! its reply, framed for the era, and resumes.

use bytes::Bytes;
use bytestring::ByteString;

use super::effect::{
    ArchiveDocument, CreateDocument, InvokePlanner, ListDocuments, ReadDocument,
    ReadImplementation, RenameDocument, Reply, ReportLifecycle, RestoreDocument,
    StartImplementation, StoreImage, UpdateDocument,
};
use super::endpoint::{Endpoint, Exchange, ReplyMode, version_refused};
use super::outcome::Outcome;
use super::{legacy, modern};
use crate::auth::Granted;
use crate::config::Offered;
use crate::jsonrpc::{self, Body, MAX_BATCH, RpcError};
use crate::response::{ContentType, Response};
use crate::session::ClientInfo;
use crate::sse;
use crate::tools::call::Effect;
use crate::tools::{Frame, Text};
use crate::version::{self, Era, HeaderClass, ProtocolVersion, Route, Shape};

pub(crate) struct Dispatch<C> {
    pub(crate) exchange: Exchange<C>,
    /// The revision the message is served under; its era frames results.
    pub(crate) version: ProtocolVersion,
    /// A batch being walked, or the session an `initialize` reply issues;
    /// `None` for nearly every message. Boxed (batches are 2025-03-26's
    /// only), one word for both (an `initialize` in a batch is refused): every
    /// effect carries a `Dispatch` by value through the host's loop.
    rare: Option<Box<Rare>>,
    /// The replies written so far (a batch's opening `[` included).
    out: Vec<u8>,
    /// At most [`MAX_BATCH`] (a `u32`, beside `version`, keeps every effect
    /// within its size).
    replies: u32,
    /// Whether the list effect this walk is suspended on asks for archived
    /// documents too (`includeArchived`). Kept here, beside `version` and
    /// `replies`, where it takes no room: a field of its own made every
    /// effect, and so [`Outcome`], a word larger.
    pub(crate) include_archived: bool,
}

/// What a walk rarely has.
enum Rare {
    Batch(Batch),
    /// The session id an `initialize` reply issues (SURFACE.md §10): the
    /// response's `mcp-session-id`.
    Issued(Bytes),
}

/// A batch being walked.
struct Batch {
    /// The elements not yet dispatched.
    elements: std::vec::IntoIter<ByteString>,
    /// The request's `mcp-session-id` line and whether it was the only one,
    /// copied before the kept headers' buffer becomes the reply.
    session: Option<(Box<[u8]>, bool)>,
}

/// A tool call that needs the host: the request id to answer, the effect,
/// and for the tools that hand it to the host the client (SURFACE.md §10).
pub(crate) struct HostCall {
    /// A span of the message (or, past 4 GiB, a copy).
    pub(crate) id: Text,
    pub(crate) effect: Effect,
    pub(crate) client: Option<Box<ClientInfo>>,
}

/// Suspends the walk of the dispatch in the variable `$dispatch` (moved) on
/// `$call`, a [`HostCall`] read from the message `$source` (moved into the
/// effect, where the call's id and string arguments lie): the [`Outcome`]
/// that hands the host its effect.
///
/// A macro, not a method: a method's `self` by value was a copy of the
/// dispatch (168 bytes) made before the effect was told apart, on every
/// host call; here each effect moves the dispatch itself.
macro_rules! suspend {
    ($dispatch:ident, $call:expr, $source:expr) => {{
        let HostCall { id, effect, client } = $call;
        // Set for the effects `wants_client` names.
        let client = || client.unwrap_or_else(|| Box::new(ClientInfo::unknown()));
        let reply = Reply {
            source: $source,
            id,
        };
        match effect {
            Effect::List {
                repository,
                include_archived,
            } => Outcome::List(ListDocuments::new(
                $dispatch,
                reply,
                repository,
                include_archived,
            )),
            Effect::Read(document) => Outcome::Read(ReadDocument::new($dispatch, reply, document)),
            Effect::Create(document) => {
                Outcome::Create(CreateDocument::new($dispatch, reply, document, client()))
            }
            Effect::Update(update) => {
                Outcome::Update(UpdateDocument::new($dispatch, reply, update, client()))
            }
            Effect::Rename {
                id: document,
                title,
            } => Outcome::Rename(RenameDocument::new($dispatch, reply, document, title)),
            Effect::Archive(document) => {
                Outcome::Archive(ArchiveDocument::new($dispatch, reply, document))
            }
            Effect::Restore(document) => {
                Outcome::Restore(RestoreDocument::new($dispatch, reply, document))
            }
            Effect::InvokePlanner(invocation) => {
                Outcome::InvokePlanner(InvokePlanner::new($dispatch, reply, invocation, client()))
            }
            Effect::StoreImage(upload) => {
                Outcome::StoreImage(StoreImage::new($dispatch, reply, upload))
            }
            Effect::ReadImplementation(locator) => {
                Outcome::ReadImplementation(ReadImplementation::new($dispatch, reply, locator))
            }
            Effect::StartImplementation(request) => {
                let ids = &$dispatch.exchange.endpoint.inner.config.ids;
                let run_id = ids.mint().to_string();
                let mut client = client();
                // IMPLEMENTATION.md §3: without a session (2026-07-28, or
                // none issued), the run stands in for it.
                if client.session.is_none() {
                    client.session = Some(run_id.clone());
                }
                let effect = StartImplementation::new($dispatch, reply, *request, *client, run_id);
                Outcome::StartImplementation(effect)
            }
            Effect::Lifecycle(report) => {
                Outcome::ReportLifecycle(ReportLifecycle::new($dispatch, reply, report, client()))
            }
        }
    }};
}

/// Whether the host is told who the client is for `effect` (SURFACE.md §10,
/// IMPLEMENTATION.md §2.4): only these tools read it, so no other call
/// parses a session.
pub(crate) fn wants_client(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::Create(_)
            | Effect::Update(_)
            | Effect::InvokePlanner(_)
            | Effect::StartImplementation(_)
            | Effect::Lifecycle(_)
    )
}

/// Whether `effect` needs the handshake era's session id (IMPLEMENTATION.md
/// §3): the seven implementation tools that write.
pub(crate) fn needs_session(effect: &Effect) -> bool {
    matches!(
        effect,
        Effect::StartImplementation(_) | Effect::Lifecycle(_)
    )
}

/// Parses the complete body, decides its era and dispatches it.
pub(crate) fn start<C>(exchange: Exchange<C>, body: Bytes) -> Outcome<C> {
    let class = exchange.class;
    let Some(text) = jsonrpc::body_text(body) else {
        return unreadable(class);
    };
    if jsonrpc::opens_object(&text) {
        one(exchange, text)
    } else {
        other(exchange, text)
    }
}

/// Dispatches a body that opens an object: one message, its members read
/// here and borrowed (bound by value, they were copied once more: 248
/// bytes). In line in [`start`], its one caller.
#[inline(always)]
fn one<C>(exchange: Exchange<C>, text: ByteString) -> Outcome<C> {
    let class = exchange.class;
    let parsed = jsonrpc::envelope(&text);
    let Some(envelope) = &parsed else {
        return unreadable(class);
    };
    let claim = class.reads_claim() && modern::claims(envelope.members);
    let version = match routed(class, Shape::Object { claim }) {
        Ok(version) => version,
        Err(refused) => return Outcome::Respond(refused),
    };
    let mut dispatch = Dispatch::new(exchange, version);
    let body = &text;
    if version.era() == Era::Modern {
        return match modern::dispatch(&mut dispatch, body, *envelope) {
            modern::Ladder::Host(call) => suspend!(dispatch, call, text),
            modern::Ladder::Answered(outcome) => outcome,
        };
    }
    // AUTH.md §1.2: the message's scopes, before its parameters.
    let need = dispatch.need(|offered| legacy::need(Some(envelope), offered));
    if let Some(refusal) = dispatch.refuse(jsonrpc::id_text(envelope.id), need) {
        return refusal;
    }
    match legacy::message(&mut dispatch, body, Some(envelope)) {
        Some(call) => suspend!(dispatch, call, text),
        None => dispatch.finish(),
    }
}

/// Dispatches a body that does not open an object: a batch (2025-03-26),
/// or an invalid request.
fn other<C>(exchange: Exchange<C>, text: ByteString) -> Outcome<C> {
    let class = exchange.class;
    let body = &text;
    let Some(parsed) = jsonrpc::read_body(body) else {
        return unreadable(class);
    };
    let version = match routed(class, Shape::Other) {
        Ok(version) => version,
        Err(refused) => return Outcome::Respond(refused),
    };
    let mut dispatch = Dispatch::new(exchange, version);
    let Body::Batch(elements) = parsed else {
        dispatch.error(b"null", jsonrpc::INVALID_REQUEST);
        return dispatch.finish();
    };
    let allowed = version.allows_batches();
    if !allowed || elements.is_empty() || elements.len() > MAX_BATCH {
        dispatch.error(b"null", jsonrpc::INVALID_REQUEST);
        return dispatch.finish();
    }
    // AUTH.md §1.2: one pass over the elements first; the union of their
    // needs, one 403 for the batch, no effect started.
    let need = dispatch.need(|offered| {
        elements.iter().fold(Granted::NONE, |need, raw| {
            need.with(legacy::need(jsonrpc::envelope(raw.get()).as_ref(), offered))
        })
    });
    if let Some(refusal) = dispatch.refuse(b"null", need) {
        return refusal;
    }
    let elements: Vec<ByteString> = elements
        .iter()
        .map(|raw| body.slice_ref(raw.get()))
        .collect();
    let session = dispatch.exchange.head.session_line();
    dispatch.rare = Some(Box::new(Rare::Batch(Batch {
        elements: elements.into_iter(),
        session: session.map(|(line, single)| (Box::from(line), single)),
    })));
    dispatch.reserve_typical();
    dispatch.out.push(b'[');
    dispatch.run()
}

/// The answer to a body that is not JSON (or not UTF-8): a parse error, or
/// for a refused version header the version error.
fn unreadable<C>(class: HeaderClass) -> Outcome<C> {
    match class {
        HeaderClass::Refused => Outcome::Respond(version_refused()),
        _ => {
            let reply = jsonrpc::error_reply(b"null", jsonrpc::PARSE_ERROR);
            Outcome::Respond(Response::new(400, ContentType::Json, reply))
        }
    }
}

/// The revision a body of `shape` is served under (MODERN.md §2, step 10a),
/// or the response refusing it.
fn routed(class: HeaderClass, shape: Shape) -> Result<ProtocolVersion, Response> {
    match version::route(class, shape) {
        Route::Legacy(version) => Ok(version),
        Route::Modern => Ok(ProtocolVersion::V2026_07_28),
        Route::UnsupportedVersion => Err(version_refused()),
        Route::InvalidRequest => Err(modern::invalid_request()),
    }
}

impl<C> Dispatch<C> {
    fn new(exchange: Exchange<C>, version: ProtocolVersion) -> Self {
        Dispatch {
            exchange,
            version,
            rare: None,
            // The kept headers' buffer, taken by the first reply (see
            // `reserve_typical`): exactly sized for a result known in full.
            out: Vec::new(),
            replies: 0,
            include_archived: false,
        }
    }

    /// What the message(s) need, as `needs` works it out from the tools the
    /// endpoint offers; not worked out when every scope is granted (every
    /// answer without scopes: nothing to decide).
    pub(crate) fn need(&self, needs: impl FnOnce(Offered) -> Granted) -> Granted {
        if self.exchange.granted == Granted::ALL {
            return Granted::NONE;
        }
        needs(self.exchange.endpoint.inner.config.tools)
    }

    /// The 403 `insufficient_scope` (echoing `id`) when the grant does not
    /// cover `need`.
    pub(crate) fn refuse(&self, id: &[u8], need: Granted) -> Option<Outcome<C>> {
        if self.exchange.granted.covers(need) {
            return None;
        }
        let auth = &self.exchange.endpoint.inner.auth;
        Some(Outcome::Respond(auth.insufficient(id, need)))
    }

    /// Dispatches the remaining batch elements until one needs the host.
    pub(crate) fn run(mut self) -> Outcome<C> {
        while let Some(element) = self.batch_mut().and_then(|batch| batch.elements.next()) {
            let envelope = jsonrpc::envelope(&element);
            if let Some(call) = legacy::message(&mut self, &element, envelope.as_ref()) {
                return suspend!(self, call, element);
            }
        }
        self.finish()
    }

    /// The response for a single message whose reply is written, with the
    /// CORS grant, if any.
    ///
    /// Borrows the dispatch: a host call's answer writes its reply and
    /// finishes in place, and the effect holding this dispatch is dropped
    /// where the host handed it, not moved on (two copies of a large effect
    /// every answer). Only a batch, which walks on, moves it
    /// ([`walk_on`](Self::walk_on)).
    pub(crate) fn finish_granted(&mut self) -> Outcome<C> {
        match self.exchange.origin.clone() {
            // Without a grant the outcome is returned where it is made, not
            // moved through `granted`.
            None => self.finish(),
            origin => self.finish().granted(origin),
        }
    }

    /// Walks on through a batch once a host call's reply is written, adding
    /// the CORS grant to the response, if that is what comes next.
    pub(crate) fn walk_on(self) -> Outcome<C> {
        match self.exchange.origin.clone() {
            None => self.run(),
            origin => self.run().granted(origin),
        }
    }

    /// Writes a tool result framed for the era.
    pub(crate) fn tool_result(
        &mut self,
        id: &[u8],
        write_result: impl FnOnce(&mut Vec<u8>, Frame<'_>),
    ) {
        match self.version.era() {
            Era::Legacy => self.result(id, |out| write_result(out, Frame::Legacy)),
            Era::Modern => {
                // The frame borrows the endpoint while the reply is written:
                // a count on it (an atomic add and subtract), only here.
                let endpoint: Endpoint = self.exchange.endpoint.clone();
                let server_info = &endpoint.inner.modern.server_info;
                self.result(id, |out| write_result(out, Frame::Modern { server_info }));
            }
        }
    }

    /// The request's first `mcp-session-id` line and whether it is the only
    /// one.
    pub(crate) fn session_line(&self) -> Option<(&[u8], bool)> {
        match self.batch() {
            Some(batch) => batch
                .session
                .as_ref()
                .map(|(line, single)| (&line[..], *single)),
            None => self.exchange.head.session_line(),
        }
    }

    /// The batch being walked, if the body is one.
    fn batch(&self) -> Option<&Batch> {
        match self.rare.as_deref() {
            Some(Rare::Batch(batch)) => Some(batch),
            _ => None,
        }
    }

    fn batch_mut(&mut self) -> Option<&mut Batch> {
        match self.rare.as_deref_mut() {
            Some(Rare::Batch(batch)) => Some(batch),
            _ => None,
        }
    }

    /// Issues `session` with the reply (an `initialize`'s, never in a batch).
    pub(crate) fn issue(&mut self, session: Bytes) {
        self.rare = Some(Box::new(Rare::Issued(session)));
    }

    /// Room for a typical reply, and for the modern framing around it, once.
    fn reserve_typical(&mut self) {
        if self.out.capacity() == 0 {
            let modern = self.version.era() == Era::Modern;
            let room = self.exchange.endpoint.inner.reply_room(modern);
            self.out = self.exchange.head.take_buffer();
            self.out.reserve(room);
        }
    }

    fn open_reply(&mut self) {
        self.reserve_typical();
        if self.batch().is_some() && self.replies > 0 {
            self.out.push(b',');
        }
        self.replies += 1;
    }

    pub(crate) fn result(&mut self, id: &[u8], write: impl FnOnce(&mut Vec<u8>)) {
        self.open_reply();
        jsonrpc::open_result(&mut self.out, id);
        write(&mut self.out);
        jsonrpc::close(&mut self.out);
    }

    /// [`result`](Self::result) with a result written in advance: a single
    /// reply is given its exact size at once.
    pub(crate) fn result_bytes(&mut self, id: &[u8], result: &[u8]) {
        if self.out.capacity() == 0 {
            self.out = self.exchange.head.take_buffer();
            self.out
                .reserve_exact(jsonrpc::result_len(id, result.len()));
        }
        self.result(id, |out| out.extend_from_slice(result));
    }

    /// Whether the message being dispatched is an element of a batch.
    pub(crate) fn in_batch(&self) -> bool {
        self.batch().is_some()
    }

    pub(crate) fn error(&mut self, id: &[u8], error: RpcError) {
        self.open_reply();
        jsonrpc::write_error(&mut self.out, id, error);
    }

    /// The HTTP response for everything dispatched (modern `text/event-stream`
    /// replies add `x-accel-buffering: no`).
    ///
    /// Borrows the dispatch, taking its replies: a dispatch is large, and a
    /// call by value moved it once more at the end of every exchange. In
    /// line: the response is made where the outcome is returned.
    #[inline(always)]
    pub(crate) fn finish(&mut self) -> Outcome<C> {
        if self.replies == 0 {
            return Outcome::Respond(Response::accepted());
        }
        if self.batch().is_some() {
            self.out.push(b']');
        }
        if self.exchange.reply == ReplyMode::Json && self.rare.is_none() {
            // The usual reply, built where it goes (see `Response::json`).
            return Outcome::Respond(Response::json(&mut self.out));
        }
        let response = match self.exchange.reply {
            ReplyMode::Json => Response::json(&mut self.out),
            ReplyMode::EventStream => {
                let out = std::mem::take(&mut self.out);
                let mut framed = Vec::with_capacity(out.len() + 24);
                sse::event(&mut framed, Some("message"), &out);
                let response = Response::new(200, ContentType::EventStream, framed);
                match self.version.era() {
                    Era::Legacy => response,
                    Era::Modern => response.unbuffered(),
                }
            }
        };
        if matches!(self.rare.as_deref(), Some(Rare::Issued(_))) {
            if let Some(Rare::Issued(session)) = self.rare.take().map(|rare| *rare) {
                return Outcome::Respond(response.with_session_id(session));
            }
        }
        Outcome::Respond(response)
    }
}
