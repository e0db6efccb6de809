//! `list_documents`: the documents of one repository.

use std::borrow::Cow;

#[cfg(doc)]
use super::DocumentSummary;
use super::{Code, DocumentSummaryRef, Frame, Summary, code_schema, document_extras_schema};
use crate::json::{self, Level, Raw, WriteJson};
use crate::record::Arguments;

/// The definition: SPEC.md §7's, with upstream's `includeArchived` and
/// summaries (SURFACE.md §2), the output schema a `oneOf` of the listing
/// and the code result of a denied repository (LIFECYCLE.md §5).
pub(crate) const DEFINITION: &str = concat!(
    r#"{"name":"list_documents","title":"List plan documents","description":"List Chopin documents available in a repository.","inputSchema":{"type":"object","properties":{"repository":{"type":"string","pattern":"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"},"includeArchived":{"type":"boolean","default":false}},"required":["repository"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"documents":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"#,
    document_extras_schema!(),
    r#"},"required":["id","title"],"additionalProperties":false}}},"required":["documents"],"additionalProperties":false},"#,
    code_schema!("repository-forbidden"),
    r#"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#
);

pub(crate) const INVALID: crate::jsonrpc::RpcError = crate::jsonrpc::RpcError {
    code: -32602,
    message: "list_documents requires a repository",
};

/// The repository named by `{repository, includeArchived?}`, if it is a
/// valid one, and whether archived documents are asked for (`false` when
/// the flag is absent; anything but a boolean is refused).
pub(crate) fn arguments<'a>(arguments: &Arguments<'a>) -> Option<(Cow<'a, str>, bool)> {
    let members = arguments.members(["repository", "includeArchived"])?;
    let repository = members.string(0)?;
    let include_archived = members.values[1];
    let include_archived = match include_archived.map(Raw::get) {
        None => false,
        Some("true") => true,
        Some("false") => false,
        Some(_) => return None,
    };
    (!members.other && is_repository(&repository)).then_some((repository, include_archived))
}

/// `owner/name` as GitHub allows them: the owner 1–39 letters, digits and
/// single inner hyphens; the name 1–100 of `[A-Za-z0-9._-]`, not `.` or `..`.
/// (The advertised pattern uses lookarounds; these are the same conditions.)
pub fn is_repository(text: &str) -> bool {
    let Some((owner, name)) = text.split_once('/') else {
        return false;
    };
    let owner_ok = (1..=39).contains(&owner.len())
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !owner.starts_with('-')
        && !owner.ends_with('-')
        && !owner.contains("--");
    let name_ok = (1..=100).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && name != "."
        && name != "..";
    owner_ok && name_ok
}

/// `{"documents":[…]}`. Whether any member has a byte to escape, and
/// whether any summary has a description or an archive time, is found
/// once, for both levels the listing is written at (a list writes it
/// twice: the text content, then `structuredContent`).
struct Listing<'a, T> {
    documents: &'a [T],
    /// No member has a byte to escape (most lists).
    plain: bool,
    /// Some summary has a `description` or an `archivedAt` (a host's
    /// listing with them, or of archived documents too).
    extras: bool,
    /// The ids' and titles' bytes, summed while they were checked (complete
    /// when `plain`).
    text: usize,
}

impl<'a, T: Summary> Listing<'a, T> {
    fn new(documents: &'a [T]) -> Self {
        // `extras` is complete when every id and title is plain (`all` went
        // through); when one is not, the listing is escaped anyway.
        let mut extras = false;
        let mut text = 0;
        let plain = documents.iter().all(|document| {
            let (id, title) = document.id_title();
            extras |= document.has_extras();
            text += id.len() + title.len();
            json::is_plain(id.as_bytes()) && json::is_plain(title.as_bytes())
        });
        let plain = plain && (!extras || documents.iter().all(extras_plain));
        Listing {
            documents,
            plain,
            extras,
            text,
        }
    }
}

