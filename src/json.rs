//! Small, allocation-free readers for the shapes MCP uses, over JSON text
//! already validated (by the message reader, `crate::scan`, or `serde_json`):
//! objects with a few known members (read as raw, borrowed values), arrays,
//! and strings that borrow when they hold no escapes. None of them
//! validates again: each walks the text once, forward, and trusts its
//! grammar.
//!
//! Duplicate members follow JavaScript's `JSON.parse`: the last one wins.

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::lex::{
    colon, holds_special, is_special, skip_whitespace, special_flags, special_mask, string_end,
};

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
pub(crate) fn plain_contents(raw: Raw<'_>) -> &str {
    let text = raw.get();
    text.get(1..text.len().saturating_sub(1))
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

/// Where a JSON text is written: as itself, or as the contents of a JSON
/// string (MCP's `content[0].text` carries the compact JSON of the result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// `{"a":"b"}`.
    Plain = 0,
    /// `{\"a\":\"b\"}`: the same text, escaped once more.
    InString = 1,
}

/// A value the tools write as JSON at either [`Level`] directly into the
/// reply, so that a result and its text copy need no scratch buffer.
pub(crate) trait WriteJson {
    fn write_json(&self, out: &mut Vec<u8>, level: Level);

    /// About the bytes [`write_json`](Self::write_json) writes at
    /// [`Level::InString`] (the longer level) when nothing in the value needs
    /// escaping: what a reply reserves once, so that a large result is not
    /// grown a doubling at a time. Not a bound.
    fn len_hint(&self) -> usize;

    /// Writes the value at [`Level::InString`], `between`, then the value
    /// at [`Level::Plain`]: a tool result's text and its
    /// `structuredContent`. A value may carry what the first write found
    /// into the second.
    fn write_twice(&self, out: &mut Vec<u8>, between: &Literal) {
        self.write_json(out, Level::InString);
        between.write(out, Level::Plain);
        self.write_json(out, Level::Plain);
    }
}

/// A fixed piece of JSON text (`","title":"`), at both levels, each padded
/// to [`Literal::ROOM`] bytes: written as one fixed-size store cut back to
/// its length, so that a piece costs no call and no loop. Built when the
/// crate compiles; a piece longer than the room does not compile.
pub(crate) struct Literal {
    bytes: [[u8; Literal::ROOM]; 2],
    len: [u8; 2],
}

impl Literal {
    /// The longest piece, at [`Level::InString`].
    const ROOM: usize = 32;

    /// The piece `text` (plain JSON syntax, no control characters), and the
    /// same escaped once more.
    pub(crate) const fn new(text: &str) -> Literal {
        let text = text.as_bytes();
        let mut literal = Literal {
            bytes: [[0; Literal::ROOM]; 2],
            len: [0; 2],
        };
        let mut at = 0;
        while at < text.len() {
            let byte = text[at];
            literal.bytes[0][literal.len[0] as usize] = byte;
            literal.len[0] += 1;
            if byte == b'"' || byte == b'\\' {
                literal.bytes[1][literal.len[1] as usize] = b'\\';
                literal.len[1] += 1;
            }
            literal.bytes[1][literal.len[1] as usize] = byte;
            literal.len[1] += 1;
            at += 1;
        }
        literal
    }

    /// Appends the piece at `level`.
    #[inline]
    pub(crate) fn write(&self, out: &mut Vec<u8>, level: Level) {
        let index = level as usize;
        let kept = out.len() + usize::from(self.len[index]);
        out.extend_from_slice(&self.bytes[index]);
        out.truncate(kept);
    }
}

/// Appends the contents of a JSON string holding `text`, without its
/// quotes, at `level` (a [`Literal`] writes the quotes with what is around
/// them); whether `text` held nothing to escape, so that it was written as
/// it is (at either level).
#[inline]
pub(crate) fn write_contents(out: &mut Vec<u8>, text: &str, level: Level) -> bool {
    escape(out, text.as_bytes(), level)
}

/// Already-serialized compact JSON, written as it is or escaped once.
pub(crate) struct Compact(pub Vec<u8>);

