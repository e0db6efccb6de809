//! The static token a connection's requests carry, judged once: [`Known`].
//!
//! A client sends the same bearer token with every request of a
//! connection. Judging it is a SHA-256 of the token and a lookup of the
//! digest (`Host::authenticate`); a static token (`--token`, or stored)
//! stands for the same caller for the life of the process (the server reads
//! them when it starts: AUTH.md, `docs/running.md`), so a connection keeps
//! the last one it accepted and its caller, and the same token again is that
//! caller. OAuth tokens are judged every time (they expire, and are
//! checked against their own cache).
//!
//! The kept caller is a copy of the connection's own: each request takes
//! references to it, which then touch no memory another worker writes.
//!
//! The comparison takes the same time wherever the tokens differ: a proxy may
//! carry several users' requests on one connection, and none may learn
//! another's token from how long a refusal takes.

use crate::host::Caller;

/// The static token last accepted on a connection, and its caller.
#[derive(Default)]
pub(super) struct Known(Option<(Box<[u8]>, Caller)>);

impl Known {
    /// The caller `token` stands for, if it is the token last accepted here.
    pub(super) fn caller(&self, token: Option<&str>) -> Option<&Caller> {
        let (known, caller) = self.0.as_ref()?;
        same(known, token?.as_bytes()).then_some(caller)
    }

    /// Keeps `token`, accepted as the static token of `caller`.
    pub(super) fn accepted(&mut self, token: &str, caller: &Caller) {
        let kept = self
            .0
            .as_ref()
            .is_some_and(|(known, _)| **known == *token.as_bytes());
        if !kept {
            // A caller of the connection's own: the requests count their
            // references to it on this worker's CPU, not on the cache line
            // of the one every connection shares.
            self.0 = Some((token.as_bytes().into(), Caller::from(&**caller)));
        }
    }
}

/// Whether `a` and `b` are the same bytes, in a time that depends on their
/// lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let differ = a.iter().zip(b).fold(0u8, |differ, (x, y)| differ | (x ^ y));
    std::hint::black_box(differ) == 0
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn only_the_token_last_accepted_is_known_and_a_new_one_replaces_it() {
        let mut known = Known::default();
        assert!(known.caller(Some("alpha-token")).is_none());
        let alice: Caller = Arc::from("alice");
        known.accepted("alpha-token", &alice);
        assert_eq!(
            known.caller(Some("alpha-token")).map(|c| &**c),
            Some("alice")
        );
        for other in [
            Some("alpha-tokeN"),
            Some("alpha-toke"),
            Some("alpha-token "),
            Some(""),
            None,
        ] {
            assert!(known.caller(other).is_none(), "{other:?}");
        }
        known.accepted("bravo-token", &Arc::from("bob"));
        assert!(known.caller(Some("alpha-token")).is_none());
        assert_eq!(known.caller(Some("bravo-token")).map(|c| &**c), Some("bob"));
    }
}
