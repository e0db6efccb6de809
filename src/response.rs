//! Finished HTTP responses.

use crate::image::ImageType;
use bytes::Bytes;

/// What the body of a [`Response`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentType {
    /// No body at all (202).
    None,
    /// `text/plain; charset=utf-8`.
    Text,
    /// `application/json`.
    Json,
    /// `text/event-stream`: one framed event, or (for GET) an open stream.
    EventStream,
    /// `text/markdown; charset=utf-8`: a document's plan.
    Markdown,
    /// An image's own type (`image/png`, …).
    Image(ImageType),
}

impl ContentType {
    fn header(self) -> Option<&'static str> {
        match self {
            ContentType::None => None,
            ContentType::Text => Some("text/plain; charset=utf-8"),
            ContentType::Json => Some("application/json"),
            ContentType::EventStream => Some("text/event-stream"),
            ContentType::Markdown => Some("text/markdown; charset=utf-8"),
            ContentType::Image(kind) => Some(kind.mime()),
        }
    }
}

/// A response's body: the reply buffer the endpoint wrote, handed over as
/// it is (a `Vec` whose spare capacity would cost `Bytes` an allocation of
/// its own), or shared bytes (static texts, a document's plan, metadata).
#[derive(Clone)]
pub(crate) enum Body {
    Written(Vec<u8>),
    Shared(Bytes),
}

impl Body {
    fn as_slice(&self) -> &[u8] {
        match self {
            Body::Written(bytes) => bytes,
            Body::Shared(bytes) => bytes,
        }
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Self {
        Body::Written(bytes)
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Body {}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Self {
        Body::Shared(bytes)
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // As `Bytes` writes itself: a byte string.
        write!(f, "b\"{}\"", self.as_slice().escape_ascii())
    }
}

/// An HTTP response decided by the endpoint.
///
/// Headers are produced on demand by [`Response::headers`] from a few fields,
/// so building a response allocates nothing beyond its body. The host adds
/// framing headers (`content-length`, `transfer-encoding`, `date`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    status: u16,
    content_type: ContentType,
    stream: bool,
    /// The `allow` header (405).
    allow: Allow,
    unbuffered: bool,
    cache: Cache,
    /// `retry-after: 5` (503 of an authorization that cannot be judged now).
    retry_after: bool,
    /// `www-authenticate` (a 401, 403), `etag` (a document) or
    /// `mcp-session-id` (an `initialize` reply, SURFACE.md §10): no response
    /// has two, so they share one value.
    tag: Tag,
    tagged: Option<Bytes>,
    /// `content-security-policy: default-src 'none'; sandbox` and
    /// `content-disposition: inline` (a served image).
    sandboxed: bool,
    /// Headers a layer above added (the CORS grant), with the value of the
    /// first.
    decoration: Option<(&'static Decoration, Bytes)>,
    body: Body,
}

/// The methods a 405 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Allow {
    None,
    /// The MCP endpoint's.
    GetPost,
    /// Protected Resource Metadata's.
    GetHead,
}

/// Which header [`Response`]'s one tagged value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Challenge,
    Etag,
    SessionId,
}

/// `cache-control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cache {
    NoStore,
    /// An event stream.
    Revalidate,
    /// A document: kept only by the client, asked again each time (its
    /// `etag` makes that cheap).
    PrivateRevalidate,
    /// Public metadata (an hour).
    PublicHour,
    /// An image: its URL names its digest, so it never changes.
    PrivateImmutable,
}

/// Headers that a layer above a response adds after the response's own:
/// one whose value is given per response (`name`), then fixed ones.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Decoration {
    pub(crate) name: &'static str,
    pub(crate) fixed: &'static [(&'static str, &'static [u8])],
}

