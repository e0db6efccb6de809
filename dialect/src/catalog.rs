//! The component catalog (DIALECT.md §4) as data: one table drives kinds,
//! attributes, content models, parents and forbids.

/// Which element kinds a component accepts (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    Flow,
    Text,
    Both,
}

/// Content model (§4.1).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Content {
    Blocks,
    Phrasing,
    Empty,
    Components(&'static [&'static str]),
}

/// Attribute types (§4.2).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ty {
    Id,
    Reference(usize),
    Text(usize),
    Integer(u64, u64),
    Enum(&'static [&'static str]),
}

/// One declared attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttrSpec {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
}

/// One catalog entry.
#[derive(Debug)]
pub(crate) struct Component {
    pub name: &'static str,
    pub kind: Use,
    /// Identified components get an implicit required `id` first, and a minted id.
    pub identified: bool,
    pub content: Content,
    /// Declared attributes after the implicit `id`.
    pub attrs: &'static [AttrSpec],
    /// Allowed nearest enclosing components (empty: anywhere).
    pub parent: &'static [&'static str],
    pub forbids: &'static [&'static str],
    /// Text attributes may be blank (§5.8).
    pub blank_ok: bool,
}

/// The implicit `id` of identified components.
pub(crate) const ID: AttrSpec = AttrSpec {
    name: "id",
    ty: Ty::Id,
    required: true,
};

const fn req(name: &'static str, ty: Ty) -> AttrSpec {
    AttrSpec {
        name,
        ty,
        required: true,
    }
}

const fn opt(name: &'static str, ty: Ty) -> AttrSpec {
    AttrSpec {
        name,
        ty,
        required: false,
    }
}

/// `CALLOUT_TYPES`, in declared order.
pub(crate) const CALLOUT_TYPES: &[&str] = &["note", "tip", "important", "warning", "danger"];
const STATUSES: &[&str] = &["open", "decided", "reopened", "discarded", "expired"];
const BOOLS: &[&str] = &["true", "false"];
const BIG: usize = 262_144;

/// The catalog.
pub(crate) static CATALOG: &[Component] = &[
    Component {
        name: "Image",
        kind: Use::Both,
        identified: false,
        content: Content::Empty,
        attrs: &[
            req("src", Ty::Text(BIG)),
            req("alt", Ty::Text(BIG)),
            req("width", Ty::Integer(1, 4096)),
        ],
        parent: &[],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Experiment",
        kind: Use::Flow,
        identified: true,
        content: Content::Empty,
        attrs: &[
            req("experiment", Ty::Reference(96)),
            req("view", Ty::Text(64)),
            opt("decision", Ty::Text(96)),
        ],
        parent: &[],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Questionnaire",
        kind: Use::Flow,
        identified: true,
        content: Content::Components(&["Question"]),
        attrs: &[
            opt("thread", Ty::Text(200)),
            opt("status", Ty::Enum(STATUSES)),
            opt("by", Ty::Text(80)),
            opt("at", Ty::Text(40)),
        ],
        parent: &[],
        forbids: &["Questionnaire", "Tabs", "Callout"],
        blank_ok: false,
    },
    Component {
        name: "Question",
        kind: Use::Flow,
        identified: true,
        content: Content::Components(&["Option", "Answer", "Previous"]),
        attrs: &[
            req("header", Ty::Text(BIG)),
            req("prompt", Ty::Text(BIG)),
            req("multiple", Ty::Enum(BOOLS)),
        ],
        parent: &["Questionnaire"],
        forbids: &[],
        blank_ok: true,
    },
    Component {
        name: "Option",
        kind: Use::Flow,
        identified: true,
        content: Content::Empty,
        attrs: &[
            req("label", Ty::Text(BIG)),
            opt("description", Ty::Text(BIG)),
        ],
        parent: &["Question"],
        forbids: &[],
        blank_ok: true,
    },
    Component {
        name: "Answer",
        kind: Use::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[req("value", Ty::Text(BIG)), opt("choices", Ty::Text(600))],
        parent: &["Question"],
        forbids: &[],
        blank_ok: true,
    },
    Component {
        name: "Previous",
        kind: Use::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[
            opt("choices", Ty::Text(600)),
            opt("value", Ty::Text(4000)),
            req("by", Ty::Text(80)),
            req("at", Ty::Text(40)),
        ],
        parent: &["Question"],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Decision",
        kind: Use::Flow,
        identified: true,
        content: Content::Components(&["Note"]),
        attrs: &[
            req("quote", Ty::Text(500)),
            req("by", Ty::Text(80)),
            req("at", Ty::Text(40)),
        ],
        parent: &[],
        forbids: &["Questionnaire", "Decision", "Tabs", "Callout"],
        blank_ok: false,
    },
    Component {
        name: "Note",
        kind: Use::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[req("by", Ty::Text(80)), req("text", Ty::Text(4000))],
        parent: &["Decision"],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Columns",
        kind: Use::Flow,
        identified: true,
        content: Content::Components(&["Column"]),
        attrs: &[],
        parent: &[],
        forbids: &["Columns"],
        blank_ok: false,
    },
    Component {
        name: "Column",
        kind: Use::Flow,
        identified: true,
        content: Content::Blocks,
        attrs: &[],
        parent: &["Columns"],
        forbids: &[
            "Experiment",
            "Questionnaire",
            "Question",
            "Option",
            "Answer",
            "Previous",
            "Decision",
            "Note",
            "Tabs",
            "Tab",
            "Callout",
            "Research",
            "Columns",
            "Column",
        ],
        blank_ok: false,
    },
    Component {
        name: "Tabs",
        kind: Use::Flow,
        identified: true,
        content: Content::Components(&["Tab"]),
        attrs: &[],
        parent: &[],
        forbids: &["Tabs"],
        blank_ok: false,
    },
    Component {
        name: "Tab",
        kind: Use::Flow,
        identified: true,
        content: Content::Blocks,
        attrs: &[req("label", Ty::Text(60))],
        parent: &["Tabs"],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Callout",
        kind: Use::Flow,
        identified: true,
        content: Content::Blocks,
        attrs: &[
            req("type", Ty::Enum(CALLOUT_TYPES)),
            opt("title", Ty::Text(100)),
        ],
        parent: &[],
        forbids: &["Callout"],
        blank_ok: false,
    },
    Component {
        name: "Research",
        kind: Use::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[req("id", Ty::Reference(96))],
        parent: &[],
        forbids: &[],
        blank_ok: false,
    },
    Component {
        name: "Underline",
        kind: Use::Text,
        identified: false,
        content: Content::Phrasing,
        attrs: &[],
        parent: &[],
        forbids: &[],
        blank_ok: false,
    },
];

/// Looks a component up by exact, case-sensitive name.
pub(crate) fn lookup(name: &str) -> Option<&'static Component> {
    CATALOG.iter().find(|c| c.name == name)
}

/// Whether elements with this name get a minted id when they have none (§10).
pub(crate) fn mints_id(name: &str) -> bool {
    lookup(name).is_some_and(|c| c.identified || c.name == "Research")
}

impl Component {
    /// Declared attributes in declared order, the implicit `id` first.
    pub(crate) fn declared(&self) -> impl Iterator<Item = &AttrSpec> {
        self.identified
            .then_some(&ID)
            .into_iter()
            .chain(self.attrs.iter())
    }
}
