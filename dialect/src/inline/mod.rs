//! Inline content (DIALECT.md §2.1): code spans, math, emphasis, links, JSX
//! text tags, escapes and character references.
//!
//! Linear time, by construction:
//! * code spans and inline math find their closing run through an index of run
//!   positions per run length, whose cursors only move forward;
//! * emphasis uses the CommonMark delimiter algorithm with a linked delimiter
//!   list and the `openers_bottom` bounds, so no opener is scanned twice in vain;
//! * brackets: a link deactivates earlier link openers through one barrier
//!   index, labels are capped at 999 characters, and a title scan that found no
//!   closing quote is remembered so it is never repeated.

use std::collections::HashSet;

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

mod convert;
mod emphasis;
mod links;

use super::ParseError;
use super::jsx::{Cross, Tag, TagSrc, match_reference, parse_tag};
use super::leaf::{Leaf, TreeError};
use super::location::LineIndex;
use super::tree::{Kind, Tree};

const NONE: usize = usize::MAX;

/// Bytes that may start an inline construct (everything else is plain text).
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let specials = b"\\&\n`$*_~[!]<";
    let mut k = 0;
    while k < specials.len() {
        t[specials[k] as usize] = true;
        k += 1;
    }
    t
};

#[derive(Debug)]
enum IKind {
    Text(String),
    /// A `[` or `![` that may open a link; text unless a link forms.
    Bracket(&'static str),
    Delim {
        ch: u8,
        count: usize,
    },
    Leaf(Kind),
    Container(Kind),
    Open(Tag),
    Close(Tag),
    SelfClosing(Tag),
}

#[derive(Debug)]
struct INode {
    kind: IKind,
    start: usize,
    prev: usize,
    next: usize,
    first: usize,
    last: usize,
}

#[derive(Debug, Clone, Copy)]
struct Delim {
    node: usize,
    ch: u8,
    can_open: bool,
    can_close: bool,
    prev: usize,
    next: usize,
}

#[derive(Debug, Clone, Copy)]
struct Bracket {
    node: usize,
    image: bool,
    /// Length of the delimiter list when the bracket was pushed.
    delim_bottom: usize,
    /// Buffer position right after the `[`.
    after: usize,
}

/// Run positions for one marker character, per run length.
struct RunIndex {
    runs: std::collections::HashMap<usize, (Vec<usize>, usize)>,
}

impl RunIndex {
    fn new(buf: &[u8], ch: u8) -> Self {
        let mut runs: std::collections::HashMap<usize, (Vec<usize>, usize)> = Default::default();
        let mut i = 0;
        while i < buf.len() {
            if buf[i] == ch {
                let s = i;
                while i < buf.len() && buf[i] == ch {
                    i += 1;
                }
                runs.entry(i - s).or_default().0.push(s);
            } else {
                i += 1;
            }
        }
        RunIndex { runs }
    }

    /// The first run of exactly `len` starting at or after `from`.
    fn next(&mut self, len: usize, from: usize, steps: &mut u64) -> Option<usize> {
        let (list, cursor) = self.runs.get_mut(&len)?;
        while *cursor < list.len() && list[*cursor] < from {
            *cursor += 1;
            *steps += 1;
        }
        list.get(*cursor).copied()
    }
}

/// Shared, read-only inputs of the inline phase.
pub(crate) struct Context<'a> {
    pub src: &'a str,
    pub lines: &'a LineIndex<'a>,
    pub definitions: HashSet<String>,
    pub footnotes: HashSet<String>,
}

struct Parser<'a, 'c> {
    ctx: &'c Context<'a>,
    buf: String,
    /// (buffer offset, source offset) of each segment start.
    map: Vec<(usize, usize)>,
    nodes: Vec<INode>,
    delims: Vec<Delim>,
    delim_top: usize,
    brackets: Vec<Bracket>,
    /// Brackets below this index are inactive link openers.
    link_barrier: usize,
    title_fail: [usize; 3],
    steps: u64,
    /// The first delimiter run the text holds (`*`, `_` or `~`), which
    /// decides micromark's order of resolvers for the leaf (0: none).
    first_marker: u8,
}

pub(crate) fn is_punct(c: char) -> bool {
    // micromark replaces NUL with U+FFFD (a symbol, So) before parsing; this
    // parser keeps the byte (offsets count it as one) but reads it as that.
    if c == '\0' {
        return true;
    }
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Punctuation | GeneralCategoryGroup::Symbol
    )
}