impl Response {
    pub(crate) fn new(status: u16, content_type: ContentType, body: impl Into<Body>) -> Self {
        Response {
            status,
            content_type,
            stream: false,
            allow: Allow::None,
            unbuffered: false,
            cache: Cache::NoStore,
            retry_after: false,
            tag: Tag::Challenge,
            tagged: None,
            sandboxed: false,
            decoration: None,
            body: body.into(),
        }
    }

    /// A 200 with a JSON body: a reply, the body taken from `body` (left
    /// empty). Built by a call, so that it is written where it goes (a
    /// response is 120 bytes, and built in line it was built on the stack
    /// and copied, read straight after its small fields were stored one by
    /// one: a stall on every reply).
    ///
    /// The body is taken here, from where the reply was written, not handed
    /// over by value: a vector passed by value is stored word by word into
    /// the caller's frame and read back here in wider loads straight after,
    /// which wait for those stores to retire (a failed store forward, a
    /// stall on every reply).
    #[inline(never)]
    pub(crate) fn json(body: &mut Vec<u8>) -> Self {
        Response::new(200, ContentType::Json, std::mem::take(body))
    }

    /// A plain-text response.
    pub(crate) fn text(status: u16, body: &'static str) -> Self {
        Response::new(
            status,
            ContentType::Text,
            Bytes::from_static(body.as_bytes()),
        )
    }

    pub(crate) fn method_not_allowed() -> Self {
        Response::text(405, "method not allowed").with_allow(Allow::GetPost)
    }

    /// Sets the `allow` header (405).
    pub(crate) fn with_allow(self, allow: Allow) -> Self {
        Response { allow, ..self }
    }

    /// Sets the `www-authenticate` challenge.
    pub(crate) fn with_challenge(self, challenge: Bytes) -> Self {
        Response {
            tag: Tag::Challenge,
            tagged: Some(challenge),
            ..self
        }
    }

    /// Sets the `etag`.
    pub(crate) fn with_etag(self, etag: Bytes) -> Self {
        Response {
            tag: Tag::Etag,
            tagged: Some(etag),
            ..self
        }
    }

    /// Sets `mcp-session-id`.
    pub(crate) fn with_session_id(self, session_id: Bytes) -> Self {
        Response {
            tag: Tag::SessionId,
            tagged: Some(session_id),
            ..self
        }
    }

    /// Adds `retry-after: 5`.
    pub(crate) fn with_retry_after(self) -> Self {
        Response {
            retry_after: true,
            ..self
        }
    }

    /// Adds `content-security-policy: default-src 'none'; sandbox` and
    /// `content-disposition: inline`: bytes a browser shows, never runs.
    pub(crate) fn sandboxed(self) -> Self {
        Response {
            sandboxed: true,
            ..self
        }
    }

    /// Replaces `cache-control`.
    pub(crate) fn with_cache(self, cache: Cache) -> Self {
        Response { cache, ..self }
    }

    pub(crate) fn too_large() -> Self {
        Response::text(413, "request too large")
    }

    /// Adds `x-accel-buffering: no` (modern `text/event-stream` replies), so
    /// that proxies pass events on as they are written.
    pub(crate) fn unbuffered(self) -> Self {
        Response {
            unbuffered: true,
            ..self
        }
    }

    pub(crate) fn accepted() -> Self {
        Response::new(202, ContentType::None, Bytes::new())
    }

    pub(crate) fn event_stream() -> Self {
        Response {
            stream: true,
            cache: Cache::Revalidate,
            ..Response::new(200, ContentType::EventStream, Bytes::new())
        }
    }

    /// 204, empty.
    pub(crate) fn no_content() -> Self {
        Response::new(204, ContentType::None, Bytes::new())
    }

