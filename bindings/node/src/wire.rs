//! What crosses between JavaScript and the addon, flat: request headers in
//! as one string, outcomes out as one string.
//!
//! Every crossing carries strings, never objects: a napi object costs
//! microseconds to build or read, a string a fraction of one.
//!
//! **Headers in**: names and values alternating, each followed by a NUL
//! (`name\0value\0…`; the last NUL may be left out). HTTP field values hold
//! no NUL (RFC 9110 §5.5), and neither Web `Headers` nor Node's parser
//! passes one on.
//!
//! **Outcomes out**: one tag character, then what the tag says:
//!
//! | tag | outcome | then |
//! |---|---|---|
//! | `R` | a response whose head JavaScript knows | the head's id (one character), the body |
//! | `H` | a response with a head new to JavaScript | its id, the head text, NUL, the body |
//! | `F` | a response whose head is not kept (the table is full) | the head text, NUL, the body |
//! | `a` | authenticate | — |
//! | `b` | push the body (also: a push taken in) | — |
//! | `l` | list documents | the repository |
//! | `r` | read a document | the id |
//! | `c` | create a document | the host input as JSON |
//!
//! A head text is the status (followed by ` stream` for an accepted GET's
//! open event stream), then each header's name and value, every item on a
//! line of its own (`\n`). Response header values never hold a line break
//! or a NUL: the crate refuses configured values that would.

use std::collections::HashMap;
use std::io::Write;

use chopin_mcp::{Header, Response};

/// The first head id's character: ids are `'0'` (0x30) up to `ÿ` (0xFF),
/// so a JavaScript engine keeps the outcome a one-byte string.
pub(crate) const FIRST_HEAD: u32 = 0x30;
/// How many heads an endpoint keeps ids for. Each distinct combination of
/// status, headers and CORS grant is one; an endpoint sees a few dozen.
pub(crate) const MAX_HEADS: usize = 0x100 - FIRST_HEAD as usize;

/// The request headers of `flat`: `name\0value\0…`.
///
/// Web `Headers` join repeated lines of a name with `, `; a joined `Origin`
/// or `Host` is split back into its lines, so that the endpoint refuses it
/// as it refuses several lines (no valid value of either holds a comma).
pub(crate) fn headers(flat: &str) -> Vec<Header<'_>> {
    // Split at NUL bytes by hand: a char-pattern split pays a searcher per
    // item, several times this loop for a request's dozen short items.
    let mut items = flat.as_bytes().split(|&b| b == 0);
    let mut headers = Vec::with_capacity(16);
    while let (Some(name), Some(value)) = (items.next(), items.next()) {
        // A NUL is ASCII: the pieces of a `str` split at one are `str`s.
        let Ok(name) = std::str::from_utf8(name) else {
            continue;
        };
        let joinable = matches!(name.len(), 4 | 6)
            && (name.eq_ignore_ascii_case("origin") || name.eq_ignore_ascii_case("host"));
        if joinable && value.contains(&b',') {
            headers.extend(
                value
                    .split(|&b| b == b',')
                    .map(|line| Header::new(name, line)),
            );
        } else {
            headers.push(Header::new(name, value));
        }
    }
    headers
}

/// The heads an endpoint has given ids, by their text.
#[derive(Debug, Default)]
pub(crate) struct Heads {
    ids: HashMap<Box<[u8]>, u32>,
    /// The head being encoded (kept to spare an allocation per response).
    text: Vec<u8>,
}

impl Heads {
    /// Appends `response` to `out` as an `R`, `H` or `F` outcome.
    pub(crate) fn encode(&mut self, response: &Response, out: &mut Vec<u8>) {
        let text = &mut self.text;
        text.clear();
        // Writing to a Vec cannot fail.
        let _ = write!(text, "{}", response.status());
        if response.is_event_stream() {
            text.extend_from_slice(b" stream");
        }
        for (name, value) in response.headers() {
            text.push(b'\n');
            text.extend_from_slice(name.as_bytes());
            text.push(b'\n');
            text.extend_from_slice(value);
        }
        let body = response.body();
        out.reserve(4 + text.len() + body.len());
        if let Some(&id) = self.ids.get(text.as_slice()) {
            out.push(b'R');
            push_char(out, id);
        } else if self.ids.len() < MAX_HEADS {
            let id = FIRST_HEAD + self.ids.len() as u32;
            self.ids.insert(text.as_slice().into(), id);
            out.push(b'H');
            push_char(out, id);
            out.extend_from_slice(text);
            out.push(0);
        } else {
            out.push(b'F');
            out.extend_from_slice(text);
            out.push(0);
        }
        out.extend_from_slice(body);
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
    fn headers_alternate_names_and_values_and_a_last_nul_is_optional() {
        for flat in ["a\0one\0B\0two\0", "a\0one\0B\0two"] {
            let headers = headers(flat);
            assert_eq!(
                headers,
                [Header::new("a", b"one"), Header::new("B", b"two")],
                "{flat:?}"
            );
        }
        assert!(headers("").is_empty());
        // A name without a value (a misbuilt string) is dropped, not a panic.
        assert_eq!(headers("a\0one\0dangling"), [Header::new("a", b"one")]);
    }

    #[test]
    fn a_joined_origin_or_host_becomes_the_lines_it_was_joined_from() {
        let headers =
            headers("Origin\0https://a.example, https://b.example\0host\0a, b\0accept\0a, b\0");
        let names: Vec<&str> = headers.iter().map(|h| h.name).collect();
        assert_eq!(names, ["Origin", "Origin", "host", "host", "accept"]);
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
        heads.encode(&response, &mut first);
        let first = String::from_utf8(first).unwrap();
        assert_eq!(
            first,
            "H0405\ncontent-type\ntext/plain; charset=utf-8\ncache-control\nno-store\nx-content-type-options\nnosniff\nallow\nGET, POST\0method not allowed"
        );
        let mut second = Vec::new();
        heads.encode(&response, &mut second);
        assert_eq!(second, b"R0method not allowed");
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
            heads.encode(&response, &mut out);
            assert!(out.starts_with(b"F405\n"), "{out:?}");
        }
    }
}
