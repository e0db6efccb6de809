//! The modern era (MODERN.md, revision 2026-07-28): the ladder M1–M7 over one
//! message, and the results that exist only in this era.
//!
//! Tool argument checks, effects and result members are the legacy ones
//! ([`call::tool_call`], [`call::step`], the tools' writers); this module adds
//! the modern checks, statuses and framing around them.

use bytestring::ByteString;

use super::dispatch::{Dispatch, HostCall};
use super::endpoint::Exchange;
use super::outcome::Outcome;
use crate::auth::Granted;
use crate::config::Config;
use crate::json;
use crate::jsonrpc::{self, Envelope, Params, RpcError};
use crate::response::{ContentType, Response};
use crate::session;
use crate::sse;
use crate::tools::call::{self, ToolStep};
use crate::tools::{self, Text, Tool};
use crate::version::{Era, HeaderClass, ProtocolVersion};

const INVALID_META: RpcError = RpcError {
    code: -32602,
    message: "invalid request _meta",
};
const HEADER_MISMATCH: i32 = -32020;
const UNSUPPORTED_VERSION: i32 = -32022;
const TOOL_NOT_FOUND: RpcError = RpcError {
    code: -32602,
    message: "tool not found",
};
const INVALID_CURSOR: RpcError = RpcError {
    code: -32602,
    message: "invalid cursor",
};
const INVALID_FILTER: RpcError = RpcError {
    code: -32602,
    message: "invalid subscription filter",
};

/// The modern results that depend only on the configuration, written once.
pub(crate) struct Results {
    /// `"io.modelcontextprotocol/serverInfo":{"name":…,"version":…}`.
    pub server_info: Vec<u8>,
    /// The configured versions, newest first, as a JSON array.
    pub supported: Vec<u8>,
    /// The `server/discover` result.
    pub discover: Vec<u8>,
    /// The `tools/list` result.
    pub tools: Vec<u8>,
}

impl Results {
    /// Writes the results for `config`; `tools` is the legacy `{"tools":[…]}`.
    pub(crate) fn new(config: &Config, tools: &[u8]) -> Results {
        let mut server_info = b"\"io.modelcontextprotocol/serverInfo\":".to_vec();
        server_info.extend_from_slice(&config.server_info());
        let mut supported = b"[".to_vec();
        for (index, version) in config.versions.iter().rev().enumerate() {
            if index > 0 {
                supported.push(b',');
            }
            json::write_string(&mut supported, version.as_str());
        }
        supported.push(b']');
        // `ttlMs`, `cacheScope` (MODERN.md §4): the same answer for every caller.
        let cache = format!(
            ",\"ttlMs\":{},\"cacheScope\":\"public\"",
            config.cache_ttl_ms
        );
        let frame = tools::Frame::Modern {
            server_info: &server_info,
        };
        let mut discover = Vec::new();
        frame.open(&mut discover);
        discover.extend_from_slice(b"\"supportedVersions\":");
        discover.extend_from_slice(&supported);
        discover.extend_from_slice(b",\"capabilities\":{\"tools\":{}}");
        // `DiscoverResult.instructions` (schema/2026-07-28/schema.ts): the
        // only place this revision carries server instructions.
        if let Some(instructions) = &config.instructions {
            discover.extend_from_slice(b",\"instructions\":");
            json::write_string(&mut discover, instructions);
        }
        discover.extend_from_slice(cache.as_bytes());
        frame.close(&mut discover);
        // The legacy `{"tools":[…]}` without its braces: the same array.
        let members = &tools[1..tools.len() - 1];
        let mut list = Vec::new();
        frame.open(&mut list);
        list.extend_from_slice(members);
        list.extend_from_slice(cache.as_bytes());
        frame.close(&mut list);
        Results {
            server_info,
            supported,
            discover,
            tools: list,
        }
    }
}

