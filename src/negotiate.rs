//! `Accept` negotiation (RFC 9110 §12.5.1), without allocation.
//!
//! The most specific media range that matches the wanted type decides
//! (`type/subtype` over `type/*` over `*/*`), and the type is acceptable when
//! that range's q is above 0. Among equally specific matching ranges the
//! highest q wins, so the order of the ranges never matters. A `q` that is not
//! a valid qvalue counts as 0; other parameters are ignored; an element that is
//! not a media range is skipped. An absent header means `*/*`.
//!
//! The scan is one pass over the header bytes per wanted type, with quoted
//! strings honoured (a comma inside quotes does not split ranges).

use crate::request::trim_ows;

/// One media range of an `Accept` header, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaRange<'a> {
    /// The type, e.g. `text` or `*`.
    pub kind: &'a [u8],
    /// The subtype, e.g. `event-stream` or `*`.
    pub subtype: &'a [u8],
    /// The weight in thousandths (0..=1000); an invalid qvalue gives 0.
    pub q: u16,
}

impl MediaRange<'_> {
    /// How specifically this range matches `kind/subtype`: 3 for an exact
    /// match, 2 for `kind/*`, 1 for `*/*`, `None` when it does not match.
    pub fn specificity(&self, kind: &str, subtype: &str) -> Option<u8> {
        let kind_matches = self.kind.eq_ignore_ascii_case(kind.as_bytes());
        if kind_matches && self.subtype.eq_ignore_ascii_case(subtype.as_bytes()) {
            Some(3)
        } else if kind_matches && self.subtype == b"*" {
            Some(2)
        } else if self.kind == b"*" && self.subtype == b"*" {
            Some(1)
        } else {
            None
        }
    }
}

/// Iterates over the media ranges of one or more `Accept` header values.
#[derive(Debug, Clone)]
pub struct MediaRanges<'a, I> {
    values: I,
    rest: &'a [u8],
}

/// The media ranges of the given `Accept` header values, in order.
pub fn media_ranges<'a, I>(values: I) -> MediaRanges<'a, I::IntoIter>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    MediaRanges {
        values: values.into_iter(),
        rest: &[],
    }
}

impl<'a, I: Iterator<Item = &'a [u8]>> Iterator for MediaRanges<'a, I> {
    type Item = MediaRange<'a>;

    fn next(&mut self) -> Option<MediaRange<'a>> {
        loop {
            if self.rest.is_empty() {
                self.rest = self.values.next()?;
                continue;
            }
            let (element, rest) = split_unquoted(self.rest, b',');
            self.rest = rest;
            if let Some(range) = parse_range(element) {
                return Some(range);
            }
        }
    }
}

/// How acceptable `kind/subtype` is, in thousandths: the q of the most
/// specific matching range (the highest among equally specific ones), or 0
/// when nothing matches. `None` for `values` means the header is absent.
pub fn quality<'a, I>(values: Option<I>, kind: &str, subtype: &str) -> u16
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let [q] = qualities(values, [(kind, subtype)]);
    q
}

/// [`quality`] for several media types over one parse of the header.
pub(crate) fn qualities<'a, I, const N: usize>(
    values: Option<I>,
    types: [(&str, &str); N],
) -> [u16; N]
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let Some(values) = values else {
        return [1000; N];
    };
    let mut best: [Option<(u8, u16)>; N] = [None; N];
    for range in media_ranges(values) {
        for ((kind, subtype), best) in types.iter().zip(&mut best) {
            if let Some(specificity) = range.specificity(kind, subtype) {
                *best = match *best {
                    Some((s, q)) if s > specificity || (s == specificity && q >= range.q) => {
                        Some((s, q))
                    }
                    _ => Some((specificity, range.q)),
                };
            }
        }
    }
    best.map(|best| best.map_or(0, |(_, q)| q))
}

