//! JWT access tokens (RFC 9068) checked exactly as AUTH.md §2 says. The
//! signature is jsonwebtoken's (on ring); which key, and which claims, are
//! decided here.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::Value;

use super::jwks::{self, KeySet, NoKey};
use super::scopes;
use chopin_mcp::{Granted, Scopes};

/// The largest JWT looked at; a longer one is refused before any decoding.
pub const MAX_JWT: usize = 8 * 1024;
/// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
pub const LEEWAY: u64 = 60;

/// What a JWT must satisfy besides its signature.
#[derive(Debug, Clone)]
pub struct Rules {
    /// `iss`, byte for byte.
    pub issuer: String,
    /// Accepted `aud` values (see [`audience_matches`]).
    pub audiences: Vec<String>,
    /// The claim naming the caller (a non-empty string).
    pub caller_claim: String,
    /// The endpoint's scope names.
    pub scopes: Scopes,
}

/// Why a JWT was refused: a label for the log, never the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    TooLarge,
    Malformed,
    /// `none`, HMAC or an algorithm not served.
    Algorithm,
    /// A `typ` other than `at+jwt`, `application/at+jwt` or `JWT`.
    Type,
    UnknownKid,
    KeyMismatch,
    /// No `kid`, and not exactly one compatible key.
    AmbiguousKey,
    Signature,
    Issuer,
    Audience,
    Expired,
    NotYetValid,
    IssuedInFuture,
    /// The caller claim is missing, not a string, or empty.
    NoCaller,
}

impl Failure {
    pub fn label(self) -> &'static str {
        match self {
            Failure::TooLarge => "jwt_too_large",
            Failure::Malformed => "malformed",
            Failure::Algorithm => "algorithm_refused",
            Failure::Type => "wrong_type",
            Failure::UnknownKid => "unknown_kid",
            Failure::KeyMismatch => "key_mismatch",
            Failure::AmbiguousKey => "no_kid_ambiguous",
            Failure::Signature => "bad_signature",
            Failure::Issuer => "wrong_issuer",
            Failure::Audience => "wrong_audience",
            Failure::Expired => "expired",
            Failure::NotYetValid => "not_yet_valid",
            Failure::IssuedInFuture => "issued_in_future",
            Failure::NoCaller => "no_caller",
        }
    }
}

/// A verified token: who, which scopes, until when, with which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub caller: String,
    pub grant: Granted,
    /// `exp`, in whole seconds since the epoch.
    pub exp: u64,
    /// The id of the key that verified it ([`jwks::Key::id`]).
    pub key: [u8; 32],
}

/// Whether a token has the shape of a JWS compact serialization: three
/// base64url segments (the last may be empty, as with `alg: none`, which is
/// then refused as a JWT rather than introspected).
pub fn looks_like_jwt(token: &str) -> bool {
    let mut segments = 0;
    for (index, segment) in token.split('.').enumerate() {
        segments += 1;
        let base64url = segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !base64url || (segment.is_empty() && index < 2) {
            return false;
        }
    }
    segments == 3
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
    typ: Option<String>,
    // `jku`, `x5u`, `jwk` and `x5c` are not read: keys come from the
    // configured issuer's JWKS only.
}

/// Checks a JWT against `keys` at `now` (seconds since the epoch).
pub fn verify(token: &str, keys: &KeySet, rules: &Rules, now: u64) -> Result<Verified, Failure> {
    if token.len() > MAX_JWT {
        return Err(Failure::TooLarge);
    }
    let header = token.split('.').next().unwrap_or_default();
    let header = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| Failure::Malformed)?;
    let header: Header = serde_json::from_slice(&header).map_err(|_| Failure::Malformed)?;
    let alg = jwks::algorithm(&header.alg).ok_or(Failure::Algorithm)?;
    if let Some(typ) = &header.typ {
        let known = ["at+jwt", "application/at+jwt", "JWT"];
        if !known.iter().any(|known| typ.eq_ignore_ascii_case(known)) {
            return Err(Failure::Type);
        }
    }
    let key = keys
        .select(header.kid.as_deref(), alg)
        .map_err(|no| match no {
            NoKey::UnknownKid => Failure::UnknownKid,
            NoKey::Mismatch => Failure::KeyMismatch,
            NoKey::Ambiguous => Failure::AmbiguousKey,
        })?;
    let claims = signed_claims(token, &key.verifier, alg)?;
    let claims = claims.as_object().ok_or(Failure::Malformed)?;
    match claims.get("iss") {
        Some(Value::String(iss)) if *iss == rules.issuer => {}
        _ => return Err(Failure::Issuer),
    }
    if !audiences(claims.get("aud")).any(|aud| {
        rules
            .audiences
            .iter()
            .any(|accepted| audience_matches(accepted, aud))
    }) {
        return Err(Failure::Audience);
    }
    let exp = match claims.get("exp").and_then(Value::as_f64) {
        Some(exp) if exp.is_finite() && exp >= 0.0 => exp,
        Some(_) => return Err(Failure::Malformed),
        None => return Err(Failure::Expired),
    };
    if exp + LEEWAY as f64 <= now as f64 {
        return Err(Failure::Expired);
    }
    let not_after_now = |name: &str, failure: Failure| match claims.get(name) {
        None => Ok(()),
        Some(value) => match value.as_f64() {
            Some(at) if at <= (now + LEEWAY) as f64 => Ok(()),
            Some(_) => Err(failure),
            None => Err(Failure::Malformed),
        },
    };
    not_after_now("nbf", Failure::NotYetValid)?;
    not_after_now("iat", Failure::IssuedInFuture)?;
    let caller = match claims.get(&rules.caller_claim) {
        Some(Value::String(caller)) if !caller.is_empty() => caller.clone(),
        _ => return Err(Failure::NoCaller),
    };
    let grant = scopes::granted(&rules.scopes, claims.get("scope"), claims.get("scp"));
    Ok(Verified {
        caller,
        grant,
        exp: exp as u64,
        key: key.id,
    })
}

