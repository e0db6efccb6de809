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

use super::block::{Leaf, TreeError, abbreviated, normalize_label};
use super::jsx::{Cross, Tag, TagSrc, match_reference, parse_tag};
use super::location::LineIndex;
use super::tree::{Element, Kind, NodeId, Tree};
use super::{ParseError, is_js_whitespace};

const NONE: usize = usize::MAX;

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
}

pub(crate) fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Punctuation | GeneralCategoryGroup::Symbol
    )
}

/// Decodes backslash escapes and character references (link destinations,
/// code info strings).
pub(crate) fn decode_text(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_punctuation() {
            out.push_str(&raw[plain..i]);
            out.push(bytes[i + 1] as char);
            i += 2;
            plain = i;
        } else if bytes[i] == b'&' {
            if let Some((len, v)) = match_reference(&bytes[i..]) {
                out.push_str(&raw[plain..i]);
                out.push_str(&v);
                i += len;
                plain = i;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&raw[plain..]);
    out
}

/// Text tags read from the paragraph buffer: line feeds are whitespace and
/// the end of the buffer is the end of input.
struct TextSrc<'p> {
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
    fn bump(&mut self) -> Result<(), Cross> {
        self.steps += 1;
        self.pos += self.peek().map_or(0, char::len_utf8);
        Ok(())
    }
}

