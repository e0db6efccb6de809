//! Opaque tokens, checked at the issuer's `introspection_endpoint` (RFC
//! 7662, `client_secret_basic`; AUTH.md §2, only with `--oauth-introspect`).
//!
//! - Accepted only when `active` is `true`, `aud` is present and names an
//!   accepted audience, `iss` (when present) is the issuer and `exp` (when
//!   present) is in the future; the caller from the caller claim.
//! - Answers are cached by the token's SHA-256: an active token at most
//!   [`POSITIVE_TTL`] and never past its `exp` (so a revocation takes effect
//!   within that), an inactive or refused one [`NEGATIVE_TTL`].
//! - At most [`MAX_IN_FLIGHT`] introspections at a time; beyond, and
//!   whenever the AS does not answer, answers 5xx or refuses the server's own
//!   credentials, the answer is "unavailable" (503), logged and not cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use url::Url;

use super::fetch::{FetchError, Outbound};
use super::jwt::{Rules, audience_matches};
use super::scopes;
use chopin_mcp::Granted;

pub const POSITIVE_TTL: Duration = Duration::from_secs(5);
pub const NEGATIVE_TTL: Duration = Duration::from_secs(5);
pub const MAX_IN_FLIGHT: usize = 16;
/// The most answers kept.
pub const CAPACITY: usize = 16_384;

/// What introspection says of a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Active {
        caller: String,
        grant: Granted,
        /// `exp`, when the AS said.
        exp: Option<u64>,
    },
    /// Refused: the label says why.
    Refused(&'static str),
    /// The token cannot be judged now (503).
    Unavailable(&'static str),
}

#[derive(Clone)]
struct Cached {
    answer: Answer,
    until: Instant,
}

pub struct Introspection {
    endpoint: Url,
    client_id: String,
    secret: String,
    outbound: Arc<Outbound>,
    cache: Mutex<HashMap<[u8; 32], Cached>>,
    permits: tokio::sync::Semaphore,
}

impl Introspection {
    pub fn new(endpoint: Url, client_id: String, secret: String, outbound: Arc<Outbound>) -> Self {
        Introspection {
            endpoint,
            client_id,
            secret,
            outbound,
            cache: Mutex::new(HashMap::new()),
            permits: tokio::sync::Semaphore::new(MAX_IN_FLIGHT),
        }
    }

    /// Judges an opaque token at `now` (seconds since the epoch).
    pub async fn check(&self, token: &str, digest: &[u8; 32], rules: &Rules, now: u64) -> Answer {
        if let Some(answer) = self.cached(digest, now) {
            return answer;
        }
        let Ok(_permit) = self.permits.try_acquire() else {
            tracing::warn!(
                target: super::TARGET,
                "{MAX_IN_FLIGHT} introspections already in flight: answering 503"
            );
            return Answer::Unavailable("introspection_busy");
        };
        let form: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let fetched = self
            .outbound
            .post_form(&self.endpoint, form, &self.client_id, &self.secret)
            .await;
        let answer = match fetched {
            Ok(fetched) => match serde_json::from_slice::<Value>(&fetched.body) {
                Ok(Value::Object(fields)) => judge(&fields, rules, now),
                _ => {
                    tracing::error!(
                        target: super::TARGET,
                        "the introspection answer of {} is not a JSON object",
                        self.endpoint
                    );
                    return Answer::Unavailable("introspection_failed");
                }
            },
            Err(error) => {
                let hint = match error {
                    FetchError::Status(400 | 401 | 403) => {
                        " (are --oauth-client-id and the secret file right?)"
                    }
                    _ => "",
                };
                tracing::error!(
                    target: super::TARGET,
                    error = %error,
                    "introspection at {} failed{hint}",
                    self.endpoint
                );
                return Answer::Unavailable("introspection_failed");
            }
        };
        self.remember(*digest, &answer, now);
        answer
    }

    fn cached(&self, digest: &[u8; 32], now: u64) -> Option<Answer> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let cached = cache.get(digest)?;
        if cached.until <= Instant::now() {
            return None;
        }
        match &cached.answer {
            Answer::Active { exp: Some(exp), .. } if *exp <= now => None,
            answer => Some(answer.clone()),
        }
    }

    fn remember(&self, digest: [u8; 32], answer: &Answer, now: u64) {
        let ttl = match answer {
            Answer::Active { exp, .. } => {
                let left = exp.map_or(POSITIVE_TTL, |exp| {
                    Duration::from_secs(exp.saturating_sub(now)).min(POSITIVE_TTL)
                });
                if left.is_zero() {
                    return;
                }
                left
            }
            Answer::Refused(_) => NEGATIVE_TTL,
            Answer::Unavailable(_) => return,
        };
        let at = Instant::now();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CAPACITY && !cache.contains_key(&digest) {
            cache.retain(|_, cached| cached.until > at);
            while cache.len() >= CAPACITY {
                let Some(victim) = cache.keys().next().copied() else {
                    break;
                };
                cache.remove(&victim);
            }
        }
        cache.insert(
            digest,
            Cached {
                answer: answer.clone(),
                until: at + ttl,
            },
        );
    }
}

