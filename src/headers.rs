//! The request headers an exchange keeps past the head, and the modern
//! standard-header checks (MODERN.md §3, step M3).
//!
//! The head is borrowed and gone once the host answers authentication, so the
//! few header values later steps need (`authorization`, and for a request
//! whose version header is modern or refused `mcp-protocol-version`,
//! `mcp-method`, `mcp-name`) are copied into one buffer. Without a version
//! header M3 fails at its first check, so nothing else is needed but the
//! handshake era's `mcp-session-id` (SURFACE.md §10), kept in the slot the
//! version header would have had.
//!
//! That buffer is the exchange's one allocation: it is made with room for
//! the reply as well, and once the kept values are checked the reply is
//! written into it ([`Kept::take_buffer`]) and becomes the response's body.

use crate::request::{RequestParts, trim_ows};

/// Where a kept header's first line (OWS-trimmed) is in the buffer.
/// (Whether its bytes are all 0x20–0x7E or HTAB is judged by
/// [`Kept::check`], only for a value it compares equal.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Slot {
    start: u32,
    end: u32,
}

/// The slots, in [`KEPT`]'s order.
const AUTHORIZATION: usize = 0;
const VERSION: usize = 1;
const METHOD: usize = 2;
const NAME: usize = 3;
/// Where the legacy layout (no modern version header) keeps
/// `mcp-session-id`: the version header's slot, empty there.
const SESSION: usize = VERSION;
/// [`KEPT`]'s entry for `mcp-session-id`: a name, not a slot.
const SESSION_NAME: usize = 4;
/// A bit of `present`: the legacy layout.
const LEGACY_LAYOUT: u8 = 1 << 7;

/// Header values copied out of the head.
#[derive(Debug, Clone)]
pub(crate) struct Kept {
    buf: Vec<u8>,
    slots: [Slot; 4],
    /// Bit `i` set: slot `i` holds a line. (Bits, not a field per slot: an
    /// exchange carries this through every effect by value.)
    present: u8,
    /// Bit `i` set: slot `i`'s line is its header's only one (M3 needs it).
    single: u8,
}

/// A header M3 names in its failure message, in check order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standard {
    ProtocolVersion,
    Method,
    Name,
}

impl Standard {
    /// The header's name as M3's message writes it.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Standard::ProtocolVersion => "header mismatch: MCP-Protocol-Version",
            Standard::Method => "header mismatch: Mcp-Method",
            Standard::Name => "header mismatch: Mcp-Name",
        }
    }
}

impl Kept {
    /// Copies `authorization`, and the standard headers when `modern_possible`,
    /// into a buffer of at least `room` bytes when there is anything to copy
    /// (the room the exchange's reply will need, so that
    /// [`take_buffer`](Self::take_buffer) hands it over without growing).
    pub(crate) fn read(parts: &RequestParts<'_>, modern_possible: bool, room: usize) -> Kept {
        if modern_possible {
            Kept::read_standard(parts, room)
        } else {
            Kept::read_legacy(parts, room)
        }
    }

    /// [`read`](Self::read) without a modern version header: `authorization`,
    /// and SURFACE.md §10's session id.
    ///
    /// Each layout is a call of its own, chosen in line by `read`: with both
    /// in one function, a read cycle took 2–4 % more time in
    /// `examples/cycles`, for two instructions fewer.
    #[inline(never)]
    fn read_legacy(parts: &RequestParts<'_>, room: usize) -> Kept {
        // Two scans of the borrowed slice cost less than one pass copying
        // each header out of it.
        let mut all = parts.all(KEPT[AUTHORIZATION]);
        let authorization = all.next().map(|first| (first, all.next().is_none()));
        let mut all = parts.all(KEPT[SESSION_NAME]);
        let session = all
            .next()
            .map(|first| (trim_ows(first), all.next().is_none()));
        let size = authorization.map_or(0, |(value, _)| value.len())
            + session.map_or(0, |(value, _)| value.len());
        let mut kept = Kept::with_room(size, room, LEGACY_LAYOUT);
        if let Some((value, single)) = authorization {
            kept.keep(AUTHORIZATION, value, single);
        }
        if let Some((value, single)) = session {
            kept.keep(SESSION, value, single);
        }
        kept
    }

