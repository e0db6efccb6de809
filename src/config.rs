//! Endpoint configuration.

use std::fmt;
use std::sync::Arc;

use chopin_dialect::{IdSource, SystemIds};

use crate::json;
use crate::version::ProtocolVersion;

/// The body budget of a read-only endpoint, in bytes.
pub const READ_ONLY_BUDGET: usize = 65_536;
/// The body budget of an endpoint that creates or updates documents: room
/// for a 256 KiB plan with JSON escaping and the brief.
pub const CREATION_BUDGET: usize = 786_432;
/// The body budget of an endpoint that offers `upload_image` (SURFACE.md
/// §1.8): ⌈1 MiB / 3⌉ · 4 bytes of base64 and 64 KiB beside them.
pub const UPLOAD_BUDGET: usize = 1_463_640;

/// Everything an [`Endpoint`](crate::Endpoint) is built from.
///
/// ```
/// use chopin_mcp::{Config, Endpoint};
///
/// let endpoint = Endpoint::new(
///     Config::new()
///         .server_version("1.2.3")
///         .allow_origin("https://chopin.example")
///         .allow_host("localhost"),
/// )?;
/// # Ok::<(), chopin_mcp::ConfigError>(())
/// ```
#[derive(Clone)]
pub struct Config {
    pub(crate) body_budget: Option<usize>,
    pub(crate) server_name: String,
    pub(crate) server_version: String,
    pub(crate) server_title: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) origins: Vec<String>,
    /// Loopback origins are admitted (MODERN.md §7).
    pub(crate) loopback_origins: bool,
    pub(crate) hosts: Option<Vec<String>>,
    pub(crate) resource_metadata: Option<String>,
    pub(crate) versions: Vec<ProtocolVersion>,
    pub(crate) ids: Arc<dyn IdSource>,
    /// The tools offered beside the two read tools.
    pub(crate) tools: Offered,
    pub(crate) cache_ttl_ms: u64,
    /// The resource and its authorization server (AUTH.md §1.3).
    pub(crate) oauth: Option<OAuth>,
    /// The read and create scopes' names, when renamed.
    pub(crate) scope_names: Option<(String, String)>,
    /// The write scope's name, when renamed.
    pub(crate) write_scope: Option<String>,
    /// `invoke_planner`'s description, when replaced.
    pub(crate) planner_description: Option<String>,
    /// `initialize` replies issue session ids (SURFACE.md §10).
    pub(crate) client_sessions: bool,
}

/// [`Config::oauth`]'s settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OAuth {
    pub resource: String,
    pub issuer: String,
}

/// The tools an endpoint offers beside the two read tools, each enabled by
/// the host ([`Config`]'s `enable_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offered {
    pub create: bool,
    pub update: bool,
    pub rename: bool,
    pub archive: bool,
    pub restore: bool,
    pub planner: bool,
    /// `read_implementation` (IMPLEMENTATION.md §2.1).
    pub implementation_reads: bool,
    /// The seven implementation tools that write.
    pub implementation_writes: bool,
    pub upload: bool,
}

impl Offered {
    /// The read tools only.
    pub(crate) const READ_ONLY: Offered = Offered {
        create: false,
        update: false,
        rename: false,
        archive: false,
        restore: false,
        planner: false,
        implementation_reads: false,
        implementation_writes: false,
        upload: false,
    };
}

/// The largest `ttlMs` JSON numbers carry exactly: 2^53 − 1.
pub const MAX_CACHE_TTL_MS: u64 = (1 << 53) - 1;

