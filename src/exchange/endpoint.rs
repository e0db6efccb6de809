//! The endpoint: the request pipeline of SPEC.md §3 up to the body.
//!
//! `start` runs the checks that need no caller (CORS preflight, method,
//! origin, host) and reads what later steps need from the head;
//! [`Authenticate::answer`] runs the rest in table order and hands over to
//! the body intake ([`body`](super::body)), which hands the whole body to
//! [`dispatch`](super::dispatch).
//!
//! The origin a request is granted CORS access to (see [`cors`](crate::cors))
//! travels with the exchange; each public step that can return a response
//! (`answer`, `push`, `finish`, the effects' answers) adds the grant to it.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::Bytes;

use super::body::{BodyChunks, BodyIntake};
use super::outcome::Outcome;
use super::{legacy, modern};
use crate::auth::{Auth, Granted, Scopes};
use crate::config::{Config, ConfigError, MAX_CACHE_TTL_MS};
use crate::cors;
use crate::headers::Kept;
use crate::jsonrpc::{self, TYPICAL_REPLY};
use crate::negotiate::qualities;
use crate::origin::{Admission, Allowlist};
use crate::request::{RequestParts, trim_ows};
use crate::response::{ContentType, Response};
use crate::tools;
use crate::version::{self, HeaderClass};

/// A sans-IO MCP endpoint. Immutable, `Send + Sync`, and cheap to clone (one
/// reference count): build it once and share it between threads.
#[derive(Clone)]
pub struct Endpoint {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub config: Config,
    pub budget: usize,
    /// Scopes, challenges and resource metadata, computed once.
    pub auth: Auth,
    /// The `tools/list` result, computed once.
    pub tools: Vec<u8>,
    /// The end of every `initialize` result, computed once.
    pub initialize: Vec<u8>,
    /// The origins and hosts admitted (step 2).
    pub allowlist: Allowlist,
    /// The modern results that depend only on the configuration.
    pub modern: modern::Results,
}

impl Inner {
    /// The room a reply gets at once: the typical reply, and under the
    /// modern era the frame around it.
    pub(crate) fn reply_room(&self, modern: bool) -> usize {
        let framing = if modern {
            64 + self.modern.server_info.len()
        } else {
            0
        };
        TYPICAL_REPLY + framing
    }
}

impl Endpoint {
    /// Builds an endpoint, checking the configuration.
    pub fn new(config: Config) -> Result<Endpoint, ConfigError> {
        if config.versions.is_empty() {
            return Err(ConfigError::NoVersions);
        }
        let budget = config.budget();
        if budget == 0 {
            return Err(ConfigError::ZeroBudget);
        }
        if config.cache_ttl_ms > MAX_CACHE_TTL_MS {
            return Err(ConfigError::CacheTtlTooLarge);
        }
        if config.tools.archive && !config.tools.restore {
            return Err(ConfigError::ArchiveWithoutRestore);
        }
        let auth = Auth::new(&config)?;
        let allowlist = Allowlist::new(&config)?;
        let tools = tools::list_result(&config);
        Ok(Endpoint {
            inner: Arc::new(Inner {
                budget,
                auth,
                allowlist,
                modern: modern::Results::new(&config, &tools),
                initialize: legacy::initialize_tail(&config),
                tools,
                config,
            }),
        })
    }

    /// The body budget in bytes.
    pub fn body_budget(&self) -> usize {
        self.inner.budget
    }

    /// The read, create and write scopes' names, and the reading of a token's
    /// `scope` or `scp` into a [`Granted`] for
    /// [`Authenticate::answer_scoped`].
    pub fn scopes(&self) -> &Scopes {
        &self.inner.auth.scopes
    }

