//! Stateless client sessions (SURFACE.md §10, IMPLEMENTATION.md §3): the
//! `mcp-session-id` a handshake-era `initialize` reply carries holds the
//! client's `{name, version}` itself, so nothing is kept per session and an
//! id issued by another replica, or before a restart, reads the same.
//!
//! An id is `c1.` + unpadded base64url of the UTF-8 name + `.` + the same of
//! the version (each as the client sent it, cut to 128 scalar values; a
//! missing or non-string field is the empty string) + `.` + a ULID from the
//! configured id source. It authorizes nothing, so it carries no key or
//! signature. Reading one back ([`read_header`]) is linear in the header
//! line, and anything but exactly one well-formed line reads as `unknown`.

use std::borrow::Cow;

use chopin_dialect::{IdSource, is_js_whitespace};

use crate::json::{self, Raw};

/// What a client said of itself: its name and version, and for the
/// handshake era the session id's ULID part.
///
/// Each field is what the client sent when it was a string that is not
/// blank (cut to 128 scalar values), else `unknown` ([`ClientInfo::UNKNOWN`]).
/// The handshake era reads them from the request's one well-formed
/// `mcp-session-id` header line, 2026-07-28 from
/// `params._meta["io.modelcontextprotocol/clientInfo"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    /// The client's name (`clientInfo.name`), or `unknown`.
    pub name: String,
    /// The client's version (`clientInfo.version`), or `unknown`.
    pub version: String,
    /// The session: the ULID part of the request's session id. `None` when
    /// the request carried none that reads (and always under 2026-07-28,
    /// which has no sessions).
    pub session: Option<String>,
}

impl ClientInfo {
    /// What a field reads as when the client did not give it.
    pub const UNKNOWN: &'static str = "unknown";

    /// A client that said nothing: `{unknown, unknown}`, no session.
    pub fn unknown() -> ClientInfo {
        ClientInfo {
            name: ClientInfo::UNKNOWN.to_owned(),
            version: ClientInfo::UNKNOWN.to_owned(),
            session: None,
        }
    }
}

/// The most scalar values a name or a version keeps.
pub(crate) const MAX_FIELD: usize = 128;

/// The longest base64url part of a well-formed id: 128 scalar values of up
/// to 4 UTF-8 bytes each, unpadded.
const MAX_PART: usize = 683;

/// The characters of a ULID.
const ULID_LENGTH: usize = 26;

/// The prefix of every id this endpoint issues.
const PREFIX: &str = "c1.";

/// `text` cut to its first [`MAX_FIELD`] scalar values.
pub(crate) fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_FIELD) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// A field as it reads (H's rule): the text when it is not blank, else
/// `unknown`.
fn field(text: Option<&str>) -> String {
    match text {
        Some(text) if text.chars().any(|c| !is_js_whitespace(c)) => text.to_owned(),
        _ => ClientInfo::UNKNOWN.to_owned(),
    }
}

/// The `name` and `version` members of a `clientInfo` object, as strings
/// (`None`: absent, or not a string); both `None` when it is not an object.
fn name_and_version(raw: Option<Raw<'_>>) -> [Option<Cow<'_, str>>; 2] {
    let Some(members) = raw.and_then(|raw| json::members(raw, ["name", "version"])) else {
        return [None, None];
    };
    members.values.map(|value| value.and_then(json::string))
}

/// The session id for an `initialize` whose `params` are `params`: its
/// `clientInfo`'s name and version, and a fresh ULID from `ids`.
pub(crate) fn issue(params: Option<Raw<'_>>, ids: &dyn IdSource) -> String {
    let client = params
        .and_then(|params| json::members(params, ["clientInfo"]))
        .and_then(|members| members.values[0]);
    let [name, version] = name_and_version(client);
    let name = cut(name.as_deref().unwrap_or_default());
    let version = cut(version.as_deref().unwrap_or_default());
    // Exactly the id's length, so that it becomes the header's bytes
    // without another allocation.
    let encoded = |text: &str| (text.len() * 4).div_ceil(3);
    let length = PREFIX.len() + encoded(name) + 1 + encoded(version) + 1 + ULID_LENGTH;
    let mut id = String::with_capacity(length);
    id.push_str(PREFIX);
    encode(&mut id, name.as_bytes());
    id.push('.');
    encode(&mut id, version.as_bytes());
    id.push('.');
    let mut ulid = [0; ULID_LENGTH];
    id.push_str(ids.mint().array_to_str(&mut ulid));
    id
}

