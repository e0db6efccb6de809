//! Block structure (DIALECT.md §2.1): containers, leaves and flow JSX tags.
//!
//! The parser follows the CommonMark two-phase design: this phase reads the
//! plan line by line, keeping a stack of open containers (block quotes, lists,
//! list items, footnote definitions), and records the text of every paragraph,
//! heading and table cell for the inline phase. Indented code is off, so any
//! indentation may precede a block start.
//!
//! Linear time: each line is matched against the open containers once; a
//! container that does not consume characters (a list item on a blank line) is
//! skipped in bulk (see [`Blocks::match_line`]), and every container is opened
//! and closed once.

mod flow;
mod line;
mod scan;

use self::flow::match_containers;
pub(crate) use self::scan::split_row;
use self::scan::{
    atx_heading, brace_pairs, fence_open, footnote_label, is_space, line_bounds, list_marker,
};
use super::ParseError;
use super::definition::ParagraphText;
use super::jsx::abbreviated;
use super::leaf::{Leaf, TreeError};
use super::location::LineIndex;
use super::tree::{Kind, NodeId, Tree};

/// Where a container that closes at `at` (a line start, or the end of the
/// plan) ends in micromark's positions: at the end of its last line that
/// holds more than whitespace (a `>` marker counts), before the line ending.
fn container_end(bytes: &[u8], start: usize, at: usize) -> usize {
    let mut end = at;
    loop {
        if end > 0 && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let line_start = bytes[..end]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        if line_start <= start || !bytes[line_start..end].iter().all(|&b| is_space(b)) {
            return end;
        }
        end = line_start;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CKind {
    Root,
    Quote,
    List { ordered: bool, marker: u8 },
    Item { indent: usize, blank_start: bool },
    Footnote,
}

#[derive(Debug)]
struct Container {
    node: NodeId,
    kind: CKind,
    /// Whether this container has received any block (for empty list items).
    has_content: bool,
}

#[derive(Debug)]
struct PendingClose {
    container: usize,
    event: usize,
    offset: usize,
    closing: String,
}

#[derive(Debug, Clone)]
pub(crate) struct OpenJsx {
    pub node: NodeId,
    pub name: Option<String>,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug)]
enum Open {
    None,
    Para {
        start: usize,
        lines: Vec<(usize, usize)>,
    },
    Fence {
        node: NodeId,
        ch: u8,
        len: usize,
        indent: usize,
        lines: Vec<(usize, usize)>,
    },
    Table {
        node: NodeId,
    },
}

/// The outcome of the block phase.
pub(crate) struct Blocks<'a> {
    src: &'a str,
    lines: &'a LineIndex<'a>,
    pub tree: Tree,
    pub leaves: Vec<Leaf>,
    /// Normalized labels of link definitions.
    pub definitions: Vec<String>,
    /// Normalized labels of footnote definitions.
    pub footnotes: Vec<String>,
    pub tree_error: Option<TreeError>,
    pub steps: u64,
    stack: Vec<Container>,
    /// Indices into `stack` of containers a blank line cannot continue.
    barriers: Vec<usize>,
    open: Open,
    /// Global stack of open flow elements: (container index, element).
    tags: Vec<(usize, OpenJsx)>,
    /// Per line: end of its content before trailing spaces and tabs.
    content_end: usize,
    /// Per line: the suffix that could be a thematic break (start, marker,
    /// position of the third marker from the end), so that checking a break
    /// at any position of the line is O(1) (a line of many list markers would
    /// otherwise be rescanned once per marker).
    tb: (usize, u8, usize),
    /// `{` positions and their matching `}` (braces only, as in an MDX
    /// expression without a JavaScript parser), for jumping over expressions.
    braces: Vec<(usize, usize)>,
    /// Bumped whenever the container stack changes.
    stack_version: u64,
    /// A stamp per open container, unique over the parse: a line matched
    /// against containers `..d` stays matched while stamp `d - 1` is alive.
    born: Vec<u64>,
    next_born: u64,
    /// Memo of container matches for lines crossed by expression jumps.
    line_memo: std::collections::HashMap<usize, (usize, usize, usize, u64)>,
    /// Where the paragraph that is the first content of a list item starts.
    task_start: Option<usize>,
    /// Closing flow tags met inside a container nested deeper than their
    /// element; reported when that container closes.
    pending: Vec<PendingClose>,
    /// Lines starting at or before `.1` are known to continue the containers
    /// of stack version `.0` (memo for expression jumps in flow attempts).
    known_ok: (u64, usize),
    /// Lines starting before this offset were read by a flow tag attempt
    /// that failed (text followed its tags): micromark feeds such lines to
    /// that concrete attempt without looking for new containers, so they
    /// open none (`<B\n>a</B>` is one paragraph, not a block quote).
    concrete_until: usize,
}

