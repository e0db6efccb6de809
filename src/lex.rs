//! JSON's tokens, read from bytes: whitespace, the colon after a key, the
//! end of a string (checking its escapes as `serde_json` does) and of a
//! number. The message reader ([`scan`](crate::scan)) validates with them;
//! the readers of validated text ([`json`](crate::json)) skip with them.

/// After a key ending at `at`: whitespace, `:`, whitespace; the position of
/// the value.
#[inline]
pub(crate) fn colon(bytes: &[u8], at: usize) -> Option<usize> {
    let at = skip_whitespace(bytes, at);
    (bytes.get(at) == Some(&b':')).then(|| skip_whitespace(bytes, at + 1))
}

#[inline]
pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end (one past the closing quote) of the string opening at `at`, and
/// whether it holds an escape. `None` for a raw control character, an
/// escape `serde_json` refuses, or no closing quote.
#[inline]
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut at = at + 1;
    let mut escaped = false;
    loop {
        at = special(bytes, at)?;
        match bytes.get(at)? {
            b'"' => return Some((at + 1, escaped)),
            b'\\' => {
                escaped = true;
                at = match bytes.get(at + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at + 2,
                    // Any four hex digits: surrogates are the reader's
                    // business, not the grammar's.
                    b'u' if bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => at + 6,
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
}

/// The first `"`, `\` or control character at or after `at`: eight bytes a
/// step (SWAR), then byte by byte.
fn special(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero where a byte of `word` is below `n` (at most 0x80); the
    // lowest marked byte is exact (borrows only mark bytes above a marked
    // one).
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let found = below(word ^ (ONES * u64::from(b'"')), 1)
            | below(word ^ (ONES * u64::from(b'\\')), 1)
            | below(word, 0x20);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|offset| at + offset)
}

/// The end of the number starting at `at`: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`. A digit after a leading `0` is left for the caller,
/// which refuses it as it refuses anything else after a value.
pub(crate) fn number_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match bytes.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits(bytes, at + 1),
        _ => return None,
    }
    if bytes.get(at) == Some(&b'.') {
        let start = at + 1;
        at = digits(bytes, start);
        if at == start {
            return None;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let start = at;
        at = digits(bytes, start);
        if at == start {
            return None;
        }
    }
    Some(at)
}

fn digits(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}
