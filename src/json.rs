//! Small, allocation-light readers over `serde_json` for the shapes MCP uses:
//! objects with a few known members (read as raw, borrowed values), and
//! strings that borrow when they hold no escapes.
//!
//! Duplicate members follow JavaScript's `JSON.parse`: the last one wins.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The members of an object named by `keys`, each the raw text of its last
/// occurrence, and whether the object had any other member.
pub(crate) struct Members<'a, const N: usize> {
    pub values: [Option<&'a RawValue>; N],
    pub other: bool,
}

/// Reads `raw` as an object and picks out the members named by `keys`.
/// `None` when `raw` is not an object (or is not valid JSON).
pub(crate) fn members<'a, const N: usize>(raw: &'a str, keys: [&str; N]) -> Option<Members<'a, N>> {
    if !raw.trim_start().starts_with('{') {
        return None;
    }
    let mut deserializer = serde_json::Deserializer::from_str(raw);
    let members = MembersSeed { keys }.deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(members)
}

struct MembersSeed<'k, const N: usize> {
    keys: [&'k str; N],
}

impl<'de, const N: usize> DeserializeSeed<'de> for MembersSeed<'_, N> {
    type Value = Members<'de, N>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for MembersSeed<'_, N> {
    type Value = Members<'de, N>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Members {
            values: [None; N],
            other: false,
        };
        while let Some(slot) = map.next_key_seed(KeySeed { keys: &self.keys })? {
            match slot {
                Some(index) => members.values[index] = Some(map.next_value()?),
                None => {
                    members.other = true;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(members)
    }
}

/// Decodes an object key (escapes included) and finds it among `keys`.
struct KeySeed<'s, 'k> {
    keys: &'s [&'k str],
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.keys.iter().position(|known| *known == key))
    }
}

/// The members [`Raw::members`] picks, by key.
pub(crate) type Picked<'a, const N: usize> = [Option<Raw<'a>>; N];

/// The text of one JSON value that `serde_json` has already validated (a
/// [`RawValue`]'s, or a member of one read by [`Raw::members`]), without
/// surrounding whitespace. Reading inside it needs no second validation, so
/// it is scanned directly: no allocation, one forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Raw<'a>(&'a str);

impl<'a> From<&'a RawValue> for Raw<'a> {
    fn from(raw: &'a RawValue) -> Raw<'a> {
        Raw(raw.get())
    }
}

impl<'a> Raw<'a> {
    /// The value's JSON text.
    pub(crate) fn get(self) -> &'a str {
        self.0
    }

    /// The members of this object named by `keys`, each the text of its
    /// last occurrence, as [`members`] reads them (`None` when this is not
    /// an object or a key holds a lone surrogate escape, which `serde_json`
    /// refuses in a key), but without `serde_json`: skipping a nested value
    /// there takes a heap-allocated stack (its scratch buffer), here only a
    /// depth counter, since the text is already known to be valid.
    ///
    /// Linear in the text on any input, valid or not: the position only
    /// moves forward, and nothing recurses. On text that is not valid JSON
    /// (never passed, by construction) the answer is unspecified but
    /// nothing panics.
    pub(crate) fn members<const N: usize>(self, keys: [&str; N]) -> Option<[Option<Raw<'a>>; N]> {
        let bytes = self.0.as_bytes();
        scan_object(self.0, 0, keys, |_, at| value_end(bytes, at)).map(|(values, _)| values)
    }

    /// [`members`](Self::members), and the members named by `inner_keys` of
    /// the member `keys[nested]`, read in the same pass: what
    /// `values[nested].and_then(|v| v.members(inner_keys))` gives, without
    /// walking that member twice.
    pub(crate) fn members_nested<const N: usize, const M: usize>(
        self,
        keys: [&str; N],
        nested: usize,
        inner_keys: [&str; M],
    ) -> Option<(Picked<'a, N>, Option<Picked<'a, M>>)> {
        let text = self.0;
        let bytes = text.as_bytes();
        let mut inner = None;
        let (values, _) = scan_object(text, 0, keys, |slot, at| {
            if slot == Some(nested) {
                // The last occurrence wins, as for the member itself.
                inner = None;
                if bytes[at] == b'{' {
                    let plain = |_, at| value_end(bytes, at);
                    if let Some((values, end)) = scan_object(text, at, inner_keys, plain) {
                        inner = Some(values);
                        return Some(end);
                    }
                }
            }
            value_end(bytes, at)
        })?;
        Some((values, inner))
    }
}

