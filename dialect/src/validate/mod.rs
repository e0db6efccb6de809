//! The validator (DIALECT.md §3–§9): a pre-order walk with explicit stacks.

mod element;
mod urls;

use std::collections::HashMap;

use self::urls::footnote_identifier;
use super::MAX_SOURCE_BYTES;
use super::issue::Issue;
use super::location::LineIndex;
use super::patterns::is_ulid;
use super::tree::{Attr, AttrValue, Element, Kind, NodeId, Tree};

/// `MAX_DEPTH` (§8).
pub const MAX_DEPTH: usize = 20;
/// `MAX_TABLE_ROWS`.
pub const MAX_TABLE_ROWS: usize = 100;
/// `MAX_TABLE_COLUMNS`.
pub const MAX_TABLE_COLUMNS: usize = 20;
/// `MAX_IMAGES`.
pub const MAX_IMAGES: usize = 100;
/// `MAX_OPTIONS`: ids per `choices` value.
pub const MAX_OPTIONS: usize = 20;

const FORBIDDEN: &[&str] = &[
    "html",
    "mdxjsEsm",
    "mdxFlowExpression",
    "mdxTextExpression",
    "yaml",
    "toml",
    "linkReference",
    "imageReference",
    "definition",
];

const ALLOWED: &[&str] = &[
    "root",
    "paragraph",
    "heading",
    "thematicBreak",
    "blockquote",
    "list",
    "listItem",
    "code",
    "table",
    "tableRow",
    "tableCell",
    "text",
    "strong",
    "emphasis",
    "delete",
    "inlineCode",
    "break",
    "link",
    "image",
    "math",
    "inlineMath",
    "footnoteReference",
    "footnoteDefinition",
    "mdxJsxFlowElement",
    "mdxJsxTextElement",
];

struct Walk<'t> {
    tree: &'t Tree,
    lines: &'t LineIndex<'t>,
    issues: Vec<Issue>,
    images: usize,
    /// Every visited node, so paths can be built on demand (only for issues).
    frames: Vec<Frame<'t>>,
    /// Enclosing components as a parent-linked list: (name, outer index).
    ancestors: Vec<(&'static str, usize)>,
    /// Introduced-URL issues (§9.6), reported only when nothing else is.
    deferred: Vec<Issue>,
    /// Questions per Questionnaire node, for the pending exemption (§5.7).
    question_counts: HashMap<NodeId, usize>,
}

const NONE: usize = usize::MAX;

#[derive(Clone, Copy)]
struct Frame<'t> {
    node: NodeId,
    /// Index of the parent's frame (`NONE` for the root).
    parent: usize,
    label: &'t str,
    /// Earlier siblings with the same label.
    index: usize,
    depth: usize,
    /// Innermost enclosing component (index into `ancestors`), or `NONE`.
    component: usize,
}

/// Counts earlier siblings per label without allocating per node.
#[derive(Default)]
struct LabelCounter<'t> {
    small: Vec<(&'t str, usize)>,
    large: HashMap<&'t str, usize>,
}

impl<'t> LabelCounter<'t> {
    fn clear(&mut self) {
        self.small.clear();
        self.large.clear();
    }

    fn next(&mut self, label: &'t str) -> usize {
        if let Some(entry) = self.small.iter_mut().find(|(l, _)| *l == label) {
            entry.1 += 1;
            return entry.1 - 1;
        }
        if self.small.len() < 16 {
            self.small.push((label, 1));
            return 0;
        }
        let n = self.large.entry(label).or_insert(0);
        *n += 1;
        *n - 1
    }
}

fn label(tree: &Tree, id: NodeId) -> &str {
    let kind = &tree.node(id).kind;
    match kind.element() {
        Some(el) => el.name.as_deref().unwrap_or("fragment"),
        None => kind.type_name(),
    }
}

/// The value of the first attribute named `name`, if it is a string (§4.5).
pub(crate) fn attr<'e>(el: &'e Element, name: &str) -> Option<&'e str> {
    el.attrs
        .iter()
        .find(|a| a.name() == Some(name))
        .and_then(|a| match a {
            Attr::Named {
                value: AttrValue::String(v),
                ..
            } => Some(v.as_str()),
            _ => None,
        })
}

/// Validates `tree`, given the canonical plan's byte length.
pub(crate) fn validate(tree: &Tree, canonical_len: usize, lines: &LineIndex<'_>) -> Vec<Issue> {
    let mut w = Walk {
        tree,
        lines,
        issues: Vec::new(),
        images: 0,
        frames: Vec::with_capacity(tree.nodes.len()),
        ancestors: Vec::new(),
        deferred: Vec::new(),
        question_counts: HashMap::new(),
    };
    if canonical_len > MAX_SOURCE_BYTES {
        w.issues.push(Issue::whole(
            "source-too-large",
            "Plan exceeds the 256 KiB limit",
        ));
    }
    w.walk();
    if w.images > MAX_IMAGES {
        w.issues
            .push(Issue::whole("too-many-images", "Plan exceeds 100 images"));
    }
    // §6.3 stage 6 runs only on a plan without other issues; then the walk
    // above visited every node, so its deferred URL issues are complete.
    if w.issues.is_empty() {
        w.issues = std::mem::take(&mut w.deferred);
    }
    w.issues
}