    /// Adds `decoration`'s headers after the response's own, the first with
    /// `value` (replacing an earlier decoration).
    pub(crate) fn decorated(self, decoration: &'static Decoration, value: Bytes) -> Self {
        Response {
            decoration: Some((decoration, value)),
            ..self
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The value of the `content-type` header, if the response has one.
    pub fn content_type(&self) -> Option<&'static str> {
        self.content_type.header()
    }

    /// True for the answer to an accepted `GET`: a `text/event-stream` that the
    /// host keeps open, writing [`sse::keep_alive`](crate::sse::keep_alive)
    /// comments and [`sse::event`](crate::sse::event)s until the client leaves.
    /// Its [`body`](Self::body) is empty.
    pub fn is_event_stream(&self) -> bool {
        self.stream
    }

    /// The complete body (empty for 202, 204, 304 and an event stream).
    pub fn body(&self) -> &[u8] {
        self.body.as_slice()
    }

    /// Takes the body out of the response. The reply the endpoint wrote is
    /// handed over as it was written; making it [`Bytes`] may allocate
    /// (its bookkeeping, not a copy), so a host that only writes the body
    /// uses [`body`](Self::body) or [`into_body_vec`](Self::into_body_vec).
    pub fn into_body(self) -> Bytes {
        match self.body {
            Body::Written(bytes) => Bytes::from(bytes),
            Body::Shared(bytes) => bytes,
        }
    }

    /// Takes the body out of the response as a `Vec` (a copy only when the
    /// body was shared bytes: a static text, a document's plan).
    pub fn into_body_vec(self) -> Vec<u8> {
        match self.body {
            Body::Written(bytes) => bytes,
            Body::Shared(bytes) => bytes.to_vec(),
        }
    }

    /// The response headers, names in lower case, in a fixed order.
    ///
    /// A response to a request from an allowed browser origin ends with the
    /// CORS grant: `access-control-allow-origin` (that origin),
    /// `access-control-expose-headers` and `vary: origin`; a preflight answer
    /// carries `access-control-allow-methods`, `access-control-allow-headers`
    /// and `access-control-max-age` instead of the exposed headers. Other
    /// responses have no CORS header.
    pub fn headers(&self) -> impl Iterator<Item = (&'static str, &[u8])> {
        let cache: &'static [u8] = match self.cache {
            Cache::NoStore => b"no-store",
            Cache::Revalidate => b"no-cache",
            Cache::PrivateRevalidate => b"private, no-cache",
            Cache::PublicHour => b"public, max-age=3600",
            Cache::PrivateImmutable => b"private, max-age=31536000, immutable",
        };
        let content_type = self
            .content_type()
            .map(|value| ("content-type", value.as_bytes()));
        let allow: Option<&'static [u8]> = match self.allow {
            Allow::None => None,
            Allow::GetPost => Some(b"GET, POST"),
            Allow::GetHead => Some(b"GET, HEAD"),
        };
        let allow = allow.map(|methods| ("allow", methods));
        let unbuffered = self.unbuffered.then_some(("x-accel-buffering", &b"no"[..]));
        let retry_after = self.retry_after.then_some(("retry-after", &b"5"[..]));
        let tagged = self.tagged.as_deref().map(|value| match self.tag {
            Tag::Challenge => ("www-authenticate", value),
            Tag::Etag => ("etag", value),
            Tag::SessionId => ("mcp-session-id", value),
        });
        let sandbox: &'static [(&'static str, &'static [u8])] = if self.sandboxed {
            &[
                ("content-security-policy", b"default-src 'none'; sandbox"),
                ("content-disposition", b"inline"),
            ]
        } else {
            &[]
        };
        let (first, fixed) = match &self.decoration {
            Some((decoration, value)) => (Some((decoration.name, &value[..])), decoration.fixed),
            None => (None, &[][..]),
        };
        content_type
            .into_iter()
            .chain([
                ("cache-control", cache),
                ("x-content-type-options", &b"nosniff"[..]),
            ])
            .chain(allow)
            .chain(unbuffered)
            .chain(retry_after)
            .chain(tagged)
            .chain(sandbox.iter().copied())
            .chain(first)
            .chain(fixed.iter().copied())
    }

    /// The value of the first header called `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }
}