impl WriteJson for Compact {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        match level {
            Level::Plain => out.extend_from_slice(&self.0),
            Level::InString => {
                escape(out, &self.0, Level::Plain);
            }
        }
    }

    fn len_hint(&self) -> usize {
        // Once escaped, each quote takes two bytes: about one byte in eight.
        self.0.len() + self.0.len() / 8
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.as_str().write_json(out, level);
    }

    fn len_hint(&self) -> usize {
        self.as_str().len_hint()
    }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        quote(out, level);
        escape(out, self.as_bytes(), level);
        quote(out, level);
    }

    fn len_hint(&self) -> usize {
        // Two escaped quotes, and the escapes of prose guessed generously,
        // one byte in four: a newline a line and a quote now and then, each
        // up to three bytes once escaped inside a string (the dialect's
        // fixtures take 1.08× their length plain, 1.19× in a string).
        // Reserving a little too much costs less than one more doubling.
        self.len() + self.len() / 4 + 4
    }
}

impl WriteJson for u64 {
    fn write_json(&self, out: &mut Vec<u8>, _: Level) {
        // Not `write!`: a revision is written on every read, and the
        // formatter took 4 % of a read's cycle.
        decimal(out, *self);
    }

    fn len_hint(&self) -> usize {
        20
    }
}

/// Appends `n` in decimal, without allocating: the digits from the last,
/// into room for `u64::MAX`'s twenty.
#[inline]
pub(crate) fn decimal(out: &mut Vec<u8>, n: u64) {
    // Most revisions and ids are one digit: written in line.
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    digits(out, n);
}

