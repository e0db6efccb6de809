//! What the tools' argument checks share: strings that are not blank,
//! document locators (LIFECYCLE.md §1), and fingerprints of what was
//! submitted.

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
#[inline]
pub(crate) fn not_blank_within(value: &str, max: usize) -> bool {
    // A short text with a visible ASCII first character (an id's, a
    // repository's) fits and is not blank: answered in line.
    let visible = value.as_bytes().first().is_some_and(u8::is_ascii_graphic);
    (visible && value.len() <= max) || counted_not_blank_within(value, max)
}

/// [`not_blank_within`], its scalar values counted and its characters
/// looked at.
fn counted_not_blank_within(value: &str, max: usize) -> bool {
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

/// A string argument kept for the host: where it lies in the message it was
/// read from when the string had no escape (no copy, no count taken on the
/// message: [`Reply`](crate::exchange::effect::Reply) keeps the message), or
/// else the unescaped string. Always valid UTF-8.
#[derive(Clone, Debug)]
pub(crate) enum Text {
    /// Bytes `start..end` of the message.
    Span { start: u32, end: u32 },
    /// Boxed twice, to keep this two words: every effect holding one moves
    /// through the host's loop, and the unescaped case is rare.
    #[allow(
        clippy::box_collection,
        reason = "two words instead of three in every effect that holds one"
    )]
    Owned(Box<String>),
}

impl Text {
    /// `text` as read from `source` (the message's text): a span of it when
    /// it is a slice of it, the unescaped string otherwise.
    #[inline]
    pub(crate) fn new(source: &str, text: std::borrow::Cow<'_, str>) -> Text {
        match text {
            std::borrow::Cow::Borrowed(borrowed) => Text::slice(source, borrowed),
            owned => Text::Owned(Box::new(owned.into_owned())),
        }
    }

    /// `part`, a slice of `source`, as a span of it (a copy of it, should it
    /// lie elsewhere or past 4 GiB).
    #[inline(always)]
    pub(crate) fn slice(source: &str, part: &str) -> Text {
        let start = (part.as_ptr() as usize).wrapping_sub(source.as_ptr() as usize);
        let end = start.wrapping_add(part.len());
        // Inside when `start <= end <= source.len()` (no wrap either way);
        // then `start`, at most `end`, fits too.
        match u32::try_from(end) {
            Ok(end32) if start <= end && end <= source.len() => Text::Span {
                start: start as u32,
                end: end32,
            },
            _ => Text::copied(part),
        }
    }

    /// `part` copied: it lies outside the message (or past 4 GiB).
    #[cold]
    fn copied(part: &str) -> Text {
        Text::Owned(Box::new(part.to_owned()))
    }

    /// The string, read from `source`, the message it was made from (as it
    /// was checked when the body was read: no second check).
    pub(crate) fn as_str<'a>(&'a self, source: &'a str) -> &'a str {
        match self {
            Text::Span { start, end } => source
                .get(*start as usize..*end as usize)
                .unwrap_or_default(),
            Text::Owned(text) => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_visible_case_answers_as_the_counting_reading() {
        let firsts = [
            "a", "~", " ", "\t", "\u{a0}", "\u{feff}", "é", "\u{7f}", "\u{1}", "",
        ];
        let rests = ["", "b", " ", "  \u{3000}", "éé", "x y"];
        for first in firsts {
            for rest in rests {
                for repeat in 0..6 {
                    let value = format!("{first}{}", rest.repeat(repeat));
                    for max in 0..value.len() + 2 {
                        assert_eq!(
                            not_blank_within(&value, max),
                            counted_not_blank_within(&value, max),
                            "{value:?} {max}"
                        );
                    }
                }
            }
        }
        assert!(not_blank_within("abc", 3));
        assert!(!not_blank_within("abcd", 3));
        assert!(!not_blank_within(" \t", 3));
        assert!(!not_blank_within("", 3));
    }

    #[test]
    fn a_slice_of_the_message_is_a_span_of_it_and_anything_else_a_copy() {
        let source = "{\"id\":\"é-1\"}";
        for start in 0..=source.len() {
            for end in start..=source.len() {
                let Some(part) = source.get(start..end) else {
                    continue;
                };
                let text = Text::slice(source, part);
                assert!(
                    matches!(text, Text::Span { start: s, end: e } if (s as usize, e as usize) == (start, end)),
                    "{start}..{end}"
                );
                assert_eq!(text.as_str(source), part);
            }
        }
        // Elsewhere: before the message, after it, overlapping its end.
        let whole = format!("ab{source}cd");
        let inner = &whole[2..2 + source.len()];
        for part in [
            &whole[..1],
            &whole[..3],
            &whole[whole.len() - 1..],
            &whole[3..],
        ] {
            let text = Text::slice(inner, part);
            assert!(matches!(text, Text::Owned(_)), "{part:?}");
            assert_eq!(text.as_str(inner), part);
        }
        let other = String::from("id");
        assert!(matches!(Text::slice(source, &other), Text::Owned(_)));
        assert!(matches!(
            Text::new(source, std::borrow::Cow::Owned("x".into())),
            Text::Owned(_)
        ));
    }
}
