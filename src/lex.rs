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
///
/// Most strings of a message (its keys, a method, a tool's name) end within
/// the sixteen bytes after the quote without an escape: that is answered here,
/// in line, from the block's first special ([`first_special`]), or a word at
/// a time where fewer than sixteen bytes are left; anything else goes to
/// [`string_end_long`].
#[inline(always)]
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    string_end_from(bytes, at + 1)
}

/// [`string_end`] for a string that is often longer than sixteen bytes (an
/// argument's value: an id, a repository): sixteen bytes a step while none
/// of them is special ([`any_special`], a few vector operations), then as
/// [`string_end`] from the block that holds one. A long string costs a few
/// instructions a block instead of a call to [`string_end_long`].
#[inline(always)]
pub(crate) fn long_string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut start = at + 1;
    while let Some(block) = bytes.get(start..).and_then(<[u8]>::first_chunk::<16>) {
        if any_special(block) {
            break;
        }
        start += 16;
    }
    string_end_from(bytes, start)
}

/// [`string_end`] from `start`, inside the string with no escape before it:
/// one block of sixteen bytes, or two words where fewer are left, or the
/// text's last word ([`string_end_tail`]).
#[inline(always)]
fn string_end_from(bytes: &[u8], mut start: usize) -> Option<(usize, bool)> {
    if let Some(block) = bytes.get(start..).and_then(<[u8]>::first_chunk::<16>) {
        let first = first_special(block);
        if let Some(&byte) = block.get(first) {
            if byte == b'"' {
                return Some((start + first + 1, false));
            }
            return string_end_long(bytes, start + first);
        }
        // Longer than the block: the long way from its end.
        return string_end_long(bytes, start + 16);
    }
    for _ in 0..2 {
        let Some(word) = bytes.get(start..).and_then(<[u8]>::first_chunk::<8>) else {
            return string_end_tail(bytes, start);
        };
        let flags = special_flags(u64::from_le_bytes(*word));
        if flags != 0 {
            // The lowest flagged byte is exact.
            let first = (flags.trailing_zeros() / 8) as usize;
            if word[first] == b'"' {
                return Some((start + first + 1, false));
            }
            return string_end_long(bytes, start + first);
        }
        start += 8;
    }
    string_end_long(bytes, start)
}

/// [`string_end_from`] where fewer than eight bytes are left (the last
/// string of a message ends a few bytes before the text does): the text's
/// last eight bytes read as a word and shifted down to `start`. The zeros
/// shifted in count as control characters, so a flag past the text's end
/// means no closing quote.
#[inline(never)]
fn string_end_tail(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    // Nothing left: no closing quote.
    let left = bytes.len().checked_sub(start).filter(|&left| left > 0)?;
    let (Some(last), Some(gone @ 1..=7)) = (bytes.last_chunk::<8>(), 8usize.checked_sub(left))
    else {
        return string_end_long(bytes, start);
    };
    let word = u64::from_le_bytes(*last) >> (8 * gone);
    // A flag on a zero shifted in lies past the text's end.
    let first = start + (special_flags(word).trailing_zeros() / 8) as usize;
    match bytes.get(first)? {
        b'"' => Some((first + 1, false)),
        _ => string_end_long(bytes, first),
    }
}

/// [`string_end`] the long way, from `from` (inside the string, no escape
/// before it): specials found sixteen bytes at a time, escapes checked one
/// by one.
#[inline(never)]
fn string_end_long(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut at = from;
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

/// The first `"`, `\` or control character at or after `at`: sixteen bytes
/// a step while none holds one ([`holds_special`]), then eight (SWAR) to
/// find it, then byte by byte.
#[inline]
fn special(bytes: &[u8], mut at: usize) -> Option<usize> {
    while let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        if holds_special(block) {
            break;
        }
        at += 16;
    }
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let found = special_flags(u64::from_le_bytes(*word));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    rest.iter()
        .position(|&b| is_special(b))
        .map(|offset| at + offset)
}