    /// Protected Resource Metadata (RFC 9728; AUTH.md §1.3), for hosts to
    /// call before routing a request anywhere else.
    ///
    /// `None` unless [`Config::oauth`] is set and the target's path is
    /// `/.well-known/oauth-protected-resource` followed by the resource's
    /// path, or that prefix alone. On those paths: `GET` and `HEAD` get 200,
    /// `application/json`, `{"resource", "authorization_servers",
    /// "scopes_supported", "bearer_methods_supported"}`, `cache-control:
    /// public, max-age=3600` and `access-control-allow-origin: *`; a CORS
    /// preflight gets 204 allowing `GET, HEAD` and the header
    /// `mcp-protocol-version`; any other method (a bare `OPTIONS` too) gets
    /// 405 with `allow: GET, HEAD`. There is no authentication and the
    /// `Origin` allowlist does not apply; the `Host` allowlist does (403
    /// `host is not allowed`). For `HEAD` the response carries the `GET`
    /// body: send its head only (hyper does so itself).
    ///
    /// ```
    /// use chopin_mcp::{Config, Endpoint, RequestParts};
    ///
    /// let endpoint = Endpoint::new(
    ///     Config::new().oauth("https://mcp.example.com/mcp", "https://login.example.com"),
    /// )?;
    /// let parts = RequestParts::new("GET", "/.well-known/oauth-protected-resource/mcp", &[]);
    /// let response = endpoint.metadata(&parts).expect("a metadata path");
    /// assert_eq!(response.status(), 200);
    /// assert!(endpoint.metadata(&RequestParts::new("POST", "/mcp", &[])).is_none());
    /// # Ok::<(), chopin_mcp::ConfigError>(())
    /// ```
    pub fn metadata(&self, parts: &RequestParts<'_>) -> Option<Response> {
        self.inner.auth.metadata(&self.inner.allowlist, parts)
    }

    /// Starts an exchange for a request whose whole body the host holds.
    ///
    /// The first outcome is a response (the 204 or 403 of a CORS preflight,
    /// 405, 403) or the authenticate effect.
    /// The body's chunks are read only after the request passed every check
    /// before it, and no further chunk is read once the budget is exceeded.
    /// Exchanges started here never yield [`Outcome::Body`].
    pub fn handle<C>(&self, parts: &RequestParts<'_>, body: impl Into<BodyChunks>) -> Outcome<C> {
        self.start(parts, Some(body.into()))
    }

    /// Starts an exchange for a request whose body arrives later.
    ///
    /// Like [`handle`](Self::handle), except that once the request has passed
    /// every check before the body, the endpoint yields [`Outcome::Body`]: the
    /// host then pushes chunks as they arrive and stops reading as soon as a
    /// push is refused.
    pub fn begin<C>(&self, parts: &RequestParts<'_>) -> Outcome<C> {
        self.start(parts, None)
    }

    fn start<C>(&self, parts: &RequestParts<'_>, body: Option<BodyChunks>) -> Outcome<C> {
        // Step 2 is judged first: a preflight and a 405 need its verdict.
        let admission = Admission::judge(&self.inner.allowlist, parts);
        if cors::is_preflight(parts) {
            let response = match (admission.refusal(), admission.into_grant()) {
                (None, Some(origin)) => cors::preflight(origin),
                (Some(refusal), _) => refusal,
                // Unreachable: a preflight has an Origin, so no refusal means a grant.
                (None, None) => Response::text(403, "origin is not allowed"),
            };
            return Outcome::Respond(response);
        }
        let method = match parts.method() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            _ => {
                let response = cors::grant(Response::method_not_allowed(), admission.into_grant());
                return Outcome::Respond(response);
            }
        };
        if let Some(refusal) = admission.refusal() {
            return Outcome::Respond(refusal);
        }
        let screen = Screen::read(method, parts, &self.inner.config, self.inner.budget);
        // M3 reads the standard headers only under a modern or refused
        // version header: with none (class A) its first check, the version
        // header's, fails whatever the others say, so only `authorization`
        // is kept.
        let modern_possible = matches!(screen.class, HeaderClass::Modern(_) | HeaderClass::Refused);
        let room = self.inner.reply_room(modern_possible);
        let head = Kept::read(parts, modern_possible, room);
        Outcome::Authenticate(Authenticate::new(
            self.clone(),
            head,
            screen,
            body,
            admission.into_grant(),
        ))
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("config", &self.inner.config)
            .field("budget", &self.inner.budget)
            .finish()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
}

/// How a POST's JSON-RPC reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyMode {
    Json,
    /// One `text/event-stream` event carrying the reply.
    EventStream,
}

/// What the head says about the steps after authentication, read once.
#[derive(Debug, Clone, Copy)]
struct Screen {
    method: Method,
    /// The class of the `mcp-protocol-version` header (step 4).
    class: HeaderClass,
    /// `None`: not acceptable.
    reply: Option<ReplyMode>,
    /// Whether `text/event-stream` is acceptable (`subscriptions/listen`).
    event_stream_ok: bool,
    content_type_ok: bool,
    declared: Declared,
}

#[derive(Debug, Clone, Copy)]
enum Declared {
    Unknown,
    Within(usize),
    Over,
}

