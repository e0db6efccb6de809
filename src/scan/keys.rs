//! The picked keys of the message's levels, recognised: written the usual
//! way, as words compared in place ([`known_key`]); otherwise, once the
//! key's string is read, by its unescaped bytes ([`plain_key`]).

use super::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};

/// A picked key written the usual way at `at`: its quotes and the colon
/// right after it, no escape, no whitespace (`"id":`). Which of the level's
/// keys it is, and where the colon ends; `None` for anything else, which
/// the caller reads the long way. The bytes are compared as words: fewer
/// steps than finding the string's end, then the key, then the colon.
#[inline(always)]
pub(super) fn known_key(level: usize, bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    /// `text`, padded with zeros to a word, as a little-endian number.
    const fn word(text: &[u8]) -> u64 {
        let mut padded = [0; 8];
        let mut i = 0;
        while i < text.len() {
            padded[i] = text[i];
            i += 1;
        }
        u64::from_le_bytes(padded)
    }
    /// The low `n` bytes of a word.
    const fn low(n: u32) -> u64 {
        (1 << (8 * n)) - 1
    }
    let rest = bytes.get(at..)?;
    let head = u64::from_le_bytes(*rest.first_chunk::<8>()?);
    // Whether the bytes after the word are `text`.
    let then = |text: &[u8]| rest.get(8..8 + text.len()) == Some(text);
    match level {
        1 => {
            if head & low(5) == word(b"\"id\":") {
                Some((1, at + 5))
            } else if head == word(b"\"method\"") && then(b":") {
                Some((2, at + 9))
            } else if head == word(b"\"params\"") && then(b":") {
                Some((3, at + 9))
            } else if head == word(b"\"jsonrpc") && then(b"\":") {
                Some((0, at + 10))
            } else {
                None
            }
        }
        2 => {
            if head & low(7) == word(b"\"name\":") {
                Some((1, at + 7))
            } else if head == word(b"\"argumen") && then(b"ts\":") {
                Some((2, at + 12))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Which of the keys of the picked level `level` the unescaped `key` is
/// (what `keys.iter().position` over [`ENVELOPE`], [`PARAMS`] or [`META`]
/// answers, as matches the compiler turns into length and word compares;
/// the `plain_keys_are_the_picked_keys` test keeps the two lists equal).
#[inline]
pub(super) fn plain_key(level: usize, key: &[u8]) -> Option<usize> {
    /// Whether `key` is exactly `known`: a compare of known length, a few
    /// word compares in line.
    fn is<const N: usize>(key: &[u8], known: &[u8; N]) -> bool {
        key.first_chunk::<N>() == Some(known)
    }
    match (level, key.len()) {
        (1, 7) => is(key, b"jsonrpc").then_some(0),
        (1, 2) => is(key, b"id").then_some(1),
        (1, 6) if key[0] == b'm' => is(key, b"method").then_some(2),
        (1, 6) => is(key, b"params").then_some(3),
        (2, 5) => is(key, b"_meta").then_some(0),
        (2, 4) => is(key, b"name").then_some(1),
        (2, 9) => is(key, b"arguments").then_some(2),
        (2, 3) => is(key, b"uri").then_some(3),
        (2, 6) => is(key, b"cursor").then_some(4),
        (2, 13) => is(key, b"notifications").then_some(5),
        (2, 15) => is(key, b"protocolVersion").then_some(6),
        (3, _) if key == PROTOCOL_VERSION.as_bytes() => Some(0),
        (3, _) if key == CLIENT_CAPABILITIES.as_bytes() => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{ENVELOPE, META, PARAMS};

    #[test]
    fn plain_keys_are_the_picked_keys() {
        for (depth, keys) in [(1, &ENVELOPE[..]), (2, &PARAMS[..]), (3, &META[..])] {
            for (index, key) in keys.iter().enumerate() {
                assert_eq!(plain_key(depth, key.as_bytes()), Some(index), "{key}");
            }
            assert_eq!(plain_key(depth, b"x"), None);
        }
    }

    #[test]
    fn known_keys_are_the_plain_keys_and_end_after_the_colon() {
        for (depth, keys) in [(1, &ENVELOPE[..]), (2, &PARAMS[..]), (3, &META[..])] {
            for key in keys.iter().chain(&["x", "ids", "nam", "argumentsx"]) {
                for after in ["", " ", "1", "\"", ":", "xxxxxxxxxxxxxxxx"] {
                    for colon in [":", " :", "", "\":"] {
                        let text = format!(" \"{key}\"{colon}{after}");
                        let found = known_key(depth, text.as_bytes(), 1);
                        let usual = text[1..].starts_with(&format!("\"{key}\":"));
                        let expected = usual
                            .then(|| plain_key(depth, key.as_bytes()))
                            .flatten()
                            .map(|index| (index, key.len() + 4));
                        // Never a different answer; none only off the usual way.
                        assert!(found.is_none() || found == expected, "{text:?}");
                    }
                }
            }
        }
        for (depth, key) in [(1, "id"), (1, "method"), (1, "params"), (1, "jsonrpc")]
            .into_iter()
            .chain([(2, "name"), (2, "arguments")])
        {
            let text = format!(" \"{key}\":1234567");
            let index = plain_key(depth, key.as_bytes());
            assert_eq!(
                known_key(depth, text.as_bytes(), 1),
                index.map(|index| (index, key.len() + 4)),
                "{text:?}"
            );
        }
    }
}