/// Whether `byte` is one a JSON string must escape: `"`, `\` or a control
/// character.
#[inline]
pub(crate) fn is_special(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Whether any of the sixteen bytes of `block` [`is_special`]: written as a
/// fold without an early exit, which the compiler turns into a few vector
/// compares over the whole block (SSE2, part of every x86-64).
#[inline]
pub(crate) fn holds_special(block: &[u8; 16]) -> bool {
    block
        .iter()
        .fold(false, |seen, &byte| seen | is_special(byte))
}

/// [`holds_special`], for the reader's scans: a byte's least distance from
/// the specials (`byte - 0x1f` saturating, `byte ^ '"'`, `byte ^ '\\'`) is
/// zero exactly when it is special, so the block takes vector subtracts,
/// xors and minimums, then one compare with zero (fewer instructions than
/// three compares and their ors).
#[inline]
pub(crate) fn any_special(block: &[u8; 16]) -> bool {
    let distance = |byte: u8| byte.saturating_sub(0x1f).min(byte ^ b'"').min(byte ^ b'\\');
    block
        .iter()
        .fold(false, |seen, &byte| seen | (distance(byte) == 0))
}

/// Where the first special byte of `block` is (16: none), from the same
/// distances as [`any_special`]: each byte's flag a whole byte, the block read
/// as one number whose trailing zeros count the clean bytes.
#[inline(always)]
fn first_special(block: &[u8; 16]) -> usize {
    let distance = |byte: u8| byte.saturating_sub(0x1f).min(byte ^ b'"').min(byte ^ b'\\');
    // `map` stays a small call of its own, where the flags are found with
    // vector operations; written out or as a loop in line, they were found
    // byte by byte (read 4878 -> 5115 instructions).
    let flags = block.map(|byte| if distance(byte) == 0 { 0xff } else { 0 });
    (u128::from_le_bytes(flags).trailing_zeros() / 8) as usize
}

/// A high bit for each byte of `word` that [`is_special`] (the classic
/// has-zero-byte trick, applied three times). The lowest marked byte is
/// exact: a borrow may mark a clean byte above a marked one, never below.
#[inline]
pub(crate) fn special_flags(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero where a byte of `word` is below `n` (at most 0x80).
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS;
    below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
        | below(word, 0x20)
}

/// One bit for each byte of `block` that [`is_special`], the first byte's
/// lowest, so that a block's specials can all be handled from one mask.
///
/// The bytes' flags (0 or 1) are found as a fold (a few vector compares,
/// as in [`holds_special`]), then each word's eight gathered into its top
/// byte by one multiply: no two partial products meet. The flags pass
/// through [`std::hint::black_box`] (an identity): without it the compiler
/// sees through the multiply and gathers the bits with dozens of shuffles.
/// Out of line: in line, the compiler called out for the flags' `map`.
#[inline(never)]
pub(crate) fn special_mask(block: &[u8; 16]) -> u32 {
    let flags = std::hint::black_box(block.map(|byte| u8::from(is_special(byte))));
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let (low, high) = flags.split_at(8);
    let gather = |half: &[u8]| {
        let mut word = [0; 8];
        word.copy_from_slice(half);
        (u64::from_le_bytes(word).wrapping_mul(GATHER) >> 56) as u32
    };
    gather(low) | gather(high) << 8
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

#[cfg(test)]
mod tests {
    use super::*;

    // `string_end` the plain way: byte by byte (the `message` fuzz target's
    // reading).
    use crate::fuzz::message_strings::bytewise as naive;

    #[test]
    fn the_special_mask_marks_exactly_the_bytes_to_escape() {
        let naive = |block: &[u8; 16]| {
            (0..16).fold(0, |mask, at| mask | u32::from(is_special(block[at])) << at)
        };
        let first = |block: &[u8; 16]| (0..16).find(|&at| is_special(block[at])).unwrap_or(16);
        for at in 0..16 {
            for byte in 0..=255u8 {
                for background in [b'a', 0, b'"', 0xff, 0x1f, 0x20, b'\\' + 1] {
                    let mut block = [background; 16];
                    block[at] = byte;
                    assert_eq!(special_mask(&block), naive(&block), "{block:?}");
                    assert_eq!(holds_special(&block), naive(&block) != 0, "{block:?}");
                    assert_eq!(any_special(&block), naive(&block) != 0, "{block:?}");
                    assert_eq!(first_special(&block), first(&block), "{block:?}");
                }
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            let mut block = [0; 16];
            for byte in &mut block {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Mostly bytes near the specials' edges.
                *byte = [
                    0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x00, 0x80, 0xa2, 0xdc,
                ][(state % 12) as usize];
            }
            assert_eq!(special_mask(&block), naive(&block), "{block:?}");
            assert_eq!(any_special(&block), naive(&block) != 0, "{block:?}");
            assert_eq!(first_special(&block), first(&block), "{block:?}");
        }
    }

    #[test]
    fn strings_end_where_the_byte_by_byte_reading_says_at_every_length() {
        let specials: [&[u8]; 9] = [
            b"\"",
            b"\\n",
            b"\\u00e9",
            b"\x01",
            b"\\x",
            b"\xc3\xa9",
            b"\\u00",
            b"\x1f",
            b" \x7f",
        ];
        // What follows the string: nothing, a message's usual end, and
        // bytes a block read past the quote would see.
        let after: [&[u8]; 4] = [
            b"",
            b"}}}",
            b"\x01\\\"",
            b",\"id\":\"aaaaaaaaaaaaaaaaaaaa\"}",
        ];
        for len in 0..72 {
            for at in 0..=len {
                for special in specials {
                    let mut text = vec![b'"'];
                    text.extend(std::iter::repeat_n(b'a', at));
                    text.extend_from_slice(special);
                    text.extend(std::iter::repeat_n(b'b', len - at));
                    for tail in after {
                        let closed = [&text[..], b"\"", tail].concat();
                        for bytes in [&text[..], &closed[..]] {
                            let expected = naive(bytes, 0);
                            assert_eq!(string_end(bytes, 0), expected, "{len} {at} {special:?}");
                            assert_eq!(
                                long_string_end(bytes, 0),
                                expected,
                                "{len} {at} {special:?} {tail:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
