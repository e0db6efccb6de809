//! A document's URL: `GET` and `HEAD` answer with the canonical plan, behind
//! the same admission, CORS and authentication as `/mcp`.
//!
//! The host routes (it chose the URL); the endpoint decides everything
//! else: see [`Endpoint::document`].

use std::fmt;
use std::marker::PhantomData;

use bytes::Bytes;

use super::endpoint::Endpoint;
use crate::auth::Granted;
use crate::cors;
use crate::headers::Kept;
use crate::origin::Admission;
use crate::request::{RequestParts, trim_ows};
use crate::response::{Allow, Cache, ContentType, Response};
use crate::tools::Document;
use crate::tools::not_blank_within;
use crate::tools::read::MAX_ID_CHARS;

/// The next thing the host must do for a request to a document's URL
/// (see [`Endpoint::document`]).
#[must_use = "the request makes progress only when its outcome is acted on"]
pub enum DocumentOutcome<C> {
    /// Send this response; the exchange is over.
    Respond(Response),
    /// Map the request's credentials to a caller, as for `/mcp`.
    Authenticate(DocumentAuthenticate<C>),
    /// Read the document, if the caller may see it.
    Read(DocumentRead<C>),
}

impl<C> fmt::Debug for DocumentOutcome<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocumentOutcome::Respond(response) => f.debug_tuple("Respond").field(response).finish(),
            DocumentOutcome::Authenticate(effect) => {
                f.debug_tuple("Authenticate").field(effect).finish()
            }
            DocumentOutcome::Read(effect) => f.debug_tuple("Read").field(effect).finish(),
        }
    }
}

/// What a document request carries from step to step.
struct Fetch {
    endpoint: Endpoint,
    id: String,
    /// The `If-None-Match` values, joined by commas.
    if_none_match: Option<Bytes>,
    /// The origin granted CORS access, if any.
    origin: Option<Bytes>,
}

impl Fetch {
    fn respond<C>(&self, response: Response) -> DocumentOutcome<C> {
        DocumentOutcome::Respond(cors::document_grant(response, self.origin.clone()))
    }
}

impl Endpoint {
    /// Starts the exchange for a request to the URL of document `id`: a
    /// `GET` or `HEAD` is answered with its canonical plan once the caller
    /// is authenticated and the host has read it. The host's part is the
    /// same authentication as for `/mcp`, and a read that treats a missing
    /// document and one the caller may not see alike.
    ///
    /// The host routes: it chose the `url` a create answers with
    /// ([`CreatedDocument::url`](crate::CreatedDocument::url)), so it knows
    /// which requests name a document, and which document. The endpoint decides
    /// the rest, in this order (the first that applies answers):
    ///
    /// | step | answer |
    /// |---|---|
    /// | CORS preflight | as for `/mcp` (refused origin or host: 403), else 204 allowing `GET, HEAD` and the headers `authorization, if-none-match` |
    /// | a method but `GET` or `HEAD` | 405, `allow: GET, HEAD` |
    /// | origin and host allowlists | 403, as for `/mcp` |
    /// | authentication | the host's answer: 401 with `/mcp`'s challenge, 503 when it cannot judge now |
    /// | the read scope not granted | 403 `insufficient_scope`, as for `/mcp`'s `GET` |
    /// | an id no document can have (blank, over 128 characters) | 404, the host never asked |
    /// | the read effect | 404 `not found` when the document is missing or the caller may not see it (the same answer); 304 when `If-None-Match` names its revision; else 200 |
    ///
    /// The 200 is the canonical plan as it is stored, `text/markdown;
    /// charset=utf-8`, with `etag: "<revision>"` and `cache-control: private,
    /// no-cache` (a client keeps it and asks again, cheaply, with
    /// `If-None-Match`). Every answer to an admitted browser origin carries the
    /// grant, exposing `www-authenticate` and `etag`. For `HEAD` the response
    /// carries the `GET` body: send its head only.
    ///
    /// ```
    /// use chopin_mcp::{Config, Document, DocumentOutcome, Endpoint, Header, RequestParts};
    ///
    /// let endpoint = Endpoint::new(Config::new())?;
    /// let plan = Document { id: "plan-1".into(), title: "Plan".into(), source: "# Plan\n".into(), revision: 3, ..Document::default() };
    /// let headers = [Header::new("authorization", b"Bearer secret")];
    /// let parts = RequestParts::new("GET", "/documents/plan-1", &headers);
    ///
    /// let mut outcome = endpoint.document(&parts, "plan-1");
    /// let response = loop {
    ///     outcome = match outcome {
    ///         DocumentOutcome::Respond(response) => break response,
    ///         DocumentOutcome::Authenticate(auth) => {
    ///             let caller = (auth.bearer_token() == Some("secret")).then(|| "octocat".to_string());
    ///             auth.answer(caller)
    ///         }
    ///         DocumentOutcome::Read(read) => {
    ///             let found = (read.id() == plan.id).then_some(&plan); // your store: read.caller(), read.id()
    ///             DocumentOutcome::Respond(read.answer(found))
    ///         }
    ///     };
    /// };
    /// assert_eq!(response.status(), 200);
    /// assert_eq!(response.content_type(), Some("text/markdown; charset=utf-8"));
    /// assert_eq!(response.header("etag"), Some(&b"\"3\""[..]));
    /// assert_eq!(&response.body()[..], b"# Plan\n");
    /// # Ok::<(), chopin_mcp::ConfigError>(())
    /// ```
    pub fn document<C>(&self, parts: &RequestParts<'_>, id: &str) -> DocumentOutcome<C> {
        let admission = match get_or_head(self, parts) {
            Ok(admission) => admission,
            Err(response) => return DocumentOutcome::Respond(response),
        };
        if let Some(refusal) = admission.refusal() {
            return DocumentOutcome::Respond(refusal);
        }
        let if_none_match = joined(parts, "if-none-match");
        DocumentOutcome::Authenticate(DocumentAuthenticate {
            head: Kept::read(parts, false, 0),
            fetch: Fetch {
                endpoint: self.clone(),
                id: id.to_owned(),
                if_none_match,
                origin: admission.into_grant(),
            },
            caller: PhantomData,
        })
    }
}

