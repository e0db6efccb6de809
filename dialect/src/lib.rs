//! The Chopin plan dialect: parser, validator and canonicalizer.
//!
//! A plan is Markdown (CommonMark, GFM tables, `~~` strikethrough, task items,
//! footnotes, math) with a fixed catalog of MDX JSX components
//! ([`components`]; `docs/plans.md` in the repository describes them for
//! authors). [`check`] runs the whole pipeline: parse, mint ids
//! (canonicalize), validate. The issues it finds serialize as
//! `create_document` answers them ([`issues_json`]); the ids it mints come
//! from an [`IdSource`], the crate's one source of time and entropy
//! ([`SystemIds`], or [`SequentialIds`] for tests).
//!
//! The `chopin-plan` command (`src/bin/chopin-plan.rs`) checks and formats
//! plan files with this crate: `cargo install --locked --path dialect`, then
//! `chopin-plan --help`.
//!
//! ```
//! use chopin_dialect::{SequentialIds, check};
//!
//! let report = check("# Plan\n\n<Research />\n", &SequentialIds::new(0));
//! assert!(report.issues.is_empty());
//! assert_eq!(report.minted, 1);
//! assert!(report.canonical.starts_with("# Plan\n\n<Research id=\""));
//! ```
//!
//! # Why a hand-written parser
//!
//! Plans are untrusted. markdown-rs (the `markdown` crate) and micromark are
//! super-linear on inputs such as runs of backtick pairs, `>` markers, `[` and
//! `*`/`_` (markdown-rs issue #113), and they recurse with the input's nesting.
//! This module parses in linear time and never recurses:
//!
//! * blocks (`block/`): one pass over lines with a container stack; blank
//!   lines skip list items in bulk, whitespace runs and thematic-break checks
//!   are computed once per line, flow-tag attempts that turn out to be prose
//!   jump over `{…}` with a precomputed brace table and remember, per line,
//!   which containers it was already checked against (a later attempt in
//!   the same span only adds containers);
//! * inlines (`inline/`): code spans and math find their closer through run
//!   indexes whose cursors only move forward; emphasis uses a linked
//!   delimiter list with `openers_bottom`; a link deactivates earlier link
//!   openers through one barrier; labels are capped at 999 characters; a title
//!   scan that found no closing quote is not repeated;
//! * trees are arenas (`tree.rs`), and every walk uses an explicit stack.
//!
//! `tests/dialect_linear_time.rs` checks a work counter on doubling adversarial
//! inputs; markdown-rs serves only as a test oracle on small inputs
//! (`tests/dialect_differential.rs`).
//!
//! # NUL
//!
//! micromark replaces every U+0000 with U+FFFD before parsing. This parser
//! keeps the byte, so offsets still count it as one, but reads it as
//! U+FFFD wherever that matters: it is a symbol for emphasis flanking, it may
//! stand in a link destination, it is never a thematic-break marker, and a
//! reason quotes it as `` `�` (U+FFFD) ``.
//!
//! # Divergences from markdown-rs
//!
//! The reference is the micromark stack (§2.1); where markdown-rs differs,
//! this parser follows the reference. Each item shows an input:
//!
//! * end of input inside a tag fails (`<Callout`, `a <B\n`, `x <\n`), where
//!   markdown-rs parses plain text (§2.5);
//! * characters from U+10000 up are never name characters (`<𝔘 />` fails);
//! * whitespace inside tags is §1.3's set (`<\u{FEFF}Research />` parses,
//!   `<\u{85}Research />` fails);
//! * `*a_*b` and `a*_b*` are plain text, and `\***a* b` is emphasis:
//!   markdown-rs lets a run open or close when another attention marker
//!   (`*`, `_`, `~`, even an escaped one) is next to it; micromark, and so
//!   this parser, only when that marker is `~` (`r*~*` is emphasis);
//! * reasons quote characters whole (`` `😀` (U+1F600) ``) and the lazy-line
//!   reason is micromark's;
//! * block positions exclude indentation, as in micromark: `  # h` starts at
//!   offset 2 (markdown-rs: 0);
//! * markdown-rs skips tables when a row starts with one of `` #$`~*_<ei{ ``:
//!   `*a\n|---|` is a table here;
//! * markdown-rs drops `#` from the start of heading text (`# #x` gives `x`
//!   there, `#x` here);
//! * a text element's text may start at a line ending (`a <B>\nx</B>`: the text
//!   starts at the line ending here, after it in markdown-rs);
//! * a text element left open at the end of a link or emphasis fails here
//!   (`[<B>](x)`), as in mdast-util-mdx-jsx; markdown-rs accepts it;
//! * `- \`\`\`\n- a`: two sibling items here; markdown-rs nests a list in
//!   the list;
//! * `- a\n\`\`` and `> a\n**`: a lazy line of one or two marker characters
//!   continues the paragraph here; markdown-rs starts a new paragraph;
//! * a table body row needs no pipe, as in micromark (`|a|\n|-|\nend` has
//!   a row `end`), except that markdown-rs never starts a row with one of
//!   `` #$`~*_<ei{ ``;
//! * NUL in an attribute value is U+FFFD (micromark replaces it before
//!   parsing); markdown-rs keeps NUL;
//! * `<B a={x\n    y} />`: after a line ending in an expression two
//!   whitespace codes are dropped (micromark-factory-mdx-expression's
//!   `indentSize`), so the value is `x\n  y`; markdown-rs drops four;
//! * `\\<Callout>`: a text that opens with an escape starts at the
//!   backslash (0), as in micromark; markdown-rs starts it at 1;
//! * `- \ntext\n- `: an empty item cannot interrupt a paragraph, so this is a
//!   list and a heading here; markdown-rs makes two lists once a container
//!   closed earlier;
//! * `\x10*\0*`: NUL is U+FFFD, punctuation for flanking, so this is text;
//!   markdown-rs reads NUL as a control character and makes emphasis;
//! * `<B$ />` and `<Image widt$="0" />`: `$` continues a name (§2.2);
//!   markdown-rs fails at it;
//! * `<Note by= "u" />`: whitespace may follow an attribute's `=`, as in
//!   micromark-extension-mdx-jsx (and JSX); markdown-rs turns the tag into
//!   text;
//! * `x[^ab]\n\n[^a b]: y`: a definition label keeps its inner whitespace
//!   when normalized (`^a b`), as micromark's `normalizeIdentifier` does, so
//!   `[^ab]` is text here; markdown-rs drops the whitespace and makes it a
//!   reference;
//! * `[a]: /u\n---`: a setext underline under definitions only is a
//!   thematic break, as in micromark (`===` is paragraph text); markdown-rs
//!   makes both paragraph text;
//! * `-      x`: a list item takes all the whitespace after its marker as
//!   indentation (indented code is off), as micromark does; markdown-rs
//!   keeps CommonMark's one space and indented content;
//! * `*'********:************:******`: runs between a matched opener and
//!   closer are resolved once more among themselves, as micromark's
//!   `insideSpan` resolvers do, so four strongs nest here; markdown-rs drops
//!   them as CommonMark's reference algorithm does;
//! * `_~~*~~*` is emphasis and `~~_*~~*` delete: attention and strikethrough
//!   are resolved one after the other, in the order the text first uses
//!   them (strikethrough first inside links and matched spans), as micromark
//!   does; markdown-rs resolves them together (`~~``_) ~~]_`~~`);
//! * `> a\n<e\n> />`: a flow tag that starts on a lazy line and goes on
//!   into the block quote is in the block quote, as in micromark (the tag is
//!   still open when the lazy line is placed); markdown-rs fails at it;
//! * `[^1]:[^2]: a\n\n    b`: `b` is in the inner definition, which
//!   continues on the outer one's 4-column indent as in micromark (whose
//!   check sees the outer's indent token); markdown-rs needs 4 more columns;
//! * `>*>**` is emphasis: the text starts at the first `*`, with nothing
//!   before it, as in micromark; markdown-rs classifies the `>` before it;
//! * `- a\n\t=\nb`: `b` is a paragraph after the list, as in micromark (a
//!   heading cannot be continued lazily); markdown-rs keeps it in the item;
//! * `\t+\n\tx`: `x` is no part of the item (its content is at column 6),
//!   as in micromark; markdown-rs continues the item;
//! * `[a]: /u\nb\n===`: the heading starts at 0, where the definitions
//!   begin, as in micromark; markdown-rs starts it at its text (8);
//! * `- [ ] $x$`: the paragraph keeps its start at the check, as in
//!   mdast-util-gfm-task-list-item; markdown-rs moves it;
//! * `a <B>\n</B>`: a text made only of a line ending inside a text element
//!   is kept here (mdast-util-mdx-jsx lets the element contain line endings);
//! * a flow tag read on a lazy line that goes on to a further lazy line fails
//!   here (§2.2), markdown-rs reads the lines as a new paragraph
//!   (`> a\n<B\nx="1" />`);
//! * `[x [^a]](u)` with `[^a]` defined: a link whose text holds a footnote
//!   call, as in micromark; markdown-rs ends the link's opener at the call
//!   and makes text, a call and text;
//! * `![^a]` with `[^a]` defined: once no image forms, an image start whose
//!   normalized label is `^` and a defined label is `!` and a footnote call,
//!   as in micromark-extension-gfm-footnote: `![^a](u)` stays an image and
//!   `![ ^a]` is a call (label `^a`); markdown-rs makes the first a call and
//!   the second text. Such a label is looked for only up to 4000 bytes, the
//!   longest a defined label can be, so nested `![` runs stay linear;
//! * `[^a\n]` with `[^a]` defined is text: a footnote call's label holds no
//!   tab, space or line ending (micromark-extension-gfm-footnote);
//!   markdown-rs makes it a call.
//!
//! # Known gaps
//!
//! * List and list item `spread`, link titles and heading/code metadata beyond
//!   `lang` are not kept: validation does not use them.
//! * "Expected the closing tag … either after the end of `emphasis` (…)": for
//!   a closing text tag inside an inline container that is the last thing in
//!   its parent, the end quoted is its parent's end.
//! * An attribute expression of a text element that spans lines keeps none
//!   of a continuation line's indentation (the paragraph's text has left it
//!   out); micromark drops two columns of it, so with more than two the
//!   values differ (`a <B c={x\n   y} />`: `x\ny` here, `x\n y` there).
//!   Validation refuses expression attributes whatever their text.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod block;
mod canonical;
mod catalog;
mod definition;
mod entities;
#[doc(hidden)]
pub mod fuzz;
mod ids;
mod inline;
mod issue;
mod jsx;
mod leaf;
mod location;
mod patterns;
mod summary;
mod text;
mod tree;
mod validate;

