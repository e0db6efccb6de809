//! Emphasis, strong and delete: the CommonMark delimiter algorithm over a
//! linked delimiter list, bounded by `openers_bottom` so that it stays linear.

use super::{Delim, IKind, INode, NONE, Parser, is_punct};
use crate::is_js_whitespace;
use crate::tree::Kind;

/// One of micromark's two resolvers of delimiter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolver {
    /// `*` and `_`.
    Attention,
    /// `~~`.
    Strikethrough,
}

/// micromark's `insideSpan` order: extensions' resolvers go before the
/// core's, so strikethrough comes first.
pub(super) const INSIDE_SPAN: [Resolver; 2] = [Resolver::Strikethrough, Resolver::Attention];

impl Parser<'_, '_> {
    pub(super) fn push_delim(&mut self, root: usize, ch: u8, i: usize, run: usize) {
        let before = self.char_before(i);
        let after = self.char_at(i + run);
        let ws = |c: Option<char>| c.is_none_or(is_js_whitespace);
        let punct = |c: Option<char>| c.is_some_and(is_punct);
        let mut left = !ws(after) && (!punct(after) || ws(before) || punct(before));
        let mut right = !ws(before) && (!punct(before) || ws(after) || punct(after));
        // micromark loosens flanking for `*` and `_` next to a marker that
        // another construct registers, GFM strikethrough's `~` (the one
        // before may be escaped): `r*~*` is emphasis.
        if ch != b'~' {
            left |= after == Some('~');
            right |= before == Some('~');
        }
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

    pub(super) fn remove_delim(&mut self, d: usize) {
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

    pub(super) fn count(&self, d: usize) -> usize {
        match self.nodes[self.delims[d].node].kind {
            IKind::Delim { count, .. } => count,
            _ => 0,
        }
    }

    pub(super) fn set_count(&mut self, d: usize, n: usize) {
        if let IKind::Delim { count, .. } = &mut self.nodes[self.delims[d].node].kind {
            *count = n;
        }
    }

    /// Unlinks the siblings strictly between `a` and `b` and makes them the
    /// children of the new container `c`, placed between `a` and `b`. O(1).
    pub(super) fn wrap_between(&mut self, a: usize, b: usize, c: usize) {
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
    pub(super) fn unlink(&mut self, parent: usize, n: usize) {
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
    /// (an index into `delims`; everything with a smaller index is below),
    /// shaped as micromark runs it:
    ///
    /// * Attention (`*`, `_`) and strikethrough (`~~`) are separate
    ///   resolvers, run one after the other in `order`: for a leaf's text,
    ///   the order in which the text first uses them (`_~~*~~*` is emphasis,
    ///   `~~_*~~*` is delete); inside a link, micromark's `insideSpan` order,
    ///   strikethrough first.
    /// * Where CommonMark drops the delimiters between an opener and its
    ///   closer, micromark resolves that span once more, with the
    ///   `insideSpan` resolvers, so runs that the rule of three kept apart
    ///   before a later match shrank one of them can still pair
    ///   (`*'********:************:******`). Each span is cut out of the list
    ///   and resolved after the passes that found it.
    pub(super) fn process_emphasis(&mut self, bottom: usize, order: [Resolver; 2]) {
        let mut spans = Vec::new();
        for resolver in order {
            let Some(first) = self.first_delim(bottom) else {
                break;
            };
            self.emphasis_pass(first, bottom, resolver, &mut spans);
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
        // Spans are disjoint and each delimiter is in at most one at a time;
        // what a span's passes leave unmatched is text.
        let top = self.delim_top;
        while let Some((first, last)) = spans.pop() {
            self.delim_top = last;
            for resolver in INSIDE_SPAN {
                let Some(head) = self.first_delim(first) else {
                    break;
                };
                self.emphasis_pass(head, first, resolver, &mut spans);
            }
        }
        self.delim_top = top;
    }

    /// The first live delimiter at or above `bottom` (walking back from the
    /// top of the list).
    fn first_delim(&mut self, bottom: usize) -> Option<usize> {
        let mut first = self.delim_top;
        if first == NONE || first < bottom {
            return None;
        }
        while self.delims[first].prev != NONE && self.delims[first].prev >= bottom {
            first = self.delims[first].prev;
            self.steps += 1;
        }
        Some(first)
    }

    /// One pass of the algorithm over the list from `closer` on, openers at
    /// or above `bottom`; spans between matched pairs go to `spans`.
    fn emphasis_pass(
        &mut self,
        mut closer: usize,
        bottom: usize,
        resolver: Resolver,
        spans: &mut Vec<(usize, usize)>,
    ) {
        // openers_bottom per (character, closer can open, closer length % 3).
        let mut openers_bottom = [[bottom; 6]; 3];
        let key = |ch: u8| match ch {
            b'*' => 0,
            b'_' => 1,
            _ => 2,
        };
        // The root is node 0; delimiter nodes of this pass share one parent
        // list at a time (the root or a link being built).
        while closer != NONE {
            self.steps += 1;
            let c = self.delims[closer];
            if !c.can_close || (c.ch == b'~') != (resolver == Resolver::Strikethrough) {
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
            // Delimiters between opener and closer leave this pass: their
            // span is resolved on its own afterwards.
            let inner_first = self.delims[found].next;
            if inner_first != closer {
                let inner_last = self.delims[closer].prev;
                self.delims[inner_first].prev = NONE;
                self.delims[inner_last].next = NONE;
                spans.push((inner_first, inner_last));
            }
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
    }
}
