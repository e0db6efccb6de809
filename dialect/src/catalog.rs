//! The component catalog as data: one table drives kinds, attributes,
//! content models, parents and forbids, for the validator and for anyone
//! who reads it ([`components`], [`component`]; docs/plans.md describes it
//! for authors).

/// Where a component's tags may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// On lines of their own, between blocks (a flow element).
    Flow,
    /// Inside a line of prose (a text element).
    Text,
    /// Either.
    Both,
}

/// What a component may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// Any Markdown blocks, and the components allowed where they stand.
    Blocks,
    /// Inline Markdown (text, emphasis, links, …).
    Phrasing,
    /// Nothing: the component is written self-closing (`<Note … />`).
    Empty,
    /// Only these components (blank text between them is fine), at least
    /// one of them.
    Components(&'static [&'static str]),
}

/// What an attribute's value must be. Every value is a quoted string;
/// lengths count Unicode scalar values (characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType {
    /// A ULID: 26 characters of upper-case Crockford base32, the first at
    /// most `7`. Minted when left out.
    Id,
    /// A reference to something outside the plan: at most this many
    /// characters, a letter or digit and then letters, digits, `.`, `_`,
    /// `:` and `-`.
    Reference(usize),
    /// Text of at most this many characters, not blank unless
    /// [`Attribute::may_be_blank`].
    Text(usize),
    /// A decimal integer from the first number to the second, written
    /// without leading zeros or a sign.
    Integer(u64, u64),
    /// One of these values, exactly (case-sensitive).
    Enum(&'static [&'static str]),
}

/// One attribute a component declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute {
    pub(crate) name: &'static str,
    pub(crate) ty: AttributeType,
    pub(crate) required: bool,
    /// A blank text value is accepted.
    pub(crate) blank_ok: bool,
}

impl Attribute {
    /// The attribute's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What its value must be.
    pub fn value(&self) -> AttributeType {
        self.ty
    }

    /// Whether the component needs it (an identified component's `id` is
    /// minted when left out, so a plan never needs to write it).
    pub fn required(&self) -> bool {
        self.required
    }

    /// Whether a blank value (empty, or only whitespace) is accepted for
    /// this text attribute.
    pub fn may_be_blank(&self) -> bool {
        self.blank_ok
    }
}

/// One component of the catalog.
#[derive(Debug)]
pub struct Component {
    pub(crate) name: &'static str,
    pub(crate) kind: Placement,
    /// Identified components get an implicit required `id` first, and a minted id.
    pub(crate) identified: bool,
    pub(crate) content: Content,
    /// Declared attributes after the implicit `id`.
    pub(crate) attrs: &'static [Attribute],
    /// Allowed nearest enclosing components (empty: anywhere).
    pub(crate) parent: &'static [&'static str],
    pub(crate) forbids: &'static [&'static str],
}

/// The implicit `id` of identified components.
pub(crate) const ID: Attribute = req("id", Ty::Id);

const fn req(name: &'static str, ty: Ty) -> Attribute {
    Attribute {
        name,
        ty,
        required: true,
        blank_ok: false,
    }
}

const fn opt(name: &'static str, ty: Ty) -> Attribute {
    Attribute {
        name,
        ty,
        required: false,
        blank_ok: false,
    }
}

/// `attribute`, accepting a blank value.
const fn blank(attribute: Attribute) -> Attribute {
    Attribute {
        blank_ok: true,
        ..attribute
    }
}

/// The short name the table below uses.
use AttributeType as Ty;

/// The callout types, in declared order.
pub(crate) const CALLOUT_TYPES: &[&str] = &["note", "tip", "important", "warning", "danger"];
const STATUSES: &[&str] = &["open", "decided", "reopened", "discarded", "expired"];
const BOOLS: &[&str] = &["true", "false"];
const BIG: usize = 262_144;

