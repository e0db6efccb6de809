//! Flow JSX tags (DIALECT.md §2.2–§2.3): reading tag lines across container
//! prefixes, lazy-line failures, and pairing opening and closing flow tags.

use super::scan::{is_space, line_bounds, list_marker, skip_ws, thematic_suffix};
use super::{Blocks, CKind, Container, OpenJsx, PendingClose};
use crate::ParseError;
use crate::jsx::{Cross, Tag, TagSrc, abbreviated, parse_tag};
use crate::text::line_ending_at;
use crate::tree::{Element, Kind};

/// Matches containers (see [`Blocks::match_line`]). `steps` counts work.
pub(super) fn match_containers(
    bytes: &[u8],
    stack: &[Container],
    barriers: &[usize],
    start: usize,
    end: usize,
    steps: &mut u64,
) -> (usize, usize, usize) {
    match_containers_from(bytes, stack, barriers, (1, start, 0), end, steps)
}

/// [`match_containers`] resuming at container `from.0`, position `from.1`
/// and column `from.2` (after an earlier match of the containers below).
pub(super) fn match_containers_from(
    bytes: &[u8],
    stack: &[Container],
    barriers: &[usize],
    from: (usize, usize, usize),
    end: usize,
    steps: &mut u64,
) -> (usize, usize, usize) {
    let (mut i, mut pos, mut col) = from;
    // End of the whitespace run containing `pos`: columns are absolute, so
    // the run end is the same wherever in the run we start (no rescans when
    // many list items each take a slice of one long indentation).
    let mut run: (usize, usize, usize) = (usize::MAX, 0, 0);
    while i < stack.len() {
        *steps += 1;
        let (p, pcol) = if pos >= run.0 && pos <= run.1 {
            (run.1, run.2)
        } else {
            let (p, pcol) = skip_ws(bytes, pos, col, end);
            run = (pos, p, pcol);
            (p, pcol)
        };
        if p >= end {
            // Blank rest: everything up to the next barrier continues without
            // consuming anything, so jump there instead of stepping.
            let next_barrier = barriers.partition_point(|&b| b < i);
            let stop = barriers.get(next_barrier).copied().unwrap_or(stack.len());
            i = stop;
            if i >= stack.len() {
                break;
            }
            match stack[i].kind {
                CKind::Item {
                    blank_start: true, ..
                } if stack[i].has_content => {
                    i += 1;
                    continue;
                }
                _ => return (i, pos, col),
            }
        }
        match stack[i].kind {
            CKind::Root | CKind::List { .. } => {}
            CKind::Quote => {
                if bytes[p] != b'>' {
                    return (i, pos, col);
                }
                pos = p + 1;
                col = pcol + 1;
                (pos, col) = quote_space(bytes, pos, col, end);
            }
            CKind::Item { .. } | CKind::Footnote => {
                let need = match stack[i].kind {
                    CKind::Item { indent, .. } => indent,
                    _ => 4,
                };
                if pcol - col < need {
                    // micromark-extension-gfm-footnote checks that the last
                    // token is a 4-column definition indent, so a definition
                    // nested right in another continues on the outer one's
                    // indent when it has none of its own
                    // (`[^1]:[^2]: a\n\n    b` keeps `b` in the inner one).
                    let on_outer_indent = matches!(stack[i].kind, CKind::Footnote)
                        && pcol == col
                        && stack[..i]
                            .iter()
                            .rev()
                            .find(|c| !matches!(c.kind, CKind::Root | CKind::List { .. }))
                            .is_some_and(|c| matches!(c.kind, CKind::Footnote));
                    if !on_outer_indent {
                        return (i, pos, col);
                    }
                    i += 1;
                    continue;
                }
                let target = col + need;
                while col < target && pos < end {
                    if bytes[pos] == b'\t' {
                        let stop = col + 4 - col % 4;
                        if stop > target {
                            // The tab reaches past this container's indent:
                            // its other columns are indentation for the
                            // containers inside (CommonMark's tab as
                            // virtual spaces), so it is left partly read.
                            col = target;
                            break;
                        }
                        col = stop;
                    } else {
                        col += 1;
                    }
                    pos += 1;
                }
            }
        }
        i += 1;
    }
    (stack.len(), pos, col)
}

/// The one space a block quote's `>` may take after it, at `pos` (column
/// `col`): a space, or one column of a tab, whose other columns are left
/// for the containers and content inside (CommonMark's tab as virtual
/// spaces, as for a list item's indent): the tab then stays unread.
fn quote_space(bytes: &[u8], pos: usize, col: usize, end: usize) -> (usize, usize) {
    match bytes.get(pos) {
        Some(b'\t') if pos < end && col % 4 != 3 => (pos, col + 1),
        Some(&b) if pos < end && is_space(b) => (pos + 1, col + 1),
        _ => (pos, col),
    }
}