/// Splits `bytes` at the first `separator` that is not inside a quoted string.
fn split_unquoted(bytes: &[u8], separator: u8) -> (&[u8], &[u8]) {
    // Most elements hold no quote: find the separator in one tight scan.
    match bytes.iter().position(|&b| b == separator || b == b'"') {
        None => return (bytes, &[]),
        Some(index) if bytes[index] == separator => return (&bytes[..index], &bytes[index + 1..]),
        Some(_) => {}
    }
    let mut quoted = false;
    let mut escaped = false;
    for (index, &byte) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if quoted && byte == b'\\' {
            escaped = true;
        } else if byte == b'"' {
            quoted = !quoted;
        } else if byte == separator && !quoted {
            return (&bytes[..index], &bytes[index + 1..]);
        }
    }
    (bytes, &[])
}

fn parse_range(element: &[u8]) -> Option<MediaRange<'_>> {
    let (media, mut params) = split_unquoted(element, b';');
    let media = trim_ows(media);
    let slash = media.iter().position(|&b| b == b'/')?;
    let (kind, subtype) = (&media[..slash], &media[slash + 1..]);
    if !is_token(kind) || !is_token(subtype) || (kind == b"*" && subtype != b"*") {
        return None;
    }
    let mut q = 1000;
    while !params.is_empty() {
        let (param, rest) = split_unquoted(params, b';');
        params = rest;
        let param = trim_ows(param);
        if let [b'q' | b'Q', b'=', value @ ..] = param {
            q = qvalue(value).unwrap_or(0);
            // Parameters after the weight are accept-extensions: ignored.
            break;
        }
    }
    Some(MediaRange { kind, subtype, q })
}

/// Parses an RFC 9110 qvalue: `0(.ddd)?` or `1(.000)?`, in thousandths.
fn qvalue(value: &[u8]) -> Option<u16> {
    let (whole, fraction) = match value {
        [whole, b'.', fraction @ ..] => (*whole, fraction),
        [whole] => (*whole, &[][..]),
        _ => return None,
    };
    if fraction.len() > 3 || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let thousandths = fraction
        .iter()
        .chain(std::iter::repeat(&b'0'))
        .take(3)
        .fold(0u16, |acc, digit| acc * 10 + u16::from(digit - b'0'));
    match whole {
        b'0' => Some(thousandths),
        b'1' if thousandths == 0 => Some(1000),
        _ => None,
    }
}

fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| TCHAR[usize::from(b)])
}

/// RFC 9110 `tchar`, by byte.
static TCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualities_in_one_parse_equal_quality_for_each_type() {
        let types = [("application", "json"), ("text", "event-stream")];
        for header in [
            &b"application/json, text/event-stream"[..],
            b"text/*;q=0.5, application/json;q=0",
            b"*/*;q=0.1, text/event-stream;q=0.9, application/*",
            b"text/html",
            b"",
            b"application/json;q=0.3;a=\"x,y\", */*",
        ] {
            let both = qualities(Some([header]), types);
            for ((kind, subtype), q) in types.iter().zip(both) {
                assert_eq!(quality(Some([header]), kind, subtype), q);
            }
        }
        assert_eq!(qualities(None::<[&[u8]; 0]>, types), [1000, 1000]);
    }

    #[test]
    fn qvalues_follow_the_rfc_grammar() {
        for (text, q) in [
            ("0", Some(0)),
            ("0.", Some(0)),
            ("0.25", Some(250)),
            ("0.001", Some(1)),
            ("1", Some(1000)),
            ("1.000", Some(1000)),
            ("1.001", None),
            ("0.0001", None),
            ("2", None),
            ("-1", None),
            (".5", None),
            ("", None),
        ] {
            assert_eq!(qvalue(text.as_bytes()), q, "{text}");
        }
    }

    #[test]
    fn commas_inside_quoted_parameters_do_not_split_ranges() {
        let ranges: Vec<_> =
            media_ranges([&b"text/html;x=\"a,b\";q=0, text/event-stream"[..]]).collect();
        assert_eq!(ranges.len(), 2);
        assert_eq!(ranges[0].q, 0);
        assert_eq!(ranges[1].subtype, b"event-stream");
    }
}
