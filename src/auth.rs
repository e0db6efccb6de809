//! OAuth 2.1 resource server, the pure part (AUTH.md §1): scopes, the
//! challenges and bodies of 401, 403 and 503, and Protected Resource
//! Metadata (RFC 9728).
//!
//! | situation | status | `www-authenticate` |
//! |---|---|---|
//! | no `Authorization`, or not the `Bearer` scheme | 401 | `Bearer resource_metadata="…", scope="<read>"` |
//! | a bearer token the host refused (empty or malformed included) | 401 | `Bearer error="invalid_token", resource_metadata="…", scope="<read>"` |
//! | a token without a scope the request needs | 403 | `Bearer error="insufficient_scope", scope="<every scope needed>", resource_metadata="…"` |
//! | the host cannot judge the token now | 503 | none; `retry-after: 5` |
//!
//! `resource_metadata` and `scope` appear only when configured (never an
//! empty value); every 401, 403 and 503 body is a JSON-RPC error. The 403
//! names every scope the request needs, read first; a 401 names the read
//! scope only (the client meets the 403 and steps up).
//!
//! Where the MCP authorization specification and AUTH.md are silent, RFC
//! 6750 §3 (challenge syntax: `auth-param`s separated by `, `), RFC 9728 §3
//! (the path-suffixed metadata URL, CORS) and RFC 6749 §3.3 (scope syntax)
//! are followed.

use bytes::Bytes;

use crate::config::{Config, ConfigError};
use crate::origin::Allowlist;
use crate::request::RequestParts;
use crate::response::{Allow, Cache, ContentType, Decoration, Response};

/// The endpoint's scopes a caller holds: what the host's authentication
/// answer grants ([`Authenticate::answer_scoped`](crate::Authenticate::answer_scoped)).
///
/// Every MCP request needs [`read`](Self::read); `create_document` also
/// needs [`create`](Self::create), and the four write tools
/// (`update_document`, `rename_document`, `archive_document`,
/// `restore_document`) [`write`](Self::write). There is no hierarchy
/// between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Granted {
    read: bool,
    create: bool,
    write: bool,
}

impl Granted {
    /// Every scope: what a static token, or an answer without scopes, grants.
    pub const ALL: Granted = Granted::new(true, true, true);
    /// No scope of this endpoint.
    pub const NONE: Granted = Granted::new(false, false, false);
    /// The read scope alone: what every request needs.
    pub(crate) const READ: Granted = Granted::new(true, false, false);

    /// A grant of the read, create and write scopes, each or not.
    pub const fn new(read: bool, create: bool, write: bool) -> Granted {
        Granted {
            read,
            create,
            write,
        }
    }

    /// Whether the read scope is granted.
    pub const fn read(self) -> bool {
        self.read
    }

    /// Whether the create scope is granted.
    pub const fn create(self) -> bool {
        self.create
    }

    /// Whether the write scope is granted.
    pub const fn write(self) -> bool {
        self.write
    }

    /// Whether this grant holds every scope of `need`.
    pub(crate) fn covers(self, need: Granted) -> bool {
        (self.read || !need.read) && (self.create || !need.create) && (self.write || !need.write)
    }

    /// The union of two needs.
    pub(crate) fn with(self, other: Granted) -> Granted {
        Granted::new(
            self.read || other.read,
            self.create || other.create,
            self.write || other.write,
        )
    }
}

/// The configured names of the read, create and write scopes, and the
/// reading of a token's scopes into a [`Granted`] (see
/// [`Endpoint::scopes`](crate::Endpoint::scopes)).
///
/// ```
/// use chopin_mcp::{Config, Endpoint, Granted};
///
/// let endpoint = Endpoint::new(Config::new())?;
/// let scopes = endpoint.scopes();
/// assert_eq!(scopes.of_scope("openid chopin:read"), Granted::new(true, false, false));
/// assert_eq!(
///     scopes.of_names(["chopin:write", "chopin:create", "chopin:read"]),
///     Granted::ALL
/// );
/// # Ok::<(), chopin_mcp::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes {
    read: String,
    create: String,
    write: String,
}

impl Scopes {
    /// The read scope's name (default `chopin:read`).
    pub fn read(&self) -> &str {
        &self.read
    }

    /// The create scope's name (default `chopin:create`).
    pub fn create(&self) -> &str {
        &self.create
    }

    /// The write scope's name (default `chopin:write`).
    pub fn write(&self) -> &str {
        &self.write
    }