/// [`decimal`] of a number of two digits or more.
#[inline(never)]
fn digits(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
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

    fn len_hint(&self) -> usize {
        2 + self.iter().map(|item| item.len_hint() + 1).sum::<usize>()
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.as_slice().write_json(out, level);
    }

    fn len_hint(&self) -> usize {
        self.as_slice().len_hint()
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        (**self).write_json(out, level);
    }

    fn write_twice(&self, out: &mut Vec<u8>, between: &Literal) {
        (**self).write_twice(out, between);
    }

    fn len_hint(&self) -> usize {
        (**self).len_hint()
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

/// [`WriteJson::len_hint`] of the object [`object`] writes for `members`.
pub(crate) fn object_len_hint(members: &[(&str, &dyn WriteJson)]) -> usize {
    let member = |(name, value): &(&str, &dyn WriteJson)| name.len() + 6 + value.len_hint();
    2 + members.iter().map(member).sum::<usize>()
}

/// Writes `"key":` at `level`; `name` is a plain ASCII name (no escapes).
pub(crate) fn key(out: &mut Vec<u8>, name: &str, level: Level) {
    quote(out, level);
    out.extend_from_slice(name.as_bytes());
    quote(out, level);
    out.push(b':');
}

/// Writes a string's quote at `level`. Each arm's length is known when it
/// compiles, so it is stored in place; a quote chosen as a slice at run
/// time was a call to `memcpy`, two a string and two a key.
#[inline]
fn quote(out: &mut Vec<u8>, level: Level) {
    match level {
        Level::Plain => out.push(b'"'),
        Level::InString => out.extend_from_slice(b"\\\""),
    }
}

/// Appends `text` as a JSON string, escaped as JavaScript's `JSON.stringify`
/// escapes it: `"` and `\`, the short escapes `\b \f \n \r \t`, other
/// control characters as lowercase `\u00xx`, everything else literal.
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    text.write_json(out, Level::Plain);
}

/// Appends the contents of a JSON string holding `bytes` (UTF-8), escaped
/// once (`Plain`) or twice (`InString`).
///
/// Sixteen bytes a step while a block holds nothing to escape
/// ([`holds_special`]): the block is stored whole, one fixed-size store and
/// no call. A block that holds something is escaped whole from the mask of
/// its specials ([`escape_block`]). The last bytes are stored with the
/// block that ends the text (the bytes it shares with the block before
/// skipped). Returns whether nothing needed escaping.
fn escape(out: &mut Vec<u8>, bytes: &[u8], level: Level) -> bool {
    let table = &SEQUENCES[level as usize];
    let mut at = 0;
    let mut plain = true;
    while let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        if holds_special(block) {
            escape_block(out, block, special_mask(block), 0, table);
            plain = false;
        } else {
            out.extend_from_slice(block);
        }
        at += 16;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    if rest.is_empty() {
        return plain;
    }
    if let Some(last) = bytes.last_chunk::<16>() {
        // Its first `from` bytes were written with the blocks before.
        let from = 16 - rest.len();
        if holds_special(last) {
            let mask = special_mask(last) >> from << from;
            escape_block(out, last, mask, from, table);
            return plain && mask == 0;
        }
        // Those bytes are clean, so the reply ends with them as they
        // are: cut back over them and store the block whole.
        out.truncate(out.len() - from);
        out.extend_from_slice(last);
        return plain;
    }
    // Fewer than sixteen bytes: runs between the bytes to escape copied
    // whole (a byte pushed at a time keeps the vector's length in memory
    // from one byte to the next).
    let mut rest = rest;
    while let Some(special) = rest.iter().position(|&byte| is_special(byte)) {
        out.extend_from_slice(&rest[..special]);
        push_sequence(out, table, rest[special]);
        rest = &rest[special + 1..];
        plain = false;
    }
    out.extend_from_slice(rest);
    plain
}

/// Escapes `block` from its byte `from` on, `mask` marking its specials
/// ([`special_mask`]) at or after `from`. Written first into a buffer on
/// the stack, which the compiler knows nothing else writes (a store into
/// the vector makes it read the vector's length and capacity again): each
/// clean run stored as sixteen bytes from a padded copy of the block, each
/// escape sequence as its padded word, each cut back by moving the end.
/// The buffer goes into the reply in stores of 32 bytes, the vector cut
/// back after the last.
#[inline]
fn escape_block(
    out: &mut Vec<u8>,
    block: &[u8; 16],
    mut mask: u32,
    mut from: usize,
    table: &[Sequence; ESCAPED],
) {
    let mut padded = [0; 32];
    padded[..16].copy_from_slice(block);
    // Sixteen sequences of up to seven bytes, and a run's store past them.
    let mut buffer = [0; 128];
    let mut end = 0;
    while let Some(run) = padded.get(from..).and_then(<[u8]>::first_chunk::<16>) {
        let Some(to) = buffer
            .get_mut(end..)
            .and_then(<[u8]>::first_chunk_mut::<16>)
        else {
            break;
        };
        *to = *run;
        if mask == 0 {
            end += 16 - from;
            break;
        }
        let special = mask.trailing_zeros() as usize;
        end += special - from;
        let sequence = &table[sequence_index(block[special & 15])];
        let Some(to) = buffer.get_mut(end..).and_then(<[u8]>::first_chunk_mut::<8>) else {
            break;
        };
        *to = sequence.bytes;
        end += usize::from(sequence.len);
        from = special + 1;
        mask &= mask - 1;
    }
    // Most blocks hold one or two specials: 32 bytes or fewer.
    let kept = out.len() + end;
    let (first, more) = buffer.split_at(32);
    out.extend_from_slice(first);
    if end > 32 {
        out.extend_from_slice(more);
    }
    out.truncate(kept);
}

/// Appends the escape sequence of `byte` (one that needs escaping) from
/// `table`: stored as its whole padded word, then cut to its length.
#[inline]
fn push_sequence(out: &mut Vec<u8>, table: &[Sequence; ESCAPED], byte: u8) {
    let sequence = &table[sequence_index(byte)];
    let kept = out.len() + usize::from(sequence.len);
    out.extend_from_slice(&sequence.bytes);
    out.truncate(kept);
}

/// The size of a table of [`SEQUENCES`]: indexed by the byte's low seven
/// bits (every byte to escape is below 0x80), so that a lookup takes no
/// branch; the entries of bytes that need no escape are empty.
const ESCAPED: usize = 128;

/// One escape sequence, padded to a word.
#[derive(Clone, Copy)]
struct Sequence {
    bytes: [u8; 8],
    len: u8,
}

/// The escape sequences of every byte that needs one, at each level (0:
/// `Plain`, 1: `InString`), worked out when the crate compiles.
static SEQUENCES: [[Sequence; ESCAPED]; 2] = sequences();

/// Where `byte` (one that needs escaping) is in a table of [`SEQUENCES`].
#[inline]
fn sequence_index(byte: u8) -> usize {
    usize::from(byte & 0x7f)
}

const fn sequences() -> [[Sequence; ESCAPED]; 2] {
    let empty = Sequence {
        bytes: [0; 8],
        len: 0,
    };
    let mut tables = [[empty; ESCAPED]; 2];
    let mut index = 0;
    while index < ESCAPED {
        let byte = index as u8;
        if !(byte < 0x20 || byte == b'"' || byte == b'\\') {
            index += 1;
            continue;
        }
        let (once, len) = escape_sequence(byte);
        let mut plain = empty;
        let mut nested = empty;
        let mut at = 0;
        while at < len {
            plain.bytes[at] = once[at];
            // The once-escaped sequence holds `\\` and maybe `"`: escape those.
            if once[at] == b'\\' || once[at] == b'"' {
                nested.bytes[nested.len as usize] = b'\\';
                nested.len += 1;
            }
            nested.bytes[nested.len as usize] = once[at];
            nested.len += 1;
            at += 1;
        }
        plain.len = len as u8;
        tables[0][index] = plain;
        tables[1][index] = nested;
        index += 1;
    }
    tables
}

/// Whether no byte of `bytes` needs escaping in a JSON string: sixteen
/// bytes at a time ([`holds_special`]) when there are that many, else eight
/// (SWAR), else one by one; the last block or word overlaps the one before
/// when the length is not a multiple of its size. Folds, without a branch a
/// block, and no copy: most names and ids are short.
pub(crate) fn is_plain(bytes: &[u8]) -> bool {
    if let Some(last) = bytes.last_chunk::<16>() {
        let seen = bytes
            .chunks_exact(16)
            .filter_map(<[u8]>::first_chunk::<16>)
            .fold(holds_special(last), |seen, block| {
                seen | holds_special(block)
            });
        return !seen;
    }
    let flags = |word: &[u8; 8]| special_flags(u64::from_le_bytes(*word));
    let Some(last) = bytes.last_chunk::<8>() else {
        return !bytes
            .iter()
            .fold(false, |seen, &byte| seen | is_special(byte));
    };
    let seen = bytes
        .chunks_exact(8)
        .filter_map(<[u8]>::first_chunk::<8>)
        .fold(flags(last), |seen, word| seen | flags(word));
    seen == 0
}

const fn escape_sequence(byte: u8) -> ([u8; 6], usize) {
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
                HEX[(byte >> 4) as usize],
                HEX[(byte & 15) as usize],
            ],
            6,
        ),
    }
}

