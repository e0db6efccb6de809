//! JSON-RPC dispatch: the part of an exchange after the body.
//!
//! [`start`] parses the body and decides its era (MODERN.md §2, step 10a, by
//! [`version::route`]). Legacy messages are dispatched here (SPEC.md §5–§7);
//! modern ones by [`modern`](crate::modern), over the same [`Dispatch`], tool
//! checks and effects (the tool-call step, [`call`]). A [`Dispatch`] walks
//! the messages of a body (one, or a 2025-03-26 batch), writing each reply
//! as it goes. A tool call that needs the host suspends the walk inside an
//! effect; answering the effect writes its reply, framed for the era, and
//! resumes.

use bytes::Bytes;

use crate::endpoint::{Endpoint, Exchange, ReplyMode, version_refused};
use crate::json;
use crate::jsonrpc::{self, Body, Envelope, MAX_BATCH, Params, RpcError};
use crate::outcome::{CreateDocument, ListDocuments, Outcome, ReadDocument};
use crate::response::{ContentType, Response};
use crate::tools::call::{self, Effect, ToolStep};
use crate::tools::{Frame, create};
use crate::version::{self, Era, HeaderClass, ProtocolVersion, Route, Shape};
use crate::{modern, sse};

pub(crate) struct Dispatch<C> {
    pub(crate) exchange: Exchange<C>,
    /// The revision the message is served under; its era frames results.
    pub(crate) version: ProtocolVersion,
    /// The batch's elements not yet dispatched; `None` for a single message.
    /// Boxed: batches are rare (2025-03-26 only), and every effect carries a
    /// `Dispatch` by value through the host's loop.
    batch: Option<Box<std::vec::IntoIter<Bytes>>>,
    /// The replies written so far (a batch's opening `[` included).
    out: Vec<u8>,
    replies: usize,
}

/// A tool call that needs the host: the request id to answer, and the effect.
pub(crate) struct HostCall {
    pub(crate) id: Bytes,
    pub(crate) effect: Effect,
}

/// Parses the complete body, decides its era and dispatches it.
pub(crate) fn start<C>(exchange: Exchange<C>, body: Bytes) -> Outcome<C> {
    let class = exchange.class;
    let parsed = jsonrpc::read_body(&body);
    let shape = match &parsed {
        None if class == HeaderClass::Refused => return Outcome::Respond(version_refused()),
        None => {
            let reply = jsonrpc::error_reply(b"null", jsonrpc::PARSE_ERROR);
            return Outcome::Respond(Response::new(400, ContentType::Json, reply.into()));
        }
        Some(Body::Single(envelope)) => Shape::Object {
            claim: class.reads_claim() && modern::claims(envelope.members),
        },
        Some(_) => Shape::Other,
    };
    let version = match version::route(class, shape) {
        Route::Legacy(version) => version,
        Route::Modern => ProtocolVersion::V2026_07_28,
        Route::UnsupportedVersion => return Outcome::Respond(version_refused()),
        Route::InvalidRequest => return Outcome::Respond(modern::invalid_request()),
    };
    let mut dispatch = Dispatch {
        exchange,
        version,
        batch: None,
        // Allocated by the first reply: exactly for a result known in full.
        out: Vec::new(),
        replies: 0,
    };
    match parsed {
        Some(Body::Single(envelope)) if version.era() == Era::Modern => {
            modern::dispatch(dispatch, &body, envelope)
        }
        Some(Body::Single(envelope)) => match dispatch.message(&body, Some(envelope)) {
            Some(call) => dispatch.suspend(call),
            None => dispatch.finish(),
        },
        Some(Body::Batch(elements)) => {
            let allowed = version.allows_batches();
            if !allowed || elements.is_empty() || elements.len() > MAX_BATCH {
                dispatch.error(b"null", jsonrpc::INVALID_REQUEST);
                return dispatch.finish();
            }
            let elements: Vec<Bytes> = elements
                .iter()
                .map(|raw| body.slice_ref(raw.get().as_bytes()))
                .collect();
            dispatch.batch = Some(Box::new(elements.into_iter()));
            dispatch.reserve_typical();
            dispatch.out.push(b'[');
            dispatch.run()
        }
        _ => {
            dispatch.error(b"null", jsonrpc::INVALID_REQUEST);
            dispatch.finish()
        }
    }
}