impl<T: Summary> WriteJson for Listing<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        // The bytes `json::object` and the slice's `write_json` write for
        // `{"documents":[…]}`; a summary's fixed pieces at each level are
        // spelled out where they are copied, constants of known length
        // that the compiler copies inline rather than through `memcpy`.
        let plain_level = level == Level::Plain;
        out.extend_from_slice(if plain_level {
            b"{\"documents\":["
        } else {
            b"{\\\"documents\\\":["
        });
        if self.extras || !self.plain {
            write_members(out, level, self.plain, self.documents);
            out.extend_from_slice(b"]}");
            return;
        }
        // Most lists: ids and titles without a byte to escape, each summary
        // copies between fixed pieces (the comma before a summary is part
        // of its first piece).
        let mut documents = self.documents.iter();
        let Some(first) = documents.next() else {
            out.extend_from_slice(b"]}");
            return;
        };
        let (id, title) = first.id_title();
        if plain_level {
            out.extend_from_slice(b"{\"id\":\"");
            plain_summary_rest(out, id, title);
            for document in documents {
                let (id, title) = document.id_title();
                out.extend_from_slice(b",{\"id\":\"");
                plain_summary_rest(out, id, title);
            }
        } else {
            out.extend_from_slice(b"{\\\"id\\\":\\\"");
            string_summary_rest(out, id, title);
            for document in documents {
                let (id, title) = document.id_title();
                out.extend_from_slice(b",{\\\"id\\\":\\\"");
                string_summary_rest(out, id, title);
            }
        }
        out.extend_from_slice(b"]}");
    }

    /// A plain listing's size in a string (the longer of its two levels),
    /// one comma over; with escapes, their share guessed as `str`'s hint
    /// does.
    fn len_hint(&self) -> usize {
        if self.extras || !self.plain {
            return 18 + members_hint(self.plain, self.documents);
        }
        18 + 29 * self.documents.len() + self.text
    }
}

/// A plain summary after its opening `{"id":"`, at [`Level::Plain`].
#[inline(always)]
fn plain_summary_rest(out: &mut Vec<u8>, id: &str, title: &str) {
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"\",\"title\":\"");
    out.extend_from_slice(title.as_bytes());
    out.extend_from_slice(b"\"}");
}

/// A plain summary after its opening `{\"id\":\"`, at [`Level::InString`].
#[inline(always)]
fn string_summary_rest(out: &mut Vec<u8>, id: &str, title: &str) {
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"\\\",\\\"title\\\":\\\"");
    out.extend_from_slice(title.as_bytes());
    out.extend_from_slice(b"\\\"}");
}

/// Whether a summary's description and archive time, if any, have no byte
/// to escape.
fn extras_plain<T: Summary>(document: &T) -> bool {
    let summary = document.parts();
    summary
        .description
        .is_none_or(|text| json::is_plain(text.as_bytes()))
        && summary
            .archived_at
            .is_none_or(|text| json::is_plain(text.as_bytes()))
}

/// The summaries of a listing that has escapes or extras (a description,
/// an archive time), between its brackets: copies between fixed pieces when
/// `plain`, else through `json::object`.
#[inline(never)]
fn write_members<T: Summary>(out: &mut Vec<u8>, level: Level, plain: bool, documents: &[T]) {
    for (index, document) in documents.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let summary = document.parts();
        if !plain {
            write_escaped(out, level, summary);
        } else if level == Level::Plain {
            out.extend_from_slice(b"{\"id\":\"");
            out.extend_from_slice(summary.id.as_bytes());
            out.extend_from_slice(b"\",\"title\":\"");
            out.extend_from_slice(summary.title.as_bytes());
            if let Some(description) = summary.description {
                out.extend_from_slice(b"\",\"description\":\"");
                out.extend_from_slice(description.as_bytes());
            }
            if let Some(archived_at) = summary.archived_at {
                out.extend_from_slice(b"\",\"archivedAt\":\"");
                out.extend_from_slice(archived_at.as_bytes());
            }
            out.extend_from_slice(b"\"}");
        } else {
            out.extend_from_slice(b"{\\\"id\\\":\\\"");
            out.extend_from_slice(summary.id.as_bytes());
            out.extend_from_slice(b"\\\",\\\"title\\\":\\\"");
            out.extend_from_slice(summary.title.as_bytes());
            if let Some(description) = summary.description {
                out.extend_from_slice(b"\\\",\\\"description\\\":\\\"");
                out.extend_from_slice(description.as_bytes());
            }
            if let Some(archived_at) = summary.archived_at {
                out.extend_from_slice(b"\\\",\\\"archivedAt\\\":\\\"");
                out.extend_from_slice(archived_at.as_bytes());
            }
            out.extend_from_slice(b"\\\"}");
        }
    }
}

