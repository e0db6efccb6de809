//! What crosses between JavaScript and the addon, flat: request headers in
//! as strings, outcomes out as one string (a large body or plan follows in
//! a second call: `P`, `c`, `u` below).
//!
//! Every crossing carries strings and numbers, never objects: a napi object
//! costs microseconds to build or read, a string a fraction of one.
//!
//! **Headers in**, two ways:
//!
//! - *named* ([`named`]): the value of each header the endpoint reads
//!   ([`NAMED`], in that order), or nothing. From Web `Headers`, whose
//!   `get` is cheaper than walking them all, and whose values are byte
//!   strings: read as Latin-1, they are the bytes that came.
//! - *listed* ([`listed`]): names and values alternating, each followed by a
//!   NUL (`name\0value\0…`; the last NUL may be left out), every header
//!   there is. From Node's `rawHeaders` (Latin-1 strings of the bytes that
//!   came) or a host's own list. HTTP field values hold no NUL (RFC 9110
//!   §5.5), and neither Web `Headers` nor Node's parser passes one on.
//!
//! A named value equal to the one the last request passed for its header
//! may cross as a bit instead ([`Remembered`]).
//!
//! Web `Headers` join repeated lines with `, `: a joined `Origin` or `Host`
//! becomes two lines again, which the endpoint refuses as it refuses several
//! lines (no valid value of either holds a comma).
//!
//! **Outcomes out**: one tag character, then what the tag says:
//!
//! | tag | outcome | then |
//! |---|---|---|
//! | `R` | a response whose head JavaScript knows | the head's id (one character), the body |
//! | `H` | a response with a head new to JavaScript | its id, the head text, NUL, the body |
//! | `F` | a response whose head is not kept (the table is full) | the head text, NUL, the body |
//! | `P` | a response whose body crosses apart (`body`: from 1 KiB) | an `R`, `H` or `F` outcome without the body |
//! | `a` | authenticate | — |
//! | `b` | push the body (also: a push taken in) | — |
//! | `l` | list documents | the repository |
//! | `A` | list documents, archived ones too (`includeArchived`) | the repository |
//! | `r` | read a document | the id |
//! | `c` | create a document | the host input but its plan, as JSON (the plan crosses apart: `plan`) |
//! | `u` | update a document | as `c`: the host input but its plan as JSON (`{id, revision, idempotencyKey, fingerprint}`) |
//! | `n` | rename a document | the length of the locator in UTF-16 units, `:`, the locator as sent, then the trimmed title |
//! | `v` | archive a document | the locator as sent |
//! | `s` | restore a document | the locator as sent |
//! | `i` | post an instruction to a document's planner | the host input and the client as JSON (`{id, instruction, checkout?, client: {name, version}}`) |
//!
//! **Apart**: where the caller asks for it, a read effect (`r`) and a
//! response whose head JavaScript knows, its body inline (`R`, a head id
//! below 0x80), cross as their payload alone, the tag and the head's id in
//! the scratch buffer's register ([`apart`]): JavaScript then takes the id
//! or the body as the string is, no substring made of it.
//!
//! A head text is the status (followed by ` stream` for an accepted GET's
//! open event stream), then each header's name and value, every item on a
//! line of its own (`\n`). Response header values never hold a line break
//! or a NUL: the crate refuses configured values that would.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use chopin_mcp::{Header, Response};

/// The first head id's character: ids are `'0'` (0x30) up to `ÿ` (0xFF),
/// so a JavaScript engine keeps the outcome a one-byte string.
pub(crate) const FIRST_HEAD: u32 = 0x30;
/// The size from which a response body crosses apart from its head: a
/// string made from the response's own bytes, sparing the copy into the
/// outcome, for one more call. On Bun, a read through the handler with a
/// 1.2 KB reply took as long either way; with a 3.8 KB reply 15 % less
/// time apart, with 8.5 KB 22 % less (BENCHMARKS.md, "Node and Bun").
pub(crate) const APART_FROM: usize = 1024;
/// How many heads an endpoint keeps ids for. Each distinct combination of
/// status, headers and CORS grant is one; an endpoint sees a few dozen.
pub(crate) const MAX_HEADS: usize = 0x100 - FIRST_HEAD as usize;

/// Every request header the endpoint reads, in the order the addon's
/// `start` and `run` take their values. `tests/named_headers.rs` holds it to the crate: a header
/// the endpoint reads that is not here fails it.
pub const NAMED: [&str; 11] = [
    "origin",
    "host",
    "access-control-request-method",
    "authorization",
    "mcp-protocol-version",
    "accept",
    "content-type",
    "content-length",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];

