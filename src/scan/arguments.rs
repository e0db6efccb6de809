//! `params.arguments`, read member by member when it is an object: each
//! member's key and value validated as [`Scanner::container`] would, and
//! recorded ([`Record`](crate::record::Record)) so that the tools read their arguments without
//! walking the text again.

use super::{Count, Scanner};
use crate::lex::{colon, long_string_end, skip_whitespace, string_end};

impl<C: Count> Scanner<'_, C> {
    /// Validates the object opening at `at`, recording its members in
    /// place of any recorded before; where it ends.
    #[inline(never)]
    pub(super) fn arguments(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let base = at;
        self.recorded_at = at;
        self.record.start();
        let mut at = skip_whitespace(bytes, at + 1);
        if bytes.get(at) == Some(&b'}') {
            return Some(at + 1);
        }
        loop {
            self.steps.add(1);
            // The usual keys, written the usual way, compared whole: `"id":`
            // (the one argument of most tools) and `"repository":` (a list's).
            let known = if bytes.get(at..at + 5) == Some(b"\"id\":") {
                Some(4)
            } else if bytes.get(at..at + 13) == Some(b"\"repository\":") {
                Some(12)
            } else {
                None
            };
            let (key_end, escaped, start) = if let Some(colon) = known {
                (at + colon, false, skip_whitespace(bytes, at + colon + 1))
            } else {
                if bytes.get(at) != Some(&b'"') {
                    return None;
                }
                let (key_end, escaped) = string_end(bytes, at)?;
                (key_end, escaped, colon(bytes, key_end)?)
            };
            let (end, plain) = if bytes.get(start) == Some(&b'"') {
                let (end, escaped) = long_string_end(bytes, start)?;
                (end, !escaped)
            } else {
                (self.value(start)?, false)
            };
            self.record
                .push(base, (at + 1, key_end - 1), (start, end), escaped, plain);
            at = skip_whitespace(bytes, end);
            match *bytes.get(at)? {
                b',' => at = skip_whitespace(bytes, at + 1),
                b'}' => return Some(at + 1),
                _ => return None,
            }
        }
    }
}