/// The client of a handshake-era request: `line` is its first
/// `mcp-session-id` line and whether it was the only one. Anything but one
/// well-formed line reads as `unknown`, no session.
pub(crate) fn read_header(line: Option<(&[u8], bool)>) -> ClientInfo {
    match line.and_then(|(value, single)| single.then(|| parse(value))?) {
        Some(Parsed {
            name,
            version,
            session,
        }) => ClientInfo {
            name: field(Some(&name)),
            version: field(Some(&version)),
            session: Some(session.to_owned()),
        },
        None => ClientInfo::unknown(),
    }
}

/// Whether a handshake-era request carries exactly one well-formed session
/// id line (IMPLEMENTATION.md §3's gate).
pub(crate) fn has_session(line: Option<(&[u8], bool)>) -> bool {
    line.is_some_and(|(value, single)| single && parse(value).is_some())
}

/// The client of a 2026-07-28 request, from `params` (its `_meta`'s
/// `io.modelcontextprotocol/clientInfo`); no session.
pub(crate) fn read_meta(params: Option<Raw<'_>>) -> ClientInfo {
    let client = params
        .and_then(|params| json::members(params, ["_meta"]))
        .and_then(|members| members.values[0])
        .and_then(|meta| json::members(meta, [CLIENT_INFO]))
        .and_then(|members| members.values[0]);
    let [name, version] = name_and_version(client);
    ClientInfo {
        name: field(name.as_deref().map(cut)),
        version: field(version.as_deref().map(cut)),
        session: None,
    }
}

/// `io.modelcontextprotocol/clientInfo`, a member of `params._meta`.
const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// A well-formed session id's parts: the decoded name and version, and the
/// ULID as sent.
#[derive(Debug, PartialEq, Eq)]
struct Parsed<'a> {
    name: String,
    version: String,
    session: &'a str,
}

/// Reads a session id: `^c1\.[A-Za-z0-9_-]{0,683}\.[A-Za-z0-9_-]{0,683}\.
/// [0-7][0-9A-HJKMNP-TV-Z]{25}$`, each middle part canonical unpadded
/// base64url of valid UTF-8 of at most 128 scalar values. One pass over the
/// bytes.
fn parse(value: &[u8]) -> Option<Parsed<'_>> {
    let rest = value.strip_prefix(PREFIX.as_bytes())?;
    let (name, rest) = part(rest)?;
    let (version, ulid) = part(rest)?;
    if !is_ulid(ulid) {
        return None;
    }
    Some(Parsed {
        name: decode_field(name)?,
        version: decode_field(version)?,
        // ASCII, checked above.
        session: std::str::from_utf8(ulid).ok()?,
    })
}

/// A base64url part up to the next `.` (at most [`MAX_PART`] characters of
/// the alphabet), and what follows the dot.
fn part(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = bytes.iter().take(MAX_PART + 1).position(|&b| b == b'.')?;
    let (part, rest) = bytes.split_at(end);
    part.iter()
        .all(|&b| sextet(b).is_some())
        .then(|| (part, &rest[1..]))
}

/// A ULID as `[0-7][0-9A-HJKMNP-TV-Z]{25}`.
fn is_ulid(bytes: &[u8]) -> bool {
    let crockford = |b: &u8| matches!(b, b'0'..=b'9' | b'A'..=b'H' | b'J' | b'K' | b'M' | b'N' | b'P'..=b'T' | b'V'..=b'Z');
    bytes.len() == ULID_LENGTH
        && matches!(bytes[0], b'0'..=b'7')
        && bytes[1..].iter().all(crockford)
}

/// Decodes a canonical unpadded base64url part into text of at most
/// [`MAX_FIELD`] scalar values.
fn decode_field(part: &[u8]) -> Option<String> {
    if part.len() % 4 == 1 {
        return None;
    }
    let mut bytes = Vec::with_capacity(part.len() / 4 * 3 + 2);
    for group in part.chunks(4) {
        let bits = group
            .iter()
            .try_fold(0u32, |bits, &c| Some((bits << 6) | u32::from(sextet(c)?)))?;
        let bits = bits << (6 * (4 - group.len()));
        let used = group.len() * 6 / 8;
        let group_bytes = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        // Canonical: the bits past the last byte are zero.
        if group_bytes[used..].iter().any(|&b| b != 0) {
            return None;
        }
        bytes.extend_from_slice(&group_bytes[..used]);
    }
    let text = String::from_utf8(bytes).ok()?;
    (text.chars().nth(MAX_FIELD).is_none()).then_some(text)
}

