//! An image's URL, `/images/<file>` (SURFACE.md §8): `GET` and `HEAD`
//! answer with the bytes `upload_image` checked, to a caller who may read a
//! document they were uploaded to, behind the same admission, CORS and
//! authentication as `/mcp`.
//!
//! The host routes `/images/<file>` here; the endpoint decides the rest:
//! see [`Endpoint::image`].

use std::fmt;
use std::marker::PhantomData;

use bytes::Bytes;

use super::document::{get_or_head, joined, names};
use super::endpoint::Endpoint;
use crate::auth::Granted;
use crate::cors;
use crate::headers::Kept;
use crate::image::{self, ImageType};
use crate::request::RequestParts;
use crate::response::{Cache, ContentType, Response};

/// The next thing the host must do for a request to an image's URL (see
/// [`Endpoint::image`]).
#[must_use = "the request makes progress only when its outcome is acted on"]
pub enum ImageOutcome<C> {
    /// Send this response; the exchange is over.
    Respond(Response),
    /// Map the request's credentials to a caller, as for `/mcp`.
    Authenticate(ImageAuthenticate<C>),
    /// Read the image, if the caller may read a document it belongs to.
    Read(ReadImage<C>),
}

impl<C> fmt::Debug for ImageOutcome<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageOutcome::Respond(response) => f.debug_tuple("Respond").field(response).finish(),
            ImageOutcome::Authenticate(effect) => {
                f.debug_tuple("Authenticate").field(effect).finish()
            }
            ImageOutcome::Read(effect) => f.debug_tuple("Read").field(effect).finish(),
        }
    }
}

/// The host's answer to a [`ReadImage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageAnswer {
    /// The caller may read some document the image is linked to (archived
    /// ones too): its bytes and the type it was stored as.
    Found(ImageType, Bytes),
    /// No such image, or none the caller may read: 404, alike.
    NotFound,
    /// The store cannot answer now: 503.
    Unavailable,
}

/// What an image request carries from step to step.
struct Fetch {
    endpoint: Endpoint,
    sha256: [u8; 32],
    kind: ImageType,
    if_none_match: Option<Bytes>,
    /// The origin granted CORS access, if any.
    origin: Option<Bytes>,
}

impl Fetch {
    fn respond<C>(&self, response: Response) -> ImageOutcome<C> {
        ImageOutcome::Respond(cors::document_grant(response, self.origin.clone()))
    }
}

/// `file` as a digest and the type its extension names:
/// `^[0-9a-f]{64}\.(png|jpg|jpeg|webp|gif)$`.
fn parse_file(file: &str) -> Option<([u8; 32], ImageType)> {
    let (hex, extension) = file.split_once('.')?;
    Some((
        image::parse_hex(hex)?,
        ImageType::from_extension(extension)?,
    ))
}

impl Endpoint {
    /// Starts the exchange for a request to `/images/<file>`: a `GET` or
    /// `HEAD` is answered with the image's bytes once the caller is
    /// authenticated and the host has found the image for them. The host
    /// routes every request under `/images/` here, `file` the rest of the
    /// path.
    ///
    /// In this order (the first that applies answers):
    ///
    /// | step | answer |
    /// |---|---|
    /// | CORS preflight | as for a document's URL ([`Endpoint::document`]) |
    /// | a method but `GET` or `HEAD` | 405, `allow: GET, HEAD` |
    /// | `file` not `<64 lowercase hex>.<png, jpg, jpeg, webp or gif>` | 404 `image not found`, nobody asked |
    /// | origin and host allowlists | 403, as for `/mcp` |
    /// | authentication | the host's answer: 401 with `/mcp`'s challenge, 503 when it cannot judge now; 403 without the read scope |
    /// | the read effect | 404 `image not found` when the image is missing, the caller may read no document it belongs to, or it was stored as another type than the extension names (alike); 503 `image is temporarily unavailable`; 304 when `If-None-Match` names it; else 200 |
    ///
    /// The 200 is the bytes, with the image's `content-type`, `etag:
    /// "<hex digest>"`, `cache-control: private, max-age=31536000,
    /// immutable`, `content-security-policy: default-src 'none'; sandbox`,
    /// `content-disposition: inline` and `x-content-type-options: nosniff`.
    /// A 304 comes only after the host found the image for this caller: the
    /// entity tag is in the URL, so answering it sooner would tell a stranger
    /// the image exists. For `HEAD` the response carries the `GET` body: send
    /// its head only.
    ///
    /// ```
    /// use chopin_mcp::{Config, Endpoint, Header, ImageAnswer, ImageOutcome, ImageType, RequestParts};
    ///
    /// let endpoint = Endpoint::new(Config::new().enable_upload())?;
    /// let png = bytes::Bytes::from_static(b"\x89PNG\r\n\x1a\n");
    /// let file = "4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6.png";
    /// let headers = [Header::new("authorization", b"Bearer secret")];
    /// let parts = RequestParts::new("GET", "/images/4c4b…", &headers);
    ///
    /// let mut outcome = endpoint.image(&parts, file);
    /// let response = loop {
    ///     outcome = match outcome {
    ///         ImageOutcome::Respond(response) => break response,
    ///         ImageOutcome::Authenticate(auth) => {
    ///             let caller = (auth.bearer_token() == Some("secret")).then(|| "octocat".to_string());
    ///             auth.answer(caller)
    ///         }
    ///         ImageOutcome::Read(read) => {
    ///             // your store: read.caller(), read.sha256(), read.image_type()
    ///             ImageOutcome::Respond(read.answer(ImageAnswer::Found(ImageType::Png, png.clone())))
    ///         }
    ///     };
    /// };
    /// assert_eq!(response.status(), 200);
    /// assert_eq!(response.content_type(), Some("image/png"));
    /// assert_eq!(response.body(), &png[..]);
    /// # Ok::<(), chopin_mcp::ConfigError>(())
    /// ```
    pub fn image<C>(&self, parts: &RequestParts<'_>, file: &str) -> ImageOutcome<C> {
        let admission = match get_or_head(self, parts) {
            Ok(admission) => admission,
            Err(response) => return ImageOutcome::Respond(response),
        };
        let Some((sha256, kind)) = parse_file(file) else {
            let response = cors::document_grant(not_found(), admission.into_grant());
            return ImageOutcome::Respond(response);
        };
        if let Some(refusal) = admission.refusal() {
            return ImageOutcome::Respond(refusal);
        }
        ImageOutcome::Authenticate(ImageAuthenticate {
            head: Kept::read(parts, false, 0),
            fetch: Fetch {
                endpoint: self.clone(),
                sha256,
                kind,
                if_none_match: joined(parts, "if-none-match"),
                origin: admission.into_grant(),
            },
            caller: PhantomData,
        })
    }
}