    /// The grant of a space-separated `scope` value (RFC 6749 §3.3, the
    /// `scope` claim of RFC 9068 and RFC 7662). Names are compared exactly;
    /// names of other scopes are ignored. Allocates nothing.
    pub fn of_scope(&self, scope: &str) -> Granted {
        self.of_names(scope.split(' '))
    }

    /// The grant of a list of scope names (an `scp` array, or any other
    /// list the host holds). Allocates nothing.
    pub fn of_names<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Granted {
        names.into_iter().fold(Granted::NONE, |granted, name| {
            granted.with(Granted::new(
                name == self.read,
                name == self.create,
                name == self.write,
            ))
        })
    }

    /// The names `need` holds, space-separated, in the order read, create,
    /// write: a 403's `scope`.
    fn needed(&self, need: Granted) -> String {
        let names = [
            (need.read, &self.read),
            (need.create, &self.create),
            (need.write, &self.write),
        ];
        let needed: Vec<&str> = names
            .iter()
            .filter(|(needed, _)| *needed)
            .map(|(_, name)| name.as_str())
            .collect();
        needed.join(" ")
    }
}

/// The default scope names.
pub(crate) const DEFAULT_READ: &str = "chopin:read";
pub(crate) const DEFAULT_CREATE: &str = "chopin:create";
pub(crate) const DEFAULT_WRITE: &str = "chopin:write";

/// The well-known path of Protected Resource Metadata (RFC 9728 §3.1).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// 401 body: the same for every refusal, in every configuration.
const UNAUTHORIZED: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized"}}"#;
/// 503 body.
const UNAVAILABLE: &[u8] =
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"authorization unavailable"}}"#;

/// Everything about authorization an endpoint works out from its
/// configuration once.
#[derive(Debug)]
pub(crate) struct Auth {
    pub scopes: Scopes,
    /// 401 without credentials.
    missing: Bytes,
    /// 401 for a refused token.
    invalid: Bytes,
    /// The 403 challenges, by need: read, read and create, read and write,
    /// all three (see [`Auth::insufficient`]).
    insufficient: [Bytes; 4],
    metadata: Option<Metadata>,
}

/// Protected Resource Metadata: where it is served and what it says.
#[derive(Debug)]
struct Metadata {
    /// `/.well-known/oauth-protected-resource` + the resource's path.
    suffixed: String,
    document: Bytes,
}