/// The base64url alphabet's value of `c`.
fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

/// Appends unpadded base64url of `bytes`.
fn encode(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for chunk in bytes.chunks(3) {
        let bits = chunk.iter().enumerate().fold(0u32, |bits, (index, &b)| {
            bits | u32::from(b) << (16 - 8 * index)
        });
        for index in 0..=chunk.len() {
            let sextet = (bits >> (18 - 6 * index)) & 63;
            out.push(char::from(ALPHABET[sextet as usize]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chopin_dialect::SequentialIds;

    fn issued(params: &str) -> String {
        issue(
            Some(Raw::new(params)),
            &SequentialIds::new(1_700_000_000_000),
        )
    }

    #[test]
    fn an_issued_id_reads_back_as_the_client_it_names() {
        let id = issued(r#"{"clientInfo":{"name":"update-test","version":"1"}}"#);
        assert!(id.starts_with("c1.dXBkYXRlLXRlc3Q.MQ."), "{id}");
        assert_eq!(id.len(), id.capacity());
        let client = read_header(Some((id.as_bytes(), true)));
        assert_eq!(client.name, "update-test");
        assert_eq!(client.version, "1");
        assert_eq!(client.session.as_deref(), Some(&id[22..]));
    }

    #[test]
    fn names_are_cut_to_128_scalar_values_and_missing_ones_are_empty() {
        let long = "é".repeat(200);
        let id = issued(&format!(
            r#"{{"clientInfo":{{"name":"{long}","version":7}}}}"#
        ));
        let client = read_header(Some((id.as_bytes(), true)));
        assert_eq!(client.name, "é".repeat(128));
        assert_eq!(client.version, "unknown");
        assert!(id.contains(".."), "{id}");
    }

    #[test]
    fn non_canonical_or_malformed_ids_read_as_unknown() {
        let ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
        for bad in [
            format!("c1.MR.MQ.{ulid}"),   // MR: low bits set
            format!("c1.M.MQ.{ulid}"),    // one char: no byte
            format!("c1.MQ==.MQ.{ulid}"), // padded
            format!("c1.M+.MQ.{ulid}"),   // standard alphabet
            "c1.MQ.MQ.81ARZ3NDEKTSV4RRFFQ69G5FAV".to_owned(),
            "c1.MQ.MQ.01ARZ3NDEKTSV4RRFFQ69G5FAU0".to_owned(),
            "c1.MQ.MQ.01arz3ndektsv4rrffq69g5fav".to_owned(),
            format!("c1.gA.MQ.{ulid}"), // not UTF-8
            format!("c2.MQ.MQ.{ulid}"),
            "c1.%%".to_owned(),
            "0b6b7f36-4e8f-4d0f-9b0c-6f7a1e2d3c4b".to_owned(),
        ] {
            assert_eq!(
                read_header(Some((bad.as_bytes(), true))),
                ClientInfo::unknown(),
                "{bad}"
            );
        }
        let good = format!("c1.MQ.MQ.{ulid}");
        assert_eq!(read_header(Some((good.as_bytes(), true))).name, "1");
        assert_eq!(
            read_header(Some((good.as_bytes(), false))),
            ClientInfo::unknown()
        );
    }

    #[test]
    fn a_part_longer_than_683_characters_is_refused() {
        let ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
        let mut name = String::new();
        encode(&mut name, "😀".repeat(128).as_bytes());
        assert_eq!(name.len(), 683);
        let at_most = format!("c1.{name}.MQ.{ulid}");
        assert_eq!(
            read_header(Some((at_most.as_bytes(), true))).name,
            "😀".repeat(128)
        );
        let mut over = String::new();
        encode(&mut over, "😀".repeat(129).as_bytes());
        let over = format!("c1.{over}.MQ.{ulid}");
        assert_eq!(
            read_header(Some((over.as_bytes(), true))),
            ClientInfo::unknown()
        );
    }

    #[test]
    fn encoding_matches_every_length_mod_three() {
        for (text, encoded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("\u{ff}\u{fe}", "w7_Dvg"),
        ] {
            let mut out = String::new();
            encode(&mut out, text.as_bytes());
            assert_eq!(out, encoded);
            assert_eq!(decode_field(encoded.as_bytes()).as_deref(), Some(text));
        }
    }
}
