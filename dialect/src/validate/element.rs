//! Element checks (§5, §6.3 steps 1–10): catalog lookup, placement,
//! attributes in two passes, content models and Question choices.

use super::{MAX_OPTIONS, NONE, Walk, attr};
use crate::catalog::{self, AttributeType as Ty, Component, Content, Placement};
use crate::is_js_whitespace;
use crate::patterns::{is_blank, is_integer, is_reference, is_ulid};
use crate::tree::{Attr, AttrValue, Element, Kind, NodeId};

impl Walk<'_> {
    pub(super) fn element(&mut self, f: usize, el: &Element, flow: bool) -> Option<usize> {
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
            Placement::Both => None,
            Placement::Flow if !flow => Some(("flow", "text")),
            Placement::Text if flow => Some(("text", "flow")),
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

    pub(super) fn attributes(&mut self, c: &Component, el: &Element, path: usize, at: NodeId) {
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
                    if is_blank(value) && !d.blank_ok {
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

    pub(super) fn content(&mut self, c: &Component, f: usize, path: usize) {
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
    pub(super) fn exempt(&mut self, c: &Component, f: usize) -> bool {
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
        // Counted once per Questionnaire: many Questions under one parent
        // must not each count their siblings again.
        let tree = self.tree;
        let questions = *self.question_counts.entry(parent).or_insert_with(|| {
            tree.node(parent)
                .children
                .iter()
                .filter(|&&ch| {
                    tree.node(ch)
                        .kind
                        .element()
                        .is_some_and(|e| e.name.as_deref() == Some("Question"))
                })
                .count()
        });
        let pending = thread.is_some_and(|t| !t.is_empty())
            && questions == 1
            && matches!(status, Some("open" | "reopened" | "discarded"))
            && attr(q, "multiple") == Some("false");
        let free = thread.is_none_or(str::is_empty) && status.is_none_or(|s| s == "expired");
        pending || free
    }

    pub(super) fn choices(&mut self, q: &Element, f: usize, path: usize) {
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

    pub(super) fn choice_list(
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
}