/// The claims, once the signature checked out: jsonwebtoken verifies the
/// signature with the chosen key and algorithm only; every claim rule is
/// ours (its own time, audience and issuer checks are off).
fn signed_claims(
    token: &str,
    key: &jsonwebtoken::DecodingKey,
    alg: Algorithm,
) -> Result<Value, Failure> {
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    match jsonwebtoken::decode::<Value>(token, key, &validation) {
        Ok(data) => Ok(data.claims),
        Err(error) => Err(match error.kind() {
            jsonwebtoken::errors::ErrorKind::InvalidSignature
            | jsonwebtoken::errors::ErrorKind::InvalidEcdsaKey
            | jsonwebtoken::errors::ErrorKind::InvalidRsaKey(_)
            | jsonwebtoken::errors::ErrorKind::InvalidKeyFormat
            | jsonwebtoken::errors::ErrorKind::Crypto(_) => Failure::Signature,
            jsonwebtoken::errors::ErrorKind::InvalidAlgorithm => Failure::Algorithm,
            _ => Failure::Malformed,
        }),
    }
}

/// The `aud` values: a string, or the strings of an array.
fn audiences(aud: Option<&Value>) -> impl Iterator<Item = &str> {
    let (one, many) = match aud {
        Some(Value::String(one)) => (Some(one.as_str()), None),
        Some(Value::Array(many)) => (None, Some(many.iter().filter_map(Value::as_str))),
        _ => (None, None),
    };
    one.into_iter().chain(many.into_iter().flatten())
}

/// Whether a token's audience names an accepted one: exact strings, except
/// that the scheme and host compare ASCII case-insensitively and a URL
/// without a path equals its form with `/` (AUTH.md §2).
pub fn audience_matches(accepted: &str, found: &str) -> bool {
    if accepted == found {
        return true;
    }
    match (url_parts(accepted), url_parts(found)) {
        (Some(a), Some(b)) => {
            a.0.eq_ignore_ascii_case(b.0) && a.1.eq_ignore_ascii_case(b.1) && a.2 == b.2
        }
        _ => false,
    }
}

/// `scheme`, authority and the rest (path onwards, `/` when empty) of a
/// `scheme://authority…` string.
fn url_parts(text: &str) -> Option<(&str, &str, std::borrow::Cow<'_, str>)> {
    let (scheme, rest) = text.split_once("://")?;
    if scheme.is_empty() {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    let rest = if rest.starts_with('/') {
        std::borrow::Cow::Borrowed(rest)
    } else {
        std::borrow::Cow::Owned(format!("/{rest}"))
    };
    Some((scheme, authority, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwt_shape() {
        assert!(looks_like_jwt("eyJh.eyJi.c2ln"));
        assert!(looks_like_jwt("eyJh.eyJi."));
        assert!(!looks_like_jwt("eyJh.eyJi"));
        assert!(!looks_like_jwt("eyJh.eyJi.c2ln.x"));
        assert!(!looks_like_jwt(".eyJi.c2ln"));
        assert!(!looks_like_jwt("ey+h.eyJi.c2ln"));
        assert!(!looks_like_jwt("0123456789abcdef"));
    }

    #[test]
    fn audiences_compare_scheme_and_host_case_insensitively() {
        let r = "https://mcp.example.com/mcp";
        assert!(audience_matches(r, r));
        assert!(audience_matches(r, "HTTPS://MCP.Example.com/mcp"));
        assert!(!audience_matches(r, "https://mcp.example.com/MCP"));
        assert!(!audience_matches(r, "https://mcp.example.com/mcp/"));
        assert!(!audience_matches(r, "https://mcp.example.com"));
        assert!(audience_matches(
            "https://mcp.example.com",
            "https://mcp.example.com/"
        ));
        assert!(audience_matches(
            "https://mcp.example.com/",
            "https://mcp.example.com"
        ));
        assert!(audience_matches("api://chopin", "api://chopin"));
        assert!(!audience_matches("chopin", "Chopin"));
        assert!(!audience_matches(
            "https://a.example/mcp",
            "https://b.example/mcp"
        ));
    }

    #[test]
    fn audience_values_are_a_string_or_an_array() {
        let one = serde_json::json!("a");
        assert_eq!(audiences(Some(&one)).collect::<Vec<_>>(), ["a"]);
        let many = serde_json::json!(["a", 1, "b"]);
        assert_eq!(audiences(Some(&many)).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(audiences(None).count(), 0);
    }
}
