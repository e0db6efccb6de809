//! JSON-RPC 2.0 framing (SPEC.md §5): reading messages out of a body, the
//! reject table, and writing replies with ids echoed byte for byte.

use bytes::Bytes;
use bytestring::ByteString;
use serde_json::value::RawValue;

use crate::json::{self, Joined, Raw};
pub(crate) use crate::scan::{Envelope, Params};

/// A JSON-RPC error this endpoint answers with: exactly `{code, message}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RpcError {
    pub code: i32,
    pub message: &'static str,
}

pub(crate) const PARSE_ERROR: RpcError = RpcError {
    code: -32700,
    message: "parse error",
};
pub(crate) const INVALID_REQUEST: RpcError = RpcError {
    code: -32600,
    message: "invalid request",
};
pub(crate) const UNSUPPORTED_VERSION: RpcError = RpcError {
    code: -32600,
    message: "unsupported protocol version",
};
pub(crate) const METHOD_NOT_FOUND: RpcError = RpcError {
    code: -32601,
    message: "method not found",
};
pub(crate) const TOOL_NOT_FOUND: RpcError = RpcError {
    code: -32601,
    message: "tool not found",
};
pub(crate) const INVALID_TOOL_ARGUMENTS: RpcError = RpcError {
    code: -32602,
    message: "invalid tool arguments",
};

/// The most messages one batch may hold.
pub const MAX_BATCH: usize = 100;

/// What a request body holds when it is not one object ([`opens_object`]),
/// once it is known to be JSON.
pub(crate) enum Body<'a> {
    /// An array: the raw text of each element.
    Batch(Vec<&'a RawValue>),
    /// Any other JSON value.
    Other,
}

/// A body's text: UTF-8, checked once here, a leading byte-order mark
/// skipped (as the WHATWG UTF-8 decoder does). `None` is a parse error.
pub(crate) fn body_text(body: Bytes) -> Option<ByteString> {
    const MARK: &[u8] = b"\xEF\xBB\xBF";
    let body = if body.starts_with(MARK) {
        body.slice(MARK.len()..)
    } else {
        body
    };
    ByteString::try_from(body).ok()
}

/// Whether a body's text opens an object (after JSON whitespace): one
/// message, read by [`envelope`], and any other body by [`read_body`].
///
/// Apart, so that a message's members (248 bytes, on the stack: boxing them
/// would cost the read cycle an allocation) are read where they are used,
/// not copied once more into a `Body`.
pub(crate) fn opens_object(text: &str) -> bool {
    opening(text) == Some(b'{')
}

/// A JSON text's first byte after whitespace, if any.
fn opening(text: &str) -> Option<u8> {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first()
        .copied()
}

/// Reads a body's text ([`body_text`]) that does not open an object as
/// JSON. `None` is a parse error.
pub(crate) fn read_body(text: &str) -> Option<Body<'_>> {
    match opening(text) {
        Some(b'[') => serde_json::from_str(text).ok().map(Body::Batch),
        _ => serde_json::from_str::<&RawValue>(text)
            .ok()
            .map(|_| Body::Other),
    }
}

/// Reads one message object (a batch element). `None` when `text` is not
/// an object.
pub(crate) fn envelope(text: &str) -> Option<Envelope<'_>> {
    crate::scan::message(text)
}

/// The methods the handshake era answers, told apart once (the reject
/// table and the dispatcher both ask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Initialize,
    Ping,
    ToolsList,
    ToolsCall,
    /// Any other method.
    Other,
}

impl Method {
    /// Which of the known methods `method` is.
    #[inline]
    pub(crate) fn of(method: &str) -> Method {
        match method {
            "tools/call" => Method::ToolsCall,
            "tools/list" => Method::ToolsList,
            "initialize" => Method::Initialize,
            "ping" => Method::Ping,
            _ => Method::Other,
        }
    }
}

/// A well-formed request or notification, borrowing its envelope's
/// members (`'e`) rather than copying them.
pub(crate) struct Call<'e, 'a> {
    /// The id as sent, or `None` for a notification.
    pub id: Option<Raw<'a>>,
    /// Which known method the message's `method` is.
    pub kind: Method,
    /// `params`' members, when it is a readable object.
    pub members: Option<&'e Params<'a>>,
}