impl<'a> Blocks<'a> {
    /// Runs the block phase over `src`, starting after a byte-order mark at `bom`.
    pub(crate) fn parse(
        src: &'a str,
        lines: &'a LineIndex<'a>,
        bom: usize,
    ) -> Result<Self, (ParseError, u64)> {
        let mut b = Blocks {
            src,
            lines,
            // About one node per 12 bytes in typical plans.
            tree: Tree::with_capacity(src.len() / 12 + 16),
            leaves: Vec::new(),
            definitions: Vec::new(),
            footnotes: Vec::new(),
            tree_error: None,
            steps: 0,
            stack: vec![Container {
                node: 0,
                kind: CKind::Root,
                has_content: false,
            }],
            barriers: Vec::new(),
            open: Open::None,
            tags: Vec::new(),
            content_end: 0,
            tb: (usize::MAX, 0, 0),
            braces: brace_pairs(src.as_bytes()),
            stack_version: 0,
            task_start: None,
            born: vec![0],
            next_born: 1,
            line_memo: std::collections::HashMap::new(),
            pending: Vec::new(),
            known_ok: (u64::MAX, 0),
            concrete_until: 0,
        };
        let bytes = src.as_bytes();
        let mut start = bom;
        loop {
            let (end, next) = line_bounds(bytes, start);
            b.steps += 1 + (end - start) as u64 / 64;
            let resume = b.line(start, end, next).map_err(|e| (e, b.steps))?;
            if resume >= bytes.len() && end >= bytes.len() {
                break;
            }
            start = resume;
            if start > bytes.len() {
                break;
            }
        }
        b.close_leaf();
        while b.stack.len() > 1 {
            b.pop_container(bytes.len());
        }
        if let Some((_, open)) = b.tags.last().cloned() {
            let reason = format!(
                "Expected a closing tag for `{}` ({})",
                abbreviated(&open.name, false),
                b.span(open.start, open.end)
            );
            // Compiled last: after every other event of the document.
            b.tree_err(bytes.len() + 1, open.start, reason);
        }
        Ok(b)
    }

    fn span(&self, start: usize, end: usize) -> String {
        let (l1, c1) = self.lines.locate(start);
        let (l2, c2) = self.lines.locate(end);
        format!("{l1}:{c1}-{l2}:{c2}")
    }

    fn tree_err(&mut self, event: usize, offset: usize, reason: String) {
        if self.tree_error.as_ref().is_none_or(|e| event < e.event) {
            self.tree_error = Some(TreeError {
                event,
                error: ParseError::new(offset, reason),
            });
        }
    }

    /// Matches the open containers against the line starting at `start`.
    /// Returns how many matched (root included), the content position and column.
    fn match_line(&mut self, start: usize, end: usize) -> (usize, usize, usize) {
        let mut steps = 0;
        let r = match_containers(
            self.src.as_bytes(),
            &self.stack,
            &self.barriers,
            start,
            end,
            &mut steps,
        );
        self.steps += steps;
        r
    }

    /// The node new blocks go into.
    fn parent(&self) -> NodeId {
        let top = self.stack.last().expect("root is never popped");
        // The innermost open flow element, if it sits in this container.
        match self.tags.last() {
            Some((i, j)) if *i + 1 == self.stack.len() => j.node,
            _ => top.node,
        }
    }

    fn add_block(&mut self, kind: Kind, start: usize) -> NodeId {
        // A list only holds items: any other block ends it.
        if matches!(self.stack.last().map(|c| c.kind), Some(CKind::List { .. })) {
            self.pop_container(start);
        }
        let parent = self.parent();
        if let Some(top) = self.stack.last_mut() {
            top.has_content = true;
        }
        self.tree.push(parent, kind, start)
    }

