//! CORS: what lets a web page that [`origin`](crate::origin) admits use the
//! endpoint. The endpoint owns the `Origin` allowlist, so it owns CORS too.
//!
//! | request | where | answer |
//! |---|---|---|
//! | **preflight**: `OPTIONS` with an `Origin` and an `Access-Control-Request-Method` header (any values) | before step 1 (method), so it never gets 405; before authentication, because browsers send preflights without credentials | step 2 still applies: refused origin → 403 `origin is not allowed`, refused host → 403 `host is not allowed`, neither with any `access-control-*` header. Else 204, empty, with the grant below plus `access-control-allow-methods: GET, POST`, `access-control-allow-headers` listing every request header the protocol uses, `access-control-max-age: 7200`. No effect is started. |
//! | `OPTIONS` that is not a preflight | step 1 | 405, as before |
//! | any other request whose one `Origin` is allowed and whose `Host` passes | every response of the exchange, whatever step answers (405, 401, 406, 415, 413 declared or pushed, 400, 202, 200, the `GET` event stream, dispatch replies, effect answers) | the grant: `access-control-allow-origin: <origin>`, `access-control-expose-headers: www-authenticate, mcp-protocol-version, mcp-session-id`, `vary: origin` |
//! | refused origin or host | step 2 | 403, no grant |
//! | no `Origin` | — | no CORS header: byte-for-byte the answer of a non-browser request |
//!
//! Decisions the protocol leaves open:
//!
//! - The preflight's `Access-Control-Request-Method` and
//!   `Access-Control-Request-Headers` values are never read or echoed: the
//!   answer lists what the endpoint serves, and the browser compares. A page
//!   asking for `DELETE` or an unlisted header gets the same 204 and the
//!   browser refuses it itself.
//! - `access-control-allow-headers` lists names, not `*`: in the Fetch
//!   standard `*` never covers `Authorization`.
//! - No `access-control-allow-credentials`: MCP clients send a bearer token
//!   in `Authorization`, which CORS allows without credentials mode (cookies).
//! - `vary: origin` accompanies the grant only; the responses that omit it
//!   are `no-store` (or `no-cache` for the event stream), so no shared cache
//!   can hand one origin's grant to another.
//! - The grant needs the host check to pass too, so a response that step 2
//!   refuses never carries one; a 405 to an allowed origin does.
//! - `access-control-max-age: 7200` is the longest Chromium honours.
//! - A document's URL is admitted the same way, and its answers carry the
//!   same kind of grant with that URL's own lists: methods `GET, HEAD`,
//!   request headers `authorization, if-none-match`, and `www-authenticate,
//!   etag` exposed.

use bytes::Bytes;

use crate::request::RequestParts;
use crate::response::{Decoration, Response};

/// The methods a page may use.
const ALLOW_METHODS: &[u8] = b"GET, POST";

/// Every request header the protocol uses, in lower case.
const ALLOW_HEADERS: &[u8] = b"authorization, content-type, accept, \
mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id";

/// The response headers a page may read beyond the CORS-safelisted ones.
const EXPOSE_HEADERS: &[u8] = b"www-authenticate, mcp-protocol-version, mcp-session-id";

/// How long, in seconds, a browser may cache a preflight answer.
const MAX_AGE: &[u8] = b"7200";

/// The grant on an actual response: the origin, then these.
static ACTUAL: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[
        ("access-control-expose-headers", EXPOSE_HEADERS),
        ("vary", b"origin"),
    ],
};

/// The grant on a preflight answer: the origin, then these.
static PREFLIGHT: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[
        ("access-control-allow-methods", ALLOW_METHODS),
        ("access-control-allow-headers", ALLOW_HEADERS),
        ("access-control-max-age", MAX_AGE),
        ("vary", b"origin"),
    ],
};

/// A document's URL ([`Endpoint::document`](crate::Endpoint::document)) is
/// admitted as `/mcp` is, and answers with its own lists: its methods, the
/// request headers a page may send it, and its `etag` readable.
const DOCUMENT_METHODS: &[u8] = b"GET, HEAD";
const DOCUMENT_HEADERS: &[u8] = b"authorization, if-none-match";
const DOCUMENT_EXPOSE: &[u8] = b"www-authenticate, etag";

static DOCUMENT_ACTUAL: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[
        ("access-control-expose-headers", DOCUMENT_EXPOSE),
        ("vary", b"origin"),
    ],
};

static DOCUMENT_PREFLIGHT: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[
        ("access-control-allow-methods", DOCUMENT_METHODS),
        ("access-control-allow-headers", DOCUMENT_HEADERS),
        ("access-control-max-age", MAX_AGE),
        ("vary", b"origin"),
    ],
};

/// Whether a request is a CORS preflight: `OPTIONS` with an `Origin` and an
/// `Access-Control-Request-Method` header, whatever their values.
pub(crate) fn is_preflight(parts: &RequestParts<'_>) -> bool {
    parts.method() == "OPTIONS"
        && parts.header("origin").is_some()
        && parts.header("access-control-request-method").is_some()
}

/// The answer to an admitted preflight from `origin`: 204 with the
/// preflight grant.
pub(crate) fn preflight(origin: Bytes) -> Response {
    Response::no_content().decorated(&PREFLIGHT, origin)
}

/// Grants `origin` CORS access to `response`; without an origin the
/// response is returned untouched.
pub(crate) fn grant(response: Response, origin: Option<Bytes>) -> Response {
    match origin {
        Some(origin) => response.decorated(&ACTUAL, origin),
        None => response,
    }
}

/// [`preflight`] for a document's URL.
pub(crate) fn document_preflight(origin: Bytes) -> Response {
    Response::no_content().decorated(&DOCUMENT_PREFLIGHT, origin)
}

/// [`grant`] for a document's URL.
pub(crate) fn document_grant(response: Response, origin: Option<Bytes>) -> Response {
    match origin {
        Some(origin) => response.decorated(&DOCUMENT_ACTUAL, origin),
        None => response,
    }
}