impl Auth {
    /// Checks the OAuth settings of `config` and writes the challenges.
    pub(crate) fn new(config: &Config) -> Result<Auth, ConfigError> {
        let (read, create) = match &config.scope_names {
            Some((read, create)) => (read.clone(), create.clone()),
            None => (DEFAULT_READ.to_owned(), DEFAULT_CREATE.to_owned()),
        };
        let write = config
            .write_scope
            .clone()
            .unwrap_or_else(|| DEFAULT_WRITE.to_owned());
        for (name, what) in [
            (&read, "read scope"),
            (&create, "create scope"),
            (&write, "write scope"),
        ] {
            if !is_scope_token(name) {
                return Err(ConfigError::BadScope(what));
            }
        }
        if read == create {
            return Err(ConfigError::BadScope(
                "create scope (it equals the read scope)",
            ));
        }
        if write == read || write == create {
            return Err(ConfigError::BadScope(
                "write scope (it equals the read or create scope)",
            ));
        }
        if let Some(url) = &config.resource_metadata {
            if url.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
                return Err(ConfigError::BadHeaderValue("resource_metadata"));
            }
        }
        let (metadata, metadata_url) = match &config.oauth {
            None => (None, None),
            Some(oauth) => {
                let resource = parse_url(&oauth.resource, true).ok_or(ConfigError::BadResource)?;
                parse_url(&oauth.issuer, false).ok_or(ConfigError::BadIssuer)?;
                let suffixed = format!("{WELL_KNOWN}{}", resource.path);
                let url = format!("{}{suffixed}", resource.origin);
                let mut document =
                    Vec::with_capacity(160 + oauth.resource.len() + oauth.issuer.len());
                document.extend_from_slice(b"{\"resource\":");
                crate::json::write_string(&mut document, &oauth.resource);
                document.extend_from_slice(b",\"authorization_servers\":[");
                crate::json::write_string(&mut document, &oauth.issuer);
                document.extend_from_slice(b"],\"scopes_supported\":[");
                crate::json::write_string(&mut document, &read);
                document.push(b',');
                crate::json::write_string(&mut document, &create);
                document.push(b',');
                crate::json::write_string(&mut document, &write);
                document.extend_from_slice(b"],\"bearer_methods_supported\":[\"header\"]}");
                let metadata = Metadata {
                    suffixed,
                    document: document.into(),
                };
                (Some(metadata), Some(url))
            }
        };
        // An explicit URL wins (a document hosted elsewhere).
        let metadata_url = config.resource_metadata.clone().or(metadata_url);
        // The scope names appear in 401s once OAuth or the names are
        // configured: a plain `Config` answers as it always did.
        let advertise =
            config.oauth.is_some() || config.scope_names.is_some() || config.write_scope.is_some();
        let challenge = |error: Option<&str>, scope: Option<&str>, scope_first: bool| {
            let mut params = Vec::new();
            if let Some(error) = error {
                params.push(format!("error=\"{error}\""));
            }
            let scope = scope.map(|scope| format!("scope=\"{scope}\""));
            let url = metadata_url
                .as_ref()
                .map(|url| format!("resource_metadata=\"{url}\""));
            let (first, second) = if scope_first {
                (scope, url)
            } else {
                (url, scope)
            };
            params.extend(first);
            params.extend(second);
            let mut value = String::from("Bearer");
            if !params.is_empty() {
                value.push(' ');
                value.push_str(&params.join(", "));
            }
            Bytes::from(value)
        };
        let read_scope = advertise.then_some(read.as_str());
        let missing = challenge(None, read_scope, false);
        let invalid = challenge(Some("invalid_token"), read_scope, false);
        let scopes = Scopes {
            read,
            create,
            write,
        };
        let insufficient =
            [(false, false), (true, false), (false, true), (true, true)].map(|(create, write)| {
                let need = Granted::new(true, create, write);
                challenge(Some("insufficient_scope"), Some(&scopes.needed(need)), true)
            });
        Ok(Auth {
            missing,
            invalid,
            insufficient,
            metadata,
            scopes,
        })
    }

    /// The 401: without credentials (no `Authorization`, or not `Bearer`),
    /// or for a refused bearer token.
    pub(crate) fn unauthorized(&self, authorization: Option<&[u8]>) -> Response {
        let challenge = match authorization {
            Some(value) if is_bearer(value) => &self.invalid,
            _ => &self.missing,
        };
        Response::new(401, ContentType::Json, Bytes::from_static(UNAUTHORIZED))
            .with_challenge(challenge.clone())
    }

    /// The 403 for a request that needs `need` (every request needs the
    /// read scope), echoing `id` (`null` for a batch, a notification or a
    /// GET stream): its `scope` lists every scope needed, read first, then
    /// create, then write (AUTH.md §1.1, LIFECYCLE.md §1).
    pub(crate) fn insufficient(&self, id: &[u8], need: Granted) -> Response {
        let challenge = &self.insufficient[usize::from(need.create) + 2 * usize::from(need.write)];
        let mut body = Vec::with_capacity(80 + id.len());
        body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        body.extend_from_slice(id);
        body.extend_from_slice(b",\"error\":{\"code\":-32000,\"message\":\"insufficient scope\"}}");
        Response::new(403, ContentType::Json, body).with_challenge(challenge.clone())
    }

    /// The 503 of a host that cannot judge the token now.
    pub(crate) fn unavailable() -> Response {
        Response::new(503, ContentType::Json, Bytes::from_static(UNAVAILABLE)).with_retry_after()
    }

    /// The metadata answer for `parts`, if its target is a metadata path.
    pub(crate) fn metadata(
        &self,
        allowlist: &Allowlist,
        parts: &RequestParts<'_>,
    ) -> Option<Response> {
        let metadata = self.metadata.as_ref()?;
        let path = parts.target().split(['?', '#']).next().unwrap_or_default();
        if path != metadata.suffixed && path != WELL_KNOWN {
            return None;
        }
        // DNS rebinding: the Host allowlist applies; the Origin allowlist
        // does not (public metadata, no credentials).
        if !allowlist.host_passes(parts) {
            return Some(Response::text(403, "host is not allowed"));
        }
        let any = Bytes::from_static(b"*");
        Some(match parts.method() {
            "GET" | "HEAD" => Response::new(200, ContentType::Json, metadata.document.clone())
                .with_cache(Cache::PublicHour)
                .decorated(&METADATA, any),
            "OPTIONS"
                if parts.header("origin").is_some()
                    && parts.header("access-control-request-method").is_some() =>
            {
                Response::no_content().decorated(&METADATA_PREFLIGHT, any)
            }
            _ => Response::text(405, "method not allowed").with_allow(Allow::GetHead),
        })
    }
}

