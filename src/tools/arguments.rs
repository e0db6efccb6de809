//! What the tools' argument checks share: strings that are not blank,
//! document locators (LIFECYCLE.md §1), and fingerprints of what was
//! submitted.

use bytestring::ByteString;
use chopin_dialect::is_js_whitespace;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::json::{self, Raw};
use crate::record::Arguments;

/// Lowercase hex SHA-256 of the compact JSON of `value`: a fingerprint
/// (DIALECT.md §11.7, LIFECYCLE.md §2). `serde_json` escapes strings as
/// JavaScript's `JSON.stringify` does.
pub(crate) fn fingerprint_of(value: &impl Serialize) -> String {
    // Structs of strings and integers always serialize.
    let json = serde_json::to_vec(value).unwrap_or_default();
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(&json) {
        for nibble in [byte >> 4, byte & 15] {
            hex.push(char::from(b"0123456789abcdef"[usize::from(nibble)]));
        }
    }
    hex
}

/// The most scalar values a document locator may have (LIFECYCLE.md §1).
const MAX_LOCATOR: usize = 2048;

/// A string of at most `max` scalar values that is not blank (DIALECT.md
/// §1.3), kept untrimmed.
pub(crate) fn text(raw: Raw<'_>, max: usize) -> Option<String> {
    let value = json::string(raw)?;
    not_blank_within(&value, max).then(|| value.into_owned())
}

/// Whether `value` has at most `max` scalar values (as JSON Schema counts)
/// and is not blank. One of at most `max` bytes has, uncounted: UTF-8 takes
/// a byte or more a scalar value.
pub(crate) fn not_blank_within(value: &str, max: usize) -> bool {
    let fits = value.len() <= max || value.chars().nth(max).is_none();
    // A visible ASCII first character (an id's, a repository's) is no
    // whitespace: the search stops there.
    let visible = value.as_bytes().first().is_some_and(u8::is_ascii_graphic);
    fits && (visible || value.chars().any(|c| !is_js_whitespace(c)))
}

/// A document locator (LIFECYCLE.md §1): an id or a canonical URL, a
/// string of 1–2048 scalar values that is not blank, kept exactly as sent
/// (the host resolves it).
pub(crate) fn locator(raw: Raw<'_>) -> Option<String> {
    text(raw, MAX_LOCATOR)
}

/// The arguments `{id}` of a tool whose one argument is a locator.
pub(crate) fn locator_arguments(arguments: &Arguments<'_>) -> Option<String> {
    let members = arguments.members(["id"])?;
    if members.other {
        return None;
    }
    let value = members.string(0)?;
    not_blank_within(&value, MAX_LOCATOR).then(|| value.into_owned())
}

/// A string argument kept for the host: a slice of the message it was read
/// from when the string had no escape (no copy, no allocation), or else the
/// unescaped string's own bytes. Always valid UTF-8.
#[derive(Clone)]
pub(crate) struct Text(ByteString);

impl Text {
    /// `text` as read from `source` (the message's text): shared when it
    /// is a slice of it, the unescaped string otherwise.
    pub(crate) fn new(source: &ByteString, text: std::borrow::Cow<'_, str>) -> Text {
        match text {
            std::borrow::Cow::Borrowed(borrowed)
                if within(source.as_bytes(), borrowed.as_bytes()) =>
            {
                Text(source.slice_ref(borrowed))
            }
            text => Text(ByteString::from(text.into_owned())),
        }
    }

    /// The string, as it was checked when the body was read (no second
    /// check).
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether `part` lies inside `whole`'s bytes.
fn within(whole: &[u8], part: &[u8]) -> bool {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    start <= whole.len() && part.len() <= whole.len() - start
}