impl Config {
    /// The defaults: read-only with a 65536-byte budget, server `chopin` at this crate's
    /// version, no browser origin allowed, any `Host`, no resource metadata,
    /// every protocol version (both eras), a one-hour cache lifetime for modern
    /// clients, and the system clock and randomness for ids.
    pub fn new() -> Self {
        Config {
            body_budget: None,
            server_name: "chopin".to_owned(),
            server_version: env!("CARGO_PKG_VERSION").to_owned(),
            server_title: None,
            instructions: None,
            origins: Vec::new(),
            loopback_origins: false,
            hosts: None,
            resource_metadata: None,
            versions: ProtocolVersion::ALL.to_vec(),
            ids: Arc::new(SystemIds),
            tools: Offered::READ_ONLY,
            cache_ttl_ms: 3_600_000,
            oauth: None,
            scope_names: None,
            write_scope: None,
            planner_description: None,
            client_sessions: true,
        }
    }

    /// Offers `create_document`: the host will be asked to carry out create
    /// effects. Unless [`body_budget`](Self::body_budget) says otherwise, the
    /// budget becomes [`CREATION_BUDGET`].
    pub fn enable_creation(mut self) -> Self {
        self.tools.create = true;
        self
    }

    /// Offers `update_document` (LIFECYCLE.md §2): the host will be asked to
    /// carry out update effects, each a revised plan already canonicalized
    /// and checked, to store only if the document is still at the revision
    /// the caller read. Unless [`body_budget`](Self::body_budget) says
    /// otherwise, the budget becomes [`CREATION_BUDGET`].
    pub fn enable_update(mut self) -> Self {
        self.tools.update = true;
        self
    }

    /// Offers `rename_document` (LIFECYCLE.md §3): the host will be asked to
    /// carry out rename effects.
    pub fn enable_rename(mut self) -> Self {
        self.tools.rename = true;
        self
    }

    /// Offers `archive_document` (LIFECYCLE.md §4): the host will be asked to
    /// carry out archive effects. Archiving is undoable only where restoring
    /// is offered: without [`enable_restore`](Self::enable_restore),
    /// [`Endpoint::new`](crate::Endpoint::new) refuses the configuration
    /// ([`ConfigError::ArchiveWithoutRestore`]).
    pub fn enable_archive(mut self) -> Self {
        self.tools.archive = true;
        self
    }

    /// Offers `restore_document` (LIFECYCLE.md §4): the host will be asked to
    /// carry out restore effects.
    pub fn enable_restore(mut self) -> Self {
        self.tools.restore = true;
        self
    }

    /// Offers `invoke_planner` (SURFACE.md §9): the host will be asked to
    /// post instructions to documents' planners, each attributed to its
    /// caller, and to answer without waiting for the planner's turn. Calls
    /// need the write scope beside the read scope. Unless
    /// [`body_budget`](Self::body_budget) says otherwise, the budget becomes
    /// [`CREATION_BUDGET`].
    pub fn enable_planner(mut self) -> Self {
        self.tools.planner = true;
        self
    }

    /// Replaces `invoke_planner`'s description in `tools/list` (default:
    /// `Post an instruction to a document's planner, attributed to the
    /// caller, and return the document without waiting for the turn.`):
    /// for a host whose planners follow rules of their own to tell the
    /// model about.
    pub fn planner_description(mut self, description: impl Into<String>) -> Self {
        self.planner_description = Some(description.into());
        self
    }

    /// Offers the eight implementation tools (IMPLEMENTATION.md §2):
    /// `read_implementation`, `start_implementation` and the six lifecycle
    /// tools, listed after the document tools. The host will be asked to
    /// carry out [`ReadImplementation`](crate::ReadImplementation),
    /// [`StartImplementation`](crate::StartImplementation) and
    /// [`ReportLifecycle`](crate::ReportLifecycle) effects. In the handshake
    /// era the seven that write need the session id `initialize` issued
    /// (IMPLEMENTATION.md §3), unless [`client_sessions`](Self::client_sessions)
    /// is off. Unless [`body_budget`](Self::body_budget) says otherwise, the
    /// budget becomes [`CREATION_BUDGET`].
    pub fn enable_implementations(mut self) -> Self {
        self.tools.implementation_reads = true;
        self.tools.implementation_writes = true;
        self
    }

