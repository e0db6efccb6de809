//! Step 2 of the pipeline: the `Origin` and `Host` allowlists (SPEC.md §3,
//! MODERN.md §7), judged once per request, before anything else is decided.
//!
//! | header | rule | refused |
//! |---|---|---|
//! | `Origin` absent | not a browser request: nothing to judge, no CORS grant | — |
//! | one `Origin` line | byte-equal to an [`allow_origin`](crate::Config::allow_origin) entry, or (with [`allow_loopback_hosts`](crate::Config::allow_loopback_hosts)) a loopback origin: `http` or `https`, `://`, `localhost` / `127.0.0.1` / `[::1]` (ASCII case-insensitive), optional `:` + 1–5 digits, nothing more | 403 `origin is not allowed` |
//! | several `Origin` lines | always refused: a browser sends one, and there would be no single value to echo | 403 `origin is not allowed` |
//! | `Host`, with a host allowlist | exactly one line, matching an entry whole or without its port | 403 `host is not allowed` |
//!
//! The verdict keeps the allowed origin's bytes: they are what the CORS grant
//! echoes (see [`cors`](crate::cors)). An exact match echoes the configured
//! value, which is byte-equal to the request's; a loopback origin echoes the
//! request's bytes, which the rule above limits to a few ASCII characters.
//! Nothing else is ever reflected.

use bytes::Bytes;

use crate::config::{Config, ConfigError};
use crate::request::{RequestParts, trim_ows};
use crate::response::Response;

/// The origins and hosts an endpoint admits, read from its configuration
/// once.
#[derive(Debug)]
pub(crate) struct Allowlist {
    /// The allowed origins, as the bytes a grant echoes.
    origins: Vec<Bytes>,
    loopback: bool,
    hosts: Option<Vec<String>>,
}

impl Allowlist {
    /// Refuses an allowed origin that cannot be echoed in a header.
    pub(crate) fn new(config: &Config) -> Result<Allowlist, ConfigError> {
        if !config.origins.iter().all(|origin| is_echoable(origin)) {
            return Err(ConfigError::BadHeaderValue("allow_origin"));
        }
        Ok(Allowlist {
            origins: config
                .origins
                .iter()
                .map(|origin| Bytes::from(origin.clone()))
                .collect(),
            loopback: config.loopback_origins,
            hosts: config.hosts.clone(),
        })
    }
}

impl Allowlist {
    /// Whether the request's `Host` passes the host allowlist (when there is
    /// one): exactly one line, matching an entry.
    pub(crate) fn host_passes(&self, parts: &RequestParts<'_>) -> bool {
        match &self.hosts {
            None => true,
            Some(hosts) => {
                let mut values = parts.all("host");
                match (values.next(), values.next()) {
                    (Some(host), None) => host_allowed(hosts, host),
                    _ => false,
                }
            }
        }
    }
}

/// What step 2 found.
#[derive(Debug, Clone)]
pub(crate) struct Admission {
    origin: OriginVerdict,
    host_allowed: bool,
}

#[derive(Debug, Clone)]
enum OriginVerdict {
    /// No `Origin` header: not a browser request.
    Absent,
    /// The one `Origin` value, allowed: the bytes to echo.
    Allowed(Bytes),
    Refused,
}

impl Admission {
    /// Judges the request's `Origin` and `Host` headers.
    pub(crate) fn judge(allowlist: &Allowlist, parts: &RequestParts<'_>) -> Admission {
        let mut values = parts.all("origin");
        let origin = match (values.next(), values.next()) {
            (None, _) => OriginVerdict::Absent,
            (Some(value), None) => match allowed_origin(allowlist, value) {
                Some(echo) => OriginVerdict::Allowed(echo),
                None => OriginVerdict::Refused,
            },
            (Some(_), Some(_)) => OriginVerdict::Refused,
        };
        let host_allowed = allowlist.host_passes(parts);
        Admission {
            origin,
            host_allowed,
        }
    }