    /// [`read`](Self::read) under a modern or refused version header: each
    /// of the four names' first line, and whether it is the only one, in
    /// one pass over the headers.
    #[inline(never)]
    fn read_standard(parts: &RequestParts<'_>, room: usize) -> Kept {
        let mut lines: [Option<(&[u8], bool)>; 4] = [None; 4];
        for header in parts.headers() {
            let Some(index) = standard_index(header.name) else {
                continue;
            };
            if let Some(line) = lines.get_mut(index) {
                *line = match *line {
                    None => Some((kept_value(index, header.value), true)),
                    Some((first, _)) => Some((first, false)),
                };
            }
        }
        let size: usize = lines.iter().flatten().map(|(value, _)| value.len()).sum();
        let mut kept = Kept::with_room(size, room, 0);
        for (index, line) in lines.into_iter().enumerate() {
            if let Some((first, single)) = line {
                kept.keep(index, first, single);
            }
        }
        kept
    }

    /// No values yet, with a buffer of at least `room` bytes when there are
    /// `size` bytes to keep.
    #[inline(always)]
    fn with_room(size: usize, room: usize, present: u8) -> Kept {
        Kept {
            // Made at its size (`with_capacity` allocates directly; a
            // reserve on an empty vector goes through the growth path).
            buf: match size {
                0 => Vec::new(),
                size => Vec::with_capacity(size.max(room)),
            },
            slots: [Slot::default(); 4],
            present,
            single: 0,
        }
    }

    /// Keeps `value` in slot `index`.
    #[inline(always)]
    fn keep(&mut self, index: usize, value: &[u8], single: bool) {
        let start = self.buf.len();
        self.buf.extend_from_slice(value);
        // Header values are far below 4 GiB: the head is bounded by the host.
        if let Some(slot) = self.slots.get_mut(index) {
            *slot = Slot {
                start: start as u32,
                end: self.buf.len() as u32,
            };
        }
        self.present |= 1 << index;
        self.single |= u8::from(single) << index;
    }

    /// The buffer, emptied, for the exchange's reply: every kept value is
    /// gone after this (read as missing), so it is called once they have
    /// been checked.
    pub(crate) fn take_buffer(&mut self) -> Vec<u8> {
        self.present = 0;
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        buf
    }

    /// Slot `index`'s line, and whether it is its header's only one.
    fn get(&self, index: usize) -> Option<(&[u8], bool)> {
        if self.present & (1 << index) == 0 {
            return None;
        }
        let Slot { start, end } = *self.slots.get(index)?;
        let value = self.buf.get(start as usize..end as usize)?;
        Some((value, self.single & (1 << index) != 0))
    }

    /// The raw `Authorization` value (its first line).
    pub(crate) fn authorization(&self) -> Option<&[u8]> {
        self.get(AUTHORIZATION).map(|(value, _)| value)
    }

    /// The token of an `Authorization: Bearer <token>` value (the scheme
    /// matched case-insensitively), if there is one.
    ///
    /// Read as bytes: a value whose scheme is `Bearer` has its first space
    /// after those six bytes, and every byte around the token is ASCII, so
    /// only the token is checked as UTF-8. (Read as a string, the whole
    /// value was checked and the space searched for as a character: about
    /// 4 % of criterion's read cycle, whose host asks for the token.)
    pub(crate) fn bearer_token(&self) -> Option<&str> {
        let (scheme, rest) = self.authorization()?.split_first_chunk::<6>()?;
        let padded = rest.strip_prefix(b" ")?;
        if !scheme.eq_ignore_ascii_case(b"bearer") {
            return None;
        }
        let start = padded.iter().position(|&byte| byte != b' ')?;
        let end = padded.iter().rposition(|&byte| byte != b' ')?;
        std::str::from_utf8(padded.get(start..=end)?).ok()
    }

    /// The first `mcp-session-id` line, OWS-trimmed, and whether it is the
    /// only one (SURFACE.md §10 reads a session from exactly one); kept only
    /// without a modern version header (the handshake era's).
    pub(crate) fn session_line(&self) -> Option<(&[u8], bool)> {
        if self.present & LEGACY_LAYOUT == 0 {
            return None;
        }
        self.get(SESSION)
    }

