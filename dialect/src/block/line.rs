//! One line of the block phase: continue or close containers, open new ones,
//! then continue or start a leaf (CommonMark's block algorithm, with indented
//! code off and micromark's interrupt rules).

use super::scan::{
    atx_heading, delimiter_row, fence_open, footnote_label, is_space, label_str, list_marker,
    setext_underline, skip_ws, split_row, thematic_suffix, trim_end,
};
use super::{Blocks, CKind, Open};
use crate::ParseError;
use crate::text::normalize_label;
use crate::tree::Kind;

impl Blocks<'_> {
    /// Processes one line; returns where the next line starts.
    pub(super) fn line(
        &mut self,
        start: usize,
        end: usize,
        next: usize,
    ) -> Result<usize, ParseError> {
        let bytes = self.src.as_bytes();
        self.content_end = trim_end(bytes, start, end);
        self.tb = thematic_suffix(bytes, start, self.content_end);
        let (matched, pos, col) = self.match_line(start, end);
        let all = matched == self.stack.len();

        // Fenced code and math are concrete: no lazy lines.
        if let Open::Fence { .. } = self.open {
            if all {
                self.fence_line(pos, col, end);
                return Ok(next);
            }
            self.close_leaf();
        }

        let rest_blank = bytes[pos..end].iter().all(|&c| is_space(c));

        // Lazy paragraph continuation. A sibling item of the list whose item
        // did not match is never lazy (micromark's `notInCurrentItem`).
        if !all && matches!(self.open, Open::Para { .. }) && !rest_blank {
            let (p, _) = skip_ws(bytes, pos, col, end);
            let sibling = matches!(
                self.stack.get(matched).map(|c| c.kind),
                Some(CKind::Item { .. })
            ) && matches!(self.stack.get(matched - 1).map(|c| c.kind),
                    Some(CKind::List { ordered, marker }) if list_marker(bytes, p, end).is_some_and(|m| m.ordered == ordered && m.marker == marker));
            if !sibling && !self.interrupts(p, end)? {
                if let Open::Para { lines, .. } = &mut self.open {
                    lines.push((p, end));
                }
                return Ok(next);
            }
            // Flow tags that start on this line and go on to lines that
            // continue the containers stay in them, as in micromark (the
            // tag is still open when the lazy line is placed): `> a\n<e\n>
            // />` has the element in the block quote. Tags that end on this
            // line close the containers like any other interruption.
            if !sibling && bytes[p] == b'<' {
                if let Some((tags, resume)) = self.read_flow_tags(p)? {
                    if resume > next {
                        return Ok(self.add_flow_tags(p, tags, resume));
                    }
                }
            }
        }

        // Close what did not match.
        if !all {
            self.close_leaf();
            while self.stack.len() > matched {
                self.pop_container(start);
            }
        }

        // As in micromark, when the line started in an open paragraph whose
        // containers all continued, every list item opened on this line is
        // interrupting one: it may not be empty or start past 1.
        let interrupting = all && matches!(self.open, Open::Para { .. });
        let (pos, col, new_item) = if all && start < self.concrete_until {
            (pos, col, false)
        } else {
            self.open_containers(pos, col, end, interrupting)
        };

        let (p, pcol) = skip_ws(bytes, pos, col, end);
        if p >= end {
            // A blank line ends a paragraph and a table.
            self.close_leaf();
            if let Open::Table { .. } = self.open {
                self.open = Open::None;
            }
            return Ok(next);
        }

        // Table body rows.
        if let Open::Table { node } = self.open {
            // Any other line is a body row, unless a construct that micromark
            // tries first starts there (a line of flow tags included).
            let tag_line = bytes[p] == b'<' && all && self.read_flow_tags(p)?.is_some();
            if all && !tag_line && !self.starts_block(p, end) {
                self.steps += 1;
                self.table_row(node, p, end);
                return Ok(next);
            }
            self.open = Open::None;
        }

        // Setext underlines and table delimiter rows act on an open
        // paragraph in this container (lazy lines never get here with one).
        if matches!(self.open, Open::Para { .. }) && !new_item && self.underline_or_table(p, end) {
            return Ok(next);
        }
        self.leaf_start(p, pcol - col, end, next)
    }

    /// A line inside fenced code or math: the closing fence or content.
    fn fence_line(&mut self, pos: usize, col: usize, end: usize) {
        let bytes = self.src.as_bytes();
        let Open::Fence {
            ch, len, indent, ..
        } = self.open
        else {
            return;
        };
        let (p, _) = skip_ws(bytes, pos, col, end);
        let run = bytes[p..end].iter().take_while(|&&c| c == ch).count();
        if run >= len && bytes[p + run..end].iter().all(|&c| is_space(c)) {
            self.close_leaf();
            return;
        }
        // Strip up to the fence's indentation.
        let mut p = pos;
        let mut c = col;
        while p < end && is_space(bytes[p]) && c < col + indent {
            c = if bytes[p] == b'\t' {
                c + 4 - c % 4
            } else {
                c + 1
            };
            p += 1;
        }
        if let Open::Fence { lines, .. } = &mut self.open {
            lines.push((p, end));
        }
    }

    /// Opens the block quotes, footnote definitions and list items that
    /// start the rest of the line; returns the content position, its column
    /// and whether the last container opened is a list item.
    fn open_containers(
        &mut self,
        mut pos: usize,
        mut col: usize,
        end: usize,
        interrupting: bool,
    ) -> (usize, usize, bool) {
        let bytes = self.src.as_bytes();
        let mut new_item = false;
        loop {
            self.steps += 1;
            let (p, pcol) = skip_ws(bytes, pos, col, end);
            if p >= end {
                break;
            }
            let c = bytes[p];
            if c == b'>' {
                self.close_leaf();
                self.push_container(CKind::Quote, Kind::Blockquote, p);
                pos = p + 1;
                col = pcol + 1;
                if pos < end && is_space(bytes[pos]) {
                    // One space (or one column of a tab) belongs to the marker.
                    pos += 1;
                    col += 1;
                }
                new_item = false;
                continue;
            }
            if c == b'[' && bytes.get(p + 1) == Some(&b'^') {
                if let Some((_, after)) = footnote_label(bytes, p, end) {
                    self.close_leaf();
                    let label = label_str(self.src, p + 2, after - 2);
                    self.footnotes.push(normalize_label(label));
                    let kind = Kind::FootnoteDefinition {
                        label: label.to_owned(),
                    };
                    self.push_container(CKind::Footnote, kind, p);
                    // The whitespace after the label belongs to the label
                    // (micromark's `gfmFootnoteDefinitionWhitespace`), not to
                    // a list item's indentation that may follow.
                    (pos, col) = skip_ws(bytes, after, pcol + (after - p), end);
                    new_item = false;
                    continue;
                }
            }
            if self.thematic_break(p) {
                break;
            }
            let Some(m) = list_marker(bytes, p, end) else {
                break;
            };
            let blank_after = m.after >= self.content_end;
            if interrupting && (blank_after || (m.ordered && m.number != 1)) {
                break;
            }
            // Content indentation: marker width plus all the whitespace after
            // it (1 when the item starts blank). With indented code off,
            // micromark takes any amount: CommonMark's "5 or more means 1"
            // exists only for indented code.
            let marker_col = pcol + (m.after - p);
            let (cp, ccol) = skip_ws(bytes, m.after, marker_col, end);
            let spaces = ccol - marker_col;
            let (content_pos, content_col) = if blank_after {
                (end, marker_col + 1)
            } else if spaces == 0 {
                break;
            } else {
                (cp, ccol)
            };
            self.close_leaf();
            let same_list = matches!(self.stack.last().map(|c| c.kind),
                Some(CKind::List { ordered, marker }) if ordered == m.ordered && marker == m.marker);
            if !same_list {
                if matches!(self.stack.last().map(|c| c.kind), Some(CKind::List { .. })) {
                    self.pop_container(p);
                }
                let list = CKind::List {
                    ordered: m.ordered,
                    marker: m.marker,
                };
                self.push_container(list, Kind::List { ordered: m.ordered }, p);
            }
            let item = CKind::Item {
                indent: content_col - col,
                blank_start: blank_after,
            };
            self.push_container(item, Kind::ListItem { checked: None }, p);
            pos = content_pos;
            col = content_col;
            new_item = true;
        }
        (pos, col, new_item)
    }

    /// A setext underline or a table delimiter row under the open paragraph;
    /// returns whether the line was used.
    fn underline_or_table(&mut self, p: usize, end: usize) -> bool {
        let bytes = self.src.as_bytes();
        if let Some(depth) = setext_underline(bytes, p, end) {
            if !self.has_non_definition_text() {
                // Only definitions above: as in micromark, the underline is
                // then a thematic break if it can be one (`[a]: /u\n---`),
                // else paragraph text (`[a]: /u\n===`).
                if self.thematic_break(p) {
                    return false;
                }
                self.close_leaf();
                self.open = Open::Para {
                    start: p,
                    lines: vec![(p, end)],
                };
                return true;
            }
            if let Open::Para { start, lines } = std::mem::replace(&mut self.open, Open::None) {
                // A setext heading's text ends like a paragraph's: trailing
                // spaces of its last line belong to it (§2.4).
                // The heading starts where the paragraph did, definitions
                // before its text included: micromark's setextHeading token
                // wraps the whole content (`[a]: /u\nb\n===` has a heading
                // at 0).
                if let Some((_, lines)) = self.take_definitions(start, lines) {
                    let node = self.add_block(Kind::Heading { depth }, start);
                    self.push_leaf(node, lines, "setextHeading", end);
                }
            }
            return true;
        }
        let Some(cells) = delimiter_row(bytes, p, end) else {
            return false;
        };
        let Open::Para { lines, .. } = &self.open else {
            return false;
        };
        let Some(&(hs, he)) = lines.last() else {
            return false;
        };
        // The head row (the paragraph's last line) needs as many cells, and
        // must be more than a lone pipe: micromark takes `| |` and `||` (empty
        // cells) but not `|` alone.
        let head_cells = split_row(bytes, hs, he);
        let mut visible = bytes[hs..he].iter().filter(|b| !matches!(b, b' ' | b'\t'));
        let lone_pipe = visible.next() == Some(&b'|') && visible.next().is_none();
        if head_cells.len() != cells || lone_pipe {
            return false;
        }
        if let Open::Para { start, mut lines } = std::mem::replace(&mut self.open, Open::None) {
            lines.pop();
            if !lines.is_empty() {
                self.finish_paragraph(start, lines);
            }
            let table = self.add_block(Kind::Table, hs);
            self.table_row(table, hs, he);
            self.open = Open::Table { node: table };
        }
        true
    }

    /// A line that is not a container continuation: headings, breaks,
    /// fences, flow tags, else paragraph text. `indent` is the content's
    /// indentation in columns.
    fn leaf_start(
        &mut self,
        p: usize,
        indent: usize,
        end: usize,
        next: usize,
    ) -> Result<usize, ParseError> {
        let bytes = self.src.as_bytes();
        let c = bytes[p];
        if c == b'#' {
            if let Some((depth, cs, ce)) = atx_heading(bytes, p, end) {
                self.close_leaf();
                let node = self.add_block(Kind::Heading { depth }, p);
                self.push_leaf(node, vec![(cs, ce)], "atxHeading", end);
                return Ok(next);
            }
        }
        if self.thematic_break(p) {
            self.close_leaf();
            self.add_block(Kind::ThematicBreak, p);
            return Ok(next);
        }
        if let Some((ch, len, info)) = fence_open(bytes, p, end) {
            self.close_leaf();
            let kind = if ch == b'$' {
                Kind::Math {
                    value: String::new(),
                }
            } else {
                let info = self.src.get(info..end).unwrap_or("");
                let lang = info
                    .trim_matches([' ', '\t'])
                    .split([' ', '\t'])
                    .next()
                    .filter(|l| !l.is_empty())
                    .map(|l| crate::text::decode_text(l).into_boxed_str());
                Kind::Code {
                    lang,
                    value: Box::default(),
                }
            };
            let node = self.add_block(kind, p);
            self.open = Open::Fence {
                node,
                ch,
                len,
                indent,
                lines: Vec::new(),
            };
            return Ok(next);
        }
        if c == b'<' {
            if let Some(resume) = self.flow_tags(p)? {
                return Ok(resume);
            }
        }

        // Paragraph text.
        if let Open::Para { lines, .. } = &mut self.open {
            lines.push((p, end));
            return Ok(next);
        }
        // The first content of a list item may start with a task check,
        // which the inline phase decides (it depends on what follows).
        self.task_start = match self.stack.last() {
            Some(c) if matches!(c.kind, CKind::Item { .. }) && !c.has_content => Some(p),
            _ => None,
        };
        // The paragraph is the container's content from now on, though its
        // block is added only when it closes: an item that started blank
        // and holds an open paragraph is not ended by a blank line.
        if let Some(top) = self.stack.last_mut() {
            top.has_content = true;
        }
        self.open = Open::Para {
            start: p,
            lines: vec![(p, end)],
        };
        Ok(next)
    }
}
