//! A tool result's writing: its frame in either era, the text result
//! (`content` with the compact JSON, then `structuredContent`), the error
//! and absent results, and what a list or a rename writes a summary from.

use chopin_dialect::Issue;

use super::{DocumentSummary, DocumentSummaryRef};
use crate::json::{self, Compact, Level, WriteJson};
use crate::jsonrpc::TYPICAL_REPLY;

/// How a tool result object is framed: the tools write their members once,
/// and the era adds what it requires around them (MODERN.md §4).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Frame<'a> {
    /// `{<members>}`.
    Legacy,
    /// `{"resultType":"complete",<members>,"_meta":{<server_info>}}`.
    Modern {
        /// `"io.modelcontextprotocol/serverInfo":{…}`.
        server_info: &'a [u8],
    },
}

impl Frame<'_> {
    /// Opens a result object.
    pub(crate) fn open(self, out: &mut Vec<u8>) {
        match self {
            Frame::Legacy => out.push(b'{'),
            Frame::Modern { .. } => out.extend_from_slice(b"{\"resultType\":\"complete\","),
        }
    }

    /// Closes a result object opened by [`open`](Self::open).
    #[inline(always)]
    pub(crate) fn close(self, out: &mut Vec<u8>) {
        if let Frame::Modern { server_info } = self {
            out.extend_from_slice(b",\"_meta\":{");
            out.extend_from_slice(server_info);
            out.push(b'}');
        }
        out.push(b'}');
    }
}

/// Appends `{content:[{type:"text",text:<compact JSON of v>}],structuredContent:v}`,
/// with `"isError":true` after them when `is_error`. `v` is written twice,
/// straight into the reply: once inside the text string, once as JSON.
pub(crate) fn write_text_result(
    out: &mut Vec<u8>,
    frame: Frame<'_>,
    value: &(impl WriteJson + ?Sized),
    is_error: bool,
) {
    reserve_for(out, value.len_hint());
    // The frame's opening (as `Frame::open` writes it) and the text
    // content's, stored as one piece. Each arm's length is known when it
    // compiles, so it is stored in place (a slice chosen at run time was a
    // call to `memcpy`).
    match frame {
        Frame::Legacy => out.extend_from_slice(LEGACY_TEXT.as_bytes()),
        Frame::Modern { .. } => out.extend_from_slice(MODERN_TEXT.as_bytes()),
    }
    value.write_twice(out);
    if is_error {
        out.extend_from_slice(b",\"isError\":true");
    }
    frame.close(out);
}

/// A text result's opening in each era, up to its text's contents.
pub(super) const LEGACY_TEXT: &str = r#"{"content":[{"type":"text","text":""#;
pub(super) const MODERN_TEXT: &str =
    r#"{"resultType":"complete","content":[{"type":"text","text":""#;

/// Room for a text result whose value's [`WriteJson::len_hint`] is `hint`:
/// a small result fits the reply's typical room, or grows it once; a large
/// one is given room for both copies and the frame at once, not a
/// doubling at a time.
#[inline]
pub(super) fn reserve_for(out: &mut Vec<u8>, hint: usize) {
    if hint > TYPICAL_REPLY / 2 {
        out.reserve(2 * hint + 256);
    }
}

/// Appends a tool execution error: `{content:[{type:"text",text:<message>}],isError:true}`
/// (the modern answer to invalid arguments).
pub(crate) fn write_error_text(out: &mut Vec<u8>, frame: Frame<'_>, message: &str) {
    frame.open(out);
    out.extend_from_slice(b"\"content\":[{\"type\":\"text\",\"text\":");
    json::write_string(out, message);
    out.extend_from_slice(b"}],\"isError\":true");
    frame.close(out);
}

/// What a list is written from: an owned summary or a borrowed one, read
/// through one borrowed shape.
pub(crate) trait Summary {
    fn parts(&self) -> DocumentSummaryRef<'_>;

