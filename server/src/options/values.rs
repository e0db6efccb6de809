//! The checks of the flags' values, as clap's value parsers: each error is
//! the message a refused value gets, naming its flag (clap prints it after
//! `error: `; [`super::parse`] returns it as it is).

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use super::LogFormat;

/// The host of the default `--listen` address, which a bare port (of
/// `--listen` or `--metrics-listen`) binds: loopback only, unless an
/// address says otherwise.
pub const DEFAULT_HOST: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// `--listen` unless given (or `CHOPIN_MCP_LISTEN`).
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::V4(SocketAddrV4::new(DEFAULT_HOST, 8080));

/// `ADDR` of `--listen`: a socket address, or a bare port (`8080` or
/// `:8080`) on [`DEFAULT_HOST`].
pub fn listen(text: &str) -> Result<SocketAddr, String> {
    address("--listen", text, "127.0.0.1:8080")
}

/// `ADDR` of `--metrics-listen`: as for `--listen`; metrics are for the
/// local scraper unless an address says otherwise.
pub fn metrics_listen(text: &str) -> Result<SocketAddr, String> {
    address("--metrics-listen", text, "127.0.0.1:9090")
}

/// A socket address, or a bare port (`9090` or `:9090`), which binds
/// [`DEFAULT_HOST`].
fn address(flag: &str, text: &str, example: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.strip_prefix(':').unwrap_or(text).parse::<u16>() {
        return Ok(SocketAddr::from((DEFAULT_HOST, port)));
    }
    text.parse()
        .map_err(|_| format!("{flag}: {text:?} is not a port or an address like {example}"))
}

/// `--token TOKEN=CALLER`.
pub fn token(text: &str) -> Result<(String, String), String> {
    pair("--token", text)
}

/// `--grant CALLER=OWNER/REPO[,OWNER/REPO...]` or `CALLER=*`.
pub fn grant(text: &str) -> Result<(String, Vec<String>), String> {
    repositories("--grant", text)
}

/// `--grant-read CALLER=OWNER/REPO[,OWNER/REPO...]` or `CALLER=*`, checked
/// as `--grant` is.
pub fn grant_read(text: &str) -> Result<(String, Vec<String>), String> {
    repositories("--grant-read", text)
}

/// `CALLER=OWNER/REPO[,OWNER/REPO...]` or `CALLER=*`, for `flag`.
fn repositories(flag: &str, text: &str) -> Result<(String, Vec<String>), String> {
    let (caller, list) = pair(flag, text)?;
    let repositories: Vec<String> = list.split(',').map(str::to_owned).collect();
    if repositories.iter().any(|r| r != "*" && !is_repository(r)) {
        return Err(format!(
            "{flag}: {list:?} is not * or OWNER/REPO[,OWNER/REPO...]"
        ));
    }
    Ok((caller, repositories))
}

/// Splits `NAME=VALUE`, both non-empty.
fn pair(flag: &str, text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() && !value.is_empty() => {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!("{flag}: {text:?} is not of the form NAME=VALUE")),
    }
}

/// `owner/name`, loosely: the endpoint validates repositories exactly.
fn is_repository(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(owner, name)| !owner.is_empty() && !name.is_empty() && !name.contains('/'))
}

/// `--log-format text|json`.
pub fn log_format(text: &str) -> Result<LogFormat, String> {
    match text {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => Err(format!("--log-format: {other:?} is not text or json")),
    }
}

/// `--shutdown-timeout SECONDS`.
pub fn shutdown_timeout(text: &str) -> Result<Duration, String> {
    let seconds: u64 = text
        .parse()
        .map_err(|_| format!("--shutdown-timeout: {text:?} is not a number of seconds"))?;
    Ok(Duration::from_secs(seconds))
}

/// `--workers N`.
pub fn workers(text: &str) -> Result<usize, String> {
    let count = text
        .parse()
        .ok()
        .filter(|&n: &usize| (1..=1024).contains(&n));
    count.ok_or_else(|| format!("--workers: {text:?} is not a number from 1 to 1024"))
}

/// `--image-quota-mib MIB`: 0 (no upload_image) to 1048576 (1 TiB).
pub fn image_quota(text: &str) -> Result<u64, String> {
    let mib = text.parse().ok().filter(|&n: &u64| n <= 1 << 20);
    mib.ok_or_else(|| format!("--image-quota-mib: {text:?} is not a number from 0 to 1048576"))
}

/// `--db-pool-size N`.
pub fn pool_size(text: &str) -> Result<usize, String> {
    let size = text
        .parse()
        .ok()
        .filter(|&n: &usize| (1..=1000).contains(&n));
    size.ok_or_else(|| format!("--db-pool-size: {text:?} is not a number from 1 to 1000"))
}

/// `--db-statement-timeout SECONDS`.
pub fn statement_timeout(text: &str) -> Result<Duration, String> {
    let seconds = text.parse().ok().filter(|&n: &u64| n <= 86_400);
    seconds.map(Duration::from_secs).ok_or_else(|| {
        format!("--db-statement-timeout: {text:?} is not a number of seconds from 0 to 86400")
    })
}

/// `--public-url`: an absolute `http://` or `https://` URL with a host and
/// no query, fragment or whitespace, kept without its trailing `/`s.
pub fn public_url(text: &str) -> Result<String, String> {
    let refused = || {
        format!(
            "--public-url {text:?}: expected http(s)://HOST[:PORT][/PATH], \
             without a query or fragment"
        )
    };
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &text[8..]
    } else if lower.starts_with("http://") {
        &text[7..]
    } else {
        return Err(refused());
    };
    let host = rest.split('/').next().unwrap_or_default();
    let bad = host.is_empty()
        || text.contains(['?', '#'])
        || text.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(refused());
    }
    Ok(text.trim_end_matches('/').to_owned())
}