/// An introspection answer's verdict.
pub fn judge(fields: &serde_json::Map<String, Value>, rules: &Rules, now: u64) -> Answer {
    if fields.get("active") != Some(&Value::Bool(true)) {
        return Answer::Refused("inactive");
    }
    let names_accepted = |aud: &str| {
        rules
            .audiences
            .iter()
            .any(|accepted| audience_matches(accepted, aud))
    };
    let audience_ok = match fields.get("aud") {
        Some(Value::String(aud)) => names_accepted(aud),
        Some(Value::Array(auds)) => auds.iter().filter_map(Value::as_str).any(names_accepted),
        _ => false,
    };
    if !audience_ok {
        return Answer::Refused("wrong_audience");
    }
    match fields.get("iss") {
        None => {}
        Some(Value::String(iss)) if *iss == rules.issuer => {}
        Some(_) => return Answer::Refused("wrong_issuer"),
    }
    let exp = match fields.get("exp") {
        None => None,
        Some(value) => match value.as_f64() {
            Some(exp) if exp > now as f64 => Some(exp as u64),
            _ => return Answer::Refused("expired"),
        },
    };
    let caller = match fields.get(&rules.caller_claim) {
        Some(Value::String(caller)) if !caller.is_empty() => caller.clone(),
        _ => return Answer::Refused("no_caller"),
    };
    let grant = scopes::granted(&rules.scopes, fields.get("scope"), fields.get("scp"));
    Answer::Active { caller, grant, exp }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules() -> Rules {
        Rules {
            issuer: "https://as.example".to_owned(),
            audiences: vec!["https://mcp.example/mcp".to_owned()],
            caller_claim: "sub".to_owned(),
            scopes: chopin_mcp::Endpoint::new(chopin_mcp::Config::new())
                .unwrap()
                .scopes()
                .clone(),
        }
    }

    fn judged(value: Value) -> Answer {
        judge(value.as_object().unwrap(), &rules(), 1000)
    }

    #[test]
    fn an_active_token_for_this_resource_is_accepted() {
        let answer = judged(json!({
            "active": true, "aud": ["x", "https://mcp.example/mcp"], "iss": "https://as.example",
            "exp": 2000, "sub": "alice", "scope": "chopin:read"
        }));
        assert_eq!(
            answer,
            Answer::Active {
                caller: "alice".to_owned(),
                grant: Granted::new(true, false, false),
                exp: Some(2000)
            }
        );
    }

    #[test]
    fn every_rule_refuses() {
        let ok = json!({"active": true, "aud": "https://mcp.example/mcp", "sub": "alice"});
        assert!(matches!(
            judged(ok.clone()),
            Answer::Active { exp: None, .. }
        ));
        let with = |key: &str, value: Value| {
            let mut v = ok.clone();
            v[key] = value;
            judged(v)
        };
        assert_eq!(with("active", json!(false)), Answer::Refused("inactive"));
        assert_eq!(with("active", json!("true")), Answer::Refused("inactive"));
        assert_eq!(
            with("aud", json!("https://other/mcp")),
            Answer::Refused("wrong_audience")
        );
        assert_eq!(
            with("iss", json!("https://evil")),
            Answer::Refused("wrong_issuer")
        );
        assert_eq!(with("exp", json!(1000)), Answer::Refused("expired"));
        assert_eq!(with("sub", json!("")), Answer::Refused("no_caller"));
        let mut no_aud = ok.clone();
        no_aud.as_object_mut().unwrap().remove("aud");
        assert_eq!(judged(no_aud), Answer::Refused("wrong_audience"));
    }
}