/// Applies the envelope rows of the reject table. On failure, returns the id
/// to echo in the `-32600` reply (`None`: `null`).
#[inline]
pub(crate) fn validate<'e, 'a>(
    envelope: &'e Envelope<'a>,
) -> Result<Call<'e, 'a>, Option<Raw<'a>>> {
    let id_valid = envelope.id.is_none_or(is_valid_id);
    let echo = envelope.id.filter(|_| id_valid);
    let version_ok = envelope.is_version_2_0();
    let method = envelope.method();
    let Some(method) = method.filter(|_| version_ok) else {
        return Err(echo);
    };
    if !id_valid {
        return Err(None);
    }
    let kind = Method::of(&method);
    let needs_object = matches!(kind, Method::Initialize | Method::ToolsList);
    if needs_object
        && envelope
            .params
            .is_some_and(|params| !json::is_object(params))
    {
        return Err(echo);
    }
    Ok(Call {
        id: envelope.id,
        kind,
        members: envelope.members.as_ref(),
    })
}

/// A JSON-RPC id is a string, a number or null.
pub(crate) fn is_valid_id(id: Raw<'_>) -> bool {
    matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')) || id.get() == "null"
}

/// The room a reply gets at once: enough for every fixed reply and a
/// typical read, with the 128 bytes past its end that escaping a block
/// borrows while it writes (`json::write`'s `escape_block`; at 512, a
/// small read's last escaped block grew the reply); a larger tool result
/// reserves its own (`tools::write_text_result`).
pub(crate) const TYPICAL_REPLY: usize = 640;

/// Appends `{"jsonrpc":"2.0","id":<id>,"result":` — the caller writes the
/// result and then [`close`].
pub(crate) fn open_result(out: &mut Vec<u8>, id: &[u8]) {
    // Most ids are a small number: the three pieces are put together in a
    // fixed array on the stack (the id as a word, `,"result":` padded,
    // each stored at its place) and stored into the reply in one go, cut
    // back after. A slice of run-time length would be a call to `memcpy`.
    const ROOM: usize = OPEN.len() + 8 + 16;
    // An id of one byte (a digit): the whole opening is a constant, stored
    // as it is, the digit put in after.
    if let [byte] = id {
        let at = out.len() + OPEN.len();
        out.extend_from_slice(&OPEN_ONE);
        if let Some(to) = out.get_mut(at) {
            *to = *byte;
        }
        return;
    }
    if id.len() <= 8 {
        let mut piece = [0; ROOM];
        piece[..OPEN.len()].copy_from_slice(OPEN.as_bytes());
        let word = id
            .iter()
            .rev()
            .fold(0u64, |word, &byte| word << 8 | u64::from(byte));
        piece[OPEN.len()..OPEN.len() + 8].copy_from_slice(&word.to_le_bytes());
        let at = OPEN.len() + id.len();
        if let Some(to) = piece.get_mut(at..).and_then(<[u8]>::first_chunk_mut::<16>) {
            *to = RESULT_PADDED;
        }
        let kept = out.len() + at + RESULT.len();
        out.extend_from_slice(&piece);
        out.truncate(kept);
        return;
    }
    open(out, id);
    out.extend_from_slice(RESULT.as_bytes());
}

/// [`RESULT`] padded to sixteen bytes.
const RESULT_PADDED: [u8; 16] = Joined::<16>::new(&[RESULT]).padded();
const OPEN: &str = "{\"jsonrpc\":\"2.0\",\"id\":";

/// [`OPEN`], an id of one byte (`0`, for the digit to go in) and [`RESULT`].
const OPEN_ONE: [u8; OPEN.len() + 1 + RESULT.len()] = Joined::new(&[OPEN, "0", RESULT]).padded();
const RESULT: &str = ",\"result\":";

/// The length of a reply with `id` and a result of `result` bytes, as
/// [`open_result`], the result and [`close`] write it.
pub(crate) fn result_len(id: &[u8], result: usize) -> usize {
    OPEN.len() + id.len() + RESULT.len() + result + 1
}

/// Closes a reply opened by [`open_result`].
pub(crate) fn close(out: &mut Vec<u8>) {
    out.push(b'}');
}