use std::collections::HashSet;

pub use catalog::{Attribute, AttributeType, Component, Content, Placement, component, components};
pub use ids::{IdSource, SequentialIds, SystemIds, ulid_from_parts};
pub use issue::{Issue, issues_json};
pub use location::LineIndex;
pub use summary::catalog_summary;
pub use tree::{Attr, AttrValue, Element, Kind, Node, NodeId, Tree};
pub use validate::{MAX_DEPTH, MAX_IMAGES, MAX_OPTIONS, MAX_TABLE_COLUMNS, MAX_TABLE_ROWS};

/// `MAX_SOURCE_BYTES`: the canonical plan's size limit in UTF-8 bytes.
pub const MAX_SOURCE_BYTES: usize = 262_144;

/// The outcome of [`check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The canonical plan (§10); the submitted plan unchanged on a parse failure.
    pub canonical: String,
    /// Every issue, in the order found (§6.3). Empty means the plan is valid.
    pub issues: Vec<Issue>,
    /// How many ids were minted into `canonical`.
    pub minted: usize,
}

/// A parse failure: where (§2.4's failure point) and why (the reason, without
/// the `Unable to parse plan MDX: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// UTF-8 byte offset of the failure point in the submitted plan.
    pub offset: usize,
    /// micromark's wording.
    pub reason: String,
}

