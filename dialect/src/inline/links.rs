//! Links, images, their reference forms and footnote calls: bracket
//! handling with the standard linear-time bounds.

use super::{IKind, Parser};
use crate::text::{decode_text, destination_byte, normalize_label, skip_ws_one_line};
use crate::tree::Kind;

impl Parser<'_, '_> {
    pub(super) fn footnote_call(&mut self, i: usize) -> Option<usize> {
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

    /// Handles `]` at `i`; returns where scanning resumes.
    pub(super) fn close_bracket(&mut self, root: usize, i: usize) -> usize {
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
            // Without definitions no reference can resolve; with them, a
            // label costs its length (at most 999 characters), counted.
            let ctx = self.ctx;
            let reference = |steps: &mut u64, label: &str| -> bool {
                if ctx.definitions.is_empty() {
                    return false;
                }
                *steps += label.len() as u64;
                label.chars().count() <= 999
                    && !label.trim().is_empty()
                    && ctx.definitions.contains(&normalize_label(label))
            };
            let kind = if br.image {
                Kind::ImageReference
            } else {
                Kind::LinkReference
            };
            if self.buf.as_bytes().get(after) == Some(&b'[') {
                // A label is at most 999 characters: look no further.
                let limit = (after + 1 + 4001).min(self.buf.len());
                let window = self.buf.get(after + 1..limit).unwrap_or("");
                let close = window.find([']', '[']).map(|k| after + 1 + k);
                self.steps += close.map_or(window.len(), |k| k - after) as u64;
                if let Some(close) =
                    close.filter(|&k| self.buf.as_bytes()[k] == b']' && k - after <= 4000)
                {
                    let label = &self.buf[after + 1..close];
                    if label.is_empty() {
                        if reference(&mut self.steps, text_label) {
                            result = Some((kind, close + 1));
                        }
                    } else if reference(&mut self.steps, label) {
                        result = Some((kind, close + 1));
                    }
                }
            } else if text_label.len() <= 4000 && reference(&mut self.steps, text_label) {
                result = Some((kind, after));
            }
        }
        self.brackets.pop();
        self.link_barrier = self.link_barrier.min(self.brackets.len());
        let Some((kind, end)) = result else {
            if br.image {
                if let Some(label) = self.image_footnote_call(br.after, i) {
                    self.footnote_from_image(root, br, label);
                    return i + 1;
                }
            }
            self.text(root, "]", i);
            return i + 1;
        };
        let is_link = !br.image;
        self.process_emphasis(br.delim_bottom, super::emphasis::INSIDE_SPAN);
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

    /// The label of a footnote call written as an image start, `![^a]`,
    /// once no image formed: as micromark-extension-gfm-footnote, the
    /// normalized text between `![` and `]` must be `^` and a defined
    /// footnote label; the label is that text without its first character.
    ///
    /// Footnote labels hold no whitespace and no unescaped bracket, so the
    /// scan stops at the first of either: it never crosses into a nested
    /// bracket, which keeps nested `![` runs linear.
    fn image_footnote_call(&mut self, after: usize, close: usize) -> Option<String> {
        if self.ctx.footnotes.is_empty() {
            return None;
        }
        let bytes = self.buf.as_bytes();
        let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
        let mut s = after;
        while s < close && ws(bytes[s]) {
            s += 1;
        }
        let mut e = close;
        while e > s && ws(bytes[e - 1]) {
            e -= 1;
        }
        self.steps += (s - after + close - e) as u64;
        if bytes.get(s) != Some(&b'^') || e <= s + 1 || e - s > 4000 {
            return None;
        }
        let mut k = s + 1;
        while k < e {
            self.steps += 1;
            match bytes[k] {
                b'\\' if k + 1 < e && matches!(bytes[k + 1], b'[' | b']' | b'\\') => k += 2,
                c if ws(c) || c == b'[' || c == b']' => return None,
                _ => k += 1,
            }
        }
        let label = &self.buf[s + 1..e];
        self.steps += label.len() as u64;
        if !self.ctx.footnotes.contains(&normalize_label(label)) {
            return None;
        }
        Some(self.buf[after + 1..close].to_owned())
    }

    /// Turns the image start `br` and everything after it into `!` and a
    /// footnote reference; delimiters inside are dropped unmatched, as
    /// micromark replaces the label's events.
    fn footnote_from_image(&mut self, root: usize, br: super::Bracket, label: String) {
        while self.delim_top != super::NONE && self.delim_top >= br.delim_bottom {
            self.steps += 1;
            self.delim_top = self.delims[self.delim_top].prev;
        }
        if self.delim_top != super::NONE {
            self.delims[self.delim_top].next = super::NONE;
        }
        let start = self.nodes[br.node].start;
        self.nodes[br.node].kind = IKind::Bracket("!");
        self.nodes[br.node].next = super::NONE;
        self.nodes[root].last = br.node;
        self.append(
            root,
            IKind::Leaf(Kind::FootnoteReference { label }),
            start + 1,
        );
    }

    pub(super) fn skip_ws_one_line(&self, j: usize) -> usize {
        skip_ws_one_line(self.buf.as_bytes(), j)
    }

    /// An inline resource after `(` at `j`: the decoded URL and the end.
    pub(super) fn resource(&mut self, j: usize) -> Option<(String, usize)> {
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
                    Some(b'\\') if bytes.get(k + 1).is_some_and(u8::is_ascii_punctuation) => k += 2,
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
                if !destination_byte(c) {
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
                    Some(b'\\') if bytes.get(k + 1).is_some_and(u8::is_ascii_punctuation) => k += 2,
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
}