/// The first steps of a request to a URL that serves `GET` and `HEAD` (a
/// document's, an image's): a CORS preflight answered as `/mcp`'s (a refused
/// origin or host: 403), else 204 allowing `GET, HEAD`; any other method 405
/// with `allow: GET, HEAD`, granted to an admitted origin. `Ok`: the request
/// goes on, with the allowlists' judgement still to apply.
pub(super) fn get_or_head(
    endpoint: &Endpoint,
    parts: &RequestParts<'_>,
) -> Result<Admission, Response> {
    let admission = Admission::judge(&endpoint.inner.allowlist, parts);
    if cors::is_preflight(parts) {
        return Err(match (admission.refusal(), admission.into_grant()) {
            (None, Some(origin)) => cors::document_preflight(origin),
            (Some(refusal), _) => refusal,
            // Unreachable: a preflight has an Origin, so no refusal means a grant.
            (None, None) => Response::text(403, "origin is not allowed"),
        });
    }
    if !matches!(parts.method(), "GET" | "HEAD") {
        let response = Response::text(405, "method not allowed").with_allow(Allow::GetHead);
        return Err(cors::document_grant(response, admission.into_grant()));
    }
    Ok(admission)
}

/// Every line of header `name`, joined by commas (a list header's lines
/// are one list), or `None` without one.
pub(super) fn joined(parts: &RequestParts<'_>, name: &str) -> Option<Bytes> {
    let mut values = parts.all(name).peekable();
    values.peek()?;
    let mut list = Vec::new();
    for value in values {
        if !list.is_empty() {
            list.push(b',');
        }
        list.extend_from_slice(value);
    }
    Some(list.into())
}

/// The authenticate effect of a document request: map its credentials to
/// a caller, as [`Authenticate`](crate::Authenticate) does for `/mcp` (the
/// same answers give the same refusals).
pub struct DocumentAuthenticate<C> {
    head: Kept,
    fetch: Fetch,
    caller: PhantomData<fn() -> C>,
}

impl<C> DocumentAuthenticate<C> {
    /// The raw `Authorization` header value, if any.
    pub fn authorization(&self) -> Option<&[u8]> {
        self.head.authorization()
    }

    /// The token of an `Authorization: Bearer <token>` header, if any.
    pub fn bearer_token(&self) -> Option<&str> {
        self.head.bearer_token()
    }

    /// Answers with the caller the credentials name, granted every scope,
    /// or `None` (401, with `/mcp`'s challenge).
    pub fn answer(self, caller: Option<C>) -> DocumentOutcome<C> {
        match caller {
            Some(caller) => self.answer_scoped(caller, Granted::ALL),
            None => {
                let auth = &self.fetch.endpoint.inner.auth;
                self.fetch.respond(auth.unauthorized(self.authorization()))
            }
        }
    }