/// The catalog.
pub(crate) static CATALOG: &[Component] = &[
    Component {
        name: "Image",
        kind: Placement::Both,
        identified: false,
        content: Content::Empty,
        attrs: &[
            req("src", Ty::Text(BIG)),
            blank(req("alt", Ty::Text(BIG))),
            req("width", Ty::Integer(1, 4096)),
        ],
        parent: &[],
        forbids: &[],
    },
    Component {
        name: "Experiment",
        kind: Placement::Flow,
        identified: true,
        content: Content::Empty,
        attrs: &[
            req("experiment", Ty::Reference(96)),
            req("view", Ty::Text(64)),
            opt("decision", Ty::Text(96)),
        ],
        parent: &[],
        forbids: &[],
    },
    Component {
        name: "Questionnaire",
        kind: Placement::Flow,
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
    },
    Component {
        name: "Question",
        kind: Placement::Flow,
        identified: true,
        content: Content::Components(&["Option", "Answer", "Previous"]),
        attrs: &[
            blank(req("header", Ty::Text(BIG))),
            blank(req("prompt", Ty::Text(BIG))),
            req("multiple", Ty::Enum(BOOLS)),
        ],
        parent: &["Questionnaire"],
        forbids: &[],
    },
    Component {
        name: "Option",
        kind: Placement::Flow,
        identified: true,
        content: Content::Empty,
        attrs: &[
            blank(req("label", Ty::Text(BIG))),
            blank(opt("description", Ty::Text(BIG))),
        ],
        parent: &["Question"],
        forbids: &[],
    },
    Component {
        name: "Answer",
        kind: Placement::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[
            blank(req("value", Ty::Text(BIG))),
            blank(opt("choices", Ty::Text(600))),
        ],
        parent: &["Question"],
        forbids: &[],
    },
    Component {
        name: "Previous",
        kind: Placement::Flow,
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
    },
    Component {
        name: "Decision",
        kind: Placement::Flow,
        identified: true,
        content: Content::Components(&["Note"]),
        attrs: &[
            req("quote", Ty::Text(500)),
            req("by", Ty::Text(80)),
            req("at", Ty::Text(40)),
        ],
        parent: &[],
        forbids: &["Questionnaire", "Decision", "Tabs", "Callout"],
    },
    Component {
        name: "Note",
        kind: Placement::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[req("by", Ty::Text(80)), req("text", Ty::Text(4000))],
        parent: &["Decision"],
        forbids: &[],
    },
    Component {
        name: "Columns",
        kind: Placement::Flow,
        identified: true,
        content: Content::Components(&["Column"]),
        attrs: &[],
        parent: &[],
        forbids: &["Columns"],
    },
    Component {
        name: "Column",
        kind: Placement::Flow,
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
    },
    Component {
        name: "Tabs",
        kind: Placement::Flow,
        identified: true,
        content: Content::Components(&["Tab"]),
        attrs: &[],
        parent: &[],
        forbids: &["Tabs"],
    },
    Component {
        name: "Tab",
        kind: Placement::Flow,
        identified: true,
        content: Content::Blocks,
        attrs: &[req("label", Ty::Text(60))],
        parent: &["Tabs"],
        forbids: &[],
    },
    Component {
        name: "Callout",
        kind: Placement::Flow,
        identified: true,
        content: Content::Blocks,
        attrs: &[
            req("type", Ty::Enum(CALLOUT_TYPES)),
            opt("title", Ty::Text(100)),
        ],
        parent: &[],
        forbids: &["Callout"],
    },
    Component {
        name: "Research",
        kind: Placement::Flow,
        identified: false,
        content: Content::Empty,
        attrs: &[req("id", Ty::Reference(96))],
        parent: &[],
        forbids: &[],
    },
    Component {
        name: "Underline",
        kind: Placement::Text,
        identified: false,
        content: Content::Phrasing,
        attrs: &[],
        parent: &[],
        forbids: &[],
    },
];

/// Looks a component up by exact, case-sensitive name.
pub(crate) fn lookup(name: &str) -> Option<&'static Component> {
    CATALOG.iter().find(|c| c.name == name)
}

/// Whether elements with this name get a minted id when they have none.
pub(crate) fn mints_id(name: &str) -> bool {
    lookup(name).is_some_and(Component::mints_id)
}

/// Every component of the plan dialect, in the catalog's order.
///
/// ```
/// let callout = chopin_dialect::components()
///     .iter()
///     .find(|c| c.name() == "Callout")
///     .unwrap();
/// let names: Vec<_> = callout.attributes().map(|a| a.name()).collect();
/// assert_eq!(names, ["id", "type", "title"]);
/// ```
pub fn components() -> &'static [Component] {
    CATALOG
}

/// The component called `name` (exact and case-sensitive: `callout` is no
/// component), if the catalog has one.
pub fn component(name: &str) -> Option<&'static Component> {
    lookup(name)
}

impl Component {
    /// Declared attributes in declared order, the implicit `id` first.
    pub(crate) fn declared(&self) -> impl Iterator<Item = &'static Attribute> + use<> {
        let attrs: &'static [Attribute] = self.attrs;
        self.identified
            .then_some(&ID)
            .into_iter()
            .chain(attrs.iter())
    }

    /// The name its tags use.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Where its tags may be written.
    pub fn placement(&self) -> Placement {
        self.kind
    }

    /// Whether it carries an `id` of its own, a ULID (its first attribute).
    pub fn identified(&self) -> bool {
        self.identified
    }

    /// Whether an element of it without an `id` attribute gets one minted:
    /// the identified components, and `Research`, whose `id` is a
    /// reference.
    pub fn mints_id(&self) -> bool {
        self.identified || self.name == "Research"
    }

    /// What it may contain.
    pub fn content(&self) -> Content {
        self.content
    }

    /// Its attributes in declared order: an identified component's `id`
    /// first.
    pub fn attributes(&self) -> impl Iterator<Item = &'static Attribute> + use<> {
        self.declared()
    }

    /// The components it must stand in: the nearest component around it
    /// must be one of these (Markdown in between does not count). Empty:
    /// anywhere.
    pub fn parents(&self) -> &'static [&'static str] {
        self.parent
    }

    /// The components that may not appear anywhere inside it.
    pub fn forbids(&self) -> &'static [&'static str] {
        self.forbids
    }
}