/// Text tags read from the paragraph buffer: line feeds are whitespace and
/// the end of the buffer is the end of input.
struct TextSrc<'p> {
    src: &'p str,
    buf: &'p str,
    map: &'p [(usize, usize)],
    pos: usize,
    steps: u64,
}

fn map_offset(map: &[(usize, usize)], b: usize) -> usize {
    let i = map.partition_point(|&(bo, _)| bo <= b);
    let (bo, so) = map[i.saturating_sub(1)];
    so + (b - bo)
}

impl TagSrc for TextSrc<'_> {
    fn peek(&self) -> Option<char> {
        self.buf.get(self.pos..).and_then(|s| s.chars().next())
    }
    fn offset(&self) -> usize {
        map_offset(self.map, self.pos)
    }
    fn mark(&self) -> usize {
        self.pos
    }
    fn since(&self, mark: usize) -> &str {
        self.buf.get(mark..self.pos).unwrap_or("")
    }
    fn bump(&mut self) -> Result<(), Cross> {
        self.steps += 1;
        self.pos += self.peek().map_or(0, char::len_utf8);
        Ok(())
    }
    /// The buffer joins lines with `\n`; the plan's own ending follows the
    /// line's text (and any trailing whitespace the text left out).
    fn line_ending(&self) -> &str {
        let bytes = self.src.as_bytes();
        let mut at = self.offset();
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        crate::text::line_ending_at(self.src, at)
    }
}

/// Parses the inline content of one leaf into `tree`. Tokenizer failures are
/// fatal (`Err`); a tree-construction failure is returned for ordering.
/// Records a task item's state and, as mdast-util-gfm-task-list-item does,
/// removes the one whitespace character after the check from the head text
/// (moving the paragraph's start to the text when some remains).
fn mark_task(tree: &mut Tree, paragraph: usize, item: usize, checked: bool) {
    if let Kind::ListItem { checked: c } = &mut tree.nodes[item].kind {
        *c = Some(checked);
    }
    let Some(&head) = tree.nodes[paragraph].children.first() else {
        return;
    };
    let start = tree.nodes[head].start;
    if let Kind::Text { value } = &mut tree.nodes[head].kind {
        let first = value.chars().next().map_or(0, char::len_utf8);
        value.drain(..first);
        if value.is_empty() {
            tree.nodes[paragraph].children.remove(0);
        } else {
            tree.nodes[head].start = start + first;
            tree.nodes[paragraph].start = start + first;
        }
    }
}

/// Buffers reused from one leaf to the next (most leaves are short, so
/// allocating them per leaf would dominate).
#[derive(Default)]
pub(crate) struct Scratch {
    buf: String,
    map: Vec<(usize, usize)>,
    nodes: Vec<INode>,
    delims: Vec<Delim>,
    brackets: Vec<Bracket>,
}

pub(crate) fn parse_leaf(
    ctx: &Context<'_>,
    leaf: &Leaf,
    tree: &mut Tree,
    steps: &mut u64,
    scratch: &mut Scratch,
) -> Result<Option<TreeError>, ParseError> {
    let mut buf = std::mem::take(&mut scratch.buf);
    buf.clear();
    let mut map = std::mem::take(&mut scratch.map);
    map.clear();
    for (i, &(s, e)) in leaf.segs.iter().enumerate() {
        if i > 0 {
            buf.push('\n');
        }
        map.push((buf.len(), s));
        buf.push_str(ctx.src.get(s..e).unwrap_or(""));
    }
    let mut p = Parser {
        ctx,
        buf,
        map,
        nodes: std::mem::take(&mut scratch.nodes),
        delims: std::mem::take(&mut scratch.delims),
        delim_top: NONE,
        brackets: std::mem::take(&mut scratch.brackets),
        link_barrier: 0,
        title_fail: [usize::MAX; 3],
        steps: 0,
        first_marker: 0,
    };
    p.nodes.clear();
    p.delims.clear();
    p.brackets.clear();
    let root = p.new_node(IKind::Container(Kind::Root), 0);
    // A task check (`[ ]`, `[x]`, `[X]`) opens the first content of a list
    // item when a line ending follows, or whitespace and then anything.
    let task = leaf.task_item.and_then(|item| {
        let b = p.buf.as_bytes();
        let check = b.len() > 3
            && b[0] == b'['
            && b[2] == b']'
            && matches!(b[1], b' ' | b'\t' | b'x' | b'X');
        let after = b.get(3).copied();
        let rest_non_ws = b.iter().skip(3).any(|&c| !matches!(c, b' ' | b'\t'));
        let ok =
            check && (after == Some(b'\n') || (matches!(after, Some(b' ' | b'\t')) && rest_non_ws));
        ok.then(|| (item, matches!(b[1], b'x' | b'X')))
    });
    let result = p.run(root, if task.is_some() { 3 } else { 0 });
    *steps += p.steps;
    let result = result.map(|()| {
        // micromark runs its resolvers in the order the text first used
        // them.
        let order = if p.first_marker == b'~' {
            emphasis::INSIDE_SPAN
        } else {
            [
                emphasis::Resolver::Attention,
                emphasis::Resolver::Strikethrough,
            ]
        };
        p.process_emphasis(0, order);
        let error = p.convert(root, leaf, tree);
        if let Some((item, checked)) = task {
            mark_task(tree, leaf.node, item, checked);
        }
        error
    });
    scratch.buf = p.buf;
    scratch.map = p.map;
    scratch.nodes = p.nodes;
    scratch.delims = p.delims;
    scratch.brackets = p.brackets;
    result
}

