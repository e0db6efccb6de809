//! The reader's string ends against a byte-by-byte reading, on any UTF-8
//! text (run by the `message` target): from each of the text's first quotes,
//! `lex::string_end` (a block, two words or the text's last word) and
//! `lex::long_string_end` (blocks while none is special) end where the plain
//! reading ends, with the same escapes, or both refuse.

use crate::lex::{long_string_end, string_end};

/// How many of the text's quotes are tried: each reading may walk to the
/// end, so a bound keeps a run linear.
const QUOTES: usize = 32;

/// Checks both readings from each of the first [`QUOTES`] quotes of `text`.
pub(super) fn check(text: &str) {
    let bytes = text.as_bytes();
    let quotes = bytes.iter().enumerate().filter(|&(_, &byte)| byte == b'"');
    for (at, _) in quotes.take(QUOTES) {
        let expected = bytewise(bytes, at);
        assert_eq!(string_end(bytes, at), expected, "{text:?} {at}");
        assert_eq!(long_string_end(bytes, at), expected, "{text:?} {at}");
    }
}

/// The end of the string opening at `at`, read a byte at a time, as
/// `serde_json`'s grammar has it.
pub(crate) fn bytewise(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut at = at + 1;
    let mut escaped = false;
    loop {
        match *bytes.get(at)? {
            b'"' => return Some((at + 1, escaped)),
            b'\\' => {
                escaped = true;
                match *bytes.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                    b'u' if bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => at += 6,
                    _ => return None,
                }
            }
            byte if byte < 0x20 => return None,
            _ => at += 1,
        }
    }
}
