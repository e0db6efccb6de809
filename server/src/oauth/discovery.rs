//! Authorization server metadata at start (AUTH.md §2): RFC 8414 first, then
//! OpenID Connect Discovery; the `issuer` must equal the configured one byte
//! for byte.

use serde::Deserialize;
use url::Url;

use super::fetch::{FetchError, Outbound, outbound_url};

/// What the server reads from the authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub jwks_uri: Option<Url>,
    pub introspection_endpoint: Option<Url>,
}

#[derive(Deserialize)]
struct Document {
    issuer: Option<serde_json::Value>,
    jwks_uri: Option<serde_json::Value>,
    introspection_endpoint: Option<serde_json::Value>,
}

/// The two metadata URLs of an issuer, in the order they are tried:
/// `/.well-known/oauth-authorization-server` inserted before the issuer's
/// path (RFC 8414 §3.1, a terminating `/` removed first), then
/// `/.well-known/openid-configuration` appended to it (OpenID Connect
/// Discovery §4).
pub fn metadata_urls(issuer: &Url) -> [Url; 2] {
    let path = issuer.path().trim_end_matches('/');
    let mut rfc8414 = issuer.clone();
    rfc8414.set_path(&format!("/.well-known/oauth-authorization-server{path}"));
    rfc8414.set_query(issuer.query());
    let mut oidc = issuer.clone();
    oidc.set_path(&format!("{path}/.well-known/openid-configuration"));
    [rfc8414, oidc]
}

/// Fetches the metadata of `issuer` (the configured text, compared byte for
/// byte with the document's `issuer`).
pub async fn discover(outbound: &Outbound, issuer: &str) -> Result<Metadata, String> {
    let url = outbound_url(issuer, "--oauth-issuer")?;
    if url.query().is_some() {
        return Err(format!("--oauth-issuer {issuer:?} must not have a query"));
    }
    let mut failures = Vec::new();
    for candidate in metadata_urls(&url) {
        match outbound.get(&candidate).await {
            Ok(fetched) => return read(issuer, &candidate, &fetched.body),
            // Not published there: try the next place.
            Err(error @ FetchError::Status(_)) => failures.push(format!("{candidate}: {error}")),
            Err(error) => {
                return Err(format!(
                    "cannot read the authorization server's metadata at {candidate}: {error}"
                ));
            }
        }
    }
    Err(format!(
        "no authorization server metadata for issuer {issuer}: {}",
        failures.join("; ")
    ))
}

/// Reads a metadata document found at `at`.
fn read(issuer: &str, at: &Url, body: &[u8]) -> Result<Metadata, String> {
    let document: Document = serde_json::from_slice(body)
        .map_err(|e| format!("the metadata at {at} is not a JSON object: {e}"))?;
    match document.issuer {
        Some(serde_json::Value::String(found)) if found == issuer => {}
        Some(serde_json::Value::String(found)) => {
            return Err(format!(
                "the metadata at {at} names issuer {found:?}, not {issuer:?} (they must be equal byte for byte)"
            ));
        }
        _ => return Err(format!("the metadata at {at} has no issuer")),
    }
    let url = |value: Option<serde_json::Value>, what: &str| match value {
        None => Ok(None),
        Some(serde_json::Value::String(text)) => outbound_url(&text, what).map(Some),
        Some(_) => Err(format!("the metadata's {what} is not a string")),
    };
    Ok(Metadata {
        jwks_uri: url(document.jwks_uri, "jwks_uri")?,
        introspection_endpoint: url(document.introspection_endpoint, "introspection_endpoint")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_follow_rfc_8414_then_oidc() {
        let urls = |issuer: &str| metadata_urls(&Url::parse(issuer).unwrap()).map(String::from);
        assert_eq!(
            urls("https://as.example"),
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://as.example/realms/chopin/"),
            [
                "https://as.example/.well-known/oauth-authorization-server/realms/chopin",
                "https://as.example/realms/chopin/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn the_issuer_must_match_byte_for_byte() {
        let at = Url::parse("https://as.example/.well-known/openid-configuration").unwrap();
        let doc = br#"{"issuer":"https://as.example/","jwks_uri":"https://as.example/jwks"}"#;
        assert!(read("https://as.example", &at, doc).is_err());
        let found = read("https://as.example/", &at, doc).unwrap();
        assert_eq!(found.jwks_uri.unwrap().as_str(), "https://as.example/jwks");
        let plain = br#"{"issuer":"https://as.example","jwks_uri":"http://as.example/jwks"}"#;
        assert!(read("https://as.example", &at, plain).is_err());
        assert!(read("https://as.example", &at, b"[]").is_err());
        assert!(read("https://as.example", &at, b"{}").is_err());
    }
}