/// Appends a whole error reply.
pub(crate) fn write_error(out: &mut Vec<u8>, id: &[u8], error: RpcError) {
    open(out, id);
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(error.code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    json::write_string(out, error.message);
    out.extend_from_slice(b"}}");
}

/// An error reply as a fresh buffer.
pub(crate) fn error_reply(id: &[u8], error: RpcError) -> Vec<u8> {
    let mut out = Vec::with_capacity(80);
    write_error(&mut out, id, error);
    out
}

fn open(out: &mut Vec<u8>, id: &[u8]) {
    out.extend_from_slice(OPEN.as_bytes());
    out.extend_from_slice(id);
}

/// The id to write for an optional raw id: its text, or `null`.
pub(crate) fn id_text(id: Option<Raw<'_>>) -> &[u8] {
    id.map_or(b"null", |id| id.get().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<String, Option<String>> {
        assert!(opens_object(text), "not an object: {text}");
        let envelope = envelope(text).unwrap();
        validate(&envelope)
            .map(|call| {
                let method = envelope.method().unwrap().into_owned();
                assert_eq!(call.kind, Method::of(&method), "{text}");
                method
            })
            .map_err(|id| id.map(|id| id.get().to_owned()))
    }

    #[test]
    fn methods_are_told_apart_exactly() {
        let known = [
            ("initialize", Method::Initialize),
            ("ping", Method::Ping),
            ("tools/list", Method::ToolsList),
            ("tools/call", Method::ToolsCall),
        ];
        for (name, kind) in known {
            assert_eq!(Method::of(name), kind);
            for other in [
                format!("{name} "),
                format!(" {name}"),
                name.to_uppercase(),
                name[..name.len() - 1].to_owned(),
                format!("{name}\0"),
            ] {
                assert_eq!(Method::of(&other), Method::Other, "{other:?}");
            }
        }
        for other in [
            "",
            "tools/cell",
            "tools/calls",
            "initialise",
            "pong",
            "notifications/initialized",
        ] {
            assert_eq!(Method::of(other), Method::Other, "{other:?}");
        }
        // Compared unescaped, as before: an escaped spelling is the method.
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#),
            Ok("tools/call".to_owned())
        );
    }

    #[test]
    fn a_result_opens_with_its_id_whatever_its_length() {
        let ids = (0..=24)
            .map(|len| "7".repeat(len))
            .chain((0..10).map(|digit| digit.to_string()))
            .chain(["null", "-1", "1.5e3", r#""""#, r#""a\"b""#, r#""é😀""#].map(String::from));
        for id in ids {
            let mut out = b"x".to_vec();
            open_result(&mut out, id.as_bytes());
            assert_eq!(
                out,
                format!(r#"x{{"jsonrpc":"2.0","id":{id},"result":"#).as_bytes()
            );
            assert_eq!(result_len(id.as_bytes(), 2), out.len() - 1 + 2 + 1);
        }
    }

    #[test]
    fn the_reject_table_echoes_only_valid_ids() {
        assert_eq!(
            check(r#"{"jsonrpc":"1.0","id":4,"method":"x"}"#),
            Err(Some("4".into()))
        );
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#),
            Err(None)
        );
        assert_eq!(check(r#"{"jsonrpc":"2.0","id":[1],"method":7}"#), Err(None));
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":1.0,"method":7}"#),
            Err(Some("1.0".into()))
        );
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#),
            Err(None)
        );
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[]}"#),
            Err(Some("\"a\"".into()))
        );
        assert_eq!(
            check(r#"{"jsonrpc":"2.0","id":null,"method":"ping","params":1}"#),
            Ok("ping".into())
        );
        assert_eq!(
            check(r#"{"jsonrpc":"2\u002e0","method":"ping"}"#),
            Ok("ping".into())
        );
    }

    #[test]
    fn bodies_are_classified_before_dispatch() {
        let text = |bytes: &'static [u8]| body_text(Bytes::from_static(bytes));
        let open = text(b" \t\r\n{").unwrap();
        assert!(opens_object(&open) && envelope(&open).is_none());
        assert!(text(b"\xff").is_none());
        assert!(!opens_object(&text(b"").unwrap()) && read_body(&text(b"").unwrap()).is_none());
        assert!(matches!(
            read_body(&text(b" 1e400 ").unwrap()),
            Some(Body::Other)
        ));
        let marked = text(b"\xEF\xBB\xBF[]").unwrap();
        assert!(matches!(read_body(&marked), Some(Body::Batch(v)) if v.is_empty()));
        assert!(!opens_object(&marked));
        assert!(envelope(&text(b"{} x").unwrap()).is_none());
    }
}