    /// The 403 of step 2, if the request fails it (origin before host).
    pub(crate) fn refusal(&self) -> Option<Response> {
        if matches!(self.origin, OriginVerdict::Refused) {
            return Some(Response::text(403, "origin is not allowed"));
        }
        if !self.host_allowed {
            return Some(Response::text(403, "host is not allowed"));
        }
        None
    }

    /// The origin to grant CORS access to: the request's one `Origin`, when it
    /// is allowed and the `Host` passes too. `None` for every other request.
    pub(crate) fn into_grant(self) -> Option<Bytes> {
        match self.origin {
            OriginVerdict::Allowed(origin) if self.host_allowed => Some(origin),
            _ => None,
        }
    }
}

/// The bytes to echo for an allowed `Origin` value, or `None`.
fn allowed_origin(allowlist: &Allowlist, value: &[u8]) -> Option<Bytes> {
    if let Some(exact) = allowlist.origins.iter().find(|allowed| **allowed == value) {
        return Some(exact.clone());
    }
    (allowlist.loopback && is_loopback_origin(value)).then(|| Bytes::copy_from_slice(value))
}

/// MODERN.md §7: `http` or `https`, `://`, a loopback name, an optional port
/// of 1–5 digits, and nothing more. Schemes and names match ASCII
/// case-insensitively.
pub(crate) fn is_loopback_origin(value: &[u8]) -> bool {
    let Some(rest) = strip_prefix_ignore_case(value, b"http")
        .map(|rest| strip_prefix_ignore_case(rest, b"s").unwrap_or(rest))
        .and_then(|rest| rest.strip_prefix(b"://"))
    else {
        return false;
    };
    let Some(port) = [&b"localhost"[..], b"127.0.0.1", b"[::1]"]
        .iter()
        .find_map(|name| strip_prefix_ignore_case(rest, name))
    else {
        return false;
    };
    match port {
        [] => true,
        [b':', digits @ ..] => {
            (1..=5).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

fn strip_prefix_ignore_case<'a>(value: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    let head = value.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &value[prefix.len()..])
}

/// Whether a `Host` value matches the allowlist: the whole value, or its host
/// part without the port.
fn host_allowed(hosts: &[String], value: &[u8]) -> bool {
    let value = trim_ows(value);
    let without_port = match value.iter().rposition(|&b| b == b':') {
        Some(colon) if !value[colon..].contains(&b']') => &value[..colon],
        _ => value,
    };
    hosts.iter().any(|host| {
        host.as_bytes().eq_ignore_ascii_case(value)
            || host.as_bytes().eq_ignore_ascii_case(without_port)
    })
}

/// Whether a configured origin can be echoed in a response header: not
/// empty, visible ASCII only (an origin has no spaces, controls or non-ASCII
/// bytes, and a header value must not).
fn is_echoable(origin: &str) -> bool {
    !origin.is_empty() && origin.bytes().all(|b| (0x21..=0x7E).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::is_loopback_origin;

    #[test]
    fn loopback_origins() {
        for yes in [
            "http://localhost",
            "https://localhost",
            "http://localhost:3000",
            "http://127.0.0.1:8080",
            "http://[::1]:1",
            "HTTP://LOCALHOST:65535",
            "https://[::1]",
            "http://localhost:99999",
        ] {
            assert!(is_loopback_origin(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "null",
            "http://",
            "http:/localhost",
            "ftp://localhost",
            "httpss://localhost",
            "http://localhost:",
            "http://localhost:123456",
            "http://localhost:12a",
            "http://localhost/",
            "http://localhost:3000/",
            "http://localhost.evil.com",
            "http://user@localhost",
            "http://127.0.0.1.evil",
            "http://[::1]x",
            "http://localhost :3000",
            " http://localhost",
        ] {
            assert!(!is_loopback_origin(no.as_bytes()), "{no}");
        }
    }
}