/// The most lines [`named`] makes: each name once, and a second line for a
/// joined `Origin` and `Host`.
pub(crate) const MOST_NAMED: usize = NAMED.len() + 2;

/// The values of the headers [`NAMED`] names, as `run` passes them: each
/// one read, and where bit `i` of `same` is set (value `i` not read), the
/// one the last `run` read for header `i` (the endpoint's [`Core`] keeps
/// each header's last value).
///
/// [`Core`]: crate::Core
#[derive(Debug, Clone, Copy)]
pub struct NamedValues<'a> {
    /// The values read (`None` for a header the request lacks, or one
    /// marked the same).
    pub read: &'a [Option<&'a [u8]>; NAMED.len()],
    /// Bit `i`: value `i` is the one remembered.
    pub same: u32,
}

/// Each named header's value as the last `run` read it. A client's
/// requests mostly repeat their header values (one SDK's content type,
/// accept list and protocol version; one caller's credentials), and a
/// string crossing Node-API costs more than a bit saying "the same again":
/// JavaScript keeps the values it passed, and for one equal to it passes
/// that bit instead (as an HTTP/2 peer names an entry of its header table).
#[derive(Default)]
pub(crate) struct Remembered([Vec<u8>; NAMED.len()]);

impl Remembered {
    /// Remembers each value of `read`, then gives the request's values:
    /// each read one, and where bit `i` of `same` is set (value `i` not
    /// read), the one remembered for header `i`.
    pub(crate) fn recall<'a>(
        &'a mut self,
        NamedValues { read, same }: NamedValues<'a>,
    ) -> [Option<&'a [u8]>; NAMED.len()] {
        for (kept, value) in self.0.iter_mut().zip(read) {
            if let Some(value) = value {
                kept.clear();
                kept.extend_from_slice(value);
            }
        }
        let kept = &self.0;
        std::array::from_fn(|index| match read[index] {
            Some(value) => Some(value),
            None if same & (1 << index) != 0 => Some(&kept[index][..]),
            None => None,
        })
    }
}

/// The request headers of the values of [`NAMED`], `None` for a header
/// the request does not have.
pub(crate) fn named<'a>(
    values: &[Option<&'a [u8]>; NAMED.len()],
    headers: &mut [Header<'a>; MOST_NAMED],
) -> usize {
    let mut count = 0;
    for (index, (name, value)) in NAMED.iter().zip(values).enumerate() {
        let Some(value) = *value else {
            continue;
        };
        // Origin and Host: two lines are as refused as any more (the other
        // values are not searched).
        let comma = if index < 2 {
            memchr::memchr(b',', value)
        } else {
            None
        };
        match comma {
            Some(comma) => {
                headers[count] = Header::new(name, &value[..comma]);
                headers[count + 1] = Header::new(name, &value[comma + 1..]);
                count += 2;
            }
            None => {
                headers[count] = Header::new(name, value);
                count += 1;
            }
        }
    }
    count
}

/// The request headers of `flat`: `name\0value\0…`. A name that is not
/// UTF-8 is left out (none the endpoint reads is).
pub(crate) fn listed(flat: &[u8]) -> Vec<Header<'_>> {
    let mut headers = Vec::with_capacity(16);
    let mut name = None;
    let mut start = 0;
    let ends = memchr::memchr_iter(0, flat).chain(std::iter::once(flat.len()));
    for end in ends {
        let item = &flat[start..end];
        start = end + 1;
        let Some(name) = name.take() else {
            name = Some(item);
            continue;
        };
        let Ok(name) = std::str::from_utf8(name) else {
            continue;
        };
        let joinable = matches!(name.len(), 4 | 6)
            && (name.eq_ignore_ascii_case("origin") || name.eq_ignore_ascii_case("host"));
        if joinable && item.contains(&b',') {
            headers.extend(
                item.split(|&b| b == b',')
                    .map(|line| Header::new(name, line)),
            );
        } else {
            headers.push(Header::new(name, item));
        }
    }
    headers
}

/// The heads an endpoint has given ids, by their text.
#[derive(Debug, Default)]
pub(crate) struct Heads {
    ids: HashMap<Box<[u8]>, u32, BuildHasherDefault<Fnv>>,
    /// The head being encoded (kept to spare an allocation per response).
    text: Vec<u8>,
    /// The last head sent and its id: most responses repeat it.
    last: Option<(Box<[u8]>, u32)>,
}

impl Heads {
    /// Appends `response` to `out` as an `R`, `H` or `F` outcome; with
    /// `split`, a body of [`APART_FROM`] bytes or more is left out, the
    /// outcome marked `P`, and true returned (the body then crosses
    /// apart).
    pub(crate) fn encode(&mut self, response: &Response, split: bool, out: &mut Vec<u8>) -> bool {
        let apart = split && response.body().len() >= APART_FROM;
        self.encode_as(response, apart, out)
    }