/// Whether a block quote or a list item starts at `p`, after any
/// indentation (indented code is off, so any amount). micromark checks for
/// a new container on a line that does not continue the open ones: if one
/// starts, the open flow (a tag being read included) ends there, as at the
/// end of the plan; otherwise the line is lazy.
fn starts_container(bytes: &[u8], p: usize, end: usize) -> bool {
    let mut p = p;
    while p < end && is_space(bytes[p]) {
        p += 1;
    }
    match bytes.get(p) {
        Some(b'>') => p < end,
        Some(&c) => {
            list_marker(bytes, p, end).is_some()
                && !(matches!(c, b'-' | b'*') && thematic_suffix(bytes, p, end).0 == p)
        }
        None => false,
    }
}

/// Whether the line `[start, end)` holds nothing but the prefixes of the
/// open containers, as micromark reads a line with no content: a block
/// quote's `>` and one space, a list item's indentation up to its width (a
/// tab counting to its next stop; part of a tab left over is content).
fn only_prefixes(bytes: &[u8], stack: &[Container], start: usize, end: usize) -> bool {
    let (mut pos, mut col, mut partial) = (start, 0usize, false);
    for c in stack {
        match c.kind {
            CKind::Root | CKind::List { .. } => {}
            CKind::Quote => {
                let (p, pcol) = skip_ws(bytes, pos, col, end);
                if bytes.get(p) != Some(&b'>') || p >= end {
                    break;
                }
                (pos, col) = quote_space(bytes, p + 1, pcol + 1, end);
                partial = pos < end && bytes[pos] == b'\t';
            }
            CKind::Item { .. } | CKind::Footnote => {
                let target = col
                    + match c.kind {
                        CKind::Item { indent, .. } => indent,
                        _ => 4,
                    };
                while col < target && pos < end && is_space(bytes[pos]) {
                    let next = if bytes[pos] == b'\t' {
                        col + 4 - col % 4
                    } else {
                        col + 1
                    };
                    partial = next > target;
                    col = next;
                    pos += 1;
                }
            }
        }
    }
    pos >= end && !partial
}

/// Reads flow tags across lines: a line ending moves to the next line's
/// content after its container prefixes, or fails on a lazy line.
pub(super) struct FlowSrc<'a> {
    src: &'a str,
    pos: usize,
    eof_at: Option<usize>,
    stack: &'a [Container],
    barriers: &'a [usize],
    steps: u64,
    braces: &'a [(usize, usize)],
    line_starts: &'a [usize],
    /// Birth stamps of the open containers (see `Blocks::born`).
    born: &'a [u64],
    /// Per line start: how many containers matched, where, and the birth
    /// stamp of the last of them.
    line_memo: &'a mut std::collections::HashMap<usize, (usize, usize, usize, u64)>,
    /// Lines starting at or before this offset are known not to be lazy.
    known_ok: usize,
    /// Whether an expression was jumped over (and its text not kept).
    jumped: bool,
    /// Whether expression text is kept. An attempt that may turn out to be
    /// prose jumps over expressions without copying them; the tags of a line
    /// that is read as flow are then read once more with `capture`.
    capture: bool,
}