    /// Offers `read_implementation` alone: a read-only host's implementation
    /// tool (IMPLEMENTATION.md §2.1).
    pub fn enable_implementation_reads(mut self) -> Self {
        self.tools.implementation_reads = true;
        self
    }

    /// Offers the four tools of a plan's life after its creation:
    /// [`enable_update`](Self::enable_update),
    /// [`enable_rename`](Self::enable_rename),
    /// [`enable_archive`](Self::enable_archive) and
    /// [`enable_restore`](Self::enable_restore) at once. With
    /// [`enable_creation`](Self::enable_creation), a read-write endpoint.
    pub fn enable_lifecycle(self) -> Self {
        self.enable_update()
            .enable_rename()
            .enable_archive()
            .enable_restore()
    }

    /// Offers `upload_image` (SURFACE.md §8): the host will be asked to keep
    /// images, each checked (type, signature, at most 1 MiB) and named by its
    /// SHA-256, for a document. Unless [`body_budget`](Self::body_budget)
    /// says otherwise, the budget becomes [`UPLOAD_BUDGET`].
    pub fn enable_upload(mut self) -> Self {
        self.tools.upload = true;
        self
    }

    /// The most body bytes (after chunked decoding) a request may carry.
    pub fn body_budget(mut self, bytes: usize) -> Self {
        self.body_budget = Some(bytes);
        self
    }

    /// Whether `initialize` replies issue a session id (default on;
    /// SURFACE.md §10): handshake-era `initialize` 200 replies carry
    /// `mcp-session-id: c1.<name>.<version>.<ULID>`, the client's
    /// `clientInfo` name and version as unpadded base64url (each cut to 128
    /// scalar values) and a ULID from the [`id_source`](Self::id_source).
    /// Nothing is stored: a later request's one well-formed header line
    /// gives the effects that take it their
    /// [`ClientInfo`](crate::ClientInfo), whichever replica issued it. No
    /// document tool ever requires one; `false` stops issuing.
    pub fn client_sessions(mut self, issue: bool) -> Self {
        self.client_sessions = issue;
        self
    }

