//! Outbound HTTPS to the authorization server: discovery, the JWKS and
//! introspection (AUTH.md §2).
//!
//! Every call goes through [`Outbound`], which holds the rules for a hostile
//! or slow authorization server in one place:
//!
//! - only `https` URLs, or `http` on a loopback host ([`outbound_url`]);
//! - no redirect is followed (a 3xx is an error);
//! - a connect timeout and a total timeout on every call, body included;
//! - bodies are capped ([`MAX_BODY`]): a larger one is an error, read no
//!   further.
//!
//! The calls run on a runtime of their own (one thread, `oauth`): a JWKS
//! refresh or an introspection never runs on a worker thread, the connection
//! pool lives in one place whatever worker asks, and a request waiting on one
//! only awaits its result (the caller bounds that wait).

use std::net::IpAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use url::Url;

/// The largest body accepted from the authorization server.
pub const MAX_BODY: usize = 1 << 20;
/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one call may take in all (connect, head, body).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an outbound call failed. Its text names the URL (configuration, never
/// a token or a secret) and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// Could not connect, timed out, or the connection broke.
    Transport(String),
    /// A status other than 200 (redirects included).
    Status(u16),
    /// The body is larger than [`MAX_BODY`].
    TooLarge,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Transport(cause) => write!(f, "{cause}"),
            FetchError::Status(status) if (300..400).contains(status) => {
                write!(f, "answered {status} (redirects are not followed)")
            }
            FetchError::Status(status) => write!(f, "answered {status}"),
            FetchError::TooLarge => write!(f, "answered more than {MAX_BODY} bytes"),
        }
    }
}

/// A successful answer: its body and the `max-age` of its `cache-control`.
#[derive(Debug)]
pub struct Fetched {
    pub body: Bytes,
    pub max_age: Option<Duration>,
}

/// Checks an outbound URL (AUTH.md §2): `https`, or `http` on a loopback
/// host (`localhost`, 127.0.0.0/8, `[::1]`); no user info, no fragment.
pub fn outbound_url(text: &str, what: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("{what} {text:?} is not a URL: {e}"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => return Err(format!("{what} {text:?} has no host")),
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(format!(
                "{what} {text:?} must be https (plain http only on a loopback host)"
            ));
        }
        _ => return Err(format!("{what} {text:?} must be an https URL")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{what} must not carry user information"));
    }
    if url.fragment().is_some() {
        return Err(format!("{what} {text:?} must not have a fragment"));
    }
    Ok(url)
}