    fn push_container(&mut self, kind: CKind, node_kind: Kind, start: usize) {
        self.stack_version += 1;
        self.born.push(self.next_born);
        self.next_born += 1;
        let node = if matches!(kind, CKind::Item { .. }) {
            let parent = self.parent();
            if let Some(top) = self.stack.last_mut() {
                top.has_content = true;
            }
            self.tree.push(parent, node_kind, start)
        } else {
            self.add_block(node_kind, start)
        };
        if matches!(
            kind,
            CKind::Quote
                | CKind::Item {
                    blank_start: true,
                    ..
                }
        ) {
            self.barriers.push(self.stack.len());
        }
        self.stack.push(Container {
            node,
            kind,
            has_content: false,
        });
    }

    fn pop_container(&mut self, at: usize) {
        let Some(c) = self.stack.pop() else { return };
        self.born.pop();
        self.stack_version += 1;
        let index = self.stack.len();
        while self.pending.last().is_some_and(|p| p.container >= index) {
            let Some(p) = self.pending.pop() else { break };
            let node = self.tree.node(c.node);
            let what = node.kind.token_name();
            let (l, col) = self.lines.locate(node.start);
            let (el, ec) = self
                .lines
                .locate(container_end(self.src.as_bytes(), node.start, at));
            let reason = format!(
                "Expected the closing tag `{}` either after the end of `{what}` ({el}:{ec}) or another opening tag after the start of `{what}` ({l}:{col})",
                p.closing
            );
            self.tree_err(p.event, p.offset, reason);
        }
        if self.barriers.last() == Some(&index) {
            self.barriers.pop();
        }
        if let Some(open) = self
            .tags
            .last()
            .filter(|(i, _)| *i == index)
            .map(|(_, j)| j.clone())
        {
            let what = self.tree.node(c.node).kind.token_name();
            let reason = format!(
                "Expected a closing tag for `{}` ({}) before the end of `{what}`",
                abbreviated(&open.name, false),
                self.span(open.start, open.end)
            );
            self.tree_err(at, open.start, reason);
        }
        while self.tags.last().is_some_and(|(i, _)| *i >= index) {
            self.tags.pop();
        }
    }