impl Parser<'_, '_> {
    fn new_node(&mut self, kind: IKind, start: usize) -> usize {
        self.nodes.push(INode {
            kind,
            start,
            prev: NONE,
            next: NONE,
            first: NONE,
            last: NONE,
        });
        self.nodes.len() - 1
    }

    fn append(&mut self, parent: usize, kind: IKind, start: usize) -> usize {
        let id = self.new_node(kind, start);
        let last = self.nodes[parent].last;
        self.nodes[id].prev = last;
        if last == NONE {
            self.nodes[parent].first = id;
        } else {
            self.nodes[last].next = id;
        }
        self.nodes[parent].last = id;
        id
    }

    fn text(&mut self, parent: usize, s: &str, start: usize) {
        let last = self.nodes[parent].last;
        if last != NONE {
            if let IKind::Text(t) = &mut self.nodes[last].kind {
                t.push_str(s);
                return;
            }
        }
        self.append(parent, IKind::Text(s.to_owned()), start);
    }

    /// Appends `buf[s..e]` as text, merging with a preceding text node.
    fn text_range(&mut self, parent: usize, s: usize, e: usize) {
        let last = self.nodes[parent].last;
        if last != NONE {
            if let IKind::Text(t) = &mut self.nodes[last].kind {
                t.push_str(&self.buf[s..e]);
                return;
            }
        }
        let text = self.buf[s..e].to_owned();
        self.append(parent, IKind::Text(text), s);
    }

    fn src_offset(&self, b: usize) -> usize {
        map_offset(&self.map, b)
    }

    fn char_before(&self, i: usize) -> Option<char> {
        self.buf.get(..i).and_then(|s| s.chars().next_back())
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.buf.get(i..).and_then(|s| s.chars().next())
    }