/// Parses the inline content of one leaf into `tree`. Tokenizer failures are
/// fatal (`Err`); a tree-construction failure is returned for ordering.
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
    };
    p.nodes.clear();
    p.delims.clear();
    p.brackets.clear();
    let root = p.new_node(IKind::Container(Kind::Root), 0);
    let result = p.run(root);
    *steps += p.steps;
    let result = result.map(|()| {
        p.process_emphasis(0);
        p.convert(root, leaf, tree)
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

    fn run(&mut self, root: usize) -> Result<(), ParseError> {
        // Built on first use: most texts hold no backtick or dollar.
        let mut backticks: Option<RunIndex> = None;
        let mut dollars: Option<RunIndex> = None;
        let len = self.buf.len();
        // Every byte is looked at; jumps (code spans, tags) skip the per-byte
        // count below, so count them all once here.
        self.steps += len as u64;
        let mut i = 0;
        let mut plain = 0;
        macro_rules! flush {
            ($upto:expr) => {
                if plain < $upto {
                    self.text_range(root, plain, $upto);
                }
            };
        }
        while i < len {
            self.steps += 1;
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
                        // The text starts at the escaped character, as in mdast.
                        self.text(root, &s, i + 1);
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

    fn footnote_call(&mut self, i: usize) -> Option<usize> {
        let bytes = self.buf.as_bytes();
        let mut j = i + 2;
        let limit = (i + 2 + 999 * 4).min(bytes.len());
        while j < limit {
            self.steps += 1;
            match bytes[j] {
                b']' => {
                    if j == i + 2 {
                        return None;
                    }
                    let label = normalize_label(&self.buf[i + 2..j]);
                    return self.ctx.footnotes.contains(&label).then_some(j + 1);
                }
                b'\\' if j + 1 < bytes.len() && matches!(bytes[j + 1], b'[' | b']' | b'\\') => {
                    j += 2
                }
                b'[' | b' ' | b'\t' | b'\n' | b'\r' => return None,
                _ => j += 1,
            }
        }
        None
    }

    fn push_delim(&mut self, root: usize, ch: u8, i: usize, run: usize) {
        let before = self.char_before(i);
        let after = self.char_at(i + run);
        let ws = |c: Option<char>| c.is_none_or(is_js_whitespace);
        let punct = |c: Option<char>| c.is_some_and(is_punct);
        let left = !ws(after) && (!punct(after) || ws(before) || punct(before));
        let right = !ws(before) && (!punct(before) || ws(after) || punct(after));
        let (can_open, can_close) = if ch == b'_' {
            (
                left && (!right || punct(before)),
                right && (!left || punct(after)),
            )
        } else {
            (left, right)
        };
        let node = self.append(root, IKind::Delim { ch, count: run }, i);
        if !can_open && !can_close {
            return;
        }
        let id = self.delims.len();
        self.delims.push(Delim {
            node,
            ch,
            can_open,
            can_close,
            prev: self.delim_top,
            next: NONE,
        });
        if self.delim_top != NONE {
            self.delims[self.delim_top].next = id;
        }
        self.delim_top = id;
    }

    fn remove_delim(&mut self, d: usize) {
        let Delim { prev, next, .. } = self.delims[d];
        if prev != NONE {
            self.delims[prev].next = next;
        }
        if next != NONE {
            self.delims[next].prev = prev;
        } else {
            self.delim_top = prev;
        }
    }

    fn count(&self, d: usize) -> usize {
        match self.nodes[self.delims[d].node].kind {
            IKind::Delim { count, .. } => count,
            _ => 0,
        }
    }

    fn set_count(&mut self, d: usize, n: usize) {
        if let IKind::Delim { count, .. } = &mut self.nodes[self.delims[d].node].kind {
            *count = n;
        }
    }

    /// Unlinks the siblings strictly between `a` and `b` and makes them the
    /// children of the new container `c`, placed between `a` and `b`. O(1).
    fn wrap_between(&mut self, a: usize, b: usize, c: usize) {
        let first = self.nodes[a].next;
        if first != b {
            let last = self.nodes[b].prev;
            self.nodes[first].prev = NONE;
            self.nodes[last].next = NONE;
            self.nodes[c].first = first;
            self.nodes[c].last = last;
        }
        self.nodes[a].next = c;
        self.nodes[c].prev = a;
        self.nodes[c].next = b;
        self.nodes[b].prev = c;
    }

    /// Removes a node from its sibling list (`parent` is needed for the ends).
    fn unlink(&mut self, parent: usize, n: usize) {
        let INode { prev, next, .. } = self.nodes[n];
        if prev != NONE {
            self.nodes[prev].next = next;
        } else if self.nodes[parent].first == n {
            self.nodes[parent].first = next;
        }
        if next != NONE {
            self.nodes[next].prev = prev;
        } else if self.nodes[parent].last == n {
            self.nodes[parent].last = prev;
        }
    }

    /// The CommonMark emphasis algorithm over delimiters above `bottom`
    /// (an index into `delims`; everything with a smaller index is below).
    fn process_emphasis(&mut self, bottom: usize) {
        // openers_bottom per (character, closer can open, closer length % 3).
        let mut openers_bottom = [[bottom; 6]; 3];
        let key = |ch: u8| match ch {
            b'*' => 0,
            b'_' => 1,
            _ => 2,
        };
        // First delimiter at or above `bottom`.
        let mut closer = self.delim_top;
        if closer == NONE {
            return;
        }
        while self.delims[closer].prev != NONE && self.delims[closer].prev >= bottom {
            closer = self.delims[closer].prev;
            self.steps += 1;
        }
        if closer < bottom {
            return;
        }
        // The root is node 0; delimiter nodes of this pass share one parent
        // list at a time (the root or a link being built).
        while closer != NONE {
            self.steps += 1;
            let c = self.delims[closer];
            if !c.can_close {
                closer = c.next;
                continue;
            }
            // micromark applies the rule of three to the current run sizes.
            let cc = self.count(closer);
            let slot = (cc % 3) + if c.can_open { 3 } else { 0 };
            let ob_value = openers_bottom[key(c.ch)][slot];
            let mut opener = c.prev;
            let mut found = NONE;
            while opener != NONE && opener >= bottom && opener >= ob_value {
                self.steps += 1;
                let o = self.delims[opener];
                if o.can_open && o.ch == c.ch {
                    let oc = self.count(opener);
                    let odd = c.ch != b'~'
                        && (o.can_close || c.can_open)
                        && cc % 3 != 0
                        && (oc + cc) % 3 == 0;
                    if !odd {
                        found = opener;
                        break;
                    }
                }
                opener = o.prev;
            }
            if found == NONE {
                openers_bottom[key(c.ch)][slot] = c.prev.wrapping_add(1).min(closer);
                let next = c.next;
                if !c.can_open {
                    self.remove_delim(closer);
                }
                closer = next;
                continue;
            }
            let o = self.delims[found];
            let oc = self.count(found);
            let cc = self.count(closer);
            // `~~` runs are always 2; `*`/`_` use 2 when both sides have 2.
            let used = if c.ch == b'~' || (oc >= 2 && cc >= 2) {
                2
            } else {
                1
            };
            let kind = match (c.ch, used) {
                (b'~', _) => Kind::Delete,
                (_, 2) => Kind::Strong,
                _ => Kind::Emphasis,
            };
            self.set_count(found, oc - used);
            self.set_count(closer, cc - used);
            let start = self.nodes[o.node].start + (oc - used);
            let em = self.new_node(IKind::Container(kind), start);
            self.wrap_between(o.node, c.node, em);
            self.nodes[c.node].start += used;
            // Delimiters between opener and closer are gone.
            self.delims[found].next = closer;
            self.delims[closer].prev = found;
            if oc - used == 0 {
                self.remove_delim(found);
            } else {
                // The opener shrank, so the rule of three may now let it
                // match closers that skipped it. Everything between it and
                // this closer is gone, so re-exposing it costs one step.
                for row in &mut openers_bottom {
                    for b in row.iter_mut() {
                        *b = (*b).min(found);
                    }
                }
            }
            if cc - used == 0 {
                let next = self.delims[closer].next;
                self.remove_delim(closer);
                closer = next;
            }
        }
        // Remove everything above bottom.
        while self.delim_top != NONE && self.delim_top >= bottom {
            self.steps += 1;
            let t = self.delim_top;
            self.delim_top = self.delims[t].prev;
            if self.delim_top != NONE {
                self.delims[self.delim_top].next = NONE;
            }
        }
    }

    /// Handles `]` at `i`; returns where scanning resumes.
    fn close_bracket(&mut self, root: usize, i: usize) -> usize {
        let Some(br) = self.brackets.last().copied() else {
            self.text(root, "]", i);
            return i + 1;
        };
        let active = br.image || self.brackets.len() > self.link_barrier;
        if !active {
            self.brackets.pop();
            self.link_barrier = self.link_barrier.min(self.brackets.len());
            self.text(root, "]", i);
            return i + 1;
        }
        let after = i + 1;
        let mut result: Option<(Kind, usize)> = None;
        if self.buf.as_bytes().get(after) == Some(&b'(') {
            if let Some((url, end)) = self.resource(after + 1) {
                result = Some((
                    if br.image {
                        Kind::Image { url }
                    } else {
                        Kind::Link { url }
                    },
                    end,
                ));
            }
        }
        if result.is_none() {
            let text_label = &self.buf[br.after..i];
            let reference = |s: &Self, label: &str| -> bool {
                label.chars().count() <= 999
                    && !label.trim().is_empty()
                    && s.ctx.definitions.contains(&normalize_label(label))
            };
            let kind = if br.image {
                Kind::ImageReference
            } else {
                Kind::LinkReference
            };
            if self.buf.as_bytes().get(after) == Some(&b'[') {
                let close = self.buf[after + 1..]
                    .find([']', '['])
                    .map(|k| after + 1 + k);
                if let Some(close) =
                    close.filter(|&k| self.buf.as_bytes()[k] == b']' && k - after <= 4000)
                {
                    let label = &self.buf[after + 1..close];
                    if label.is_empty() {
                        if reference(self, text_label) {
                            result = Some((kind, close + 1));
                        }
                    } else if reference(self, label) {
                        result = Some((kind, close + 1));
                    }
                }
            } else if text_label.len() <= 4000 && reference(self, text_label) {
                result = Some((kind, after));
            }
        }
        self.brackets.pop();
        self.link_barrier = self.link_barrier.min(self.brackets.len());
        let Some((kind, end)) = result else {
            self.text(root, "]", i);
            return i + 1;
        };
        let is_link = !br.image;
        self.process_emphasis(br.delim_bottom);
        let start = self.nodes[br.node].start;
        let closer = self.append(root, IKind::Text(String::new()), i);
        let link = self.new_node(IKind::Container(kind), start);
        self.wrap_between(br.node, closer, link);
        self.unlink(root, br.node);
        self.unlink(root, closer);
        if is_link {
            self.link_barrier = self.brackets.len();
        }
        end
    }

    fn skip_ws_one_line(&self, mut j: usize) -> usize {
        let bytes = self.buf.as_bytes();
        let mut newline = false;
        while j < bytes.len() {
            match bytes[j] {
                b' ' | b'\t' => j += 1,
                b'\n' if !newline => {
                    newline = true;
                    j += 1;
                }
                _ => break,
            }
        }
        j
    }

    /// An inline resource after `(` at `j`: the decoded URL and the end.
    fn resource(&mut self, j: usize) -> Option<(String, usize)> {
        let bytes = self.buf.as_bytes();
        let mut j = self.skip_ws_one_line(j);
        let url;
        if bytes.get(j) == Some(&b')') {
            return Some((String::new(), j + 1));
        }
        if bytes.get(j) == Some(&b'<') {
            let s = j + 1;
            let mut k = s;
            loop {
                self.steps += 1;
                match bytes.get(k) {
                    None | Some(b'\n' | b'<') => return None,
                    Some(b'>') => break,
                    Some(b'\\') if k + 1 < bytes.len() => k += 2,
                    _ => k += 1,
                }
            }
            url = decode_text(&self.buf[s..k]);
            j = k + 1;
        } else {
            let s = j;
            let mut depth = 0usize;
            let mut k = j;
            while k < bytes.len() {
                self.steps += 1;
                let c = bytes[k];
                if c == b'\\' && k + 1 < bytes.len() && bytes[k + 1].is_ascii_punctuation() {
                    k += 2;
                    continue;
                }
                if c <= b' ' || c == 0x7f {
                    break;
                }
                if c == b'(' {
                    depth += 1;
                    if depth > 32 {
                        return None;
                    }
                } else if c == b')' {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                k += 1;
            }
            if k == s || depth != 0 {
                return None;
            }
            url = decode_text(&self.buf[s..k]);
            j = k;
        }
        let before_title = j;
        j = self.skip_ws_one_line(j);
        let bytes = self.buf.as_bytes();
        if j > before_title && matches!(bytes.get(j), Some(b'"' | b'\'' | b'(')) {
            let open = bytes[j];
            let (close, slot) = match open {
                b'"' => (b'"', 0),
                b'\'' => (b'\'', 1),
                _ => (b')', 2),
            };
            if j >= self.title_fail[slot] {
                return None;
            }
            let mut k = j + 1;
            loop {
                self.steps += 1;
                match bytes.get(k) {
                    None => {
                        self.title_fail[slot] = j;
                        return None;
                    }
                    Some(&c) if c == close => break,
                    Some(b'(') if open == b'(' => return None,
                    Some(b'\\') if k + 1 < bytes.len() => k += 2,
                    _ => k += 1,
                }
            }
            j = self.skip_ws_one_line(k + 1);
        }
        if self.buf.as_bytes().get(j) == Some(&b')') {
            Some((url, j + 1))
        } else {
            None
        }
    }

    /// Turns the inline list into tree nodes, pairing text tags. Iterative.
    fn convert(&mut self, root: usize, leaf: &Leaf, tree: &mut Tree) -> Option<TreeError> {
        let mut error: Option<TreeError> = None;
        let report =
            |error: &mut Option<TreeError>, event: usize, offset: usize, reason: String| {
                if error.as_ref().is_none_or(|e| event < e.event) {
                    *error = Some(TreeError {
                        event,
                        error: ParseError::new(offset, reason),
                    });
                }
            };
        struct Frame {
            cursor: usize,
            target: NodeId,
            end: usize,
            tags: Vec<(NodeId, Tag)>,
            /// Inside an image's alt: tags still pair (and fail) but build no
            /// elements, since mdast keeps only the alt string.
            detached: bool,
        }
        let leaf_end = leaf.segs.last().map_or(0, |s| s.1);
        // Where the leaf's text ends, without trailing spaces and tabs (the
        // end of a `paragraph` token).
        let leaf_text_end = {
            let start = leaf.segs.last().map_or(0, |s| s.0);
            let bytes = self.ctx.src.as_bytes();
            let mut e = leaf_end;
            while e > start && matches!(bytes.get(e - 1), Some(b' ' | b'\t')) {
                e -= 1;
            }
            e
        };
        let mut frames = vec![Frame {
            cursor: self.nodes[root].first,
            target: leaf.node,
            end: leaf_end,
            tags: Vec::new(),
            detached: false,
        }];
        while let Some(frame) = frames.last_mut() {
            let id = frame.cursor;
            if id == NONE {
                let frame = frames.pop().expect("non-empty");
                if let Some((_, tag)) = frame.tags.last() {
                    let container = frames
                        .last()
                        .map_or(leaf.node, |f| f.tags.last().map_or(f.target, |t| t.0));
                    let _ = container;
                    let (l1, c1) = self.ctx.lines.locate(tag.start);
                    let (l2, c2) = self.ctx.lines.locate(tag.end);
                    let what = tree.node(frame.target).kind.type_name().to_owned();
                    report(
                        &mut error,
                        frame.end,
                        tag.start,
                        format!(
                            "Expected a closing tag for `{}` ({l1}:{c1}-{l2}:{c2}) before the end of `{what}`",
                            abbreviated(&tag.name, false)
                        ),
                    );
                }
                continue;
            }
            frame.cursor = self.nodes[id].next;
            let parent = frame.tags.last().map_or(frame.target, |t| t.0);
            let start = self.src_offset(self.nodes[id].start);
            let kind = std::mem::replace(&mut self.nodes[id].kind, IKind::Text(String::new()));
            match kind {
                IKind::Text(s) => push_text_owned(tree, parent, s, start),
                IKind::Bracket(s) => push_text(tree, parent, s, start),
                IKind::Delim { ch, count } => {
                    let s: String = std::iter::repeat_n(ch as char, count).collect();
                    push_text(tree, parent, &s, start);
                }
                IKind::Leaf(k) => {
                    tree.push(parent, k, start);
                }
                IKind::Container(k) => {
                    // An image's content is its `alt` string, not children.
                    let detached =
                        frame.detached || matches!(k, Kind::Image { .. } | Kind::ImageReference);
                    let node = if frame.detached {
                        tree.add(k, start)
                    } else {
                        tree.push(parent, k, start)
                    };
                    let target = if detached && !frame.detached {
                        tree.add(tree.node(node).kind.clone(), start)
                    } else {
                        node
                    };
                    let first = self.nodes[id].first;
                    frames.push(Frame {
                        cursor: first,
                        target,
                        end: leaf_end,
                        tags: Vec::new(),
                        detached,
                    });
                }
                IKind::SelfClosing(tag) => {
                    if !frame.detached {
                        let el = Element {
                            name: tag.name,
                            attrs: tag.attrs,
                            name_end: tag.name_end,
                        };
                        tree.push(parent, Kind::TextElement(Box::new(el)), start);
                    }
                }
                IKind::Open(tag) => {
                    let node = if frame.detached {
                        tree.add(
                            Kind::Text {
                                value: String::new(),
                            },
                            start,
                        )
                    } else {
                        let el = Element {
                            name: tag.name.clone(),
                            attrs: tag.attrs.clone(),
                            name_end: tag.name_end,
                        };
                        tree.push(parent, Kind::TextElement(Box::new(el)), start)
                    };
                    frame.tags.push((node, tag));
                }
                IKind::Close(tag) => {
                    if let Some(a) = tag.first_attr {
                        report(
                            &mut error,
                            a,
                            a,
                            "Unexpected attribute in closing tag, expected the end of the tag"
                                .to_owned(),
                        );
                    } else if tag.self_closing {
                        report(&mut error, tag.self_slash, tag.self_slash, "Unexpected self-closing slash `/` in closing tag, expected the end of the tag".to_owned());
                    }
                    match frame.tags.last() {
                        Some((_, open)) => {
                            if open.name != tag.name {
                                let (l1, c1) = self.ctx.lines.locate(open.start);
                                let (l2, c2) = self.ctx.lines.locate(open.end);
                                report(
                                    &mut error,
                                    tag.end,
                                    tag.start,
                                    format!(
                                        "Unexpected closing tag `{}`, expected corresponding closing tag for `{}` ({l1}:{c1}-{l2}:{c2})",
                                        abbreviated(&tag.name, true),
                                        abbreviated(&open.name, false)
                                    ),
                                );
                            }
                            frame.tags.pop();
                        }
                        None => match &leaf.flow_open {
                            None => report(
                                &mut error,
                                tag.slash,
                                tag.slash,
                                "Unexpected closing slash `/` in tag, expected an open tag first"
                                    .to_owned(),
                            ),
                            Some((name, os, oe)) => {
                                let (l1, c1) = self.ctx.lines.locate(*os);
                                let (l2, c2) = self.ctx.lines.locate(*oe);
                                let reason = if *name != tag.name {
                                    format!(
                                        "Unexpected closing tag `{}`, expected corresponding closing tag for `{}` ({l1}:{c1}-{l2}:{c2})",
                                        abbreviated(&tag.name, true),
                                        abbreviated(name, false)
                                    )
                                } else {
                                    let what = tree.node(frame.target).kind.type_name().to_owned();
                                    let (l, c) =
                                        self.ctx.lines.locate(tree.node(frame.target).start);
                                    let (el, ec) = self.ctx.lines.locate(leaf_text_end);
                                    format!(
                                        "Expected the closing tag `{}` either after the end of `{what}` ({el}:{ec}) or another opening tag after the start of `{what}` ({l}:{c})",
                                        abbreviated(&tag.name, true)
                                    )
                                };
                                report(&mut error, tag.end, tag.start, reason);
                            }
                        },
                    }
                }
            }
        }
        error
    }
}

fn push_text_owned(tree: &mut Tree, parent: NodeId, s: String, start: usize) {
    if s.is_empty() {
        return;
    }
    if let Some(&last) = tree.nodes[parent].children.last() {
        if let Kind::Text { value } = &mut tree.nodes[last].kind {
            value.push_str(&s);
            return;
        }
    }
    tree.push(parent, Kind::Text { value: s }, start);
}

fn push_text(tree: &mut Tree, parent: NodeId, s: &str, start: usize) {
    if s.is_empty() {
        return;
    }
    if let Some(&last) = tree.nodes[parent].children.last() {
        if let Kind::Text { value } = &mut tree.nodes[last].kind {
            value.push_str(s);
            return;
        }
    }
    tree.push(
        parent,
        Kind::Text {
            value: s.to_owned(),
        },
        start,
    );
}

/// A paragraph's lines joined by line feeds, for reading link reference
/// definitions off its start in one pass.
pub(crate) struct ParagraphText {
    buf: String,
    /// Buffer offset of the end of each line.
    ends: Vec<usize>,
}

impl ParagraphText {
    pub(crate) fn new(src: &str, lines: &[(usize, usize)]) -> Self {
        let mut buf = String::new();
        let mut ends = Vec::with_capacity(lines.len());
        for (n, &(s, e)) in lines.iter().enumerate() {
            if n > 0 {
                buf.push('\n');
            }
            buf.push_str(src.get(s..e).unwrap_or(""));
            ends.push(buf.len());
        }
        ParagraphText { buf, ends }
    }

    /// Reads definitions from the start: (normalized label, URL, lines used)
    /// for each, in order.
    pub(crate) fn definitions(&self) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut lines_done = 0;
        while let Some((label, url, end)) = parse_definition(&self.buf, at) {
            // `end` is the end of the definition's last line.
            let last_line = self.ends.partition_point(|&e| e < end);
            out.push((label, url, last_line + 1 - lines_done));
            lines_done = last_line + 1;
            at = end + 1;
            if at >= self.buf.len() {
                break;
            }
        }
        out
    }
}

/// One link reference definition starting at `at` in `buf`: its normalized
/// label, decoded URL and the end of its last line.
fn parse_definition(buf: &str, at: usize) -> Option<(String, String, usize)> {
    let bytes = buf.as_bytes();
    if bytes.get(at) != Some(&b'[') || bytes.get(at + 1) == Some(&b'^') {
        return None;
    }
    // Label: at most 999 characters, no unescaped brackets.
    let mut j = at + 1;
    loop {
        match bytes.get(j) {
            None | Some(b'[') => return None,
            Some(b']') => break,
            Some(b'\\') if j + 1 < bytes.len() => j += 2,
            _ => j += 1,
        }
        if j - at > 4000 {
            return None;
        }
    }
    let label = &buf[at + 1..j];
    if label.trim_matches([' ', '\t', '\n']).is_empty() || label.chars().count() > 999 {
        return None;
    }
    if bytes.get(j + 1) != Some(&b':') {
        return None;
    }
    let skip = |mut k: usize| {
        let mut nl = false;
        while k < bytes.len() {
            match bytes[k] {
                b' ' | b'\t' => k += 1,
                b'\n' if !nl => {
                    nl = true;
                    k += 1;
                }
                _ => break,
            }
        }
        k
    };
    let mut k = skip(j + 2);
    let url;
    if bytes.get(k) == Some(&b'<') {
        let s = k + 1;
        let mut m = s;
        loop {
            match bytes.get(m) {
                None | Some(b'\n' | b'<') => return None,
                Some(b'>') => break,
                Some(b'\\') if m + 1 < bytes.len() => m += 2,
                _ => m += 1,
            }
        }
        url = decode_text(&buf[s..m]);
        k = m + 1;
    } else {
        let s = k;
        let mut depth = 0usize;
        while k < bytes.len() && bytes[k] > b' ' {
            if bytes[k] == b'\\' && k + 1 < bytes.len() {
                k += 2;
                continue;
            }
            if bytes[k] == b'(' {
                depth += 1;
            } else if bytes[k] == b')' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            k += 1;
        }
        if k == s || depth != 0 {
            return None;
        }
        url = decode_text(&buf[s..k]);
    }
    let rest_blank = |from: usize| {
        let mut m = from;
        while m < bytes.len() && matches!(bytes[m], b' ' | b'\t') {
            m += 1;
        }
        (m >= bytes.len() || bytes[m] == b'\n').then_some(m)
    };
    // Optional title, which may not contain a blank line.
    let t = skip(k);
    if t > k && matches!(bytes.get(t), Some(b'"' | b'\'' | b'(')) {
        let close = match bytes[t] {
            b'(' => b')',
            c => c,
        };
        let mut m = t + 1;
        let mut ok = false;
        while m < bytes.len() {
            if bytes[m] == b'\\' && m + 1 < bytes.len() {
                m += 2;
                continue;
            }
            if bytes[m] == close {
                ok = true;
                break;
            }
            if bytes[m] == b'\n' && bytes.get(m + 1) == Some(&b'\n') {
                break;
            }
            m += 1;
        }
        if ok {
            if let Some(e) = rest_blank(m + 1) {
                return Some((normalize_label(label), url, e));
            }
        }
    }
    let e = rest_blank(k)?;
    Some((normalize_label(label), url, e))
}