/// [`write_members`]'s size in a string, one comma over; with escapes,
/// their share guessed as `str`'s hint does.
#[inline(never)]
fn members_hint<T: Summary>(plain: bool, documents: &[T]) -> usize {
    let summary = |document: &T| {
        let DocumentSummaryRef {
            id,
            title,
            description,
            archived_at,
        } = document.parts();
        // `\",\"description\":\"` and `\",\"archivedAt\":\"` in a string.
        let extra = description.map_or(0, |text| 21 + text.len())
            + archived_at.map_or(0, |text| 20 + text.len());
        let text = id.len() + title.len() + extra;
        29 + text + if plain { 0 } else { text / 4 + 8 }
    };
    documents.iter().map(summary).sum()
}

/// Writes a summary with a byte to escape, through `json::object`.
fn write_escaped(out: &mut Vec<u8>, level: Level, summary: DocumentSummaryRef<'_>) {
    let DocumentSummaryRef {
        id,
        title,
        description,
        archived_at,
    } = summary;
    match (description, archived_at) {
        (None, None) => json::object(out, level, &[("id", &id), ("title", &title)]),
        (Some(description), None) => json::object(
            out,
            level,
            &[
                ("id", &id),
                ("title", &title),
                ("description", &description),
            ],
        ),
        (None, Some(archived_at)) => json::object(
            out,
            level,
            &[("id", &id), ("title", &title), ("archivedAt", &archived_at)],
        ),
        (Some(description), Some(archived_at)) => json::object(
            out,
            level,
            &[
                ("id", &id),
                ("title", &title),
                ("description", &description),
                ("archivedAt", &archived_at),
            ],
        ),
    }
}

/// Appends the result for the host's answer: owned summaries
/// ([`DocumentSummary`]) or borrowed ones.
pub(crate) fn write_result<T: Summary>(out: &mut Vec<u8>, frame: Frame<'_>, documents: &[T]) {
    super::write_text_result(out, frame, &Listing::new(documents), false);
}

/// Appends the result for a repository the caller may not see
/// (LIFECYCLE.md §5): said, not hidden behind an empty list.
pub(crate) fn write_forbidden(out: &mut Vec<u8>, frame: Frame<'_>) {
    super::write_code(out, frame, Code::new("repository-forbidden"));
}

#[cfg(test)]
mod tests {
    use super::{Listing, is_repository};
    use crate::DocumentSummaryRef;
    use crate::json::{Level, WriteJson};

    #[test]
    fn a_plain_listing_s_hint_is_its_size_in_a_string_one_comma_over() {
        let summaries: Vec<DocumentSummaryRef<'_>> = ["a", "bb", ""]
            .iter()
            .map(|title| DocumentSummaryRef {
                id: "01J",
                title,
                ..DocumentSummaryRef::default()
            })
            .chain([DocumentSummaryRef {
                id: "01K",
                title: "d",
                description: Some("A line"),
                archived_at: Some("2026-08-23T12:34:56.000Z"),
            }])
            .collect();
        for count in 1..=summaries.len() {
            let listing = Listing::new(&summaries[..count]);
            let mut plain = Vec::new();
            let mut in_string = Vec::new();
            listing.write_json(&mut plain, Level::Plain);
            listing.write_json(&mut in_string, Level::InString);
            assert!(plain.len() < in_string.len());
            assert_eq!(listing.len_hint(), in_string.len() + 1);
        }
    }

    #[test]
    fn repositories_follow_the_advertised_pattern() {
        for valid in [
            "githubnext/chopin",
            "a/b",
            "a-b/.github",
            "a/...",
            &format!("{}/x", "a".repeat(39)),
        ] {
            assert!(is_repository(valid), "{valid}");
        }
        for invalid in [
            "./chopin",
            "owner/..",
            "owner/.",
            "-a/b",
            "a-/b",
            "a--b/c",
            "a/b/c",
            "a",
            "/b",
            "a/",
            &format!("{}/x", "a".repeat(40)),
            &format!("a/{}", "b".repeat(101)),
            "a/b c",
            "ä/b",
        ] {
            assert!(!is_repository(invalid), "{invalid}");
        }
    }
}