    /// [`encode`](Self::encode), the body left out (`P`) when `apart`
    /// whatever its size: an image's bytes, which are no text.
    pub(crate) fn encode_as(
        &mut self,
        response: &Response,
        apart: bool,
        out: &mut Vec<u8>,
    ) -> bool {
        let body = response.body();
        if apart {
            out.push(b'P');
        }
        // Most responses repeat the last head: matched where it is kept,
        // its text not written again.
        let known = match &self.last {
            Some((last, id)) if is_head(last, response) => Some(*id),
            _ => {
                write_head(response, &mut self.text);
                let id = self.ids.get(self.text.as_slice()).copied();
                if let Some(id) = id {
                    self.last = Some((self.text.as_slice().into(), id));
                }
                id
            }
        };
        if !apart {
            out.reserve(4 + body.len());
        }
        if let Some(id) = known {
            out.push(b'R');
            push_char(out, id);
        } else if self.ids.len() < MAX_HEADS {
            let id = FIRST_HEAD + self.ids.len() as u32;
            self.ids.insert(self.text.as_slice().into(), id);
            out.push(b'H');
            push_char(out, id);
            out.extend_from_slice(&self.text);
            out.push(0);
        } else {
            out.push(b'F');
            out.extend_from_slice(&self.text);
            out.push(0);
        }
        if !apart {
            out.extend_from_slice(body);
        }
        apart
    }
}

/// The status digits of a head text.
fn status_digits(response: &Response) -> [u8; 3] {
    let status = response.status();
    [
        b'0' + (status / 100 % 10) as u8,
        b'0' + (status / 10 % 10) as u8,
        b'0' + (status % 10) as u8,
    ]
}

/// Writes the head text of `response` into `text`.
fn write_head(response: &Response, text: &mut Vec<u8>) {
    text.clear();
    text.extend_from_slice(&status_digits(response));
    if response.is_event_stream() {
        text.extend_from_slice(STREAM);
    }
    // Folded, not looped: `headers()` is a chain of iterators, which a
    // fold walks part by part where `next` asks each part in turn.
    response.headers().for_each(|(name, value)| {
        text.push(b'\n');
        text.extend_from_slice(name.as_bytes());
        text.push(b'\n');
        text.extend_from_slice(value);
    });
}

/// Whether `text` is the head text of `response`, read without writing it.
fn is_head(text: &[u8], response: &Response) -> bool {
    let Some(mut rest) = text.strip_prefix(&status_digits(response)) else {
        return false;
    };
    if response.is_event_stream() {
        let Some(after) = rest.strip_prefix(STREAM) else {
            return false;
        };
        rest = after;
    }
    // Folded, as in `write_head`.
    let same = response.headers().all(|(name, value)| {
        match rest
            .strip_prefix(b"\n")
            .and_then(|r| r.strip_prefix(name.as_bytes()))
            .and_then(|r| r.strip_prefix(b"\n"))
            .and_then(|r| r.strip_prefix(value))
        {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        }
    });
    same && rest.is_empty()
}

/// What follows the status of an open event stream's head.
const STREAM: &[u8] = b" stream";

/// FNV-1a, for the heads' table: its keys are the endpoint's own texts,
/// not an attacker's, and a hundred bytes hash several times faster than
/// with the default SipHash.
#[derive(Debug)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The tag, the head id (0 for none) and the payload of an outcome that can
/// cross apart (the module's **Apart**); `None` for any other.
pub(crate) fn apart(out: &[u8]) -> Option<(u8, u8, &[u8])> {
    match out {
        [b'r', id @ ..] => Some((b'r', 0, id)),
        [b'R', head, body @ ..] if *head < 0x80 => Some((b'R', *head, body)),
        _ => None,
    }
}

