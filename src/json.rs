//! Small, allocation-free readers for the shapes MCP uses, over JSON text
//! already validated (by the message reader, `crate::scan`, or `serde_json`):
//! objects with a few known members (read as raw, borrowed values), arrays,
//! and strings that borrow when they hold no escapes. None of them
//! validates again: each walks the text once, forward, and trusts its
//! grammar.
//!
//! Duplicate members follow JavaScript's `JSON.parse`: the last one wins.
//!
//! The writing side (escaping, [`WriteJson`]) is in [`mod@write`], re-exported
//! here.

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::lex::{colon, skip_whitespace, string_end};

/// The members of an object named by `keys`, each the raw text of its last
/// occurrence, and whether the object had any other member.
pub(crate) struct Members<'a, const N: usize> {
    pub values: [Option<Raw<'a>>; N],
    pub other: bool,
    /// Bit `i`: `values[i]` is known to be a string without escapes (the
    /// message reader found it so); clear when unknown.
    pub plain: u32,
}

impl<'a, const N: usize> Members<'a, N> {
    /// The string `values[index]` holds ([`string`]), straight from its
    /// text when it is known to have no escapes.
    pub(crate) fn string(&self, index: usize) -> Option<Cow<'a, str>> {
        let value = (*self.values.get(index)?)?;
        if index < 32 && self.plain & 1 << index != 0 {
            return Some(Cow::Borrowed(plain_contents(value)));
        }
        string(value)
    }
}

/// Reads `raw` as an object and picks out the members named by `keys`, as
/// `serde_json` reads it into a map of known keys: keys compared after
/// unescaping, the last occurrence winning. `None` when `raw` is not an
/// object, or when one of its keys holds a lone surrogate escape (no string
/// can hold it).
pub(crate) fn members<'a, const N: usize>(raw: Raw<'a>, keys: [&str; N]) -> Option<Members<'a, N>> {
    let text = raw.get();
    let bytes = text.as_bytes();
    let mut members = Members {
        values: [None; N],
        other: false,
        plain: 0,
    };
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut at = skip_whitespace(bytes, 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(members);
    }
    loop {
        let (end, escaped) = string_end(bytes, at)?;
        let key = text.get(at + 1..end - 1)?;
        let found = if escaped {
            find_key(key, &keys)?
        } else {
            keys.iter().position(|known| *known == key)
        };
        let start = colon(bytes, end)?;
        let stop = value_end(bytes, start)?;
        match found {
            Some(index) => *members.values.get_mut(index)? = Some(Raw(text.get(start..stop)?)),
            None => members.other = true,
        }
        at = skip_whitespace(bytes, stop);
        match bytes.get(at)? {
            b',' => at = skip_whitespace(bytes, at + 1),
            b'}' => return Some(members),
            _ => return None,
        }
    }
}

/// The elements of `raw`, when it is an array.
pub(crate) fn elements(raw: Raw<'_>) -> Option<impl Iterator<Item = Raw<'_>>> {
    let text = raw.get();
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let first = skip_whitespace(bytes, 1);
    let mut next = (bytes.get(first) != Some(&b']')).then_some(first);
    Some(std::iter::from_fn(move || {
        let start = next.take()?;
        let end = value_end(bytes, start)?;
        let after = skip_whitespace(bytes, end);
        next = (bytes.get(after) == Some(&b',')).then(|| skip_whitespace(bytes, after + 1));
        Some(Raw(text.get(start..end)?))
    }))
}

/// The end of the valid JSON value starting at `at`. Strings are skipped
/// whole (a bracket in one is no bracket); containers by counting brackets;
/// `true`, `false`, `null` and numbers run to the next structural byte or
/// whitespace.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => Some(string_end(bytes, at)?.0),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = string_end(bytes, at)?.0;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            let scalar = bytes
                .get(at..)?
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
            Some(scalar.map_or(bytes.len(), |length| at + length))
        }
    }
}

/// The text of one JSON value already validated (a [`RawValue`]'s, or a
/// member picked by the message reader, `crate::scan`), without surrounding
/// whitespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Raw<'a>(&'a str);

