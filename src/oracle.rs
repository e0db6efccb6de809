//! `serde_json` as the reference for the crate's own JSON readers: how it
//! reads a message level by level (the reference for `crate::scan`), and
//! how it reads one validated value as an object of known members, an
//! array, or a string (the reference for `crate::json`'s readers). The
//! fuzz bodies and the differential tests compare the two; nothing on the
//! endpoint's path calls this module.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::json::{self, Raw};
use crate::record::{self, Arguments, Record};
use crate::scan;

/// Keys the readers' differential picks in any value: the ones the
/// generated bodies use (and their escaped spellings match), and one that
/// never occurs.
const KEYS: [&str; 5] = ["id", "name", "_meta", "params", "absent"];

/// Asserts that `json::members`, `json::elements` and `json::string` read
/// the validated value `raw` as `serde_json` does.
pub(crate) fn check_readers(raw: Raw<'_>) {
    let text = raw.get();
    let expected = members(text, KEYS).map(|members| {
        (
            members.values.map(|value| value.map(RawValue::get)),
            members.other,
        )
    });
    let found = json::members(raw, KEYS).map(|members| {
        (
            members.values.map(|value| value.map(Raw::get)),
            members.other,
        )
    });
    assert_eq!(found, expected, "members of {text:?}");
    let expected = serde_json::from_str::<Vec<&RawValue>>(text)
        .ok()
        .map(|elements| elements.into_iter().map(RawValue::get).collect::<Vec<_>>());
    let found = json::elements(raw).map(|elements| elements.map(Raw::get).collect::<Vec<_>>());
    assert_eq!(found, expected, "elements of {text:?}");
    let expected = serde_json::from_str::<String>(text).ok();
    let found = json::string(raw).map(|string| string.into_owned());
    assert_eq!(found, expected, "string {text:?}");
}

/// Asserts that the members of `arguments` the message reader recorded
/// read as `json::members` reads its text, and as `serde_json` reads them;
/// that a value is marked plain exactly when it is a string without a
/// backslash; and that the members are recorded exactly when they fit.
pub(crate) fn check_arguments(arguments: Arguments<'_>) {
    fn values<'a>(members: &json::Members<'a, 5>) -> [Option<&'a str>; 5] {
        members.values.map(|value| value.map(Raw::get))
    }
    let raw = arguments.raw();
    let text = raw.get();
    let recorded = arguments.is_recorded();
    for keys in [
        KEYS,
        ["repository", "includeArchived", "id", "a", "\u{10000}"],
    ] {
        let found = arguments.members(keys);
        let walked = json::members(raw, keys);
        let expected = members(text, keys);
        assert_eq!(
            found
                .as_ref()
                .map(|members| (values(members), members.other)),
            walked
                .as_ref()
                .map(|members| (values(members), members.other)),
            "recorded members of {text:?}"
        );
        assert_eq!(
            found
                .as_ref()
                .map(|members| (values(members), members.other)),
            expected.map(|members| (
                members.values.map(|value| value.map(RawValue::get)),
                members.other
            )),
            "members of {text:?} against serde_json"
        );
        let Some(found) = found else { continue };
        for (index, value) in found.values.iter().enumerate() {
            let plain =
                value.is_some_and(|raw| raw.get().starts_with('"') && !raw.get().contains('\\'));
            assert_eq!(
                found.plain & 1 << index != 0,
                plain && recorded,
                "plain {index} of {text:?}"
            );
            assert_eq!(
                found.string(index),
                value.and_then(json::string),
                "string {index} of {text:?}"
            );
        }
    }
    // An object whose keys `serde_json` cannot read (a lone surrogate) is
    // unreadable either way, as checked above.
    if let Some(count) = member_count(text) {
        // Offsets from the `{` reach the last value's end, just before the
        // whitespace and `}` that close the object.
        let body = text.strip_suffix('}').unwrap_or(text);
        let last_end = body.trim_end_matches([' ', '\t', '\n', '\r']).len();
        let fits = count <= record::CAPACITY && last_end <= usize::from(u16::MAX);
        assert_eq!(recorded, fits, "recorded {text:?}");
    }
}

/// How many members the object `text` has, duplicates counted, as
/// `serde_json` reads it.
fn member_count(text: &str) -> Option<usize> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                count += 1;
            }
            Ok(count)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let count = deserializer.deserialize_map(Count).ok()?;
    deserializer.end().ok()?;
    Some(count)
}

/// What `crate::scan::message` must answer, read with `serde_json` level by
/// level, as the endpoint read messages before it had its own reader: the
/// envelope with [`members`] (keys read as strings, values skipped or raw,
/// then nothing but whitespace), and `params` and `params._meta` likewise.
pub(crate) fn message(text: &str) -> Option<scan::Envelope<'_>> {
    // The endpoint hands the reader only text that opens with `{` after
    // JSON whitespace; `serde_json` would also skip other whitespace.
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        return None;
    }
    let envelope = members(text, scan::ENVELOPE)?;
    let [jsonrpc, id, method, params] = envelope.values.map(raw);
    let members = params
        .and_then(|params| members(params.get(), scan::PARAMS))
        .map(|params| {
            let [
                meta,
                name,
                arguments,
                uri,
                cursor,
                notifications,
                protocol_version,
            ] = params.values.map(raw);
            let picks = [
                meta,
                name,
                arguments,
                uri,
                cursor,
                notifications,
                protocol_version,
            ];
            let meta = meta
                .and_then(|meta| members(meta.get(), scan::META))
                .map(|meta| {
                    let [protocol_version, client_capabilities] = meta.values.map(raw);
                    scan::Meta {
                        protocol_version,
                        client_capabilities,
                    }
                });
            scan::Params {
                meta,
                name,
                arguments,
                uri,
                cursor,
                notifications,
                protocol_version,
                plain: plain_bits(&picks) << scan::ENVELOPE.len(),
                record: Record::NONE,
            }
        });
    Some(scan::Envelope {
        jsonrpc,
        id,
        method,
        params,
        members,
        plain: plain_bits(&[jsonrpc, id, method, params]),
    })
}

/// Bit `i`: `picks[i]` is a string without a backslash.
fn plain_bits(picks: &[Option<Raw<'_>>]) -> u16 {
    picks.iter().enumerate().fold(0, |bits, (index, pick)| {
        let plain = pick.is_some_and(|raw| raw.get().starts_with('"') && !raw.get().contains('\\'));
        bits | u16::from(plain) << index
    })
}

fn raw(value: Option<&RawValue>) -> Option<Raw<'_>> {
    value.map(Raw::from)
}

/// The members of an object named by `keys`, each the raw text of its last
/// occurrence, and whether the object had any other member.
struct Members<'a, const N: usize> {
    values: [Option<&'a RawValue>; N],
    other: bool,
}

/// Reads `text` with `serde_json` as an object and picks out the members
/// named by `keys`. `None` when `text` is not an object (or not JSON).
fn members<'a, const N: usize>(text: &'a str, keys: [&str; N]) -> Option<Members<'a, N>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
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