/// Scans the object opening at `start` of `text` for the members named by
/// `keys` ([`Raw::members`]); `value_end(slot, at)` finds the end of the
/// value at `at` of a member, `slot` its index in `keys`. Returns the values
/// and the end of the object.
fn scan_object<'a, const N: usize>(
    text: &'a str,
    start: usize,
    keys: [&str; N],
    mut value_end: impl FnMut(Option<usize>, usize) -> Option<usize>,
) -> Option<([Option<Raw<'a>>; N], usize)> {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let mut values = [None; N];
    let mut at = start + 1;
    loop {
        at = skip_whitespace(bytes, at);
        match bytes.get(at)? {
            b'}' => return Some((values, at + 1)),
            b',' => {
                at += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = string_end(bytes, at)?;
        let key = text.get(at + 1..key_end - 1)?;
        let slot = find_key(key, &keys)?;
        at = skip_whitespace(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_whitespace(bytes, at + 1);
        let end = value_end(slot, at)?;
        if let Some(slot) = slot {
            values[slot] = Some(Raw(text.get(at..end)?));
        }
        at = end;
    }
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end (one past the closing quote) of the string opening at `at`.
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        at = quote_or_backslash(bytes, at)?;
        match bytes[at] {
            b'"' => return Some(at + 1),
            _ => at += 2,
        }
    }
}

/// The first `"` or `\` at or after `at`: eight bytes a step (SWAR), then
/// byte by byte.
fn quote_or_backslash(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero where a byte of `word` is zero; the lowest marked byte is
    // exact (borrows only mark bytes above a zero one).
    let zeros = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let found =
            zeros(word ^ (ONES * u64::from(b'"'))) | zeros(word ^ (ONES * u64::from(b'\\')));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|offset| at + offset)
}

/// The end of the value starting at `at`: a string, an object or array
/// (matched by depth alone: the text is valid), or a literal or number.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = string_end(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
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
            let mut end = at;
            while !matches!(
                bytes.get(end),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                end += 1;
            }
            Some(end)
        }
    }
}

/// Which of `keys` the key text `escaped` (between its quotes) names:
/// `Some(None)` for none, `None` when it holds a lone surrogate escape.
fn find_key(escaped: &str, keys: &[&str]) -> Option<Option<usize>> {
    if !escaped.contains('\\') {
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
    let text = raw.into().get();
    if !text.starts_with('"') {
        return None;
    }
    if !text.contains('\\') {
        return Some(Cow::Borrowed(&text[1..text.len() - 1]));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
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

/// Where a JSON text is written: as itself, or as the contents of a JSON
/// string (MCP's `content[0].text` carries the compact JSON of the result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// `{"a":"b"}`.
    Plain,
    /// `{\"a\":\"b\"}`: the same text, escaped once more.
    InString,
}

/// A value the tools write as JSON at either [`Level`] directly into the
/// reply, so that a result and its text copy need no scratch buffer.
pub(crate) trait WriteJson {
    fn write_json(&self, out: &mut Vec<u8>, level: Level);
}

/// Already-serialized compact JSON, written as it is or escaped once.
pub(crate) struct Compact(pub Vec<u8>);

impl WriteJson for Compact {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        match level {
            Level::Plain => out.extend_from_slice(&self.0),
            Level::InString => escape(out, &self.0, Level::Plain),
        }
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.as_str().write_json(out, level);
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        let quote: &[u8] = if level == Level::Plain {
            b"\""
        } else {
            b"\\\""
        };
        out.extend_from_slice(quote);
        escape(out, self.as_bytes(), level);
        out.extend_from_slice(quote);
    }
}

impl WriteJson for u64 {
    fn write_json(&self, out: &mut Vec<u8>, _: Level) {
        use std::io::Write;
        // Writing into a Vec cannot fail.
        let _ = write!(out, "{self}");
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        out.push(b'[');
        for (index, item) in self.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            item.write_json(out, level);
        }
        out.push(b']');
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        (**self).write_json(out, level);
    }
}

/// Writes an object of `members` (plain ASCII names, in order) at `level`.
pub(crate) fn object(out: &mut Vec<u8>, level: Level, members: &[(&str, &dyn WriteJson)]) {
    out.push(b'{');
    for (index, (name, value)) in members.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        key(out, name, level);
        value.write_json(out, level);
    }
    out.push(b'}');
}

/// Writes `"key":` at `level`; `name` is a plain ASCII name (no escapes).
pub(crate) fn key(out: &mut Vec<u8>, name: &str, level: Level) {
    let quote: &[u8] = if level == Level::Plain {
        b"\""
    } else {
        b"\\\""
    };
    out.extend_from_slice(quote);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(quote);
    out.push(b':');
}