impl<'a> From<&'a RawValue> for Raw<'a> {
    fn from(raw: &'a RawValue) -> Raw<'a> {
        Raw(raw.get())
    }
}

impl<'a> Raw<'a> {
    /// The text of one value already known to be valid JSON, without
    /// surrounding whitespace.
    pub(crate) fn new(text: &'a str) -> Raw<'a> {
        Raw(text)
    }

    /// The value's JSON text.
    pub(crate) fn get(self) -> &'a str {
        self.0
    }
}

/// Which of `keys` the key text `escaped` (between its quotes) names:
/// `Some(None)` for none, `None` when it holds a lone surrogate escape.
pub(crate) fn find_key(escaped: &str, keys: &[&str]) -> Option<Option<usize>> {
    if !has_backslash(escaped.as_bytes()) {
        return Some(keys.iter().position(|key| *key == escaped));
    }
    // Validate once (a lone surrogate makes the whole object unreadable,
    // as for serde_json), then compare decoded characters.
    for c in Unescape::new(escaped) {
        c?;
    }
    let found = keys.iter().position(|key| {
        Unescape::new(escaped)
            .map(Option::unwrap_or_default)
            .eq(key.chars())
    });
    Some(found)
}

/// The characters of a JSON string's contents; `None` for a lone surrogate.
struct Unescape<'a> {
    rest: std::str::Chars<'a>,
}

impl<'a> Unescape<'a> {
    fn new(escaped: &'a str) -> Self {
        Unescape {
            rest: escaped.chars(),
        }
    }

    fn hex(&mut self) -> Option<u32> {
        let mut value = 0;
        for _ in 0..4 {
            value = value * 16 + self.rest.next()?.to_digit(16)?;
        }
        Some(value)
    }
}

impl Iterator for Unescape<'_> {
    type Item = Option<char>;

    fn next(&mut self) -> Option<Option<char>> {
        let c = self.rest.next()?;
        if c != '\\' {
            return Some(Some(c));
        }
        let decoded = match self.rest.next() {
            Some('b') => Some('\u{8}'),
            Some('f') => Some('\u{c}'),
            Some('n') => Some('\n'),
            Some('r') => Some('\r'),
            Some('t') => Some('\t'),
            Some('u') => match self.hex() {
                Some(high @ 0xd800..=0xdbff) => {
                    let low = (self.rest.next() == Some('\\') && self.rest.next() == Some('u'))
                        .then(|| self.hex())
                        .flatten()
                        .filter(|low| (0xdc00..=0xdfff).contains(low));
                    low.and_then(|low| {
                        char::from_u32(0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00))
                    })
                }
                Some(code) => char::from_u32(code),
                None => None,
            },
            other => other,
        };
        Some(decoded)
    }
}

/// The string `raw` holds, borrowed when it has no escapes; `None` when `raw`
/// is not a JSON string or holds an escape that is no Unicode scalar value
/// (a lone surrogate).
pub(crate) fn string<'a>(raw: impl Into<Raw<'a>>) -> Option<Cow<'a, str>> {
    let inner = raw.into().get().strip_prefix('"')?.strip_suffix('"')?;
    if !has_backslash(inner.as_bytes()) {
        return Some(Cow::Borrowed(inner));
    }
    unescape(inner).map(Cow::Owned)
}

/// Whether `bytes` holds a `\\`: sixteen bytes a step, as folds the
/// compiler turns into vector compares (names and ids are short: a call to
/// `memchr` cost more than the search).
#[inline]
fn has_backslash(bytes: &[u8]) -> bool {
    let holds = |bytes: &[u8]| {
        bytes
            .iter()
            .fold(false, |seen, &byte| seen | (byte == b'\\'))
    };
    let Some(last) = bytes.last_chunk::<16>() else {
        return holds(bytes);
    };
    // The last block overlaps the one before when the length is not a
    // multiple of sixteen.
    holds(last) || bytes.chunks_exact(16).any(holds)
}