/// The claim (MODERN.md §1): `params._meta` is an object holding
/// `io.modelcontextprotocol/protocolVersion`, whatever its value.
pub(crate) fn claims(params: Option<Params<'_>>) -> bool {
    params
        .and_then(|params| params.meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}

/// 400 `-32600 "invalid request"`, id null: a modern header on a body that
/// is not one object.
pub(crate) fn invalid_request() -> Response {
    error(b"null", jsonrpc::INVALID_REQUEST)
}

/// A modern error: always JSON, with the status of MODERN.md §5.
fn error(id: &[u8], error: RpcError) -> Response {
    let status = if error.code == -32601 { 404 } else { 400 };
    let body = jsonrpc::error_reply(id, error);
    Response::new(status, ContentType::Json, body)
}

/// 400 `-32022`, with the configured versions and the one requested.
fn unsupported(id: &[u8], supported: &[u8], requested: &str) -> Response {
    let mut body = Vec::with_capacity(160 + supported.len() + requested.len());
    body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    body.extend_from_slice(id);
    body.extend_from_slice(b",\"error\":{\"code\":");
    body.extend_from_slice(UNSUPPORTED_VERSION.to_string().as_bytes());
    body.extend_from_slice(
        b",\"message\":\"unsupported protocol version\",\"data\":{\"supported\":",
    );
    body.extend_from_slice(supported);
    body.extend_from_slice(b",\"requested\":");
    json::write_string(&mut body, requested);
    body.extend_from_slice(b"}}}");
    Response::new(400, ContentType::Json, body)
}

/// Where the ladder ends for a message.
// The answered outcome stays on the stack: boxing it would cost every
// modern exchange an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Ladder<C> {
    /// Answered here: the outcome.
    Answered(Outcome<C>),
    /// A tool call that needs the host, for the caller to suspend the walk
    /// on, moving the message into the effect (a copy of it here cost a
    /// body the host handed as a `Vec` an allocation).
    Host(HostCall),
}

