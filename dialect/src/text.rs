//! Text helpers both parsing passes use: line endings, label
//! normalization, escapes and character references, and the whitespace
//! between a link's or definition's parts.

use crate::jsx::match_reference;

/// The line ending starting at `at` (`\r\n`, `\r`, else `\n`).
pub(crate) fn line_ending_at(src: &str, at: usize) -> &'static str {
    match src.as_bytes().get(at..at + 2) {
        Some(b"\r\n") => "\r\n",
        _ if src.as_bytes().get(at) == Some(&b'\r') => "\r",
        _ => "\n",
    }
}

/// Normalizes a label for matching (§9.3's whitespace collapse, then case fold).
pub(crate) fn normalize_label(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut pending = false;
    for c in raw.chars() {
        if matches!(c, '\t' | '\n' | '\r' | ' ') {
            pending = true;
        } else {
            if pending && !out.is_empty() {
                out.push(' ');
            }
            pending = false;
            out.push(c);
        }
    }
    out.to_lowercase().to_uppercase()
}

/// Decodes backslash escapes and character references (link destinations,
/// code info strings).
pub(crate) fn decode_text(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_punctuation() {
            out.push_str(&raw[plain..i]);
            out.push(bytes[i + 1] as char);
            i += 2;
            plain = i;
        } else if bytes[i] == b'&' {
            if let Some((len, v)) = match_reference(&bytes[i..]) {
                out.push_str(&raw[plain..i]);
                out.push_str(&v);
                i += len;
                plain = i;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&raw[plain..]);
    out
}

/// Skips spaces and tabs from `j`, crossing at most one line feed (between a
/// link's or definition's parts).
pub(crate) fn skip_ws_one_line(bytes: &[u8], mut j: usize) -> usize {
    let mut newline = false;
    while j < bytes.len() {
        match bytes[j] {
            b' ' | b'\t' => j += 1,
            b'\n' if !newline => {
                newline = true;
                j += 1;
            }
            _ => break,
        }
    }
    j
}

/// Whether `c` may stand in a bare link or definition destination: anything
/// but ASCII controls and space, with NUL read as U+FFFD (see `inline::is_punct`).
pub(crate) fn destination_byte(c: u8) -> bool {
    (c > b' ' && c != 0x7f) || c == 0
}