#[cfg(test)]
#[path = "json_escape_tests.rs"]
mod escape_tests;

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
    fn numbers_are_written_as_their_decimal_digits() {
        let mut samples = vec![0, 1, 9, 10, 99, 100, 4_294_967_296, u64::MAX - 1, u64::MAX];
        samples.extend((0..20).map(|power| 10u64.pow(power)));
        samples.extend((1..20).map(|power| 10u64.pow(power) - 1));
        for number in samples {
            for level in [Level::Plain, Level::InString] {
                let mut out = b"x".to_vec();
                number.write_json(&mut out, level);
                assert_eq!(out, format!("x{number}").as_bytes());
            }
        }
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
                // Escaped twice: the once-escaped string's contents, escaped.
                let mut nested = Vec::new();
                text.write_json(&mut nested, Level::InString);
                let once = std::str::from_utf8(&out).unwrap();
                let twice = serde_json::to_vec(once).unwrap();
                assert_eq!(nested, twice[1..twice.len() - 1], "{text:?}");
            }
        }
    }

    #[test]
    fn literals_are_written_as_they_are_and_escaped_once_more() {
        for text in [r#"{"id":""#, r#"","archivedAt":""#, "}", r#"\"x"#] {
            let literal = Literal::new(text);
            let mut plain = b"a".to_vec();
            literal.write(&mut plain, Level::Plain);
            assert_eq!(plain, format!("a{text}").as_bytes());
            let mut nested = b"a".to_vec();
            literal.write(&mut nested, Level::InString);
            let twice = serde_json::to_string(text).unwrap();
            assert_eq!(
                nested,
                format!("a{}", &twice[1..twice.len() - 1]).as_bytes()
            );
        }
    }

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
    fn is_plain_finds_every_byte_to_escape_at_every_position() {
        let naive = |bytes: &[u8]| !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
        for len in 0..40 {
            let text = vec![b'a'; len];
            assert!(super::is_plain(&text), "{len}");
            for at in 0..len {
                for special in [0u8, 0x1f, b'"', b'\\', b' ', 0x7f, 0xc3, 0xff] {
                    let mut text = text.clone();
                    text[at] = special;
                    assert_eq!(super::is_plain(&text), naive(&text), "{len} {at} {special}");
                }
            }
        }
    }
}
