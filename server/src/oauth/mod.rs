//! OAuth 2.1 resource server (AUTH.md §2): tokens an authorization server
//! issued for this MCP endpoint, beside the static tokens.
//!
//! Which path a token takes: in the static table → that caller, every scope
//! (the host looks there first); else a JWT (three base64url segments) → the
//! verified-token cache, else [JWT validation](jwt) against the issuer's
//! [JWKS](keys); else [introspection](introspect) when enabled; else refused.
//! An OAuth caller whose name equals a static caller's is refused on every
//! request, cached tokens included, so an identity provider's user never
//! inherits a static token's grants.
//!
//! Where a request can wait on the authorization server, and for how long:
//! a token whose key is known never waits (cache hit: a hash-map probe;
//! miss: one signature check). An unknown `kid` waits for a JWKS refetch at
//! most [`keys::UNKNOWN_KID_WAIT`] (2 s), one refetch per
//! [`keys::REFETCH_EVERY`] (5 s) whatever the flood. An introspection waits
//! at most [`fetch::CALL_TIMEOUT`] (5 s) and there are at most
//! [`introspect::MAX_IN_FLIGHT`] (16) at a time, beyond which the answer is
//! 503 at once.
//!
//! Nothing here logs or returns a token or a secret: refusals are labels.

pub mod discovery;
pub mod fetch;
pub mod flags;
pub mod introspect;
pub mod jwks;
pub mod jwt;
pub mod keys;
pub mod scopes;
pub mod verified;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use chopin_mcp::{Granted, Scopes};
pub use flags::{Flags, Settings};

use fetch::Outbound;
use introspect::Introspection;
use jwt::Rules;
use keys::Keys;
use verified::Verified;

/// The target of token refusals and authorization-server errors.
pub const TARGET: &str = "chopin_mcp_server::auth";

/// How a token was judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A static token: every scope.
    Static(Arc<str>),
    /// A token from the authorization server.
    OAuth {
        caller: Arc<str>,
        grant: Granted,
        kind: Kind,
        /// When it expires (seconds since the epoch), if known.
        exp: Option<u64>,
    },
    /// Refused (401 `invalid_token`): the label says why.
    Refused(&'static str),
    /// Cannot be judged now (503).
    Unavailable(&'static str),
}

/// Which OAuth path accepted a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Jwt,
    Introspection,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Jwt => "jwt",
            Kind::Introspection => "introspection",
        }
    }
}

/// The resource server's state: the rules, the keys, the caches.
pub struct OAuth {
    rules: Rules,
    keys: Option<Arc<Keys>>,
    verified: Arc<Verified>,
    introspection: Option<Introspection>,
    /// Every caller a static token names.
    static_callers: HashSet<String>,
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

impl OAuth {
    /// Discovers the authorization server, fetches its JWKS and reads the
    /// client secret: any failure stops the start (the message says why).
    pub async fn start(
        settings: &Settings,
        scopes: Scopes,
        static_callers: HashSet<String>,
    ) -> Result<OAuth, String> {
        let outbound = Arc::new(Outbound::start()?);
        let metadata = discovery::discover(&outbound, &settings.issuer).await?;
        let verified = Arc::new(Verified::default());
        let keys = match metadata.jwks_uri {
            Some(uri) => {
                let cache = Arc::clone(&verified);
                let on_change = Box::new(move |set: &jwks::KeySet| cache.keep_keys_of(set));
                Some(Keys::start(uri, Arc::clone(&outbound), on_change).await?)
            }
            None if settings.introspect.is_some() => None,
            None => {
                return Err(format!(
                    "the metadata of issuer {} has no jwks_uri",
                    settings.issuer
                ));
            }
        };
        let introspection = match &settings.introspect {
            None => None,
            Some(introspect) => {
                let endpoint = metadata.introspection_endpoint.ok_or_else(|| {
                    format!(
                        "--oauth-introspect: the metadata of issuer {} has no introspection_endpoint",
                        settings.issuer
                    )
                })?;
                let secret = flags::read_secret(&introspect.secret_file)?;
                Some(Introspection::new(
                    endpoint,
                    introspect.client_id.clone(),
                    secret,
                    Arc::clone(&outbound),
                ))
            }
        };
        Ok(OAuth {
            rules: Rules {
                issuer: settings.issuer.clone(),
                audiences: settings.audiences(),
                caller_claim: settings.caller_claim.clone(),
                scopes,
            },
            keys,
            verified,
            introspection,
            static_callers,
        })
    }

    /// Judges a bearer token that is not a static one; `digest` is its
    /// SHA-256.
    pub async fn judge(&self, token: &str, digest: &[u8; 32]) -> Verdict {
        let now = now();
        if let Some((caller, grant, exp)) = self.verified.get(digest, now) {
            return self.accept(caller, grant, Kind::Jwt, Some(exp));
        }
        if jwt::looks_like_jwt(token) {
            return self.judge_jwt(token, digest, now).await;
        }
        let Some(introspection) = &self.introspection else {
            return refused("not_a_jwt");
        };
        match introspection.check(token, digest, &self.rules, now).await {
            introspect::Answer::Active { caller, grant, exp } => {
                self.accept(caller.into(), grant, Kind::Introspection, exp)
            }
            introspect::Answer::Refused(reason) => refused(reason),
            introspect::Answer::Unavailable(reason) => Verdict::Unavailable(reason),
        }
    }

    async fn judge_jwt(&self, token: &str, digest: &[u8; 32], now: u64) -> Verdict {
        let Some(keys) = &self.keys else {
            return refused("no_jwks");
        };
        let mut result = jwt::verify(token, &keys.current(), &self.rules, now);
        if result == Err(jwt::Failure::UnknownKid) {
            if let Some(newer) = keys.refetch_for_unknown_kid().await {
                result = jwt::verify(token, &newer, &self.rules, now);
            }
        }
        match result {
            Ok(verified) => {
                let caller: Arc<str> = verified.caller.into();
                self.verified.insert(
                    *digest,
                    verified::Entry {
                        caller: caller.clone(),
                        grant: verified.grant,
                        exp: verified.exp,
                        key: verified.key,
                    },
                    now,
                );
                // A key set installed meanwhile may no longer hold the key:
                // its sweep may have run before this insert.
                if !keys.current().holds(&verified.key) {
                    self.verified.keep_keys_of(&keys.current());
                }
                self.accept(caller, verified.grant, Kind::Jwt, Some(verified.exp))
            }
            Err(failure) => refused(failure.label()),
        }
    }

    /// Accepts a caller unless a static token names it too.
    fn accept(&self, caller: Arc<str>, grant: Granted, kind: Kind, exp: Option<u64>) -> Verdict {
        if self.static_callers.contains(&*caller) {
            tracing::warn!(
                target: TARGET,
                refusal = "static_caller_collision",
                caller = %caller,
                auth = kind.as_str(),
                "token refused: its caller is also a static token's caller"
            );
            return Verdict::Refused("static_caller_collision");
        }
        Verdict::OAuth {
            caller,
            grant,
            kind,
            exp,
        }
    }

    /// How many verified tokens are cached (for tests and benches).
    pub fn cached_tokens(&self) -> usize {
        self.verified.len()
    }
}

fn refused(reason: &'static str) -> Verdict {
    tracing::info!(target: TARGET, refusal = reason, "token refused");
    Verdict::Refused(reason)
}
