//! The writing side of `crate::json`: strings escaped at either [`Level`]
//! (once, or once more inside a JSON string), fixed pieces ([`Literal`]),
//! numbers, and [`WriteJson`], which the tools write their results through.

use crate::lex::{holds_special, is_special, special_flags, special_mask};

mod joined;
mod kept;

pub(crate) use joined::Joined;
pub(crate) use kept::{Masks, write_contents_keeping, write_contents_kept};

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

    /// Writes the value at [`Level::InString`], [`BETWEEN`], then the
    /// value at [`Level::Plain`]: a tool result's text and its
    /// `structuredContent`. A value may carry what the first write found
    /// into the second, or join its pieces to `BETWEEN`'s.
    fn write_twice(&self, out: &mut Vec<u8>) {
        self.write_json(out, Level::InString);
        BETWEEN.write(out, Level::Plain);
        self.write_json(out, Level::Plain);
    }
}

/// [`BETWEEN`]'s text.
pub(crate) const BETWEEN_TEXT: &str = r#""}],"structuredContent":"#;

/// What lies between a tool result's text copy and its
/// `structuredContent` ([`WriteJson::write_twice`]): the text string's
/// closing quote, the content's end and the next member's name.
pub(crate) const BETWEEN: Literal = Literal::new(BETWEEN_TEXT);

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

    fn write_twice(&self, out: &mut Vec<u8>) {
        (**self).write_twice(out);
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
/// ([`special_mask`]) at or after `from`, into room made at the reply's
/// end: 128 zeroed bytes (sixteen sequences of up to seven bytes, and a
/// run's store past them), borrowed from the vector as one fixed-size
/// array, so that the stores into it neither check the vector's capacity
/// nor read its length again, and nothing is copied after; the vector is
/// cut back to what was written. Each clean run is stored as sixteen bytes
/// from a padded copy of the block, each escape sequence as its padded
/// word, each cut back by moving the end.
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
    let start = out.len();
    out.extend_from_slice(&[0; 128]);
    let Some(room) = out
        .get_mut(start..)
        .and_then(<[u8]>::first_chunk_mut::<128>)
    else {
        return;
    };
    let mut end = 0;
    while let Some(run) = padded.get(from..).and_then(<[u8]>::first_chunk::<16>) {
        let Some(to) = room.get_mut(end..).and_then(<[u8]>::first_chunk_mut::<16>) else {
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
        let Some(to) = room.get_mut(end..).and_then(<[u8]>::first_chunk_mut::<8>) else {
            break;
        };
        *to = sequence.bytes;
        end += usize::from(sequence.len);
        from = special + 1;
        mask &= mask - 1;
    }
    out.truncate(start + end);
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
#[path = "escape_tests.rs"]
mod escape_tests;