impl TagSrc for FlowSrc<'_> {
    fn jump_expression(&mut self) -> Option<Result<String, Cross>> {
        if self.capture || self.eof_at.is_some() {
            return None;
        }
        let i = self
            .braces
            .binary_search_by_key(&self.pos, |&(o, _)| o)
            .ok()?;
        let close = self.braces[i].1;
        let bytes = self.src.as_bytes();
        // Every line crossed must continue the open containers. Lines already
        // checked for this container stack are skipped, so repeated attempts
        // over one region stay linear.
        if self.stack.len() > 1 {
            let from = self.pos.max(self.known_ok);
            let first = self.line_starts.partition_point(|&s| s <= from);
            for &next in self.line_starts.get(first..).unwrap_or(&[]) {
                if next > close {
                    break;
                }
                self.steps += 1;
                let (line_end, _) = line_bounds(bytes, next);
                // Resume from what an earlier check of this line matched, if
                // the containers it matched are still the same ones (a later
                // attempt in the span only adds containers).
                let depth = self.stack.len();
                let from = match self.line_memo.get(&next) {
                    Some(&(d, pos, col, born))
                        if d <= depth && self.born.get(d - 1) == Some(&born) =>
                    {
                        (d, pos, col)
                    }
                    _ => (1, next, 0),
                };
                let (matched, pos, col) = match_containers_from(
                    bytes,
                    self.stack,
                    self.barriers,
                    from,
                    line_end,
                    &mut self.steps,
                );
                if matched < depth {
                    // A new container ends the tag's text: read on character
                    // by character to fail where that text ends.
                    if starts_container(bytes, pos, line_end) {
                        return None;
                    }
                    return Some(Err(Cross::Lazy(pos)));
                }
                self.line_memo
                    .insert(next, (depth, pos, col, self.born[depth - 1]));
                self.known_ok = next;
            }
        }
        self.steps += 1;
        self.pos = close + 1;
        self.jumped = true;
        Some(Ok(String::new()))
    }

    fn line_ending(&self) -> &str {
        line_ending_at(self.src, self.pos)
    }

    /// micromark drops up to two whitespace codes after a line ending in an
    /// expression (micromark-factory-mdx-expression's `indentSize`); a tab
    /// is one code followed by virtual spaces up to its stop, and the
    /// virtual spaces left over stay in the value as spaces.
    fn skip_expression_indent(&mut self, out: &mut String) {
        if self.eof_at.is_some() {
            return;
        }
        let bytes = self.src.as_bytes();
        let line_start = bytes[..self.pos]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        let mut col = bytes[line_start..self.pos].iter().fold(0, |col, &b| {
            if b == b'\t' {
                col + 4 - col % 4
            } else {
                col + 1
            }
        });
        self.steps += (self.pos - line_start) as u64;
        let mut codes = 0;
        while codes < 2 {
            match bytes.get(self.pos) {
                Some(b' ') => {
                    self.pos += 1;
                    col += 1;
                    codes += 1;
                }
                Some(b'\t') => {
                    let width = 4 - col % 4;
                    self.pos += 1;
                    col += width;
                    codes += 1;
                    let virtual_spaces = width - 1;
                    let dropped = virtual_spaces.min(2 - codes);
                    codes += dropped;
                    for _ in dropped..virtual_spaces {
                        out.push(' ');
                    }
                }
                _ => break,
            }
        }
    }

    fn peek(&self) -> Option<char> {
        if self.eof_at.is_some() {
            return None;
        }
        self.src.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn offset(&self) -> usize {
        self.eof_at.unwrap_or(self.pos)
    }

    fn mark(&self) -> usize {
        self.pos
    }

    fn since(&self, mark: usize) -> &str {
        self.src.get(mark..self.pos).unwrap_or("")
    }

    fn bump(&mut self) -> Result<(), Cross> {
        self.steps += 1;
        let bytes = self.src.as_bytes();
        match bytes.get(self.pos) {
            None => Ok(()),
            Some(b'\n' | b'\r') => {
                let (_, next) = line_bounds(bytes, self.pos);
                let (end, _) = line_bounds(bytes, next);
                let (matched, pos, _) =
                    match_containers(bytes, self.stack, self.barriers, next, end, &mut self.steps);
                if matched < self.stack.len() {
                    if starts_container(bytes, pos, end) {
                        self.eof_at = Some(next);
                        return Ok(());
                    }
                    return Err(Cross::Lazy(pos));
                }
                self.pos = pos;
                // A last line of container prefixes only is not part of the
                // text (DIALECT.md §2.4); whitespace beyond them is.
                if end >= bytes.len() && only_prefixes(bytes, self.stack, next, end) {
                    self.eof_at = Some(next);
                }
                Ok(())
            }
            Some(_) => {
                let len = self.peek().map_or(1, char::len_utf8);
                self.pos += len;
                Ok(())
            }
        }
    }
}