impl<'t> Walk<'t> {
    /// The pre-order walk from the root, with an explicit stack. It also
    /// runs the introduced-URL checks of §9.6 while no issue was found, into
    /// `deferred` (the same order and paths as a second walk would give).
    fn walk(&mut self) {
        self.frames.clear();
        self.ancestors.clear();
        self.frames.push(Frame {
            node: 0,
            parent: NONE,
            label: "root",
            index: 0,
            depth: 0,
            component: NONE,
        });
        let mut stack = vec![0usize];
        let mut counter = LabelCounter::default();
        let tree = self.tree;
        while let Some(f) = stack.pop() {
            let frame = self.frames[f];
            let descend = self.visit(f);
            if self.issues.is_empty() {
                self.introduced_url(f);
            }
            let Some(component) = descend else { continue };
            counter.clear();
            let children = &tree.node(frame.node).children;
            let first = self.frames.len();
            for &c in children {
                let label = label(tree, c);
                let index = counter.next(label);
                self.frames.push(Frame {
                    node: c,
                    parent: f,
                    label,
                    index,
                    depth: frame.depth + 1,
                    component,
                });
            }
            stack.extend((first..self.frames.len()).rev());
        }
    }

    /// The path of a visited node (§6.2), built only when an issue needs it.
    fn path(&self, mut f: usize) -> String {
        let mut parts = Vec::new();
        while f != NONE && self.frames[f].parent != NONE {
            parts.push(f);
            f = self.frames[f].parent;
        }
        let mut out = String::from("root");
        for &p in parts.iter().rev() {
            let frame = &self.frames[p];
            out.push_str(" > ");
            out.push_str(frame.label);
            out.push('[');
            out.push_str(&frame.index.to_string());
            out.push(']');
        }
        out
    }

    fn deferred_issue(&mut self, code: &'static str, message: String, f: usize, at: NodeId) {
        let offset = self.tree.node(at).start;
        let path = self.path(f);
        self.deferred
            .push(Issue::at(code, message, path, offset, self.lines));
    }

    fn issue(&mut self, code: &'static str, message: String, f: usize, at: NodeId) {
        let offset = self.tree.node(at).start;
        let path = self.path(f);
        self.issues
            .push(Issue::at(code, message, path, offset, self.lines));
    }

    /// Enclosing component names, outermost first.
    fn ancestor_names(&self, mut a: usize) -> Vec<&'static str> {
        let mut names = Vec::new();
        while a != NONE {
            names.push(self.ancestors[a].0);
            a = self.ancestors[a].1;
        }
        names.reverse();
        names
    }

    /// Checks one node; returns the innermost enclosing component for its
    /// children, or `None` when the walk must not descend.
    fn visit(&mut self, f: usize) -> Option<usize> {
        let v = self.frames[f];
        let tree = self.tree;
        let node = tree.node(v.node);
        let path = f;
        if v.depth > MAX_DEPTH {
            self.issue(
                "too-deep",
                "Content nests deeper than 20 levels".to_owned(),
                path,
                v.node,
            );
            return None;
        }
        let ty = node.kind.type_name();
        if FORBIDDEN.contains(&ty) {
            self.issue(
                "forbidden-node",
                format!("`{ty}` is not allowed in plans"),
                path,
                v.node,
            );
            return None;
        }
        if !ALLOWED.contains(&ty) {
            self.issue(
                "unknown-node",
                format!("`{ty}` is not part of the plan dialect"),
                path,
                v.node,
            );
            return None;
        }
        match &node.kind {
            Kind::FlowElement(el) | Kind::TextElement(el) => {
                let flow = matches!(node.kind, Kind::FlowElement(_));
                return self.element(f, el, flow);
            }
            Kind::Link { url } => self.link(url, path, v.node),
            Kind::Image { url } => {
                self.images += 1;
                self.image(url, path, v.node);
            }
            Kind::Table => {
                let rows = &node.children;
                if rows.len() > MAX_TABLE_ROWS {
                    self.issue(
                        "table-too-tall",
                        "Tables are limited to 100 rows".to_owned(),
                        path,
                        v.node,
                    );
                }
                if rows
                    .iter()
                    .any(|&r| tree.node(r).children.len() > MAX_TABLE_COLUMNS)
                {
                    self.issue(
                        "table-too-wide",
                        "Tables are limited to 20 columns".to_owned(),
                        path,
                        v.node,
                    );
                }
            }
            Kind::FootnoteReference { label } | Kind::FootnoteDefinition { label }
                if !is_ulid(&footnote_identifier(label)) =>
            {
                self.issue(
                    "bad-footnote-id",
                    "Footnote identifiers must be ULIDs".to_owned(),
                    path,
                    v.node,
                );
            }
            _ => {}
        }
        Some(v.component)
    }
}