/// The authenticate effect of an image request: map its credentials to a
/// caller, as [`Authenticate`](crate::Authenticate) does for `/mcp`.
pub struct ImageAuthenticate<C> {
    head: Kept,
    fetch: Fetch,
    caller: PhantomData<fn() -> C>,
}

impl<C> ImageAuthenticate<C> {
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
    pub fn answer(self, caller: Option<C>) -> ImageOutcome<C> {
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
    pub fn answer_scoped(self, caller: C, granted: Granted) -> ImageOutcome<C> {
        let fetch = self.fetch;
        if !granted.read() {
            let auth = &fetch.endpoint.inner.auth;
            return fetch.respond(auth.insufficient(b"null", Granted::READ));
        }
        ImageOutcome::Read(ReadImage { fetch, caller })
    }

    /// The host cannot judge the credentials now: 503 with `retry-after: 5`.
    pub fn unavailable(self) -> ImageOutcome<C> {
        self.fetch.respond(crate::auth::Auth::unavailable())
    }
}

impl<C> fmt::Debug for ImageAuthenticate<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImageAuthenticate")
            .field("sha256", &image::hex(&self.fetch.sha256))
            .field("has_authorization", &self.head.authorization().is_some())
            .finish_non_exhaustive()
    }
}

/// The read effect of an image request: the image with digest
/// [`sha256`](Self::sha256), if [`caller`](Self::caller) may read some
/// document it was uploaded to (an archived one too).
pub struct ReadImage<C> {
    fetch: Fetch,
    caller: C,
}

impl<C> ReadImage<C> {
    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.caller
    }

    /// The digest the URL names.
    pub fn sha256(&self) -> [u8; 32] {
        self.fetch.sha256
    }

    /// [`sha256`](Self::sha256) as 64 lowercase hex digits.
    pub fn sha256_hex(&self) -> String {
        image::hex(&self.fetch.sha256)
    }

    /// The type the URL's extension names (`jpeg` is
    /// [`ImageType::Jpeg`]); an image stored as another type is not found.
    pub fn image_type(&self) -> ImageType {
        self.fetch.kind
    }

    /// Answers with what the host found: the response to send.
    pub fn answer(self, answer: ImageAnswer) -> Response {
        let response = match answer {
            ImageAnswer::Found(kind, bytes) if kind == self.fetch.kind => {
                let etag = Bytes::from(format!("\"{}\"", image::hex(&self.fetch.sha256)));
                let unchanged = self
                    .fetch
                    .if_none_match
                    .as_deref()
                    .is_some_and(|list| names(list, &etag));
                if unchanged {
                    Response::new(304, ContentType::None, Bytes::new())
                } else {
                    Response::new(200, ContentType::Image(kind), bytes).sandboxed()
                }
                .with_cache(Cache::PrivateImmutable)
                .with_etag(etag)
            }
            ImageAnswer::Found(..) | ImageAnswer::NotFound => not_found(),
            ImageAnswer::Unavailable => Response::text(503, "image is temporarily unavailable"),
        };
        cors::document_grant(response, self.fetch.origin)
    }
}

impl<C> fmt::Debug for ReadImage<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadImage")
            .field("sha256", &image::hex(&self.fetch.sha256))
            .field("image_type", &self.fetch.kind)
            .finish_non_exhaustive()
    }
}

fn not_found() -> Response {
    Response::text(404, "image not found")
}