    /// Answers with the caller and the scopes its token grants: without the
    /// read scope, 403 `insufficient_scope`.
    pub fn answer_scoped(self, caller: C, granted: Granted) -> DocumentOutcome<C> {
        let fetch = self.fetch;
        if !granted.read() {
            let refusal = fetch
                .endpoint
                .inner
                .auth
                .insufficient(b"null", Granted::READ);
            return fetch.respond(refusal);
        }
        let id = &fetch.id;
        if !not_blank_within(id, MAX_ID_CHARS) {
            return fetch.respond(not_found());
        }
        DocumentOutcome::Read(DocumentRead { fetch, caller })
    }

    /// The host cannot judge the credentials now: 503 with `retry-after: 5`.
    pub fn unavailable(self) -> DocumentOutcome<C> {
        self.fetch.respond(crate::auth::Auth::unavailable())
    }
}

impl<C> fmt::Debug for DocumentAuthenticate<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocumentAuthenticate")
            .field("id", &self.fetch.id)
            .field("has_authorization", &self.head.authorization().is_some())
            .finish_non_exhaustive()
    }
}

/// The read effect of a document request: the document
/// [`id`](Self::id), if [`caller`](Self::caller) may see it.
pub struct DocumentRead<C> {
    fetch: Fetch,
    caller: C,
}

impl<C> DocumentRead<C> {
    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.caller
    }

    /// The document id the URL names (1–128 characters, not blank).
    pub fn id(&self) -> &str {
        &self.fetch.id
    }

    /// Answers with the document, or `None` when it is missing or the caller
    /// may not see it (both 404, alike): the response to send.
    pub fn answer(self, document: Option<&Document>) -> Response {
        let response = match document {
            None => not_found(),
            Some(document) => {
                let etag = etag(document.revision);
                let unchanged = self
                    .fetch
                    .if_none_match
                    .as_deref()
                    .is_some_and(|list| names(list, &etag));
                if unchanged {
                    Response::new(304, ContentType::None, Bytes::new())
                } else {
                    let source = Bytes::copy_from_slice(document.source.as_bytes());
                    Response::new(200, ContentType::Markdown, source)
                }
                .with_cache(Cache::PrivateRevalidate)
                .with_etag(etag)
            }
        };
        cors::document_grant(response, self.fetch.origin)
    }
}

impl<C> fmt::Debug for DocumentRead<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocumentRead")
            .field("id", &self.fetch.id)
            .finish_non_exhaustive()
    }
}

fn not_found() -> Response {
    Response::text(404, "not found")
}

/// A revision as a strong entity tag: `"3"`.
fn etag(revision: u64) -> Bytes {
    Bytes::from(format!("\"{revision}\""))
}

/// Whether an `If-None-Match` value names `etag` (RFC 9110 §13.1.2: `*`
/// alone, or a list with an entity tag equal to it under the weak
/// comparison, its `W/` ignored). One pass over the list; a malformed list
/// names nothing, as if it were not there.
pub(super) fn names(list: &[u8], etag: &[u8]) -> bool {
    if trim_ows(list) == b"*" {
        return true;
    }
    let mut rest = list;
    loop {
        rest = trim_ows(rest);
        while let [b',', tail @ ..] = rest {
            rest = trim_ows(tail);
        }
        if rest.is_empty() {
            return false;
        }
        let tag_start = rest.strip_prefix(b"W/").unwrap_or(rest);
        let Some(quoted) = tag_start.strip_prefix(b"\"") else {
            return false;
        };
        let Some(end) = quoted.iter().position(|&b| b == b'"') else {
            return false;
        };
        let tag = &tag_start[..end + 2];
        if tag == etag {
            return true;
        }
        rest = &quoted[end + 1..];
        rest = trim_ows(rest);
        match rest {
            [] => return false,
            [b',', ..] => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn if_none_match_lists_are_read_as_rfc_9110_says() {
        let tag = b"\"3\"";
        for list in [
            &b"\"3\""[..],
            b"W/\"3\"",
            b"\"1\", \"3\"",
            b" \"1\" ,W/\"3\" ",
            b"*",
            b" * ",
            b",,\"3\"",
        ] {
            assert!(names(list, tag), "{}", String::from_utf8_lossy(list));
        }
        for list in [
            &b""[..],
            b"\"33\"",
            b"3",
            b"\"3",
            b"\"1\" \"3\"",
            b"w/\"3\"",
            b"\"1\";\"3\"",
            b"*, \"3\" junk",
            b"**",
        ] {
            assert!(!names(list, tag), "{}", String::from_utf8_lossy(list));
        }
    }
}