impl Screen {
    /// `budget` is the endpoint's, worked out once when it was built.
    fn read(method: Method, parts: &RequestParts<'_>, config: &Config, budget: usize) -> Screen {
        let class = version::classify(parts.all("mcp-protocol-version"), &config.versions);
        // One parse of `Accept` answers both media types; the value every
        // client sends (MCP asks for both types) is known without one.
        let mut accepts = parts.all("accept");
        let [json, event_stream] = match (accepts.next(), accepts.next()) {
            // A slice compare, not a byte-string pattern (matched a byte at
            // a time, 35 compares and branches).
            (Some(value), None) if value == USUAL_ACCEPT => [1000, 1000],
            (None, _) => [1000, 1000],
            _ => qualities(
                Some(parts.all("accept")),
                [("application", "json"), ("text", "event-stream")],
            ),
        };
        let event_stream_ok = event_stream > 0;
        let reply = match method {
            Method::Post if json > 0 => Some(ReplyMode::Json),
            _ => event_stream_ok.then_some(ReplyMode::EventStream),
        };
        let content_type_ok = parts.all("content-type").all(is_json_media_type);
        Screen {
            method,
            class,
            reply,
            event_stream_ok,
            content_type_ok,
            declared: declared_length(parts, budget),
        }
    }
}

/// The `Accept` value nearly every client sends: MCP asks for both types.
const USUAL_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// `application/json`, with any parameters.
fn is_json_media_type(value: &[u8]) -> bool {
    // What nearly every client sends, compared in line.
    if value == b"application/json" {
        return true;
    }
    let essence = value.split(|&b| b == b';').next().unwrap_or_default();
    trim_ows(essence).eq_ignore_ascii_case(b"application/json")
}

/// The declared `content-length`, judged against the budget. A value that is
/// not a decimal number declares nothing (the streamed count still applies);
/// one too large for any integer is over the budget.
fn declared_length(parts: &RequestParts<'_>, budget: usize) -> Declared {
    let mut declared = Declared::Unknown;
    for value in parts.all("content-length") {
        let digits = trim_ows(value);
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let length = digits.iter().try_fold(0usize, |acc, d| {
            acc.checked_mul(10)?.checked_add(usize::from(d - b'0'))
        });
        match length {
            Some(length) if length <= budget => declared = Declared::Within(length),
            _ => return Declared::Over,
        }
    }
    declared
}

/// The authenticate effect: map the request's credentials to a caller.
///
/// Answer with [`answer`](Self::answer). The value is owned, so the host may
/// `.await` its token lookup in between.
pub struct Authenticate<C> {
    endpoint: Endpoint,
    head: Kept,
    screen: Screen,
    body: Option<BodyChunks>,
    /// The origin granted CORS access, if any.
    origin: Option<Bytes>,
    caller: PhantomData<fn() -> C>,
}

impl<C> Authenticate<C> {
    /// Built by a call, as an effect is: written where it goes, not built on
    /// the stack and copied there.
    #[inline(never)]
    fn new(
        endpoint: Endpoint,
        head: Kept,
        screen: Screen,
        body: Option<BodyChunks>,
        origin: Option<Bytes>,
    ) -> Self {
        Authenticate {
            endpoint,
            head,
            screen,
            body,
            origin,
            caller: PhantomData,
        }
    }

    /// The raw `Authorization` header value, if any.
    pub fn authorization(&self) -> Option<&[u8]> {
        self.head.authorization()
    }

    /// The token of an `Authorization: Bearer <token>` header (the scheme is
    /// matched case-insensitively), if the request has one.
    pub fn bearer_token(&self) -> Option<&str> {
        self.head.bearer_token()
    }

    /// Answers with the caller the credentials name, granted every scope,
    /// or `None` (401: `error="invalid_token"` when the request carried a
    /// `Bearer` credential, none otherwise).
    pub fn answer(self, caller: Option<C>) -> Outcome<C> {
        match caller {
            Some(caller) => self.decide(caller, Granted::ALL),
            None => {
                let response = self.endpoint.inner.auth.unauthorized(self.authorization());
                Outcome::Respond(response).granted(self.origin)
            }
        }
    }

    /// Answers with the caller and the endpoint's scopes its token grants
    /// (see [`Endpoint::scopes`] to read them from a `scope` or `scp`
    /// claim). A request needing a scope that is not granted gets 403
    /// `insufficient_scope` once its body is parsed, before any effect
    /// (AUTH.md §1.2).
    pub fn answer_scoped(self, caller: C, granted: Granted) -> Outcome<C> {
        self.decide(caller, granted)
    }