/// The room a reply gets at once: enough for every fixed reply and a
/// typical read; a larger result reserves its own (`tools::write_text_result`).
pub(crate) const TYPICAL_REPLY: usize = 512;

impl<C> Dispatch<C> {
    /// Dispatches the remaining batch elements until one needs the host.
    pub(crate) fn run(mut self) -> Outcome<C> {
        while let Some(element) = self.batch.as_mut().and_then(Iterator::next) {
            let envelope = std::str::from_utf8(&element)
                .ok()
                .and_then(jsonrpc::envelope);
            if let Some(call) = self.message(&element, envelope) {
                return self.suspend(call);
            }
        }
        self.finish()
    }

    /// Writes the reply to a host call, framed for the era, and resumes.
    pub(crate) fn resume(
        mut self,
        id: &[u8],
        write_result: impl FnOnce(&mut Vec<u8>, Frame<'_>),
    ) -> Outcome<C> {
        self.tool_result(id, write_result);
        self.run()
    }

    /// Writes a tool result framed for the era.
    pub(crate) fn tool_result(
        &mut self,
        id: &[u8],
        write_result: impl FnOnce(&mut Vec<u8>, Frame<'_>),
    ) {
        let endpoint: Endpoint = self.exchange.endpoint.clone();
        let frame = match self.version.era() {
            Era::Legacy => Frame::Legacy,
            Era::Modern => Frame::Modern {
                server_info: &endpoint.inner.modern.server_info,
            },
        };
        self.result(id, |out| write_result(out, frame));
    }

    pub(crate) fn suspend(self, HostCall { id, effect }: HostCall) -> Outcome<C> {
        match effect {
            Effect::List(repository) => Outcome::List(ListDocuments::new(self, id, repository)),
            Effect::Read(document) => Outcome::Read(ReadDocument::new(self, id, document)),
            Effect::Create(document) => Outcome::Create(CreateDocument::new(self, id, document)),
        }
    }

    /// Dispatches one message (`None`: not an object). Replies that need no
    /// host are written at once; a host call is returned.
    fn message(&mut self, source: &Bytes, envelope: Option<Envelope<'_>>) -> Option<HostCall> {
        let Some(envelope) = envelope else {
            self.error(b"null", jsonrpc::INVALID_REQUEST);
            return None;
        };
        let request = match jsonrpc::validate(envelope) {
            Ok(request) => request,
            Err(id) => {
                self.error(jsonrpc::id_text(id), jsonrpc::INVALID_REQUEST);
                return None;
            }
        };
        // A notification gets no reply and starts nothing.
        let id = request.id?;
        let id_text = id.get().as_bytes();
        match &*request.method {
            "initialize" if self.batch.is_some() => self.error(id_text, jsonrpc::INVALID_REQUEST),
            "initialize" => {
                let version = self.negotiate(request.members);
                let endpoint = self.exchange.endpoint.clone();
                let server = &endpoint.inner.config;
                self.result(id_text, |out| {
                    out.extend_from_slice(b"{\"protocolVersion\":\"");
                    out.extend_from_slice(version.as_str().as_bytes());
                    out.extend_from_slice(
                        b"\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":",
                    );
                    json::write_string(out, &server.server_name);
                    out.extend_from_slice(b",\"version\":");
                    json::write_string(out, &server.server_version);
                    out.extend_from_slice(b"}}");
                });
            }
            "ping" => self.result(id_text, |out| out.extend_from_slice(b"{}")),
            "tools/list" => {
                let endpoint = self.exchange.endpoint.clone();
                self.result_bytes(id_text, &endpoint.inner.tools);
            }
            "tools/call" => {
                let endpoint = self.exchange.endpoint.clone();
                let config = &endpoint.inner.config;
                let step = request
                    .members
                    .ok_or(jsonrpc::INVALID_TOOL_ARGUMENTS)
                    .and_then(|members| {
                        let name = members.name.and_then(json::name);
                        call::tool_call(name, members.arguments, config.creation)
                    })
                    .and_then(|(tool, arguments)| call::step(config, tool, arguments));
                match step {
                    Ok(ToolStep::Host(effect)) => {
                        let id = source.slice_ref(id_text);
                        return Some(HostCall { id, effect });
                    }
                    Ok(ToolStep::Issues(issues)) => {
                        self.tool_result(id_text, |out, frame| {
                            create::write_issues(out, frame, &issues)
                        });
                    }
                    Err(error) => self.error(id_text, error),
                }
            }
            _ => self.error(id_text, jsonrpc::METHOD_NOT_FOUND),
        }
        None
    }

    /// The version `initialize` answers with (SPEC.md §6, MODERN.md §1): the
    /// requested one when it is a configured legacy version, 2025-03-26 when
    /// none is named, else the newest configured legacy version. Never a
    /// modern one.
    fn negotiate(&self, params: Option<Params<'_>>) -> ProtocolVersion {
        let configured = &self.exchange.endpoint.inner.config.versions;
        let legacy = |version: &ProtocolVersion| version.era() == Era::Legacy;
        let supported = |version: &ProtocolVersion| legacy(version) && configured.contains(version);
        let requested = params.and_then(|params| params.protocol_version);
        let latest = configured
            .iter()
            .rev()
            .copied()
            .find(legacy)
            .unwrap_or(ProtocolVersion::DEFAULT);
        let wanted = match requested {
            None => ProtocolVersion::DEFAULT,
            Some(raw) => {
                match json::string(raw).and_then(|text| ProtocolVersion::parse(text.as_bytes())) {
                    Some(version) => version,
                    None => return latest,
                }
            }
        };
        if supported(&wanted) { wanted } else { latest }
    }

    /// Room for a typical reply, and for the modern framing around it, once.
    fn reserve_typical(&mut self) {
        if self.out.capacity() == 0 {
            let framing = match self.version.era() {
                Era::Legacy => 0,
                Era::Modern => 64 + self.exchange.endpoint.inner.modern.server_info.len(),
            };
            self.out.reserve(TYPICAL_REPLY + framing);
        }
    }

    fn open_reply(&mut self) {
        self.reserve_typical();
        if self.batch.is_some() && self.replies > 0 {
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
    /// reply is then allocated at its exact size (and becomes the response
    /// body without a further allocation).
    pub(crate) fn result_bytes(&mut self, id: &[u8], result: &[u8]) {
        if self.out.capacity() == 0 {
            self.out
                .reserve_exact(jsonrpc::result_len(id, result.len()));
        }
        self.result(id, |out| out.extend_from_slice(result));
    }

    fn error(&mut self, id: &[u8], error: RpcError) {
        self.open_reply();
        jsonrpc::write_error(&mut self.out, id, error);
    }

    /// The HTTP response for everything dispatched (modern `text/event-stream`
    /// replies add `x-accel-buffering: no`).
    pub(crate) fn finish(mut self) -> Outcome<C> {
        if self.replies == 0 {
            return Outcome::Respond(Response::accepted());
        }
        if self.batch.is_some() {
            self.out.push(b']');
        }
        let response = match self.exchange.reply {
            ReplyMode::Json => Response::new(200, ContentType::Json, self.out.into()),
            ReplyMode::EventStream => {
                let mut framed = Vec::with_capacity(self.out.len() + 24);
                sse::event(&mut framed, Some("message"), &self.out);
                let response = Response::new(200, ContentType::EventStream, framed.into());
                match self.version.era() {
                    Era::Legacy => response,
                    Era::Modern => response.unbuffered(),
                }
            }
        };
        Outcome::Respond(response)
    }
}