    /// The first `mcp-protocol-version` line, OWS-trimmed.
    pub(crate) fn first_version_line(&self) -> Option<&[u8]> {
        self.standard(VERSION).map(|(value, _)| value)
    }

    /// A standard header's slot: none in the legacy layout, whose slot
    /// [`VERSION`] holds the session id.
    fn standard(&self, index: usize) -> Option<(&[u8], bool)> {
        if self.present & LEGACY_LAYOUT != 0 {
            return None;
        }
        self.get(index)
    }

    /// M3: the first standard header that fails, if any. `name` is the body
    /// field `Mcp-Name` answers for (`params.name` or `params.uri`), when the
    /// method has one and it is a string.
    pub(crate) fn check(
        &self,
        version: &str,
        method: &str,
        name: Option<&str>,
    ) -> Option<Standard> {
        let equal = |slot: usize, expected: &str| {
            self.standard(slot).is_some_and(|(value, single)| {
                single && value == expected.as_bytes() && is_visible(value)
            })
        };
        if !equal(VERSION, version) {
            return Some(Standard::ProtocolVersion);
        }
        if !equal(METHOD, method) {
            return Some(Standard::Method);
        }
        if let Some(expected) = name {
            let passes = self.standard(NAME).is_some_and(|(value, single)| {
                single && name_matches(value, expected.as_bytes()) && is_visible(value)
            });
            if !passes {
                return Some(Standard::Name);
            }
        }
        None
    }
}

/// Whether every byte is 0x20–0x7E or HTAB (M3's condition on a header
/// line). Without an early exit, so that the loop vectorizes.
fn is_visible(value: &[u8]) -> bool {
    value.iter().fold(true, |ok, &b| {
        ok & (b == b'\t' || b.wrapping_sub(0x20) < 0x5f)
    })
}

/// The headers kept, in the order of [`Kept`]'s slots; then
/// `mcp-session-id`, kept only in the legacy layout, in slot [`SESSION`].
const KEPT: [&str; 5] = [
    "authorization",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];

/// Which of [`KEPT`] a header `name` is (ASCII case-insensitive): the
/// lengths differ, so one compare at most.
fn standard_index(name: &str) -> Option<usize> {
    let index = match name.len() {
        13 => 0,
        20 => 1,
        10 => 2,
        8 => 3,
        14 => SESSION_NAME,
        _ => return None,
    };
    let kept = KEPT.get(index)?;
    (name == *kept || name.eq_ignore_ascii_case(kept)).then_some(index)
}

/// The raw authorization value (slot 0) is kept as sent; the others
/// OWS-trimmed.
fn kept_value(index: usize, value: &[u8]) -> &[u8] {
    if index == 0 { value } else { trim_ows(value) }
}

/// `Mcp-Name` against the body's value: the Base64 sentinel
/// `=?base64?<payload>?=` (exact case, at least 11 bytes) is decoded,
/// anything else is literal.
fn name_matches(value: &[u8], expected: &[u8]) -> bool {
    let sentinel = value.len() >= 11 && value.starts_with(b"=?base64?") && value.ends_with(b"?=");
    if sentinel {
        base64_equals(&value[9..value.len() - 2], expected)
    } else {
        value == expected
    }
}

