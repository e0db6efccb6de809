//! The one source of time and entropy: minting ULIDs.
//!
//! The dialect never reads a clock or the operating system's randomness.
//! Every id that canonicalization mints (DIALECT.md §9.2) comes from the
//! [`IdSource`] its caller passes to [`check`](crate::check) (the MCP
//! endpoint passes the one on its configuration). [`SystemIds`] is the real
//! source; tests and fuzz targets use [`SequentialIds`], which is
//! deterministic.

use std::sync::atomic::{AtomicU64, Ordering};

use ulid::Ulid;

/// Mints the ids that canonicalization inserts into plans.
///
/// Each call returns an independent id (no monotonic counter is required). An
/// implementation must be cheap and must not block: it runs inside
/// [`check`](crate::check), and so inside an MCP endpoint's calls.
pub trait IdSource: Send + Sync {
    /// Returns a fresh id.
    fn mint(&self) -> Ulid;
}

/// Builds a ULID the way DIALECT.md §9.2 describes it: the first ten characters
/// encode `unix_ms` (truncated to 48 bits), and each of the last sixteen
/// characters is one `random` byte modulo 32 (unbiased, as 256 is a multiple
/// of 32).
pub fn ulid_from_parts(unix_ms: u64, random: [u8; 16]) -> Ulid {
    let tail = random
        .iter()
        .fold(0u128, |acc, byte| (acc << 5) | u128::from(byte % 32));
    Ulid::from_parts(unix_ms & ((1 << 48) - 1), tail)
}

/// The real id source: the system clock and the operating system's randomness.
///
/// This is the only place in the crate that reads either.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemIds;

impl IdSource for SystemIds {
    #[allow(clippy::disallowed_methods)] // the one sanctioned clock and entropy reader
    fn mint(&self) -> Ulid {
        Ulid::new()
    }
}

/// A deterministic id source for tests, fuzzing and benchmarks.
///
/// Every id carries the same fixed time, followed by an 80-bit counter that
/// starts at 0, so the n-th minted id is known in advance.
#[derive(Debug)]
pub struct SequentialIds {
    unix_ms: u64,
    next: AtomicU64,
}

impl SequentialIds {
    /// A source whose ids all carry `unix_ms` as their time part.
    pub fn new(unix_ms: u64) -> Self {
        SequentialIds {
            unix_ms,
            next: AtomicU64::new(0),
        }
    }

    /// How many ids this source has minted.
    pub fn minted(&self) -> u64 {
        self.next.load(Ordering::Relaxed)
    }
}

impl IdSource for SequentialIds {
    fn mint(&self) -> Ulid {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Ulid::from_parts(self.unix_ms & ((1 << 48) - 1), u128::from(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bytes_are_taken_modulo_32() {
        let id = ulid_from_parts(0, [31, 32, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255]);
        assert_eq!(id.to_string(), "0000000000Z01000000000000Z");
    }

    #[test]
    fn sequential_ids_count_up_from_zero() {
        let ids = SequentialIds::new(1_700_000_000_000);
        let first = ids.mint().to_string();
        let second = ids.mint().to_string();
        assert_eq!(&first[..10], &second[..10]);
        assert!(first.ends_with("0000000000000000"));
        assert!(second.ends_with("0000000000000001"));
        assert_eq!(ids.minted(), 2);
        assert!(first.as_bytes()[0] <= b'7');
    }
}