    /// The `serverInfo.name` of `initialize` and of modern results' `_meta`
    /// (default `chopin`).
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = name.into();
        self
    }

    /// The `serverInfo.version` of `initialize` and of modern results'
    /// `_meta`.
    pub fn server_version(mut self, version: impl Into<String>) -> Self {
        self.server_version = version.into();
        self
    }

    /// A human-readable name for the server, `serverInfo.title` beside its
    /// `name` (MCP's `Implementation.title`, since 2025-06-18; sent in every
    /// revision, as clients ignore members they do not know). None by
    /// default.
    pub fn server_title(mut self, title: impl Into<String>) -> Self {
        self.server_title = Some(title.into());
        self
    }

    /// Guidance for the model using the server: how its tools fit
    /// together. Sent as the `instructions` of the `initialize` result (the
    /// handshake era) and of the `server/discover` result (2026-07-28, where
    /// `DiscoverResult.instructions` carries it; there is no `initialize`).
    /// None by default.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// The server's `Implementation` object, `{"name":…,"title":…,"version":…}`
    /// (`title` only when set), as both eras' `serverInfo` carry it.
    pub(crate) fn server_info(&self) -> Vec<u8> {
        let mut out = b"{\"name\":".to_vec();
        json::write_string(&mut out, &self.server_name);
        if let Some(title) = &self.server_title {
            out.extend_from_slice(b",\"title\":");
            json::write_string(&mut out, title);
        }
        out.extend_from_slice(b",\"version\":");
        json::write_string(&mut out, &self.server_version);
        out.push(b'}');
        out
    }

    /// Allows browser requests carrying this exact `Origin` (e.g.
    /// `https://chopin.example`): byte for byte, so `http://chopin.example`
    /// or `https://CHOPIN.example` is another origin. Without any (and
    /// without [`allow_loopback_hosts`](Self::allow_loopback_hosts)), every
    /// request with an `Origin` header is refused.
    ///
    /// Requests from an allowed origin get CORS answers: a preflight is
    /// answered 204, and every response grants that origin access
    /// (`access-control-allow-origin`, `access-control-expose-headers`,
    /// `vary: origin`). The value is echoed in those headers, so
    /// [`Endpoint::new`](crate::Endpoint::new) refuses one that is empty or
    /// holds anything but visible ASCII
    /// ([`ConfigError::BadHeaderValue`]).
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.origins.push(origin.into());
        self
    }

    /// Allows this `Host` name (DNS-rebinding protection). Once one is
    /// allowed, a request whose `Host` matches none is refused. An entry
    /// matches the whole header value or its host part without the port,
    /// ASCII case-insensitively: `localhost` matches `localhost:8080`.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.get_or_insert_with(Vec::new).push(host.into());
        self
    }

    /// Allows the loopback names `localhost`, `127.0.0.1` and `[::1]`: the
    /// right default for a server bound to a loopback address.
    ///
    /// Also admits **loopback origins**: `http` or `https`, `://`,
    /// `localhost`, `127.0.0.1` or `[::1]` (ASCII case-insensitive), an
    /// optional `:` and 1–5 digits, and nothing more: `http://localhost:5173`
    /// and `https://[::1]` pass; `http://localhost.evil.example`,
    /// `http://localhost:5173/`, `http://user@localhost` and `null` do not.
    pub fn allow_loopback_hosts(mut self) -> Self {
        self.loopback_origins = true;
        self.allow_host("localhost")
            .allow_host("127.0.0.1")
            .allow_host("[::1]")
    }

    /// The OAuth protected-resource metadata URL named in the 401 challenge
    /// (`www-authenticate: Bearer resource_metadata="…"`).
    pub fn resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Makes the endpoint an OAuth 2.1 resource server (AUTH.md §1):
    /// `resource` is the canonical URI of this MCP endpoint (`https`, or
    /// `http` on a loopback host, with a path, no query or fragment: e.g.
    /// `https://mcp.example.com/mcp`), `issuer` its authorization server's
    /// issuer (`https`, or `http` on a loopback host). Anything else is a
    /// [`ConfigError::BadResource`] / [`ConfigError::BadIssuer`].
    ///
    /// Then [`Endpoint::metadata`](crate::Endpoint::metadata) serves
    /// Protected Resource Metadata (RFC 9728) naming both and the three
    /// scopes (read, create, write),
    /// and every 401 names the metadata (unless
    /// [`resource_metadata`](Self::resource_metadata) names another URL) and
    /// the read scope. These URLs come from here only, never from a request's
    /// `Host` or `X-Forwarded-*`. Validating tokens stays the host's: it
    /// answers the authenticate effect with the caller and the token's scopes
    /// ([`Authenticate::answer_scoped`](crate::Authenticate::answer_scoped)).
    pub fn oauth(mut self, resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        self.oauth = Some(OAuth {
            resource: resource.into(),
            issuer: issuer.into(),
        });
        self
    }

    /// Renames the read scope (default `chopin:read`) and the create scope
    /// (default `chopin:create`); each an RFC 6749 §3.3 scope token (visible
    /// ASCII but `"` and `\`, no space), the two different, else
    /// [`ConfigError::BadScope`]. Once renamed (or with
    /// [`oauth`](Self::oauth)), 401 challenges name the read scope.
    pub fn scopes(mut self, read: impl Into<String>, create: impl Into<String>) -> Self {
        self.scope_names = Some((read.into(), create.into()));
        self
    }

    /// Renames the write scope (default `chopin:write`), which the four
    /// write tools need beside the read scope (LIFECYCLE.md §1): a scope
    /// token like the others, different from both, else
    /// [`ConfigError::BadScope`]. Once renamed, 401 challenges name the read
    /// scope, as with [`scopes`](Self::scopes).
    pub fn write_scope(mut self, write: impl Into<String>) -> Self {
        self.write_scope = Some(write.into());
        self
    }

    /// The protocol versions this endpoint accepts (default: all five, both
    /// eras). Dropping [`ProtocolVersion::V2026_07_28`] serves the legacy era
    /// only; dropping every legacy version leaves `initialize` unanswerable.
    pub fn protocol_versions(
        mut self,
        versions: impl IntoIterator<Item = ProtocolVersion>,
    ) -> Self {
        self.versions = versions.into_iter().collect();
        self.versions.sort();
        self.versions.dedup();
        self
    }

    /// How long a modern client may cache `server/discover` and `tools/list`
    /// (their `ttlMs`, MODERN.md §4), in milliseconds; default 3600000 (one
    /// hour). Both answers are the same for every caller (`cacheScope`
    /// `public`). Above [`MAX_CACHE_TTL_MS`], [`Endpoint::new`](crate::Endpoint::new)
    /// refuses the configuration.
    pub fn cache_ttl_ms(mut self, milliseconds: u64) -> Self {
        self.cache_ttl_ms = milliseconds;
        self
    }

    /// The source of time and entropy for minted ids.
    pub fn id_source(mut self, ids: impl IdSource + 'static) -> Self {
        self.ids = Arc::new(ids);
        self
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("body_budget", &self.body_budget)
            .field("server_name", &self.server_name)
            .field("server_version", &self.server_version)
            .field("server_title", &self.server_title)
            .field("has_instructions", &self.instructions.is_some())
            .field("origins", &self.origins)
            .field("loopback_origins", &self.loopback_origins)
            .field("hosts", &self.hosts)
            .field("resource_metadata", &self.resource_metadata)
            .field("versions", &self.versions)
            .field("tools", &self.tools)
            .field("cache_ttl_ms", &self.cache_ttl_ms)
            .field("oauth", &self.oauth)
            .field("scope_names", &self.scope_names)
            .field("write_scope", &self.write_scope)
            .field("planner_description", &self.planner_description)
            .field("client_sessions", &self.client_sessions)
            .finish_non_exhaustive()
    }
}

