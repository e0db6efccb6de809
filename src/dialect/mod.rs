//! The Chopin plan dialect (DIALECT.md): parser, validator and canonicalizer.
//!
//! A plan is Markdown (CommonMark, GFM tables, `~~` strikethrough, task items,
//! footnotes, math) with a fixed catalog of MDX JSX components. [`check`] runs
//! the whole pipeline of §1: parse, mint ids (canonicalize), validate.
//!
//! # Why a hand-written parser
//!
//! Plans are untrusted. markdown-rs (the `markdown` crate) and micromark are
//! super-linear on inputs such as runs of backtick pairs, `>` markers, `[` and
//! `*`/`_` (markdown-rs issue #113), and they recurse with the input's nesting.
//! This module parses in linear time with explicit stacks only (see
//! `block.rs` and `inline.rs` for the techniques), and markdown-rs serves only
//! as a test oracle on small inputs (`tests/dialect_differential.rs`).
//!
//! # Divergences from markdown-rs
//!
//! The reference is the micromark stack (§2.1); markdown-rs differs where §2.5
//! says, and this parser follows the reference:
//!
//! * end of input inside a tag fails (`<Callout`, `a <B\n`, `x <\n`), where
//!   markdown-rs parses plain text;
//! * characters from U+10000 up are never name characters (`<𝔘 />` fails);
//! * whitespace inside tags is §1.3's set (`<\u{FEFF}Research />` parses);
//! * `*a_*b` and `a*_b*` are plain text;
//! * reasons quote characters whole (`` `😀` (U+1F600) ``) and the lazy-line
//!   reason is micromark's.
//!
//! Known simplifications (not exercised by the conformance cases): list and
//! list item `spread` is not computed, link titles are parsed but not kept, and
//! a paragraph made only of link reference definitions followed by a setext
//! underline becomes a heading.

mod block;
mod canonical;
mod catalog;
mod entities;
mod inline;
mod issue;
mod jsx;
mod location;
mod patterns;
mod tree;
mod validate;

use std::collections::HashSet;

pub use issue::Issue;
pub use location::LineIndex;
pub use tree::{Attr, AttrValue, Element, Kind, Node, NodeId, Tree};
pub use validate::{MAX_DEPTH, MAX_IMAGES, MAX_OPTIONS, MAX_TABLE_COLUMNS, MAX_TABLE_ROWS};

use crate::IdSource;

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

/// JavaScript's whitespace set (§1.3); not `char::is_whitespace`.
pub(crate) fn is_js_whitespace(c: char) -> bool {
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
                if tree_error.as_ref().is_none_or(|t| e.event < t.event) {
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
