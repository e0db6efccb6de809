//! Which document a read's or a write tool's `id` names (LIFECYCLE.md §1,
//! SURFACE.md §3): a document id, or the document's canonical URL as the
//! servers give it (`url`: `/documents/<id>`, or
//! `<public-url>/documents/<id>`), also absolute with any host and any path
//! before `/documents/`.

use std::borrow::Cow;

/// The path of a document's canonical URL, before its id.
const PATH: &str = "/documents/";

/// The document id `locator` names: the `<id>` of `/documents/<id>` or of
/// `http://HOST[/PATH]/documents/<id>` / `https://HOST[/PATH]/documents/<id>`
/// (the scheme in any case, any non-empty host, any path before it: a
/// `--public-url` with a path), where `<id>` is one non-empty path
/// segment, percent-decoded to UTF-8, and there is no query or fragment;
/// anything else (a malformed escape included) is itself the id, exactly as
/// sent. One pass over the locator; borrowed unless an escape was decoded.
pub fn document_id(locator: &str) -> Cow<'_, str> {
    match url_segment(locator).and_then(percent_decoded) {
        Some(id) => id,
        None => Cow::Borrowed(locator),
    }
}

/// The raw `<id>` segment, when `locator` has one of the URL forms.
fn url_segment(locator: &str) -> Option<&str> {
    let path = match after_scheme(locator) {
        Some(rest) => {
            let (host, path) = rest.split_at(rest.find('/')?);
            if host.is_empty() || rest.contains(['?', '#']) {
                return None;
            }
            // The last `/documents/`: a public URL's path may come before.
            &path[path.rfind(PATH)?..]
        }
        None => locator,
    };
    let id = path.strip_prefix(PATH)?;
    (!id.is_empty() && !id.contains(['/', '?', '#'])).then_some(id)
}

/// What follows `http://` or `https://` (compared without case, as URL
/// schemes are).
fn after_scheme(locator: &str) -> Option<&str> {
    ["http://", "https://"].into_iter().find_map(|scheme| {
        let head = locator.get(..scheme.len())?;
        head.eq_ignore_ascii_case(scheme)
            .then(|| &locator[scheme.len()..])
    })
}

/// `segment` with its `%XX` escapes decoded; `None` when an escape is
/// malformed or the bytes are not UTF-8.
fn percent_decoded(segment: &str) -> Option<Cow<'_, str>> {
    if !segment.contains('%') {
        return Some(Cow::Borrowed(segment));
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let high = hex_digit(*bytes.get(at + 1)?)?;
            let low = hex_digit(*bytes.get(at + 2)?)?;
            out.push(high << 4 | low);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

fn hex_digit(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}
