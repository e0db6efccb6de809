//! From the inline node list to tree nodes: pairing JSX text tags, merging
//! text, and the tree-construction failures of §2.4.

use super::{IKind, NONE, Parser};
use crate::ParseError;
use crate::jsx::{Tag, abbreviated};
use crate::leaf::{Leaf, TreeError};
use crate::tree::{Element, Kind, NodeId, Tree};

impl Parser<'_, '_> {
    /// Turns the inline list into tree nodes, pairing text tags. Iterative.
    pub(super) fn convert(
        &mut self,
        root: usize,
        leaf: &Leaf,
        tree: &mut Tree,
    ) -> Option<TreeError> {
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
            /// The leaf's token (headings and cells have two); containers
            /// name theirs from their kind.
            token: Option<&'static str>,
            /// The innermost tag open outside this frame (name, start, end):
            /// mdast-util-mdx-jsx keeps one stack of open tags for the whole
            /// document, so a closing tag in emphasis meets one opened before
            /// it.
            outer: Option<(Option<String>, usize, usize)>,
        }
        let leaf_end = leaf.segs.last().map_or(0, |s| s.1);
        let mut frames = vec![Frame {
            cursor: self.nodes[root].first,
            target: leaf.node,
            end: leaf_end,
            tags: Vec::new(),
            detached: false,
            token: Some(leaf.token),
            outer: leaf.flow_open.clone(),
        }];
        while let Some(frame) = frames.last_mut() {
            let id = frame.cursor;
            if id == NONE {
                let frame = frames.pop().expect("non-empty");
                if let Some((_, tag)) = frame.tags.last() {
                    let (l1, c1) = self.ctx.lines.locate(tag.start);
                    let (l2, c2) = self.ctx.lines.locate(tag.end);
                    let what = frame
                        .token
                        .unwrap_or_else(|| tree.node(frame.target).kind.token_name());
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
                    let outer = match frame.tags.last() {
                        Some((_, open)) => Some((open.name.clone(), open.start, open.end)),
                        None => frame.outer.clone(),
                    };
                    // The container ends where its next sibling starts (after
                    // a closing delimiter or a link's resource), else where
                    // its parent ends: the order of "before the end of"
                    // failures depends on it.
                    let next = self.nodes[id].next;
                    let end = if next == NONE {
                        frame.end
                    } else {
                        self.src_offset(self.nodes[next].start)
                    };
                    frames.push(Frame {
                        cursor: first,
                        target,
                        end,
                        tags: Vec::new(),
                        detached,
                        token: None,
                        outer,
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
                        None => match &frame.outer {
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
                                    let what = frame.token.unwrap_or_else(|| {
                                        tree.node(frame.target).kind.token_name()
                                    });
                                    let (l, c) =
                                        self.ctx.lines.locate(tree.node(frame.target).start);
                                    // The enclosing node ends with the text, or
                                    // where an inline container's next sibling
                                    // starts.
                                    let end = if frame.target == leaf.node {
                                        leaf.token_end
                                    } else {
                                        frame.end
                                    };
                                    let (el, ec) = self.ctx.lines.locate(end);
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
