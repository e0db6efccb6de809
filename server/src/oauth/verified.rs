//! The verified-token cache (AUTH.md §2): a JWT whose signature and claims
//! were checked is not checked again until it expires.
//!
//! Keyed by the token's full SHA-256 (the digest the static-token lookup
//! computes anyway, so a hit costs one more hash-map probe); an entry holds
//! the caller, the grant, `exp` and the id of the key that verified it. An
//! entry is never returned at or after its `exp`, and entries whose key left
//! the JWKS are dropped when the new set is installed. At most [`CAPACITY`]
//! entries: when full, expired entries go first, then arbitrary ones.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::jwks::KeySet;
use chopin_mcp::Granted;

/// The most tokens kept.
pub const CAPACITY: usize = 16_384;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub caller: Arc<str>,
    pub grant: Granted,
    /// Whole seconds since the epoch; the entry is gone from then on.
    pub exp: u64,
    pub key: [u8; 32],
}

#[derive(Default)]
pub struct Verified {
    entries: RwLock<HashMap<[u8; 32], Entry>>,
}

impl Verified {
    /// The entry of a token digest, unless it has expired by `now`.
    pub fn get(&self, digest: &[u8; 32], now: u64) -> Option<(Arc<str>, Granted, u64)> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let entry = entries.get(digest)?;
        (now < entry.exp).then(|| (entry.caller.clone(), entry.grant, entry.exp))
    }

    /// Keeps a verified token (not one that has already expired).
    pub fn insert(&self, digest: [u8; 32], entry: Entry, now: u64) {
        if entry.exp <= now {
            return;
        }
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CAPACITY && !entries.contains_key(&digest) {
            entries.retain(|_, entry| entry.exp > now);
            while entries.len() >= CAPACITY {
                let Some(victim) = entries.keys().next().copied() else {
                    break;
                };
                entries.remove(&victim);
            }
        }
        entries.insert(digest, entry);
    }

    /// Drops the entries whose key is not in `keys`.
    pub fn keep_keys_of(&self, keys: &KeySet) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.retain(|_, entry| keys.holds(&entry.key));
    }

    pub fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(exp: u64, key: u8) -> Entry {
        Entry {
            caller: "alice".into(),
            grant: Granted::ALL,
            exp,
            key: [key; 32],
        }
    }

    #[test]
    fn an_entry_never_outlives_exp() {
        let cache = Verified::default();
        cache.insert([1; 32], entry(100, 0), 50);
        assert!(cache.get(&[1; 32], 99).is_some());
        assert!(cache.get(&[1; 32], 100).is_none());
        cache.insert([2; 32], entry(100, 0), 100);
        assert!(
            cache.get(&[2; 32], 0).is_none(),
            "expired at insert: not kept"
        );
    }

    #[test]
    fn the_cache_is_bounded() {
        let cache = Verified::default();
        for i in 0..(CAPACITY as u32 + 10) {
            let mut digest = [0u8; 32];
            digest[..4].copy_from_slice(&i.to_be_bytes());
            cache.insert(digest, entry(1000, 0), 1);
        }
        assert_eq!(cache.len(), CAPACITY);
    }

    #[test]
    fn entries_whose_key_left_are_dropped() {
        let cache = Verified::default();
        cache.insert([1; 32], entry(100, 7), 0);
        cache.keep_keys_of(&KeySet::default());
        assert!(cache.get(&[1; 32], 0).is_none());
    }
}