/// Runs the ladder M1–M7 over one message object, read from `source`.
pub(crate) fn dispatch<C>(
    dispatch: &mut Dispatch<C>,
    source: &ByteString,
    envelope: Envelope<'_>,
) -> Ladder<C> {
    let exchange = &dispatch.exchange;
    let inner = exchange.endpoint.inner.clone();
    // M1: shape. Unlike the legacy table, a null id is not allowed.
    let id_ok = envelope
        .id
        .is_none_or(|id| jsonrpc::is_valid_id(id) && id.get() != "null");
    let echo: &[u8] = match envelope.id {
        Some(id) if id_ok => id.get().as_bytes(),
        _ => b"null",
    };
    let version_ok = envelope
        .jsonrpc
        .and_then(json::string)
        .is_some_and(|version| version == "2.0");
    let method = envelope.method();
    let (Some(method), true, true) = (method, version_ok, id_ok) else {
        return Ladder::Answered(Outcome::Respond(error(echo, jsonrpc::INVALID_REQUEST)));
    };
    // M1b: a notification starts nothing; under a refused header it is told
    // the version is not supported.
    let Some(id) = envelope.id else {
        if exchange.class == HeaderClass::Refused {
            let line = exchange.head.first_version_line().unwrap_or_default();
            let requested = String::from_utf8_lossy(line);
            return Ladder::Answered(Outcome::Respond(unsupported(
                b"null",
                &inner.modern.supported,
                &requested,
            )));
        }
        // AUTH.md §1.2: notifications need the read scope too.
        let need = dispatch.need(|_| Granted::READ);
        if let Some(refusal) = dispatch.refuse(b"null", need) {
            return Ladder::Answered(refusal);
        }
        return Ladder::Answered(Outcome::Respond(Response::accepted()));
    };
    let id_text = id.get();
    let id = id_text.as_bytes();
    // M2: `_meta`. `params`' and `_meta`'s members were read in the same
    // pass that validated the body.
    let params = envelope.members.unwrap_or_default();
    let Params {
        meta,
        name,
        uri,
        cursor,
        notifications,
        ..
    } = params;
    let requested = meta.and_then(|meta| {
        meta.client_capabilities.filter(|c| json::is_object(*c))?;
        json::string(meta.protocol_version?)
    });
    let Some(requested) = requested else {
        return Ladder::Answered(Outcome::Respond(error(id, INVALID_META)));
    };
    // M3: the standard headers, in order. `Mcp-Name` answers for a string
    // `params.name` (tools/call, prompts/get) or `params.uri` (resources/read).
    let named = match &*method {
        "tools/call" | "prompts/get" => name,
        "resources/read" => uri,
        _ => None,
    };
    let named = named.and_then(json::name);
    if let Some(header) = exchange.head.check(&requested, &method, named.as_deref()) {
        let mismatch = RpcError {
            code: HEADER_MISMATCH,
            message: header.message(),
        };
        return Ladder::Answered(Outcome::Respond(error(id, mismatch)));
    }
    // M4: the `_meta` version.
    let configured = &inner.config.versions;
    let modern = ProtocolVersion::parse(requested.as_bytes())
        .filter(|v| v.era() == Era::Modern && configured.contains(v));
    if modern.is_none() {
        return Ladder::Answered(Outcome::Respond(unsupported(
            id,
            &inner.modern.supported,
            &requested,
        )));
    }
    // AUTH.md §1.2: once the method is known (M5), its scopes, before its
    // params (M6). An unknown method is answered 404 below.
    let known = matches!(
        &*method,
        "server/discover" | "tools/list" | "tools/call" | "subscriptions/listen"
    );
    if known {
        let need = dispatch.need(|offered| match (&*method, named.as_deref()) {
            ("tools/call", Some(name)) => Tool::needs(name, offered),
            _ => Granted::READ,
        });
        if let Some(refusal) = dispatch.refuse(id, need) {
            return Ladder::Answered(refusal);
        }
    }
    // M5–M7: method, params, result.
    match &*method {
        "server/discover" => dispatch.result_bytes(id, &inner.modern.discover),
        // Any `cursor` member, `null` and `""` included, is refused.
        // MODERN.md §4 says "any `cursor`" but is silent on `null`; the
        // 2026-07-28 specification says: `PaginatedRequestParams.cursor?:
        // Cursor` with `type Cursor = string` (schema/2026-07-28/schema.ts;
        // schema.json types it `"string"`), so the member is either absent
        // or a string and `null` is invalid params; a string is a cursor this
        // server never issued (no `nextCursor`, one page), and "Invalid
        // cursors SHOULD result in an error with code -32602 (Invalid
        // params)" (server/utilities/pagination.mdx, which also says an
        // empty string is a valid cursor, not an absent one).
        "tools/list" if cursor.is_some() => {
            return Ladder::Answered(Outcome::Respond(error(id, INVALID_CURSOR)));
        }
        "tools/list" => dispatch.result_bytes(id, &inner.modern.tools),
        "tools/call" => {
            // `named` is `params.name` as M3 read it.
            let (tool, arguments) =
                match call::tool_call(named, params.call_arguments(), inner.config.tools) {
                    Ok(found) => found,
                    Err(refusal) if refusal == jsonrpc::TOOL_NOT_FOUND => {
                        return Ladder::Answered(Outcome::Respond(error(id, TOOL_NOT_FOUND)));
                    }
                    Err(refusal) => return Ladder::Answered(Outcome::Respond(error(id, refusal))),
                };
            // Argument failures are tool execution errors (MODERN.md §4).
            match call::step(&inner.config, source, tool, arguments) {
                Ok(ToolStep::Host(effect)) => {
                    let id = Text::slice(source, id_text);
                    // SURFACE.md §10: no sessions; the client names itself
                    // in `_meta`.
                    let client = super::dispatch::wants_client(&effect)
                        .then(|| Box::new(session::read_meta(envelope.params)));
                    return Ladder::Host(HostCall { id, effect, client });
                }
                Ok(ToolStep::Issues(issues)) => dispatch.tool_result(id, |out, frame| {
                    tools::write_issues(out, frame, &issues);
                }),
                Ok(ToolStep::Code(code)) => dispatch.tool_result(id, |out, frame| {
                    tools::write_code(out, frame, tools::Code::new(code));
                }),
                Err(failure) => dispatch.tool_result(id, |out, frame| {
                    tools::write_error_text(out, frame, failure.message);
                }),
            }
        }
        "subscriptions/listen" => {
            if !notifications.is_some_and(json::is_object) {
                return Ladder::Answered(Outcome::Respond(error(id, INVALID_FILTER)));
            }
            return Ladder::Answered(Outcome::Respond(listen(
                &dispatch.exchange,
                id,
                &inner.modern.server_info,
            )));
        }
        _ => return Ladder::Answered(Outcome::Respond(error(id, jsonrpc::METHOD_NOT_FOUND))),
    }
    Ladder::Answered(dispatch.finish())
}

/// `subscriptions/listen` (MODERN.md §6): nothing can ever be delivered, so
/// the subscription is acknowledged with an empty filter and closed at once:
/// two events, a finite body.
fn listen<C>(exchange: &Exchange<C>, id: &[u8], server_info: &[u8]) -> Response {
    if !exchange.event_stream_ok {
        return Response::text(406, "not acceptable");
    }
    let mut data = Vec::with_capacity(256 + server_info.len());
    data.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":",
    );
    data.extend_from_slice(id);
    data.extend_from_slice(b"},\"notifications\":{}}}");
    let mut body = Vec::with_capacity(2 * data.len() + server_info.len());
    sse::event(&mut body, Some("message"), &data);
    data.clear();
    jsonrpc::open_result(&mut data, id);
    data.extend_from_slice(
        b"{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":",
    );
    data.extend_from_slice(id);
    data.push(b',');
    data.extend_from_slice(server_info);
    data.extend_from_slice(b"}}");
    jsonrpc::close(&mut data);
    sse::event(&mut body, Some("message"), &data);
    Response::new(200, ContentType::EventStream, body).unbuffered()
}
