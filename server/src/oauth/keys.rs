//! The issuer's JWKS, cached (AUTH.md §2, "Keys").
//!
//! - Requests read the current [`KeySet`] (an `Arc` behind a read lock): a
//!   token whose `kid` is known never waits for any fetch.
//! - An unknown `kid` starts a refetch unless one started less than
//!   [`REFETCH_EVERY`] before; the request then waits for it at most
//!   [`UNKNOWN_KID_WAIT`], and requests meeting a refetch under way wait for
//!   that one (within the same bound). Inside the window the token is refused.
//! - A refresh runs on its own every `cache-control: max-age` of the last
//!   answer, clamped to [`MIN_REFRESH`]–[`MAX_REFRESH`] ([`DEFAULT_REFRESH`]
//!   without one), and a minute after a failure.
//! - A failed fetch (AS gone, 5xx, invalid JSON, too large) keeps the keys
//!   cached: known keys keep validating while the AS is unreachable.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

use super::fetch::Outbound;
use super::jwks::KeySet;

/// At most one refetch for unknown `kid`s per this long.
pub const REFETCH_EVERY: Duration = Duration::from_secs(5);
/// The longest a request waits for a refetch its unknown `kid` needs.
pub const UNKNOWN_KID_WAIT: Duration = Duration::from_secs(2);
pub const MIN_REFRESH: Duration = Duration::from_secs(60);
pub const MAX_REFRESH: Duration = Duration::from_secs(24 * 3600);
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(600);

/// Called with each new key set once it is installed (the verified-token
/// cache drops entries whose key left).
pub type OnChange = Box<dyn Fn(&KeySet) + Send + Sync>;

pub struct Keys {
    uri: Url,
    outbound: Arc<Outbound>,
    current: RwLock<Arc<KeySet>>,
    fetching: Mutex<Fetching>,
    /// Bumped after every fetch, successful or not.
    done: tokio::sync::watch::Sender<u64>,
    on_change: OnChange,
}

#[derive(Default)]
struct Fetching {
    last_start: Option<Instant>,
    under_way: bool,
}

impl Keys {
    /// Fetches the JWKS once (failing the start if that fails) and starts
    /// the periodic refresh on the outbound runtime.
    pub async fn start(
        uri: Url,
        outbound: Arc<Outbound>,
        on_change: OnChange,
    ) -> Result<Arc<Keys>, String> {
        let fetched = outbound
            .get(&uri)
            .await
            .map_err(|e| format!("cannot read the JWKS at {uri}: {e}"))?;
        let set = KeySet::parse(&fetched.body).map_err(|e| format!("the JWKS at {uri}: {e}"))?;
        if set.keys.is_empty() {
            tracing::warn!(target: super::TARGET, "the JWKS at {uri} holds no usable signing key");
        }
        let keys = Arc::new(Keys {
            uri,
            outbound: Arc::clone(&outbound),
            current: RwLock::new(Arc::new(set)),
            fetching: Mutex::new(Fetching {
                last_start: Some(Instant::now()),
                under_way: false,
            }),
            done: tokio::sync::watch::channel(0).0,
            on_change,
        });
        let refresher = Arc::downgrade(&keys);
        let first = refresh_after(fetched.max_age);
        outbound.spawn(async move {
            let mut wait = first;
            loop {
                tokio::time::sleep(wait).await;
                let Some(keys) = refresher.upgrade() else {
                    return;
                };
                wait = match keys.fetch_now().await {
                    Ok(max_age) => refresh_after(max_age),
                    Err(()) => MIN_REFRESH,
                };
            }
        });
        Ok(keys)
    }

    /// The keys in force.
    pub fn current(&self) -> Arc<KeySet> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// For a token whose `kid` is unknown: a newer key set, if a refetch
    /// (started now, or already under way) delivers one within
    /// [`UNKNOWN_KID_WAIT`]; `None` inside the rate limit's window, after a
    /// failed refetch, or when the wait runs out (the refetch goes on).
    pub async fn refetch_for_unknown_kid(self: &Arc<Self>) -> Option<Arc<KeySet>> {
        let mut done = self.done.subscribe();
        let before = self.current();
        {
            let mut fetching = self.fetching.lock().unwrap_or_else(|e| e.into_inner());
            if !fetching.under_way {
                let recent = fetching
                    .last_start
                    .is_some_and(|start| start.elapsed() < REFETCH_EVERY);
                if recent {
                    return None;
                }
                fetching.under_way = true;
                fetching.last_start = Some(Instant::now());
                let keys = Arc::clone(self);
                self.outbound.spawn(async move {
                    let _ = keys.fetch(false).await;
                });
            }
        }
        let _ = tokio::time::timeout(UNKNOWN_KID_WAIT, done.changed()).await;
        let now = self.current();
        (!Arc::ptr_eq(&now, &before)).then_some(now)
    }

    /// A periodic refresh: skipped (reported as done) when a refetch is
    /// under way.
    async fn fetch_now(&self) -> Result<Option<Duration>, ()> {
        {
            let mut fetching = self.fetching.lock().unwrap_or_else(|e| e.into_inner());
            if fetching.under_way {
                return Ok(None);
            }
            fetching.under_way = true;
            fetching.last_start = Some(Instant::now());
        }
        self.fetch(true).await
    }

    /// Fetches and installs the JWKS; on failure keeps the keys (logged).
    async fn fetch(&self, periodic: bool) -> Result<Option<Duration>, ()> {
        let result = match self.outbound.get(&self.uri).await {
            Ok(fetched) => KeySet::parse(&fetched.body)
                .map(|set| (set, fetched.max_age))
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let outcome = match result {
            Ok((set, max_age)) => {
                let set = Arc::new(set);
                (self.on_change)(&set);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = set;
                Ok(max_age)
            }
            Err(error) => {
                let kind = if periodic { "refresh" } else { "refetch" };
                tracing::error!(
                    target: super::TARGET,
                    error = %error,
                    "JWKS {kind} from {} failed; the cached keys stay in use",
                    self.uri
                );
                Err(())
            }
        };
        self.fetching
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .under_way = false;
        self.done.send_modify(|generation| *generation += 1);
        outcome
    }
}

/// When to refresh next after an answer with this `max-age`.
pub fn refresh_after(max_age: Option<Duration>) -> Duration {
    max_age.map_or(DEFAULT_REFRESH, |age| age.clamp(MIN_REFRESH, MAX_REFRESH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refresh_honours_max_age_within_bounds() {
        assert_eq!(refresh_after(None), DEFAULT_REFRESH);
        assert_eq!(refresh_after(Some(Duration::ZERO)), MIN_REFRESH);
        assert_eq!(
            refresh_after(Some(Duration::from_secs(300))),
            Duration::from_secs(300)
        );
        assert_eq!(
            refresh_after(Some(Duration::from_secs(1 << 40))),
            MAX_REFRESH
        );
    }
}