    /// The id and the title alone (what most lists hold).
    fn id_title(&self) -> (&str, &str);

    /// Whether it has a description or an archive time.
    fn has_extras(&self) -> bool;
}

impl Summary for DocumentSummary {
    fn parts(&self) -> DocumentSummaryRef<'_> {
        DocumentSummaryRef {
            id: &self.id,
            title: &self.title,
            description: self.description.as_deref(),
            archived_at: self.archived_at.as_deref(),
        }
    }

    #[inline]
    fn id_title(&self) -> (&str, &str) {
        (&self.id, &self.title)
    }

    #[inline]
    fn has_extras(&self) -> bool {
        self.description.is_some() | self.archived_at.is_some()
    }
}

impl DocumentSummary {
    /// Calls `f` with the result's members, `description` only when there
    /// is one (never `archivedAt`).
    fn with_members<R>(&self, f: impl FnOnce(&[(&str, &dyn WriteJson)]) -> R) -> R {
        match &self.description {
            None => f(&[("id", &self.id), ("title", &self.title)]),
            Some(description) => f(&[
                ("id", &self.id),
                ("title", &self.title),
                ("description", description),
            ]),
        }
    }
}

/// The result of a rename or a restore, `{id, title, description?}`
/// (LIFECYCLE.md §3, §4; SURFACE.md §1.5).
impl WriteJson for DocumentSummary {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.with_members(|members| json::object(out, level, members));
    }

    fn len_hint(&self) -> usize {
        self.with_members(json::object_len_hint)
    }
}

impl Summary for DocumentSummaryRef<'_> {
    fn parts(&self) -> DocumentSummaryRef<'_> {
        *self
    }

    #[inline]
    fn id_title(&self) -> (&str, &str) {
        (self.id, self.title)
    }

    #[inline]
    fn has_extras(&self) -> bool {
        self.description.is_some() | self.archived_at.is_some()
    }
}

/// A member's share of a [`WriteJson::len_hint`], as
/// [`json::object_len_hint`] counts it.
#[inline]
pub(super) fn member_hint(name: &str, value: &impl WriteJson) -> usize {
    name.len() + 6 + value.len_hint()
}

/// Appends the result for a plan with issues, `text({"issues":[…]},
/// error)` (DIALECT.md §11.5): the host was not asked.
pub(crate) fn write_issues(out: &mut Vec<u8>, frame: Frame<'_>, issues: &[Issue]) {
    write_text_result(
        out,
        frame,
        &Compact(chopin_dialect::issues_json(issues)),
        true,
    );
}

/// An error result's value, `{"code":…}`, with the current revision after
/// the code for a revision conflict (LIFECYCLE.md §1).
pub(crate) struct Code {
    pub code: &'static str,
    pub revision: Option<u64>,
}

impl Code {
    /// `{"code":code}`.
    pub(crate) const fn new(code: &'static str) -> Code {
        Code {
            code,
            revision: None,
        }
    }

    fn with_members<R>(&self, f: impl FnOnce(&[(&str, &dyn WriteJson)]) -> R) -> R {
        match &self.revision {
            None => f(&[("code", &self.code)]),
            Some(revision) => f(&[("code", &self.code), ("revision", revision)]),
        }
    }
}

impl WriteJson for Code {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        self.with_members(|members| json::object(out, level, members));
    }

    fn len_hint(&self) -> usize {
        self.with_members(json::object_len_hint)
    }
}

/// Appends `text(code, error)`.
pub(crate) fn write_code(out: &mut Vec<u8>, frame: Frame<'_>, code: Code) {
    write_text_result(out, frame, &code, true);
}

/// Appends the absence result, `{content:[],isError:true}`: a missing and an
/// inaccessible document look the same.
pub(crate) fn write_absent(out: &mut Vec<u8>, frame: Frame<'_>) {
    frame.open(out);
    out.extend_from_slice(br#""content":[],"isError":true"#);
    frame.close(out);
}