/// CORS on the metadata: any origin may read it (RFC 9728 §3 expects
/// browser clients to fetch it).
static METADATA: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[],
};

/// The metadata's preflight answer: `GET` and `HEAD`, and the one request
/// header clients send on discovery (the TS SDK sends
/// `mcp-protocol-version`).
static METADATA_PREFLIGHT: Decoration = Decoration {
    name: "access-control-allow-origin",
    fixed: &[
        ("access-control-allow-methods", b"GET, HEAD"),
        ("access-control-allow-headers", b"mcp-protocol-version"),
        ("access-control-max-age", b"7200"),
    ],
};

/// Whether an `Authorization` value uses the `Bearer` scheme (matched ASCII
/// case-insensitively), whatever its credential: an empty or malformed one is
/// a refused token.
fn is_bearer(value: &[u8]) -> bool {
    let scheme = value.split(|&b| b == b' ').next().unwrap_or_default();
    scheme.eq_ignore_ascii_case(b"bearer")
}

/// RFC 6749 §3.3 `scope-token`: `%x21 / %x23-5B / %x5D-7E`, at least one.
fn is_scope_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

/// A URL split into its origin (`scheme://authority`) and path.
struct Url<'a> {
    origin: &'a str,
    path: &'a str,
}

/// Reads an `https` URL, or an `http` one on a loopback host (`localhost`,
/// `127.0.0.0/8`, `[::1]`): visible ASCII but `"` and `\`, no user info, no
/// query, no fragment; with a path of at least one character after `/` when
/// `needs_path` (the resource), any path otherwise (the issuer).
fn parse_url(text: &str, needs_path: bool) -> Option<Url<'_>> {
    if !text
        .bytes()
        .all(|b| (0x21..=0x7E).contains(&b) && !matches!(b, b'"' | b'\\' | b'?' | b'#'))
    {
        return None;
    }
    let (https, rest) = match (text.strip_prefix("https://"), text.strip_prefix("http://")) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => return None,
    };
    let authority_len = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_len);
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    let host = match authority.rfind(':') {
        Some(colon) if !authority[colon..].contains(']') => {
            let port = &authority[colon + 1..];
            if !(1..=5).contains(&port.len()) || !port.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            &authority[..colon]
        }
        _ => authority,
    };
    if host.is_empty() || (!https && !is_loopback_host(host)) {
        return None;
    }
    if needs_path && path.len() < 2 {
        return None;
    }
    let origin = &text[..text.len() - path.len()];
    Some(Url { origin, path })
}

fn is_loopback_host(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") || host == "[::1]" {
        return true;
    }
    // 127.0.0.0/8, in dotted-decimal.
    let octets = host.split('.');
    host.starts_with("127.")
        && octets.clone().count() == 4
        && octets.into_iter().all(|o| {
            o.parse::<u8>()
                .is_ok_and(|_| o.bytes().all(|b| b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_https_or_loopback_http_with_a_path() {
        for yes in [
            "https://mcp.example.com/mcp",
            "https://mcp.example.com:8443/a/b/",
            "http://127.0.0.1:8080/mcp",
            "http://localhost/mcp",
            "http://[::1]:9/mcp",
        ] {
            assert!(parse_url(yes, true).is_some(), "{yes}");
        }
        for no in [
            "https://mcp.example.com",
            "https://mcp.example.com/",
            "http://mcp.example.com/mcp",
            "http://127.0.0.1.evil/mcp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#f",
            "https://user@mcp.example.com/mcp",
            "https://mcp.example.com:/mcp",
            "https://mcp.example.com/m cp",
            "https:///mcp",
            "ftp://mcp.example.com/mcp",
            "mcp.example.com/mcp",
            "",
        ] {
            assert!(parse_url(no, true).is_none(), "{no}");
        }
        assert!(parse_url("https://as.example", false).is_some());
        assert!(parse_url("http://as.example", false).is_none());
    }

    #[test]
    fn scope_tokens_follow_rfc_6749() {
        assert!(is_scope_token("chopin:read"));
        assert!(is_scope_token("https://graph.example/Plans.Read!"));
        for no in ["", "a b", "a\"b", "a\\b", "é", "a\tb"] {
            assert!(!is_scope_token(no), "{no:?}");
        }
    }

    #[test]
    fn the_bearer_scheme_is_matched_case_insensitively() {
        assert!(is_bearer(b"Bearer abc"));
        assert!(is_bearer(b"bearer"));
        assert!(is_bearer(b"BEARER "));
        assert!(!is_bearer(b"Basic abc"));
        assert!(!is_bearer(b"Bearerabc"));
    }
}