    /// The host cannot judge the credentials now (its authorization server
    /// is unreachable): 503 with `retry-after: 5`.
    pub fn unavailable(self) -> Outcome<C> {
        Outcome::Respond(Auth::unavailable()).granted(self.origin)
    }

    /// Steps 4–8 ([`steps`]) with the CORS grant, if any, on the response.
    ///
    /// Takes the effect apart at once and hands on its parts: handed on
    /// whole by value (as `answer_scoped` did), it was copied (192 bytes)
    /// at each call, on every request.
    fn decide(self, caller: C, granted: Granted) -> Outcome<C> {
        let Authenticate {
            endpoint,
            head,
            screen,
            body,
            origin,
            caller: _,
        } = self;
        match origin {
            // Most requests have no grant: the outcome is returned where it
            // is made, not moved through `granted`.
            None => steps(endpoint, head, screen, body, None, caller, granted),
            origin => {
                let grant = origin.clone();
                steps(endpoint, head, screen, body, origin, caller, granted).granted(grant)
            }
        }
    }
}

/// Steps 4–8 (SPEC.md §3) of an authenticated request, then the body
/// intake: the parts of its [`Authenticate`] effect.
fn steps<C>(
    endpoint: Endpoint,
    head: Kept,
    screen: Screen,
    body: Option<BodyChunks>,
    origin: Option<Bytes>,
    caller: C,
    granted: Granted,
) -> Outcome<C> {
    // Step 4. A refused header is a version refusal whatever follows: a
    // POST's body is read only to see whether it claims the modern era.
    let refused = screen.class == HeaderClass::Refused;
    match (screen.method, screen.class) {
        (Method::Get, HeaderClass::Refused) => return Outcome::Respond(version_refused()),
        // No GET stream in the modern era.
        (Method::Get, HeaderClass::Modern(_)) => {
            return Outcome::Respond(Response::method_not_allowed());
        }
        _ => {}
    }
    let reply = match screen.reply {
        Some(reply) => reply,
        None if refused => ReplyMode::Json,
        None => return Outcome::Respond(Response::text(406, "not acceptable")),
    };
    if screen.method == Method::Get {
        // A GET stream's need is decided at the head: the read scope.
        if !granted.read() {
            let refusal = endpoint.inner.auth.insufficient(b"null", Granted::READ);
            return Outcome::Respond(refusal);
        }
        return Outcome::Respond(Response::event_stream());
    }
    if !screen.content_type_ok {
        if refused {
            return Outcome::Respond(version_refused());
        }
        return Outcome::Respond(Response::text(415, "unsupported media type"));
    }
    let capacity = match screen.declared {
        Declared::Over if refused => return Outcome::Respond(version_refused()),
        Declared::Over => return Outcome::Respond(Response::too_large()),
        Declared::Within(length) => length,
        Declared::Unknown => 0,
    };
    let exchange = Exchange {
        endpoint,
        caller,
        granted,
        class: screen.class,
        head,
        reply,
        origin,
        event_stream_ok: screen.event_stream_ok,
    };
    match body {
        None => Outcome::Body(BodyIntake::new(exchange, capacity)),
        Some(chunks) => BodyIntake::feed(exchange, capacity, chunks),
    }
}

/// The legacy version error (step 4): 400, id null.
pub(crate) fn version_refused() -> Response {
    let body = jsonrpc::error_reply(b"null", jsonrpc::UNSUPPORTED_VERSION);
    Response::new(400, ContentType::Json, body)
}

impl<C> fmt::Debug for Authenticate<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authenticate")
            .field("has_authorization", &self.head.authorization().is_some())
            .finish_non_exhaustive()
    }
}

/// What an authenticated exchange carries from step to step.
pub(crate) struct Exchange<C> {
    pub endpoint: Endpoint,
    pub caller: C,
    /// The scopes the host's answer granted.
    pub granted: Granted,
    /// The `mcp-protocol-version` class; the era is decided with the body.
    pub class: HeaderClass,
    /// Header values the modern ladder checks (M3).
    pub head: Kept,
    pub reply: ReplyMode,
    /// The origin granted CORS access, if any: every response of the
    /// exchange carries the grant.
    pub origin: Option<Bytes>,
    pub event_stream_ok: bool,
}

impl<C> Exchange<C> {
    /// The answer to a body over the budget: 413, or for a refused version
    /// header the version error (MODERN.md §2, step 4 POST).
    pub(crate) fn too_large(&self) -> Response {
        if self.class == HeaderClass::Refused {
            version_refused()
        } else {
            Response::too_large()
        }
    }
}
