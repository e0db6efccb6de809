//! The validator (DIALECT.md §3–§9): a pre-order walk with explicit stacks.

use std::collections::HashMap;

use super::catalog::{self, Component, Content, Ty, Use};
use super::issue::Issue;
use super::location::LineIndex;
use super::patterns::{
    has_scheme, is_blank, is_hidden, is_hosted_image, is_integer, is_reference, is_ulid,
};
use super::tree::{Attr, AttrValue, Element, Kind, NodeId, Tree};
use super::{MAX_SOURCE_BYTES, is_js_whitespace};

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
    };
    if canonical_len > MAX_SOURCE_BYTES {
        w.issues.push(Issue::whole(
            "source-too-large",
            "Plan exceeds the 256 KiB limit",
        ));
    }
    w.walk(true);
    if w.images > MAX_IMAGES {
        w.issues
            .push(Issue::whole("too-many-images", "Plan exceeds 100 images"));
    }
    if w.issues.is_empty() {
        w.walk(false);
    }
    w.issues
}

impl<'t> Walk<'t> {
    /// A pre-order walk from the root with an explicit stack: the validation
    /// walk (`checks`), or the introduced-URL walk of §9.6.
    fn walk(&mut self, checks: bool) {
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
            let descend = if checks {
                self.visit(f)
            } else {
                self.introduced_url(f)
            };
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

    fn element(&mut self, f: usize, el: &Element, flow: bool) -> Option<usize> {
        let v = self.frames[f];
        let path = f;
        let Some(name) = el.name.as_deref() else {
            self.issue(
                "fragment",
                "JSX fragments are not allowed in plans".to_owned(),
                path,
                v.node,
            );
            return None;
        };
        let Some(c) = catalog::lookup(name) else {
            self.issue(
                "unknown-component",
                format!("`{name}` is not a plan component"),
                path,
                v.node,
            );
            return None;
        };
        if c.name == "Columns" && v.depth != 1 {
            self.issue(
                "bad-layout-placement",
                "`Columns` must be a top-level block".to_owned(),
                path,
                v.node,
            );
        }
        let wrong = match c.kind {
            Use::Both => None,
            Use::Flow if !flow => Some(("flow", "text")),
            Use::Text if flow => Some(("text", "flow")),
            _ => None,
        };
        if let Some((kind, used)) = wrong {
            self.issue(
                "wrong-kind",
                format!("`{name}` is a {kind} component but was used as {used}"),
                path,
                v.node,
            );
        }
        let nearest = (v.component != NONE).then(|| self.ancestors[v.component].0);
        if !c.parent.is_empty() && !nearest.is_some_and(|a| c.parent.contains(&a)) {
            self.issue(
                "bad-parent",
                format!(
                    "`{name}` must be a direct child of {}",
                    c.parent.join(" or ")
                ),
                path,
                v.node,
            );
        }
        let outer = self.ancestor_names(v.component);
        if let Some(a) = outer
            .iter()
            .find(|a| catalog::lookup(a).is_some_and(|ac| ac.forbids.contains(&c.name)))
        {
            self.issue(
                "bad-nesting",
                format!("`{name}` cannot appear inside `{a}`"),
                path,
                v.node,
            );
        }
        self.attributes(c, el, path, v.node);
        self.content(c, f, path);
        if c.name == "Question" {
            self.choices(el, f, path);
        }
        if c.name == "Image" {
            self.images += 1;
            let src = attr(el, "src").unwrap_or("");
            self.image(src, path, v.node);
        }
        self.ancestors.push((c.name, v.component));
        Some(self.ancestors.len() - 1)
    }

    fn attributes(&mut self, c: &Component, el: &Element, path: usize, at: NodeId) {
        let name = c.name;
        let mut kept: Vec<(&str, &str)> = Vec::new();
        for a in &el.attrs {
            match a {
                Attr::Expression(_) => {
                    self.issue(
                        "spread-attribute",
                        "Spread attributes are not allowed".to_owned(),
                        path,
                        at,
                    );
                }
                Attr::Named { name: an, value } => {
                    let AttrValue::String(value) = value else {
                        self.issue(
                            "expression-attribute",
                            format!("`{an}` must be a quoted string, not an expression"),
                            path,
                            at,
                        );
                        continue;
                    };
                    if !c.declared().any(|d| d.name == an) {
                        self.issue(
                            "unknown-attribute",
                            format!("`{name}` has no `{an}` attribute"),
                            path,
                            at,
                        );
                    } else if kept.iter().any(|(k, _)| k == an) {
                        self.issue(
                            "duplicate-attribute",
                            format!("`{an}` is set more than once"),
                            path,
                            at,
                        );
                    } else {
                        kept.push((an, value));
                    }
                }
            }
        }
        for d in c.declared() {
            let Some(&(_, value)) = kept.iter().find(|(k, _)| *k == d.name) else {
                if d.required {
                    self.issue(
                        "missing-attribute",
                        format!("`{name}` requires `{}`", d.name),
                        path,
                        at,
                    );
                }
                continue;
            };
            let a = d.name;
            match d.ty {
                Ty::Id => {
                    if !is_ulid(value) {
                        self.issue("bad-id", format!("`{name}.{a}` must be a ULID"), path, at);
                    }
                }
                Ty::Reference(max) => {
                    if value.chars().count() > max || !is_reference(value) {
                        self.issue(
                            "bad-reference",
                            format!("`{name}.{a}` must be a safe external reference"),
                            path,
                            at,
                        );
                    }
                }
                Ty::Text(max) => {
                    let exempt = c.blank_ok || (name == "Image" && a == "alt");
                    if is_blank(value) && !exempt {
                        self.issue(
                            "empty-attribute",
                            format!("`{name}.{a}` cannot be empty"),
                            path,
                            at,
                        );
                    } else if value.chars().count() > max {
                        self.issue(
                            "attribute-too-long",
                            format!("`{name}.{a}` exceeds {max} characters"),
                            path,
                            at,
                        );
                    }
                }
                Ty::Integer(min, max) => {
                    let ok = is_integer(value)
                        && value.parse::<u64>().is_ok_and(|n| (min..=max).contains(&n));
                    if !ok {
                        self.issue(
                            "bad-attribute-value",
                            format!("`{name}.{a}` must be an integer from {min} to {max}"),
                            path,
                            at,
                        );
                    }
                }
                Ty::Enum(values) => {
                    if !values.contains(&value) {
                        self.issue(
                            "bad-attribute-value",
                            format!("`{name}.{a}` must be one of {}", values.join(", ")),
                            path,
                            at,
                        );
                    }
                }
            }
        }
    }

    fn content(&mut self, c: &Component, f: usize, path: usize) {
        let v = self.frames[f];
        let tree = self.tree;
        let node = tree.node(v.node);
        match c.content {
            Content::Blocks | Content::Phrasing => {}
            Content::Empty => {
                if !node.children.is_empty() {
                    self.issue(
                        "unexpected-children",
                        format!("`{}` cannot have children", c.name),
                        path,
                        v.node,
                    );
                }
            }
            Content::Components(allowed) => {
                let mut found = 0;
                let mut columns = 0;
                for &child in &node.children {
                    let ck = &tree.node(child).kind;
                    if let Kind::Text { value } = ck {
                        if is_blank(value) {
                            continue;
                        }
                    }
                    let name = ck.element().and_then(|e| e.name.as_deref());
                    match name.filter(|n| allowed.contains(n)) {
                        Some(n) => {
                            found += 1;
                            if n == "Column" {
                                columns += 1;
                            }
                        }
                        None => {
                            let msg =
                                format!("`{}` may only contain {}", c.name, allowed.join(", "));
                            self.issue("unexpected-child", msg, path, child);
                        }
                    }
                }
                if c.name == "Columns" && columns != 2 {
                    self.issue(
                        "bad-column-count",
                        "`Columns` requires exactly two columns".to_owned(),
                        path,
                        v.node,
                    );
                }
                if found == 0 && !self.exempt(c, f) {
                    let msg = format!(
                        "`{}` requires at least one {}",
                        c.name,
                        allowed.join(" or ")
                    );
                    self.issue("missing-children", msg, path, v.node);
                }
            }
        }
    }

    /// §5.7: a Question directly under a Questionnaire may be childless.
    fn exempt(&self, c: &Component, f: usize) -> bool {
        if c.name != "Question" {
            return false;
        }
        let v = self.frames[f];
        let Some(parent) = (v.parent != NONE).then(|| self.frames[v.parent].node) else {
            return false;
        };
        let Some(qn) = self
            .tree
            .node(parent)
            .kind
            .element()
            .filter(|e| e.name.as_deref() == Some("Questionnaire"))
        else {
            return false;
        };
        let Some(q) = self.tree.node(v.node).kind.element() else {
            return false;
        };
        let thread = attr(qn, "thread");
        let status = attr(qn, "status");
        let questions = self
            .tree
            .node(parent)
            .children
            .iter()
            .filter(|&&ch| {
                self.tree
                    .node(ch)
                    .kind
                    .element()
                    .is_some_and(|e| e.name.as_deref() == Some("Question"))
            })
            .count();
        let pending = thread.is_some_and(|t| !t.is_empty())
            && questions == 1
            && matches!(status, Some("open" | "reopened" | "discarded"))
            && attr(q, "multiple") == Some("false");
        let free = thread.is_none_or(str::is_empty) && status.is_none_or(|s| s == "expired");
        pending || free
    }

    fn choices(&mut self, q: &Element, f: usize, path: usize) {
        let v = self.frames[f];
        let tree = self.tree;
        let node = tree.node(v.node);
        let children: Vec<(NodeId, &Element)> = node
            .children
            .iter()
            .filter_map(|&c| tree.node(c).kind.element().map(|e| (c, e)))
            .collect();
        let options: Vec<&str> = children
            .iter()
            .filter(|(_, e)| e.name.as_deref() == Some("Option"))
            .filter_map(|(_, e)| attr(e, "id"))
            .collect();
        let single = attr(q, "multiple") == Some("false");
        for &(id, e) in &children {
            if e.name.as_deref() == Some("Answer") {
                if let Some(choices) = attr(e, "choices") {
                    self.choice_list(choices, &options, single, path, id, true);
                }
            }
        }
        let previous: Vec<(NodeId, &Element)> = children
            .iter()
            .copied()
            .filter(|(_, e)| e.name.as_deref() == Some("Previous"))
            .collect();
        if previous.len() > 1 {
            self.issue(
                "duplicate-previous",
                "Question accepts at most one Previous".to_owned(),
                path,
                v.node,
            );
        }
        for (id, e) in previous {
            let choices = attr(e, "choices");
            if choices.is_some() == attr(e, "value").is_some() {
                self.issue(
                    "invalid-previous-answer",
                    "Previous requires choices or value, but not both".to_owned(),
                    path,
                    id,
                );
            }
            if let Some(choices) = choices {
                self.choice_list(choices, &options, single, path, id, false);
            }
        }
    }

    fn choice_list(
        &mut self,
        value: &str,
        options: &[&str],
        single: bool,
        path: usize,
        at: NodeId,
        answer: bool,
    ) {
        let ids: Vec<&str> = value
            .split(is_js_whitespace)
            .filter(|s| !s.is_empty())
            .collect();
        let (many, unknown, dup) = if answer {
            (
                (
                    "too-many-answer-choices",
                    "Answer accepts at most 20 choices",
                ),
                (
                    "unknown-answer-choice",
                    "Answer choices must name options in this question",
                ),
                (
                    "duplicate-answer-choice",
                    "Answer choices cannot repeat an option",
                ),
            )
        } else {
            (
                (
                    "too-many-previous-choices",
                    "Previous accepts at most 20 choices",
                ),
                (
                    "unknown-previous-choice",
                    "Previous choices must name options in this question",
                ),
                (
                    "duplicate-previous-choice",
                    "Previous choices cannot repeat an option",
                ),
            )
        };
        if ids.len() > MAX_OPTIONS {
            self.issue(many.0, many.1.to_owned(), path, at);
        }
        if ids.iter().any(|id| !options.contains(id)) {
            self.issue(unknown.0, unknown.1.to_owned(), path, at);
        }
        let mut seen = std::collections::HashSet::new();
        if ids.iter().any(|id| !seen.insert(*id)) {
            self.issue(dup.0, dup.1.to_owned(), path, at);
        }
        if single && ids.len() > 1 {
            self.issue(
                many.0,
                "This question accepts one choice".to_owned(),
                path,
                at,
            );
        }
    }

    fn link(&mut self, url: &str, path: usize, at: NodeId) {
        if !has_scheme(url) {
            return;
        }
        match url::Url::parse(url) {
            Err(_) => self.issue("bad-link", "Link is not a valid URL".to_owned(), path, at),
            Ok(u) => {
                let scheme = u.scheme();
                if scheme != "https" && scheme != "mailto" {
                    self.issue(
                        "bad-link-protocol",
                        format!("`{scheme}:` links are not allowed"),
                        path,
                        at,
                    );
                }
            }
        }
    }

    fn image(&mut self, url: &str, path: usize, at: NodeId) {
        if is_hosted_image(url) {
            return;
        }
        match url::Url::parse(url) {
            Err(_) => self.issue(
                "bad-image",
                "Image must be an absolute URL or a Chopin-hosted /images/ path".to_owned(),
                path,
                at,
            ),
            Ok(u) => {
                if u.scheme() != "https" {
                    self.issue(
                        "bad-image-protocol",
                        format!("`{}:` images are not allowed", u.scheme()),
                        path,
                        at,
                    );
                }
            }
        }
    }

    /// §9.6 for one node of the second walk (over the whole tree).
    fn introduced_url(&mut self, f: usize) -> Option<usize> {
        let id = self.frames[f].node;
        let tree = self.tree;
        let found = match &tree.node(id).kind {
            Kind::Link { url } => Some((url.as_str(), true)),
            Kind::Image { url } => Some((url.as_str(), false)),
            Kind::FlowElement(el) | Kind::TextElement(el)
                if el.name.as_deref() == Some("Image") =>
            {
                attr(el, "src").map(|s| (s, false))
            }
            _ => None,
        };
        if let Some((url, link)) = found {
            if let Some(message) = introduced_url(url, link) {
                self.issue(
                    if link { "bad-link" } else { "bad-image" },
                    message.to_owned(),
                    f,
                    id,
                );
            }
        }
        Some(NONE)
    }
}

fn introduced_url(url: &str, link: bool) -> Option<&'static str> {
    if url.chars().any(is_hidden) {
        return Some(if link {
            "Link contains hidden or control characters"
        } else {
            "Image URL contains hidden or control characters"
        });
    }
    if url.starts_with(is_js_whitespace) || url.ends_with(is_js_whitespace) {
        return Some(if link {
            "Link cannot start or end with whitespace"
        } else {
            "Image URL cannot start or end with whitespace"
        });
    }
    if !has_scheme(url) {
        let squeezed: String = url.chars().filter(|&c| !is_js_whitespace(c)).collect();
        if has_scheme(&squeezed) {
            return Some(if link {
                "Link hides a protocol behind whitespace"
            } else {
                "Image URL hides a protocol behind whitespace"
            });
        }
        if link && (url.starts_with("//") || url.contains('\\')) {
            return Some("Link without a protocol must stay in the repository");
        }
    }
    None
}

/// §9.3: micromark's label normalization, then a full case round trip.
pub(crate) fn footnote_identifier(label: &str) -> String {
    let mut collapsed = String::with_capacity(label.len());
    let mut in_ws = false;
    for c in label.chars() {
        if matches!(c, '\t' | '\n' | '\r' | ' ') {
            if !in_ws {
                collapsed.push(' ');
            }
            in_ws = true;
        } else {
            collapsed.push(c);
            in_ws = false;
        }
    }
    let trimmed = collapsed.strip_prefix(' ').unwrap_or(&collapsed);
    let trimmed = trimmed.strip_suffix(' ').unwrap_or(trimmed);
    trimmed.to_lowercase().to_uppercase()
}
