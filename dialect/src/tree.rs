//! The syntax tree: mdast node kinds with byte positions, stored in an arena.
//!
//! An arena (a flat `Vec` of nodes that refer to their children by index) keeps
//! every tree operation iterative: building, walking and dropping a tree never
//! recurses, however deeply the plan nests (DIALECT.md §2.5).

use std::fmt::Write as _;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

/// The value of a JSX attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrValue {
    /// `a="…"` or `a='…'`, with character references decoded.
    String(String),
    /// `a={…}`, the raw text between the braces.
    Expression(String),
    /// A bare `a`.
    None,
}

/// One attribute of a JSX element, in authored order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    /// `{…}` in attribute position (a spread or any expression).
    Expression(String),
    /// A named attribute.
    Named {
        /// The attribute name, as written (`a` or `a:b`).
        name: String,
        /// Its value.
        value: AttrValue,
    },
}

impl Attr {
    /// The attribute name, or `None` for an attribute expression.
    pub fn name(&self) -> Option<&str> {
        match self {
            Attr::Named { name, .. } => Some(name),
            Attr::Expression(_) => None,
        }
    }
}

/// A JSX element's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The tag name (`a`, `a.b`, `a:b`), or `None` for a fragment.
    pub name: Option<String>,
    /// Attributes in authored order.
    pub attrs: Vec<Attr>,
    /// Byte offset right after the tag name in the opening tag (where §10 inserts an id).
    pub name_end: usize,
}

/// The kind of a node, with the data mdast attaches to it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // variant names are the mdast type names
pub enum Kind {
    Root,
    Paragraph,
    Heading {
        depth: u8,
    },
    ThematicBreak,
    Blockquote,
    List {
        ordered: bool,
    },
    ListItem {
        checked: Option<bool>,
    },
    Code {
        lang: Option<Box<str>>,
        value: Box<str>,
    },
    Math {
        value: String,
    },
    Table,
    TableRow,
    TableCell,
    Text {
        value: String,
    },
    Strong,
    Emphasis,
    Delete,
    InlineCode {
        value: String,
    },
    Break,
    Link {
        url: String,
    },
    Image {
        url: String,
    },
    InlineMath {
        value: String,
    },
    LinkReference,
    ImageReference,
    Definition {
        url: String,
    },
    FootnoteReference {
        label: String,
    },
    FootnoteDefinition {
        label: String,
    },
    /// `mdxJsxFlowElement` (boxed: keeps every node small).
    FlowElement(Box<Element>),
    /// `mdxJsxTextElement`.
    TextElement(Box<Element>),
    /// Any other mdast type (only built by tests: the parser never produces it).
    Other(String),
}

impl Kind {
    /// The micromark token that a reason names for this node ("before the
    /// end of `blockQuote`"), as mdast-util-mdx-jsx words it. Headings and
    /// table cells have two tokens each; their texts carry the right one.
    pub(crate) fn token_name(&self) -> &str {
        match self {
            Kind::Blockquote => "blockQuote",
            Kind::FootnoteDefinition { .. } => "gfmFootnoteDefinition",
            Kind::Delete => "strikethrough",
            Kind::LinkReference => "link",
            Kind::ImageReference => "image",
            other => other.type_name(),
        }
    }

    /// The mdast type name.
    pub fn type_name(&self) -> &str {
        match self {
            Kind::Root => "root",
            Kind::Paragraph => "paragraph",
            Kind::Heading { .. } => "heading",
            Kind::ThematicBreak => "thematicBreak",
            Kind::Blockquote => "blockquote",
            Kind::List { .. } => "list",
            Kind::ListItem { .. } => "listItem",
            Kind::Code { .. } => "code",
            Kind::Math { .. } => "math",
            Kind::Table => "table",
            Kind::TableRow => "tableRow",
            Kind::TableCell => "tableCell",
            Kind::Text { .. } => "text",
            Kind::Strong => "strong",
            Kind::Emphasis => "emphasis",
            Kind::Delete => "delete",
            Kind::InlineCode { .. } => "inlineCode",
            Kind::Break => "break",
            Kind::Link { .. } => "link",
            Kind::Image { .. } => "image",
            Kind::InlineMath { .. } => "inlineMath",
            Kind::LinkReference => "linkReference",
            Kind::ImageReference => "imageReference",
            Kind::Definition { .. } => "definition",
            Kind::FootnoteReference { .. } => "footnoteReference",
            Kind::FootnoteDefinition { .. } => "footnoteDefinition",
            Kind::FlowElement(_) => "mdxJsxFlowElement",
            Kind::TextElement(_) => "mdxJsxTextElement",
            Kind::Other(name) => name,
        }
    }

    /// The element data of a flow or text element.
    pub fn element(&self) -> Option<&Element> {
        match self {
            Kind::FlowElement(e) | Kind::TextElement(e) => Some(e),
            _ => None,
        }
    }
}

/// One node: its kind, its start offset (UTF-8 bytes into the submitted plan)
/// and its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Kind and data.
    pub kind: Kind,
    /// Byte offset of the node's first character.
    pub start: usize,
    /// Children, in order.
    pub children: Vec<NodeId>,
}

/// A parsed plan. Node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// All nodes; children refer to them by index.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// A tree holding only a root.
    pub fn new() -> Self {
        Self::with_capacity(1)
    }

    /// A tree holding only a root, with room for `n` nodes.
    pub fn with_capacity(n: usize) -> Self {
        let mut nodes = Vec::with_capacity(n.max(1));
        nodes.push(Node {
            kind: Kind::Root,
            start: 0,
            children: Vec::new(),
        });
        Tree { nodes }
    }

    /// Adds a detached node and returns its id.
    pub fn add(&mut self, kind: Kind, start: usize) -> NodeId {
        self.nodes.push(Node {
            kind,
            start,
            children: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// Adds a node as the last child of `parent`.
    pub fn push(&mut self, parent: NodeId, kind: Kind, start: usize) -> NodeId {
        let id = self.add(kind, start);
        self.nodes[parent].children.push(id);
        id
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// A position-free rendering of the tree (one node per line, indented by
    /// depth), used to compare trees: the same-tree property of §10 and the
    /// differential tests. Iterative, like every walk.
    pub fn shape(&self, with_starts: bool) -> String {
        let mut out = String::new();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            let node = &self.nodes[id];
            for _ in 0..depth {
                out.push_str("  ");
            }
            out.push_str(node.kind.type_name());
            if let Some(el) = node.kind.element() {
                let _ = write!(out, " <{}>", el.name.as_deref().unwrap_or(""));
                for attr in &el.attrs {
                    match attr {
                        // Expressions are escaped like strings, so that one
                        // spanning lines keeps the shape one line per node.
                        Attr::Expression(raw) => {
                            let _ = write!(out, " {{{raw:?}}}");
                        }
                        Attr::Named { name, value } => match value {
                            AttrValue::String(v) => {
                                let _ = write!(out, " {name}={v:?}");
                            }
                            AttrValue::Expression(v) => {
                                let _ = write!(out, " {name}={{{v:?}}}");
                            }
                            AttrValue::None => {
                                let _ = write!(out, " {name}");
                            }
                        },
                    }
                }
            }
            if with_starts {
                let _ = write!(out, " @{}", node.start);
            }
            out.push('\n');
            for &child in node.children.iter().rev() {
                stack.push((child, depth + 1));
            }
        }
        out
    }
}
