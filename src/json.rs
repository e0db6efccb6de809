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

/// The string `raw` holds, borrowed when it has no escapes; `None` when `raw`
/// is not a JSON string or holds an escape that is no Unicode scalar value
/// (a lone surrogate).
pub(crate) fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
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
pub(crate) fn name(raw: &RawValue) -> Option<Cow<'_, str>> {
    string(raw).or_else(|| {
        raw.get()
            .starts_with('"')
            .then_some(Cow::Borrowed("\u{fffd}"))
    })
}

/// Whether `raw` is a JSON object.
pub(crate) fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

/// Appends `text` as a JSON string, escaped as JavaScript's `JSON.stringify`
/// escapes it (which is also what `serde_json` writes).
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_duplicate_member_wins_and_escaped_keys_match() {
        let members = members(r#"{"a":1,"\u0061":2,"b":3}"#, ["a"]).unwrap();
        assert_eq!(members.values[0].unwrap().get(), "2");
        assert!(members.other);
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
}