    fn close_leaf(&mut self) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None | Open::Table { .. } => {}
            Open::Fence { node, lines, .. } => {
                let mut value = String::new();
                for (i, (s, e)) in lines.iter().enumerate() {
                    if i > 0 {
                        value.push('\n');
                    }
                    value.push_str(self.src.get(*s..*e).unwrap_or(""));
                }
                match &mut self.tree.nodes[node].kind {
                    Kind::Code { value: v, .. } => *v = value.into_boxed_str(),
                    Kind::Math { value: v } => *v = value,
                    _ => {}
                }
            }
            Open::Para { start, lines } => self.finish_paragraph(start, lines),
        }
    }

    /// Whether the open paragraph holds more than link definitions (a setext
    /// underline needs text to turn into a heading).
    fn has_non_definition_text(&self) -> bool {
        let Open::Para { lines, .. } = &self.open else {
            return false;
        };
        let used: usize = ParagraphText::new(self.src, lines)
            .definitions()
            .iter()
            .map(|d| d.2)
            .sum();
        used < lines.len()
    }

    /// Turns the link reference definitions at the start of a paragraph into
    /// `definition` nodes; returns what is left.
    fn take_definitions(
        &mut self,
        start: usize,
        mut lines: Vec<(usize, usize)>,
    ) -> Option<(usize, Vec<(usize, usize)>)> {
        if self.src.as_bytes().get(start) != Some(&b'[') {
            return Some((start, lines));
        }
        let defs = ParagraphText::new(self.src, &lines).definitions();
        let mut used_total = 0;
        let mut at = start;
        for (label, url, used) in defs {
            self.steps += 1;
            self.add_block(Kind::Definition { url }, at);
            self.definitions.push(label);
            used_total += used;
            match lines.get(used_total) {
                Some(&(s, _)) => at = s,
                None => return None,
            }
        }
        lines.drain(..used_total);
        Some((at, lines))
    }

    fn finish_paragraph(&mut self, start: usize, lines: Vec<(usize, usize)>) {
        let Some((start, lines)) = self.take_definitions(start, lines) else {
            return;
        };
        let node = self.add_block(Kind::Paragraph, start);
        let token_end = lines.last().map_or(start, |l| l.1);
        let flow_open = self
            .tags
            .last()
            .map(|(_, j)| (j.name.clone(), j.start, j.end));
        let task_item = if self.task_start == Some(start) {
            self.stack.last().map(|c| c.node)
        } else {
            None
        };
        self.leaves.push(Leaf {
            node,
            segs: lines,
            flow_open,
            task_item,
            token: "paragraph",
            token_end,
        });
    }

    /// The innermost open flow element (for reasons about closing tags in text).
    fn flow_open(&self) -> Option<(Option<String>, usize, usize)> {
        self.tags
            .last()
            .map(|(_, j)| (j.name.clone(), j.start, j.end))
    }

    /// Records inline text to parse in the second phase.
    fn push_leaf(
        &mut self,
        node: NodeId,
        segs: Vec<(usize, usize)>,
        token: &'static str,
        token_end: usize,
    ) {
        let flow_open = self.flow_open();
        self.leaves.push(Leaf {
            node,
            segs,
            flow_open,
            task_item: None,
            token,
            token_end,
        });
    }

    /// Whether a thematic break starts at `p` on the current line.
    fn thematic_break(&self, p: usize) -> bool {
        let (start, marker, third) = self.tb;
        p >= start && p <= third && self.src.as_bytes().get(p) == Some(&marker)
    }

    /// Whether the text at `p` starts a block other than a paragraph line
    /// (used for table rows).
    fn starts_block(&self, p: usize, end: usize) -> bool {
        let bytes = self.src.as_bytes();
        let c = bytes[p];
        c == b'>'
            || (c == b'#' && atx_heading(bytes, p, end).is_some())
            || self.thematic_break(p)
            || fence_open(bytes, p, end).is_some()
            || list_marker(bytes, p, end).is_some_and(|m| m.after < end && is_space(bytes[m.after]))
    }

    /// Whether a line (content at `p`) would interrupt an open paragraph.
    /// A flow tag attempt may fail fatally, as in the reference parser.
    fn interrupts(&mut self, p: usize, end: usize) -> Result<bool, ParseError> {
        let bytes = self.src.as_bytes();
        let c = bytes[p];
        if c == b'>'
            || (c == b'#' && atx_heading(bytes, p, end).is_some())
            || self.thematic_break(p)
            || fence_open(bytes, p, end).is_some()
        {
            return Ok(true);
        }
        if c == b'[' && bytes.get(p + 1) == Some(&b'^') && footnote_label(bytes, p, end).is_some() {
            return Ok(true);
        }
        // On a lazy line, the paragraph is not in the container the list
        // item would start in, so CommonMark's interrupt limits do not apply.
        if list_marker(bytes, p, end).is_some() {
            return Ok(true);
        }
        if c == b'<' {
            return Ok(self.read_flow_tags(p)?.is_some());
        }
        Ok(false)
    }

    fn table_row(&mut self, table: NodeId, s: usize, e: usize) {
        let bytes = self.src.as_bytes();
        let token = if self.tree.node(table).children.is_empty() {
            "tableHeader"
        } else {
            "tableData"
        };
        let row = self.tree.push(table, Kind::TableRow, s);
        let flow_open = self
            .tags
            .last()
            .map(|(_, j)| (j.name.clone(), j.start, j.end));
        let cells = split_row(bytes, s, e);
        for (k, &(cell_start, cs, ce)) in cells.iter().enumerate() {
            self.steps += 1;
            let token_end = cells.get(k + 1).map_or(e, |next| next.0);
            let cell = self.tree.push(row, Kind::TableCell, cell_start);
            if cs < ce {
                self.leaves.push(Leaf {
                    node: cell,
                    segs: vec![(cs, ce)],
                    flow_open: flow_open.clone(),
                    task_item: None,
                    token,
                    token_end,
                });
            }
        }
    }
}