/// Whether `encoded` is canonical RFC 4648 Base64 (standard alphabet,
/// `=`-padded to a multiple of 4, zero trailing bits) of exactly `expected`.
/// Decodes and compares in one pass, without a buffer. (UTF-8 is implied:
/// `expected` is a `str`'s bytes.)
pub(crate) fn base64_equals(encoded: &[u8], expected: &[u8]) -> bool {
    if encoded.len() % 4 != 0 {
        return false;
    }
    let mut at = 0;
    let groups = encoded.len() / 4;
    for (index, group) in encoded.chunks_exact(4).enumerate() {
        let last = index + 1 == groups;
        let pad = match group {
            [_, _, b'=', b'='] if last => 2,
            [_, _, _, b'='] if last => 1,
            _ => 0,
        };
        let mut bits: u32 = 0;
        for &c in &group[..4 - pad] {
            let Some(sextet) = sextet(c) else {
                return false;
            };
            bits = (bits << 6) | u32::from(sextet);
        }
        bits <<= 6 * pad;
        let bytes = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        let used = 3 - pad;
        // Canonical: the bits the padding hides are zero.
        if bytes[used..].iter().any(|&b| b != 0) {
            return false;
        }
        if expected.get(at..at + used) != Some(&bytes[..used]) {
            return false;
        }
        at += used;
    }
    at == expected.len()
}

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Header;

    /// What a scan per name keeps: the first line (OWS-trimmed but for
    /// `authorization`) and whether it is the only one.
    fn per_name<'a>(parts: &RequestParts<'a>) -> Vec<Option<(&'a [u8], bool)>> {
        KEPT.iter()
            .enumerate()
            .map(|(index, name)| {
                let mut all = parts.all(name);
                let first = all.next();
                first.map(|first| (kept_value(index, first), all.next().is_none()))
            })
            .collect()
    }

    /// The four slots.
    fn kept(kept: &Kept) -> Vec<Option<(&[u8], bool)>> {
        (0..4).map(|index| kept.get(index)).collect()
    }

    /// The token as the value read as a string finds it: split at the
    /// first space, the rest trimmed of spaces.
    fn token_as_text(value: &[u8]) -> Option<&str> {
        let value = std::str::from_utf8(value).ok()?;
        let (scheme, token) = value.split_once(' ')?;
        let token = token.trim_matches(' ');
        (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
    }

    #[test]
    fn the_bearer_token_read_as_bytes_is_the_one_read_as_text() {
        let schemes: [&[u8]; 9] = [
            b"Bearer",
            b"bearer",
            b"BEARER",
            b"bEaReR",
            b"Basic",
            b"Bearerx",
            b"Beare",
            b"",
            b"B\xc3\xa9arer",
        ];
        let gaps: [&[u8]; 5] = [b"", b" ", b"  ", b"\t", b" \t"];
        let tokens: [&[u8]; 9] = [
            b"",
            b"x",
            b"abc.def",
            b"a b",
            b" a ",
            b"\xc3\xa9",
            b"\xff",
            b"a\xc3",
            b"\"x\"",
        ];
        let mut compared = 0;
        for scheme in schemes {
            for gap in gaps {
                for token in tokens {
                    for tail in [&b""[..], b" ", b"  ", b"\t"] {
                        let value = [scheme, gap, token, tail].concat();
                        let headers = [Header::new("authorization", &value)];
                        let parts = RequestParts::new("POST", "/mcp", &headers);
                        for modern in [false, true] {
                            let head = Kept::read(&parts, modern, 0);
                            assert_eq!(
                                head.bearer_token(),
                                token_as_text(&value),
                                "{:?}",
                                String::from_utf8_lossy(&value)
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(compared, 9 * 5 * 9 * 4 * 2);
        // Some of them are tokens: the comparison is not of nothing.
        let head = Kept::read(
            &RequestParts::new(
                "POST",
                "/mcp",
                &[Header::new("authorization", b"bEaReR  a\xc3\xa9 ")],
            ),
            false,
            0,
        );
        assert_eq!(head.bearer_token(), Some("a\u{e9}"));
    }

    #[test]
    fn the_buffer_handed_to_the_reply_has_its_room_and_nothing_kept() {
        let headers = [
            Header::new("authorization", b"Bearer x"),
            Header::new("mcp-method", b"tools/list"),
        ];
        let parts = RequestParts::new("POST", "/mcp", &headers);
        let mut head = Kept::read(&parts, true, 600);
        assert_eq!(head.bearer_token(), Some("x"));
        let buffer = head.take_buffer();
        assert!(buffer.is_empty() && buffer.capacity() >= 600);
        assert_eq!(kept(&head), [None, None, None, None]);
        // Nothing to keep: no buffer made, whatever the room.
        let bare = Kept::read(&RequestParts::new("POST", "/mcp", &[]), true, 600);
        assert_eq!(bare.buf.capacity(), 0);
    }

    #[test]
    fn one_pass_keeps_what_a_scan_per_name_finds() {
        let cases: [&[Header<'_>]; 5] = [
            &[],
            &[
                Header::new("Authorization", b" Bearer x "),
                Header::new("MCP-Protocol-Version", b" 2026-07-28\t"),
                Header::new("mcp-method", b"tools/list"),
                Header::new("accept", b"*/*"),
                Header::new("Mcp-Name", b"x"),
            ],
            &[
                Header::new("mcp-method", b"a"),
                Header::new("mcp-name", b"n"),
                Header::new("MCP-METHOD", b"b"),
                Header::new("mcp-names", b"no"),
                Header::new("authorizatio", b"no"),
                Header::new("authorization", b"1"),
                Header::new("authorization", b"2"),
            ],
            &[Header::new("mcp-protocol-version", b"")],
            &[
                Header::new("Mcp-Session-Id", b" c1.a.b.c "),
                Header::new("mcp-session-id", b"again"),
                Header::new("mcp-session-ids", b"no"),
            ],
        ];
        for headers in cases {
            let parts = RequestParts::new("POST", "/mcp", headers);
            assert_eq!(
                kept(&Kept::read(&parts, true, 0)),
                per_name(&parts)[..4],
                "{headers:?}"
            );
            let modern = Kept::read(&parts, true, 0);
            assert_eq!(modern.session_line(), None);
            let legacy = Kept::read(&parts, false, 0);
            assert_eq!(kept(&legacy)[0], per_name(&parts)[0]);
            assert_eq!(legacy.session_line(), per_name(&parts)[SESSION_NAME]);
            assert_eq!(legacy.first_version_line(), None);
            assert_eq!(&kept(&legacy)[2..], [None, None]);
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn one_pass_keeps_what_a_scan_per_name_finds_in_a_header_map() {
        let mut map = http::HeaderMap::new();
        for (name, value) in [
            ("mcp-method", "a"),
            ("authorization", "Bearer x"),
            ("mcp-method", "b"),
            ("mcp-protocol-version", " 2026-07-28 "),
        ] {
            map.append(name, http::HeaderValue::from_static(value));
        }
        map.append(
            "mcp-session-id",
            http::HeaderValue::from_static(" c1.a.b.c "),
        );
        let parts = RequestParts::with_header_map("POST", "/mcp", &map);
        assert_eq!(kept(&Kept::read(&parts, true, 0)), per_name(&parts)[..4]);
        let legacy = Kept::read(&parts, false, 0);
        assert_eq!(kept(&legacy)[0], per_name(&parts)[0]);
        assert_eq!(legacy.session_line(), per_name(&parts)[SESSION_NAME]);
    }

    #[test]
    fn canonical_base64_decodes_and_compares() {
        assert!(base64_equals(b"bGlzdF9kb2N1bWVudHM=", b"list_documents"));
        assert!(base64_equals(b"", b""));
        assert!(base64_equals(b"YQ==", b"a"));
        assert!(base64_equals(b"YWI=", b"ab"));
        assert!(base64_equals(b"YWJj", b"abc"));
        assert!(base64_equals(b"+/+/", &[0xfb, 0xff, 0xbf]));
        for bad in [
            &b"bGlzdF9kb2N1bWVudHM"[..], // unpadded
            b"bGlz!!!=",
            b"YR==", // non-zero trailing bits
            b"YWI",
            b"Y===",
            b"YQ==YQ==", // padding inside
            b"YQ=a",
            b"YWJj\n",
            b"-_-_", // URL-safe alphabet
        ] {
            assert!(!base64_equals(bad, b"a") && !base64_equals(bad, b"list_documents"));
        }
        assert!(!base64_equals(b"YWJj", b"abd"));
        assert!(!base64_equals(b"YWJj", b"ab"));
        assert!(!base64_equals(b"YWJj", b"abcd"));
    }

    #[test]
    fn only_the_exact_sentinel_is_decoded() {
        assert!(name_matches(
            b"=?base64?bGlzdF9kb2N1bWVudHM=?=",
            b"list_documents"
        ));
        assert!(!name_matches(
            b"=?BASE64?bGlzdF9kb2N1bWVudHM=?=",
            b"list_documents"
        ));
        assert!(name_matches(b"=?BASE64?x?=", b"=?BASE64?x?="));
        assert!(name_matches(b"=?base64?x", b"=?base64?x"));
        assert!(name_matches(b"=?base64?=", b"=?base64?="));
        assert!(name_matches(b"=?base64??=", b""));
    }
}