/// Appends `text` as a JSON string, escaped as JavaScript's `JSON.stringify`
/// escapes it: `"` and `\`, the short escapes `\b \f \n \r \t`, other
/// control characters as lowercase `\u00xx`, everything else literal.
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    text.write_json(out, Level::Plain);
}

/// Appends the contents of a JSON string holding `bytes` (UTF-8), escaped
/// once (`Plain`) or twice (`InString`). Runs of plain bytes are copied whole.
fn escape(out: &mut Vec<u8>, bytes: &[u8], level: Level) {
    let mut start = 0;
    let mut index = 0;
    while index < bytes.len() {
        // Skip eight plain bytes at a time; most text has no escapes at all.
        if let Some(word) = bytes.get(index..index + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            if !word_needs_escape(word) {
                index += 8;
                continue;
            }
        }
        let byte = bytes[index];
        index += 1;
        if !needs_escape(byte) {
            continue;
        }
        out.extend_from_slice(&bytes[start..index - 1]);
        start = index;
        let (sequence, len) = escape_sequence(byte);
        match level {
            Level::Plain => out.extend_from_slice(&sequence[..len]),
            // The once-escaped sequence holds `\\` and maybe `"`: escape those.
            Level::InString => {
                for &b in &sequence[..len] {
                    if b == b'\\' || b == b'"' {
                        out.push(b'\\');
                    }
                    out.push(b);
                }
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Whether any of the eight bytes of `word` is a control character, `"` or
/// `\\` (the classic has-zero-byte bit trick, applied three times).
fn word_needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    below_space
        | has_zero(word ^ (ONES * u64::from(b'"')))
        | has_zero(word ^ (ONES * u64::from(b'\\')))
        != 0
}

fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

fn escape_sequence(byte: u8) -> ([u8; 6], usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        _ => None,
    };
    match short {
        Some(letter) => ([b'\\', letter, 0, 0, 0, 0], 2),
        None => (
            [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 15)],
            ],
            6,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_json_stringify_does_at_both_levels() {
        let text = "a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}/\u{2028}é😀";
        let mut plain = Vec::new();
        write_string(&mut plain, text);
        assert_eq!(plain, serde_json::to_vec(text).unwrap());
        assert_eq!(
            std::str::from_utf8(&plain).unwrap(),
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}/\u{2028}é😀\""
        );
        let mut nested = Vec::new();
        text.write_json(&mut nested, Level::InString);
        let wrapped = format!("\"{}\"", std::str::from_utf8(&nested).unwrap());
        let once: String = serde_json::from_str(&wrapped).unwrap();
        assert_eq!(once.as_bytes(), plain.as_slice());
    }

    #[test]
    fn escaping_agrees_with_serde_json_wherever_the_specials_fall() {
        let alphabet = [
            'a', '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', 'é', '😀', '\u{7f}',
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..48 {
            for _ in 0..20 {
                let text: String = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect();
                let mut out = Vec::new();
                write_string(&mut out, &text);
                assert_eq!(out, serde_json::to_vec(&text).unwrap(), "{text:?}");
            }
        }
    }

    #[test]
    fn the_last_duplicate_member_wins_and_escaped_keys_match() {
        let members = members(r#"{"a":1,"\u0061":2,"b":3}"#, ["a"]).unwrap();
        assert_eq!(members.values[0].unwrap().get(), "2");
        assert!(members.other);
    }

    /// The members read, owned.
    type Read<const N: usize> = Option<[Option<String>; N]>;

    /// Reads `text` both ways: with serde_json ([`members`]) and by
    /// scanning the validated value ([`Raw::members`]).
    fn both<const N: usize>(text: &str, keys: [&str; N]) -> (Read<N>, Read<N>) {
        let by_serde = members(text, keys).map(|m| m.values.map(|v| v.map(|v| v.get().to_owned())));
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let scanned = Raw::from(raw)
            .members(keys)
            .map(|values| values.map(|v| v.map(|v| v.get().to_owned())));
        (by_serde, scanned)
    }

    #[test]
    fn scanning_a_validated_object_agrees_with_serde_json() {
        let cases = [
            r#"{}"#,
            r#" { } "#,
            r#"[1]"#,
            r#""{}""#,
            r#"1"#,
            r#"null"#,
            r#"{"a":1,"b":{"a":[{"a":"}"}]},"c":"\"a\""}"#,
            r#"{ "a" : [ ] , "b" : -1.5e+3 , "c" : true }"#,
            "{\n\t\"c\"\r:\n{\"x\":{\"y\":{}}},\"a\":null}",
            r#"{"a":1,"\u0061":2,"b":3,"a\\":4}"#,
            r#"{"\ud83d\ude00":1,"a":"x"}"#,
            r#"{"\ud800":1,"a":2}"#,
            r#"{"\udc00":1,"a":2}"#,
            r#"{"\ud800\u0061":1,"a":2}"#,
            r#"{"\ud800\n":1}"#,
            r#"{"a":"\\","b":"\\\"}","c":[]}"#,
            r#"{"c":"\u00e9","\u00e9":5,"é":6}"#,
        ];
        for text in cases {
            assert_eq!(
                both(text, ["a", "b", "c", "é", "😀"]).0,
                both(text, ["a", "b", "c", "é", "😀"]).1,
                "{text}"
            );
        }
    }

    #[test]
    fn scanning_agrees_with_serde_json_on_generated_objects() {
        let keys = ["a", "_meta", "b\"", "é"];
        let key_forms = [
            r#""a""#,
            r#""\u0061""#,
            r#""_meta""#,
            r#""b\"""#,
            r#""b\u0022""#,
            r#""é""#,
            r#""\u00E9""#,
            r#""x""#,
            r#""\ud800""#,
            r#""a\/""#,
        ];
        let values = [
            "1",
            "-0.5E-2",
            "true",
            "null",
            r#""s""#,
            r#""}]\"{[""#,
            "{}",
            "[]",
            r#"{"a":{"b":[1,{"c":{}}]}}"#,
            r#"[[[["]"]]]]"#,
            r#"{"_meta":{"a":1}}"#,
        ];
        let spaces = ["", " ", "\n\t "];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..3000 {
            let count = next(5);
            let mut text = String::from(spaces[next(3)]);
            text.push('{');
            for index in 0..count {
                if index > 0 {
                    text.push(',');
                }
                text.push_str(spaces[next(3)]);
                text.push_str(key_forms[next(key_forms.len())]);
                text.push_str(spaces[next(3)]);
                text.push(':');
                text.push_str(spaces[next(3)]);
                text.push_str(values[next(values.len())]);
                text.push_str(spaces[next(3)]);
            }
            text.push('}');
            text.push_str(spaces[next(3)]);
            // RawValue trims nothing at the top level; values inside are trimmed.
            let trimmed = text.trim();
            let (by_serde, scanned) = both(trimmed, keys);
            assert_eq!(by_serde, scanned, "{trimmed}");
        }
    }

    #[test]
    fn scanning_is_iterative_on_deep_nesting_and_long_strings() {
        let depth = 1_000_000;
        let nested = format!("{}1{}", "[{\"x\":".repeat(depth), "}]".repeat(depth));
        let long = "\\\"".repeat(depth);
        let deep = format!(r#"{{"a":{nested}, "b":"{long}","c":1}}"#);
        // Not validated by serde_json (its recursion limit refuses it): the
        // scanner only needs the shape here, and must neither recurse nor
        // rescan.
        let [a, b, c] = Raw(&deep).members(["a", "b", "c"]).unwrap();
        assert_eq!(a.unwrap().get(), nested);
        assert_eq!(b.unwrap().get(), format!("\"{long}\""));
        assert_eq!(c.unwrap().get(), "1");
        let unclosed = "[".repeat(depth);
        assert_eq!(Raw(&format!("{{\"a\":{unclosed}")).members(["a"]), None);
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
    fn nested_members_agree_with_two_scans() {
        for text in [
            r#"{"_meta":{"v":"1","c":{}},"name":"x"}"#,
            r#"{"_meta":{"v":"1"},"_meta":{"c":[1,{"v":2}]}}"#,
            r#"{"_meta":{"v":"1"},"_meta":"no"}"#,
            r#"{"_meta":"no","_meta":{"v":"1"}}"#,
            r#"{"_meta":{"\ud800":1,"v":"2"},"name":"y"}"#,
            r#"{"_meta":{"\u0076":"esc"}, "name" : 3 }"#,
            r#"{"name":"z"}"#,
            r#"{}"#,
            r#"[1]"#,
        ] {
            let raw = Raw(text);
            let keys = ["_meta", "name"];
            let inner = ["v", "c"];
            let two = raw
                .members(keys)
                .map(|values| (values, values[0].and_then(|meta| meta.members(inner))));
            assert_eq!(raw.members_nested(keys, 0, inner), two, "{text}");
        }
    }
}
