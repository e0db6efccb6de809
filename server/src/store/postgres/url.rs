//! The `--db` URL: `postgres://` or `postgresql://`, with libpq's TLS keys
//! read here ([`super::tls`]) and the others as tokio-postgres knows them.

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::Config;
use tokio_postgres::config::SslMode as DriverSslMode;

use super::tls::{self, SslMode, Tls};

/// The connect timeout when the URL gives none. A request's connection is
/// also bounded by its deadline (`--db-statement-timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A `postgres://` URL as this server reads it: the driver's configuration
/// (every key but the TLS ones) and what TLS is asked for.
#[derive(Debug, Clone)]
pub struct Target {
    pub config: Config,
    pub tls: Tls,
}

/// Parses a `postgres://` or `postgresql://` URL: libpq's TLS keys here
/// (see [`tls`]), the others as far as tokio-postgres knows them, refusing
/// what this server cannot honour. Reads no file (see [`Tls::client_config`]).
pub fn parse_url(url: &str) -> Result<Target, String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut kept = Vec::new();
    let mut tls_pairs = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key).map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
        if tls::KEYS.contains(&key.as_str()) {
            let value =
                percent_decode(value).map_err(|e| format!("not a PostgreSQL URL: {key}: {e}"))?;
            tls_pairs.push((key, value));
        } else {
            kept.push(pair);
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let mut config = Config::from_str(&rest).map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
    let tls = Tls::from_pairs(&tls_pairs)?;
    config.ssl_mode(match tls.mode {
        SslMode::Disable => DriverSslMode::Disable,
        SslMode::Prefer => DriverSslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverSslMode::Require,
    });
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("chopin-mcp-server");
    }
    Ok(Target { config, tls })
}

/// `%XX` escapes of a URL query, decoded; the result must be UTF-8.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = bytes
                .get(at + 1..at + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "a % not followed by two hex digits".to_owned())?;
            out.push(hex);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "not UTF-8 once decoded".to_owned())
}

/// Where a URL points, without its password: for messages.
pub(super) fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(host, port)| match host {
            tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
            tokio_postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
        })
        .collect();
    format!(
        "{}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or("(default database)")
    )
}