impl ParseError {
    pub(crate) fn new(offset: usize, reason: String) -> Self {
        ParseError { offset, reason }
    }
}

/// JavaScript's whitespace set (DIALECT.md §1.3: `String.prototype.trim`,
/// regex `\s`); not `char::is_whitespace`.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// Parses a plan into its tree, or the single `parse` issue (§2.4).
pub fn parse(plan: &str) -> Result<Tree, Issue> {
    parse_counting(plan).0
}

/// [`parse`], also returning the number of inner-loop steps it took. The
/// linear-time tests assert on this counter, never on wall-clock time.
#[doc(hidden)]
pub fn parse_counting(plan: &str) -> (Result<Tree, Issue>, u64) {
    let lines = LineIndex::new(plan);
    let (result, steps) = parse_tree(plan, &lines);
    let result = result.map_err(|e| {
        Issue::at(
            "parse",
            format!("Unable to parse plan MDX: {}", e.reason),
            "root".to_owned(),
            e.offset,
            &lines,
        )
    });
    (result, steps)
}

fn parse_tree(plan: &str, lines: &LineIndex<'_>) -> (Result<Tree, ParseError>, u64) {
    let bom = if plan.starts_with('\u{FEFF}') { 3 } else { 0 };
    let blocks = match block::Blocks::parse(plan, lines, bom) {
        Ok(b) => b,
        Err((e, steps)) => return (Err(e), steps),
    };
    let mut steps = blocks.steps;
    let mut tree_error = blocks.tree_error;
    let mut tree = blocks.tree;
    let ctx = inline::Context {
        src: plan,
        lines,
        definitions: blocks.definitions.into_iter().collect::<HashSet<_>>(),
        footnotes: blocks.footnotes.into_iter().collect::<HashSet<_>>(),
    };
    let mut scratch = inline::Scratch::default();
    for leaf in &blocks.leaves {
        match inline::parse_leaf(&ctx, leaf, &mut tree, &mut steps, &mut scratch) {
            Err(e) => return (Err(e), steps),
            Ok(Some(e)) => {
                // At a tie (the end of the plan) the text's construct exits
                // before the containers around it, so its error comes first.
                if tree_error.as_ref().is_none_or(|t| e.event <= t.event) {
                    tree_error = Some(e);
                }
            }
            Ok(None) => {}
        }
    }
    match tree_error {
        Some(e) => (Err(e.error), steps),
        None => (Ok(tree), steps),
    }
}