impl Blocks<'_> {
    /// Reads the tags of a flow tag line at `p`: `Ok(None)` when the line is
    /// not only tags and whitespace.
    pub(super) fn read_flow_tags(
        &mut self,
        p: usize,
    ) -> Result<Option<(Vec<Tag>, usize)>, ParseError> {
        let (attempt, jumped) = self.read_flow_tags_with(p, false)?;
        if attempt.is_none() || !jumped {
            return Ok(attempt);
        }
        Ok(self.read_flow_tags_with(p, true)?.0)
    }

    /// One reading of a flow tag line; also says whether an expression was
    /// jumped over (its text then needs a capturing re-read).
    #[allow(clippy::type_complexity)]
    fn read_flow_tags_with(
        &mut self,
        p: usize,
        capture: bool,
    ) -> Result<(Option<(Vec<Tag>, usize)>, bool), ParseError> {
        let bytes = self.src.as_bytes();
        let mut src = FlowSrc {
            src: self.src,
            pos: p,
            eof_at: None,
            stack: &self.stack,
            barriers: &self.barriers,
            steps: 0,
            braces: &self.braces,
            line_starts: self.lines.starts(),
            born: &self.born,
            line_memo: &mut self.line_memo,
            known_ok: if self.known_ok.0 == self.stack_version {
                self.known_ok.1
            } else {
                0
            },
            capture,
            jumped: false,
        };
        let mut tags = Vec::new();
        let result = loop {
            // A `<` followed by a space, a tab or a line ending is literal.
            if matches!(bytes.get(src.pos + 1), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                break None;
            }
            let tag = match parse_tag(&mut src) {
                Ok(tag) => tag,
                Err(e) => {
                    self.steps += src.steps;
                    return Err(e);
                }
            };
            tags.push(tag);
            while matches!(bytes.get(src.pos), Some(b' ' | b'\t')) && src.eof_at.is_none() {
                src.pos += 1;
                src.steps += 1;
            }
            match (src.eof_at, bytes.get(src.pos)) {
                (Some(_), _) | (None, None) => break Some(bytes.len()),
                (None, Some(b'\n' | b'\r')) => break Some(line_bounds(bytes, src.pos).1),
                (None, Some(b'<')) => continue,
                _ => break None,
            }
        };
        let stop = src.pos;
        self.steps += src.steps;
        self.known_ok = (self.stack_version, src.known_ok);
        if result.is_none() {
            self.concrete_until = self.concrete_until.max(stop);
        }
        Ok((result.map(|resume| (tags, resume)), src.jumped))
    }

    /// Handles a line of flow tags; returns where the next line starts.
    pub(super) fn flow_tags(&mut self, p: usize) -> Result<Option<usize>, ParseError> {
        let Some((tags, resume)) = self.read_flow_tags(p)? else {
            return Ok(None);
        };
        Ok(Some(self.add_flow_tags(p, tags, resume)))
    }

    /// Adds the tags of a flow tag line read at `p`; returns `resume`.
    pub(super) fn add_flow_tags(&mut self, p: usize, tags: Vec<Tag>, resume: usize) -> usize {
        self.close_leaf();
        // A tag line is not a list item: it ends a list left open.
        if matches!(self.stack.last().map(|c| c.kind), Some(CKind::List { .. })) {
            self.pop_container(p);
        }
        for tag in tags {
            self.flow_tag(tag);
        }
        resume
    }

    fn flow_tag(&mut self, tag: Tag) {
        if tag.closing {
            let Some((ci, open)) = self.tags.last().cloned() else {
                self.tree_err(
                    tag.slash,
                    tag.slash,
                    "Unexpected closing slash `/` in tag, expected an open tag first".to_owned(),
                );
                return;
            };
            if let Some(a) = tag.first_attr {
                self.tree_err(
                    a,
                    a,
                    "Unexpected attribute in closing tag, expected the end of the tag".to_owned(),
                );
                return;
            }
            if tag.self_closing {
                self.tree_err(
                    tag.self_slash,
                    tag.self_slash,
                    "Unexpected self-closing slash `/` in closing tag, expected the end of the tag"
                        .to_owned(),
                );
                return;
            }
            if open.name != tag.name {
                let reason = format!(
                    "Unexpected closing tag `{}`, expected corresponding closing tag for `{}` ({})",
                    abbreviated(&tag.name, true),
                    abbreviated(&open.name, false),
                    self.span(open.start, open.end)
                );
                self.tree_err(tag.end, tag.start, reason);
                return;
            }
            if ci + 1 != self.stack.len() {
                // The message names where the innermost container ends,
                // which is known once it closes (see `pop_container`).
                self.pending.push(PendingClose {
                    container: self.stack.len() - 1,
                    event: tag.end,
                    offset: tag.start,
                    closing: abbreviated(&tag.name, true),
                });
                return;
            }
            self.tags.pop();
            return;
        }
        let element = Element {
            name: tag.name.clone(),
            attrs: tag.attrs,
            name_end: tag.name_end,
        };
        let node = self.add_block(Kind::FlowElement(Box::new(element)), tag.start);
        if !tag.self_closing {
            let open = OpenJsx {
                node,
                name: tag.name,
                start: tag.start,
                end: tag.end,
            };
            let index = self.stack.len() - 1;
            self.tags.push((index, open));
        }
    }
}
