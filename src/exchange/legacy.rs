//! The handshake era (SPEC.md §5–§7, revisions 2024-11-05 … 2025-11-25):
//! one message of a body, as [`dispatch`](super::dispatch) walks it —
//! envelope checks, `initialize` and its version negotiation, `ping`,
//! `tools/list`, and `tools/call` through the tool step both eras share.
//! Replies are written into the [`Dispatch`]; a tool call that needs the
//! host is returned to it.

use bytes::Bytes;
use bytestring::ByteString;

use super::dispatch::{self, Dispatch, HostCall};
use crate::auth::Granted;
use crate::config::{Config, Offered};
use crate::json;
use crate::jsonrpc::{self, Envelope, Method, Params};
use crate::session;
use crate::tools::call::{self, ToolStep};
use crate::tools::{self, Code, Text, Tool, implementation};
use crate::version::{Era, ProtocolVersion};

/// Dispatches one message (`None`: not an object). Replies that need no
/// host are written at once; a host call is returned.
pub(super) fn message<C>(
    dispatch: &mut Dispatch<C>,
    source: &ByteString,
    envelope: Option<&Envelope<'_>>,
) -> Option<HostCall> {
    let Some(envelope) = envelope else {
        dispatch.error(b"null", jsonrpc::INVALID_REQUEST);
        return None;
    };
    let request = match jsonrpc::validate(envelope) {
        Ok(request) => request,
        Err(id) => {
            dispatch.error(jsonrpc::id_text(id), jsonrpc::INVALID_REQUEST);
            return None;
        }
    };
    // A notification gets no reply and starts nothing.
    let id = request.id?;
    let id_text = id.get().as_bytes();
    match request.kind {
        Method::Initialize if dispatch.in_batch() => {
            dispatch.error(id_text, jsonrpc::INVALID_REQUEST)
        }
        Method::Initialize => {
            let version = negotiate(dispatch, request.members);
            let endpoint = dispatch.exchange.endpoint.clone();
            // SURFACE.md §10: the reply carries the client's session id.
            if endpoint.inner.config.client_sessions {
                let ids = &*endpoint.inner.config.ids;
                let issued = session::issue(envelope.params, ids);
                dispatch.issue(Bytes::from(issued.into_bytes()));
            }
            dispatch.result(id_text, |out| {
                out.extend_from_slice(b"{\"protocolVersion\":\"");
                out.extend_from_slice(version.as_str().as_bytes());
                out.extend_from_slice(b"\",\"capabilities\":{\"tools\":{}},");
                out.extend_from_slice(&endpoint.inner.initialize);
            });
        }
        Method::Ping => dispatch.result(id_text, |out| out.extend_from_slice(b"{}")),
        Method::ToolsList => {
            let endpoint = dispatch.exchange.endpoint.clone();
            dispatch.result_bytes(id_text, &endpoint.inner.tools);
        }
        Method::ToolsCall => {
            // The endpoint borrowed, not cloned: the step holds nothing of it.
            let config = &dispatch.exchange.endpoint.inner.config;
            let client_sessions = config.client_sessions;
            let step = request
                .members
                .ok_or(jsonrpc::INVALID_TOOL_ARGUMENTS)
                .and_then(|members| {
                    let name = members.name();
                    call::tool_call(name, members.call_arguments(), config.tools)
                })
                .and_then(|(tool, arguments)| call::step(config, source, tool, arguments));
            match step {
                Ok(ToolStep::Host(effect)) => {
                    // IMPLEMENTATION.md §3: after the arguments, before any
                    // effect.
                    let gated = client_sessions && dispatch::needs_session(&effect);
                    if gated && !session::has_session(dispatch.session_line()) {
                        let required = Code::new(implementation::SESSION_REQUIRED);
                        dispatch.tool_result(id_text, |out, frame| {
                            tools::write_code(out, frame, required)
                        });
                        return None;
                    }
                    let id = Text::slice(source, id.get());
                    let client = dispatch::wants_client(&effect)
                        .then(|| Box::new(session::read_header(dispatch.session_line())));
                    return Some(HostCall { id, effect, client });
                }
                Ok(ToolStep::Issues(issues)) => {
                    dispatch.tool_result(id_text, |out, frame| {
                        tools::write_issues(out, frame, &issues)
                    });
                }
                Ok(ToolStep::Code(code)) => {
                    dispatch.tool_result(id_text, |out, frame| {
                        tools::write_code(out, frame, tools::Code::new(code))
                    });
                }
                Err(error) => dispatch.error(id_text, error),
            }
        }
        Method::Other => dispatch.error(id_text, jsonrpc::METHOD_NOT_FOUND),
    }
    None
}

/// The scopes a message needs (AUTH.md §1.2, LIFECYCLE.md §1): the read
/// scope for every request and notification, and for a `tools/call` of an
/// offered tool the scope that tool needs beside it (create, or write);
/// nothing for a message that is not a valid request or notification (it
/// gets its `-32600` as before).
pub(super) fn need(envelope: Option<&Envelope<'_>>, offered: Offered) -> Granted {
    let Some(envelope) = envelope else {
        return Granted::NONE;
    };
    let Ok(call) = jsonrpc::validate(envelope) else {
        return Granted::NONE;
    };
    let name = call
        .members
        .filter(|_| call.kind == Method::ToolsCall)
        .and_then(|members| members.name());
    name.map_or(Granted::READ, |name| Tool::needs(&name, offered))
}

/// The version `initialize` answers with (SPEC.md §6, MODERN.md §1): the
/// requested one when it is a configured legacy version, 2025-03-26 when
/// none is named, else the newest configured legacy version. Never a
/// modern one.
fn negotiate<C>(dispatch: &Dispatch<C>, params: Option<&Params<'_>>) -> ProtocolVersion {
    let configured = &dispatch.exchange.endpoint.inner.config.versions;
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

/// The end of every `initialize` result, after its version and
/// capabilities: `"serverInfo":{…}`, the `instructions` when configured
/// (`InitializeResult.instructions`), and the closing brace. Written once
/// per endpoint.
pub(super) fn initialize_tail(config: &Config) -> Vec<u8> {
    let mut out = b"\"serverInfo\":".to_vec();
    out.extend_from_slice(&config.server_info());
    if let Some(instructions) = &config.instructions {
        out.extend_from_slice(b",\"instructions\":");
        json::write_string(&mut out, instructions);
    }
    out.push(b'}');
    out
}