/// Parses, canonicalizes (mints ids) and validates a plan (§6.3). On a parse
/// failure `issues` is the single `parse` issue and `canonical` is the
/// submitted plan unchanged.
pub fn check(plan: &str, ids: &dyn IdSource) -> Report {
    let lines = LineIndex::new(plan);
    let mut tree = match parse_tree(plan, &lines).0 {
        Ok(tree) => tree,
        Err(e) => {
            let issue = Issue::at(
                "parse",
                format!("Unable to parse plan MDX: {}", e.reason),
                "root".to_owned(),
                e.offset,
                &lines,
            );
            return Report {
                canonical: plan.to_owned(),
                issues: vec![issue],
                minted: 0,
            };
        }
    };
    let (canonical, minted) = canonical::canonicalize(plan, &mut tree, ids);
    let issues = validate::validate(&tree, canonical.len(), &lines);
    Report {
        canonical,
        issues,
        minted,
    }
}

/// Validates a tree of `plan` (§6.3 stages 3–6) as if the canonical plan had
/// `canonical_len` bytes. Exposed so tests can feed trees the parser never
/// builds (forbidden and unknown node types).
#[doc(hidden)]
pub fn validate_tree(plan: &str, tree: &Tree, canonical_len: usize) -> Vec<Issue> {
    validate::validate(tree, canonical_len, &LineIndex::new(plan))
}

/// Canonicalizes a parsed tree in place (minting ids into it) and returns the
/// canonical plan and the number of ids minted. Exposed for property tests.
#[doc(hidden)]
pub fn canonicalize(plan: &str, tree: &mut Tree, ids: &dyn IdSource) -> (String, usize) {
    canonical::canonicalize(plan, tree, ids)
}