/// The characters of a JSON string's contents `escaped`: runs without a
/// backslash copied whole, each escape decoded. `None` for a lone surrogate.
fn unescape(escaped: &str) -> Option<String> {
    let mut out = String::with_capacity(escaped.len());
    let mut rest = escaped;
    while let Some(at) = rest.as_bytes().iter().position(|&byte| byte == b'\\') {
        out.push_str(rest.get(..at)?);
        let mut escape = Unescape::new(rest.get(at..)?);
        out.push(escape.next()??);
        rest = escape.rest.as_str();
    }
    out.push_str(rest);
    Some(out)
}

/// The contents of `raw`, a string without escapes (the message reader
/// found it so), between its quotes.
#[inline]
pub(crate) fn plain_contents(raw: Raw<'_>) -> &str {
    // The quotes stripped as bytes compared: no char boundary to check.
    let text = raw.get();
    text.strip_prefix('"')
        .and_then(|text| text.strip_suffix('"'))
        .unwrap_or_default()
}

/// The string `raw` holds, for comparing against known names (methods, tool
/// names). A string holding a lone surrogate is still a string, as in
/// JavaScript, but equals no name: it reads as U+FFFD, which no name contains.
pub(crate) fn name<'a>(raw: impl Into<Raw<'a>>) -> Option<Cow<'a, str>> {
    let raw = raw.into();
    string(raw).or_else(|| {
        raw.get()
            .starts_with('"')
            .then_some(Cow::Borrowed("\u{fffd}"))
    })
}

/// Whether `raw` is a JSON object.
pub(crate) fn is_object<'a>(raw: impl Into<Raw<'a>>) -> bool {
    raw.into().get().starts_with('{')
}

mod write;

pub(crate) use write::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backslashes_are_found_wherever_they_fall() {
        for len in 0..40 {
            assert!(!has_backslash(&vec![b'a'; len]));
            for at in 0..len {
                let mut text = vec![b'a'; len];
                text[at] = b'\\';
                assert!(has_backslash(&text), "{len} {at}");
            }
        }
    }

    #[test]
    fn the_last_duplicate_member_wins_and_escaped_keys_match() {
        let members = members(Raw(r#"{"a":1,"\u0061":2,"b":3}"#), ["a"]).unwrap();
        assert_eq!(members.values[0].unwrap().get(), "2");
        assert!(members.other);
    }

    #[test]
    fn values_are_skipped_whole_however_deep_or_wide() {
        // A million open brackets: no recursion, so no stack to run out of.
        let depth = 1_000_000;
        let deep = format!(
            r#"{{"x":{}"}}]{{"{},"id":"a"}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let read = members(Raw(&deep), ["id"]).unwrap();
        assert_eq!(read.values[0].map(Raw::get), Some(r#""a""#));
        assert!(read.other);
        let wide = format!("[{}0]", "{},".repeat(100_000));
        assert_eq!(elements(Raw(&wide)).unwrap().count(), 100_001);
        let spaced = members(Raw(r#"{ "id" : [ 1 , "]" ] , "x" : -1.5e3 }"#), ["id", "x"]).unwrap();
        assert_eq!(
            spaced.values.map(|value| value.map(Raw::get)),
            [Some(r#"[ 1 , "]" ]"#), Some("-1.5e3")]
        );
    }

    #[test]
    fn strings_borrow_without_escapes_and_refuse_lone_surrogates() {
        let plain: &RawValue = serde_json::from_str(r#""abc""#).unwrap();
        assert!(matches!(string(plain), Some(Cow::Borrowed("abc"))));
        let escaped: &RawValue = serde_json::from_str(r#""a\nb""#).unwrap();
        assert_eq!(string(escaped).as_deref(), Some("a\nb"));
        let lone: &RawValue = serde_json::from_str(r#""\ud800""#).unwrap();
        assert_eq!(string(lone), None);
        let number: &RawValue = serde_json::from_str("1").unwrap();
        assert_eq!(string(number), None);
    }

    #[test]
    fn a_plain_strings_contents_are_what_string_reads() {
        for text in ["", "a", "é", "😀x", "abc def", "\u{7f}", &"q".repeat(40)] {
            let quoted = format!("\"{text}\"");
            assert_eq!(plain_contents(Raw(&quoted)), text);
            assert_eq!(string(Raw(&quoted)).as_deref(), Some(text));
        }
    }
}