/// A configuration the endpoint cannot serve with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No protocol version is supported.
    #[error("at least one protocol version must be supported")]
    NoVersions,
    /// A value that goes into a response header holds a character that would
    /// break the header (a control character or, in the quoted
    /// `resource_metadata`, a `"` or `\`), or an allowed origin is empty or
    /// holds anything but visible ASCII.
    #[error("{0} cannot be used in a response header")]
    BadHeaderValue(&'static str),
    /// The body budget is 0.
    #[error("the body budget must be at least 1 byte")]
    ZeroBudget,
    /// The cache lifetime is above [`MAX_CACHE_TTL_MS`] (2^53 − 1).
    #[error("the cache lifetime must be at most 2^53 - 1 milliseconds")]
    CacheTtlTooLarge,
    /// The OAuth resource is not an `https` URL (or `http` on a loopback
    /// host) with a path and without a query or fragment.
    #[error(
        "the resource must be an https URL (http only on a loopback host) with a path, and no query or fragment"
    )]
    BadResource,
    /// The OAuth issuer is not an `https` URL (or `http` on a loopback host)
    /// without a query or fragment.
    #[error(
        "the issuer must be an https URL (http only on a loopback host) without a query or fragment"
    )]
    BadIssuer,
    /// A scope name is not an RFC 6749 §3.3 scope token, or the two are
    /// equal; names which one.
    #[error("the {0} must be a scope token (visible ASCII, no space, quote or backslash)")]
    BadScope(&'static str),
    /// `archive_document` is enabled without `restore_document`: an archive
    /// could never be undone through the endpoint.
    #[error("archive_document is offered only together with restore_document")]
    ArchiveWithoutRestore,
}