    fn run(&mut self, root: usize, from: usize) -> Result<(), ParseError> {
        // Built on first use: most texts hold no backtick or dollar.
        let mut backticks: Option<RunIndex> = None;
        let mut dollars: Option<RunIndex> = None;
        let len = self.buf.len();
        // Every byte is looked at; jumps (code spans, tags) skip the per-byte
        // count below, so count them all once here.
        self.steps += len as u64;
        let mut i = from;
        let mut plain = from;
        macro_rules! flush {
            ($upto:expr) => {
                if plain < $upto {
                    self.text_range(root, plain, $upto);
                }
            };
        }
        while i < len {
            self.steps += 1;
            // Skip plain bytes in one go: only these can start a construct.
            let rest = &self.buf.as_bytes()[i..];
            let skip = rest
                .iter()
                .position(|&c| SPECIAL[usize::from(c)])
                .unwrap_or(rest.len());
            i += skip;
            if i >= len {
                break;
            }
            let b = self.buf.as_bytes()[i];
            match b {
                b'\\' => {
                    let next = self.buf.as_bytes().get(i + 1).copied();
                    if next == Some(b'\n') {
                        flush!(i);
                        self.append(root, IKind::Leaf(Kind::Break), i);
                        i += 2;
                        plain = i;
                    } else if next.is_some_and(|c| c.is_ascii_punctuation()) {
                        flush!(i);
                        let s = (next.unwrap_or(b'\\') as char).to_string();
                        // The text starts at the backslash, as in micromark.
                        self.text(root, &s, i);
                        i += 2;
                        plain = i;
                    } else {
                        i += 1;
                    }
                }
                b'&' => {
                    if let Some((l, v)) = match_reference(&self.buf.as_bytes()[i..]) {
                        flush!(i);
                        self.text(root, &v, i);
                        i += l;
                        plain = i;
                    } else {
                        i += 1;
                    }
                }
                b'\n' => {
                    // Trailing spaces: two or more make a hard break.
                    let mut s = i;
                    while s > plain && matches!(self.buf.as_bytes()[s - 1], b' ' | b'\t') {
                        s -= 1;
                    }
                    let spaces = self.buf.as_bytes()[s..i]
                        .iter()
                        .filter(|&&c| c == b' ')
                        .count();
                    flush!(s);
                    if spaces >= 2 && self.buf.as_bytes()[s..i].iter().all(|&c| c == b' ') {
                        self.append(root, IKind::Leaf(Kind::Break), s);
                    } else {
                        self.text(root, "\n", i);
                    }
                    i += 1;
                    plain = i;
                }
                b'`' | b'$' => {
                    let run = self.buf.as_bytes()[i..]
                        .iter()
                        .take_while(|&&c| c == b)
                        .count();
                    let slot = if b == b'`' {
                        &mut backticks
                    } else {
                        &mut dollars
                    };
                    let index = slot.get_or_insert_with(|| RunIndex::new(self.buf.as_bytes(), b));
                    let mut steps = 0;
                    let close = index.next(run, i + run, &mut steps);
                    self.steps += steps;
                    match close {
                        Some(c) => {
                            flush!(i);
                            let raw = &self.buf[i + run..c];
                            let mut value: String = raw.replace('\n', " ");
                            if value.len() >= 2
                                && value.starts_with(' ')
                                && value.ends_with(' ')
                                && !value.bytes().all(|c| c == b' ')
                            {
                                value = value[1..value.len() - 1].to_owned();
                            }
                            let kind = if b == b'`' {
                                Kind::InlineCode { value }
                            } else {
                                Kind::InlineMath { value }
                            };
                            self.append(root, IKind::Leaf(kind), i);
                            i = c + run;
                            plain = i;
                        }
                        None => i += run,
                    }
                }
                b'*' | b'_' | b'~' => {
                    let run = self.buf.as_bytes()[i..]
                        .iter()
                        .take_while(|&&c| c == b)
                        .count();
                    if b == b'~' && run != 2 {
                        i += run;
                        continue;
                    }
                    if self.first_marker == 0 {
                        self.first_marker = b;
                    }
                    flush!(i);
                    self.push_delim(root, b, i, run);
                    i += run;
                    plain = i;
                }
                b'[' => {
                    if self.buf.as_bytes().get(i + 1) == Some(&b'^') {
                        if let Some(end) = self.footnote_call(i) {
                            flush!(i);
                            let label = self.buf[i + 2..end - 1].to_owned();
                            // A link may hold a footnote call (micromark; see
                            // the module docs for markdown-rs).
                            self.append(root, IKind::Leaf(Kind::FootnoteReference { label }), i);
                            i = end;
                            plain = i;
                            continue;
                        }
                    }
                    flush!(i);
                    let node = self.append(root, IKind::Bracket("["), i);
                    self.brackets.push(Bracket {
                        node,
                        image: false,
                        delim_bottom: self.delims.len(),
                        after: i + 1,
                    });
                    i += 1;
                    plain = i;
                }
                b'!' if self.buf.as_bytes().get(i + 1) == Some(&b'[') => {
                    flush!(i);
                    let node = self.append(root, IKind::Bracket("!["), i);
                    self.brackets.push(Bracket {
                        node,
                        image: true,
                        delim_bottom: self.delims.len(),
                        after: i + 2,
                    });
                    i += 2;
                    plain = i;
                }
                b']' => {
                    flush!(i);
                    i = self.close_bracket(root, i);
                    plain = i;
                }
                b'<' => {
                    let next = self.buf.as_bytes().get(i + 1).copied();
                    if matches!(next, Some(b' ' | b'\t' | b'\n')) {
                        i += 1;
                        continue;
                    }
                    flush!(i);
                    let mut src = TextSrc {
                        src: self.ctx.src,
                        buf: &self.buf,
                        map: &self.map,
                        pos: i,
                        steps: 0,
                    };
                    let tag = parse_tag(&mut src)?;
                    let after = src.pos;
                    self.steps += src.steps;
                    let kind = if tag.closing {
                        IKind::Close(tag)
                    } else if tag.self_closing {
                        IKind::SelfClosing(tag)
                    } else {
                        IKind::Open(tag)
                    };
                    self.append(root, kind, i);
                    i = after;
                    plain = i;
                }
                _ => i += 1,
            }
        }
        // Trailing whitespace of the text is not content.
        let mut end = len;
        while end > plain && matches!(self.buf.as_bytes()[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        flush!(end);
        Ok(())
    }
}