/// The HTTP client and the runtime its calls run on.
pub struct Outbound {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

impl Outbound {
    /// Starts the `oauth` thread and its runtime, and builds the client
    /// (rustls with the process's crypto provider, webpki roots).
    pub fn start() -> Result<Outbound, String> {
        let (sender, started) = std::sync::mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("oauth".to_owned())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match runtime {
                    Ok(runtime) => {
                        let _ = sender.send(Ok(runtime.handle().clone()));
                        // Serves spawned calls until the process ends.
                        runtime.block_on(std::future::pending::<()>());
                    }
                    Err(e) => drop(sender.send(Err(e.to_string()))),
                }
            })
            .map_err(|e| format!("cannot start the oauth thread: {e}"))?;
        let runtime = started
            .recv()
            .map_err(|_| "the oauth thread ended at start".to_owned())?
            .map_err(|e| format!("cannot start the oauth runtime: {e}"))?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(CALL_TIMEOUT)
            .user_agent(concat!("chopin-mcp-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the HTTPS client: {e}"))?;
        Ok(Outbound { client, runtime })
    }

    /// Runs a task on the outbound runtime (the JWKS refresh, a refetch).
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        drop(self.runtime.spawn(task));
    }

    /// `GET url` for JSON.
    pub async fn get(&self, url: &Url) -> Result<Fetched, FetchError> {
        let request = self
            .client
            .get(url.clone())
            .header(reqwest::header::ACCEPT, "application/json");
        self.run(request).await
    }

    /// `POST url` with a form body and HTTP Basic client authentication
    /// (`client_secret_basic`, RFC 6749 §2.3.1: both parts form-encoded).
    pub async fn post_form(
        &self,
        url: &Url,
        form: String,
        client_id: &str,
        secret: &str,
    ) -> Result<Fetched, FetchError> {
        let user: String = url::form_urlencoded::byte_serialize(client_id.as_bytes()).collect();
        let password: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        let request = self
            .client
            .post(url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .basic_auth(user, Some(password))
            .body(form);
        self.run(request).await
    }

    /// Sends on the `oauth` runtime and reads the capped body there; the
    /// awaiting task (on any runtime) only waits for the result.
    async fn run(&self, request: reqwest::RequestBuilder) -> Result<Fetched, FetchError> {
        let call = self.runtime.spawn(async move {
            let mut response = request
                .send()
                .await
                .map_err(|e| FetchError::Transport(transport(&e)))?;
            let status = response.status().as_u16();
            if status != 200 {
                return Err(FetchError::Status(status));
            }
            if response
                .content_length()
                .is_some_and(|length| length > MAX_BODY as u64)
            {
                return Err(FetchError::TooLarge);
            }
            let max_age = max_age(response.headers());
            let mut body = BytesMut::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| FetchError::Transport(transport(&e)))?
            {
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(FetchError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Fetched {
                body: body.freeze(),
                max_age,
            })
        });
        call.await
            .unwrap_or_else(|_| Err(FetchError::Transport("the call was dropped".to_owned())))
    }
}

/// A transport error's text with its causes (reqwest's own text is only
/// "error sending request for url (…)").
fn transport(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        format!("timed out ({error})")
    } else {
        error.to_string()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `cache-control: max-age=N` (ignoring `no-cache`/`no-store`, which ask for
/// the shortest refresh: `Some(0)`, clamped by the caller).
fn max_age(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let mut found = None;
    for value in headers.get_all(reqwest::header::CACHE_CONTROL) {
        let Ok(text) = value.to_str() else { continue };
        for directive in text.split(',') {
            let directive = directive.trim();
            let lower = directive.to_ascii_lowercase();
            if lower == "no-cache" || lower == "no-store" {
                return Some(Duration::ZERO);
            }
            if let Some(seconds) = lower.strip_prefix("max-age=") {
                if let Ok(seconds) = seconds.trim_matches('"').parse::<u64>() {
                    found = Some(Duration::from_secs(seconds));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outbound_urls_are_https_or_loopback_http() {
        assert!(outbound_url("https://as.example", "issuer").is_ok());
        assert!(outbound_url("https://as.example/tenant", "issuer").is_ok());
        assert!(outbound_url("http://127.0.0.1:9000", "issuer").is_ok());
        assert!(outbound_url("http://127.9.0.1:9000", "issuer").is_ok());
        assert!(outbound_url("http://localhost:9000/x", "issuer").is_ok());
        assert!(outbound_url("http://[::1]:9000", "issuer").is_ok());
        for bad in [
            "http://as.example",
            "http://10.0.0.1",
            "http://localhost.evil.example",
            "ftp://as.example",
            "https://user:pw@as.example",
            "https://as.example/#x",
            "as.example",
            "",
        ] {
            assert!(outbound_url(bad, "issuer").is_err(), "{bad}");
        }
    }

    #[test]
    fn max_age_is_read_from_cache_control() {
        let mut headers = reqwest::header::HeaderMap::new();
        assert_eq!(max_age(&headers), None);
        headers.insert(
            reqwest::header::CACHE_CONTROL,
            "public, max-age=120".parse().unwrap(),
        );
        assert_eq!(max_age(&headers), Some(Duration::from_secs(120)));
        headers.insert(reqwest::header::CACHE_CONTROL, "no-store".parse().unwrap());
        assert_eq!(max_age(&headers), Some(Duration::ZERO));
    }
}