/// Appends the character `code` (at most 0xFF) as UTF-8.
fn push_char(out: &mut Vec<u8>, code: u32) {
    let mut buf = [0; 4];
    let c = char::from_u32(code).unwrap_or('?');
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_effect_and_a_known_heads_inline_response_come_apart_and_nothing_else() {
        assert_eq!(apart(b"rplan-1"), Some((b'r', 0, &b"plan-1"[..])));
        assert_eq!(apart(b"r"), Some((b'r', 0, &b""[..])));
        assert_eq!(apart(b"R0{}"), Some((b'R', b'0', &b"{}"[..])));
        assert_eq!(apart(b"R0"), Some((b'R', b'0', &b""[..])));
        // A head id from 0x80 takes two bytes: whole.
        assert_eq!(apart("R\u{80}{}".as_bytes()), None);
        for whole in [
            &b"R"[..],
            b"H0200\n\0{}",
            b"F200\n\0{}",
            b"PR0",
            b"a",
            b"b",
            b"lo/r",
            b"c{}",
            b"",
        ] {
            assert_eq!(apart(whole), None, "{}", String::from_utf8_lossy(whole));
        }
    }

    #[test]
    fn listed_headers_alternate_names_and_values_and_a_last_nul_is_optional() {
        for flat in ["a\0one\0B\0two\0", "a\0one\0B\0two"] {
            let headers = listed(flat.as_bytes());
            assert_eq!(
                headers,
                [Header::new("a", b"one"), Header::new("B", b"two")],
                "{flat:?}"
            );
        }
        assert!(listed(b"").is_empty());
        // A name without a value (a misbuilt string) is dropped, not a panic.
        assert_eq!(listed(b"a\0one\0dangling"), [Header::new("a", b"one")]);
        // Latin-1 bytes pass as they are; a name that is not UTF-8 is left out.
        assert_eq!(listed(b"a\0\xe9\0\xff\0v\0"), [Header::new("a", b"\xe9")]);
    }

    #[test]
    fn a_joined_origin_or_host_becomes_several_lines_either_way() {
        let headers =
            listed(b"Origin\0https://a.example, https://b.example\0host\0a, b\0accept\0a, b\0");
        let names: Vec<&str> = headers.iter().map(|h| h.name).collect();
        assert_eq!(names, ["Origin", "Origin", "host", "host", "accept"]);

        let mut values = [None; NAMED.len()];
        values[0] = Some(&b"https://a.example, https://b.example, https://c.example"[..]);
        values[1] = Some(&b"a, b"[..]);
        values[5] = Some(&b"a, b"[..]);
        let mut lines = [Header::new("", b""); MOST_NAMED];
        let count = named(&values, &mut lines);
        let names: Vec<&str> = lines[..count].iter().map(|h| h.name).collect();
        assert_eq!(names, ["origin", "origin", "host", "host", "accept"]);
        assert_eq!(lines[0].value, b"https://a.example");
    }

    #[test]
    fn a_head_is_sent_once_then_named_by_its_id() {
        let mut heads = Heads::default();
        let endpoint = chopin_mcp::Endpoint::new(chopin_mcp::Config::new()).unwrap();
        let parts = chopin_mcp::RequestParts::new("PUT", "/mcp", &[]);
        let chopin_mcp::Outcome::<()>::Respond(response) = endpoint.handle(&parts, "") else {
            panic!("a PUT is answered at once");
        };
        let mut first = Vec::new();
        heads.encode(&response, true, &mut first);
        let first = String::from_utf8(first).unwrap();
        assert_eq!(
            first,
            "H0405\ncontent-type\ntext/plain; charset=utf-8\ncache-control\nno-store\nx-content-type-options\nnosniff\nallow\nGET, POST\0method not allowed"
        );
        let mut second = Vec::new();
        heads.encode(&response, true, &mut second);
        assert_eq!(second, b"R0method not allowed");
        // Matched where the last head is kept; another head is not taken
        // for it, and the first is known again after it.
        let chopin_mcp::Outcome::<()>::Authenticate(auth) =
            endpoint.handle(&chopin_mcp::RequestParts::new("POST", "/mcp", &[]), "")
        else {
            panic!("a POST is authenticated");
        };
        let chopin_mcp::Outcome::Respond(refused) = auth.answer(None) else {
            panic!("no caller is 401");
        };
        for (response, starts) in [
            (&response, &b"R0"[..]),
            (&refused, b"H1401\n"),
            (&refused, b"R1"),
            (&response, b"R0"),
            (&response, b"R0"),
        ] {
            let mut out = Vec::new();
            heads.encode(response, true, &mut out);
            assert!(
                out.starts_with(starts),
                "{:?}",
                String::from_utf8_lossy(&out)
            );
        }
    }

    #[test]
    fn past_the_table_s_size_heads_are_sent_whole_every_time() {
        let mut heads = Heads::default();
        for status in 0..MAX_HEADS {
            heads
                .ids
                .insert(format!("{status}").into_bytes().into(), status as u32);
        }
        let endpoint = chopin_mcp::Endpoint::new(chopin_mcp::Config::new()).unwrap();
        let parts = chopin_mcp::RequestParts::new("PUT", "/mcp", &[]);
        let chopin_mcp::Outcome::<()>::Respond(response) = endpoint.handle(&parts, "") else {
            panic!("a PUT is answered at once");
        };
        for _ in 0..2 {
            let mut out = Vec::new();
            heads.encode(&response, true, &mut out);
            assert!(out.starts_with(b"F405\n"), "{out:?}");
        }
    }
}
