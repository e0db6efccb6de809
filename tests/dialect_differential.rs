//! Differential tests against markdown-rs (the `markdown` crate) on small
//! inputs: tree shape (node kinds, nesting, JSX names and attributes, start
//! offsets) and parse failure versus success.
//!
//! Documented divergences (module docs of `chopin_mcp::dialect`), which this
//! test tolerates and nothing else:
//! * start offsets: markdown-rs counts a block's indentation as part of the
//!   block (`  # h` starts at 0), micromark (the reference) does not (2);
//! * `*` next to `_` (§2.5): markdown-rs lets a run open or close when the
//!   character after or before it is another attention marker (`*`, `_`,
//!   `~`, even an escaped one), the reference does not (`*a_*b` and
//!   `\***a* b` are plain text and emphasis respectively here); not compared;
//! * markdown-rs ends a paragraph in a container at a lazy line holding just
//!   one or two of `` `~*_$ `` (`- a\n\`\``, `> a\n**`), which micromark
//!   continues lazily; not compared;
//! * a list item that starts with a fence (`- \`\`\``) that is still open
//!   when the item ends: markdown-rs then nests the next item's list
//!   directly in the list (`- \`\`\`\n- a` gives `list > list`, which is
//!   no valid mdast), and keeps that list going; not compared;
//! * a text element's text may start with a line ending: mdast-util-mdx-jsx
//!   lets `mdxJsxTextElement` contain line endings (the text starts at the
//!   line ending, and a text that is only a line ending is kept), markdown-rs
//!   starts that text after it (and drops a text that is only a line ending);
//! * a text element left open at the end of a link, image, emphasis, strong
//!   or delete fails in the reference (mdast-util-mdx-jsx's
//!   `onErrorRightIsTag`) and here, but markdown-rs accepts it;
//! * names: a character from U+10000 up is never a name character here
//!   (`<a𝔘 />` fails), markdown-rs accepts it;
//! * a flow tag read on a lazy line that goes on to a further lazy line fails
//!   here (§2.2: a tag read as flow must not continue on a lazy line), while
//!   markdown-rs reads the lines as a new paragraph (`> a\n<B\nx="1" />`);
//! * a task item whose text after the check starts with something other
//!   than text (`- [ ] $x$`) keeps its paragraph start at the check, as in
//!   mdast-util-gfm-task-list-item; markdown-rs moves it;
//! * an empty list item (`- `) or one starting past 1 right after paragraph
//!   text cannot interrupt the paragraph (CommonMark, micromark), but
//!   markdown-rs lets it once any container closed earlier
//!   (`- \ntext\n- ` is a list and a heading here, two lists there); plans
//!   with an empty item after text are not compared;
//! * end of input inside a tag fails here (§2.5) and is text there;
//! * markdown-rs drops a `#` run that begins an ATX heading's content
//!   (`# #x` has the text `x` there; CommonMark and micromark keep `#x`), so
//!   inputs with such a heading are not compared;
//! * markdown-rs never tries a table when the head row or a body row starts
//!   with one of `` #$`~*_<ei{ `` (its flow dispatch goes straight to
//!   paragraph content), while micromark tries tables on every line:
//!   `*a\n|---|` is a table and `|a|\n|-|\nend` has a body row `end` in the
//!   reference and here. Such inputs are not compared either.

mod common;

use common::oracle;

struct Line {
    depth: usize,
    label: String,
    start: usize,
}

fn lines(shape: &str) -> Vec<Line> {
    shape
        .lines()
        .map(|l| {
            let depth = (l.len() - l.trim_start().len()) / 2;
            let (label, start) = l.trim_start().rsplit_once(" @").expect("shape line");
            Line {
                depth,
                label: label.to_owned(),
                start: start.parse().expect("offset"),
            }
        })
        .collect()
}

/// Same shape; starts equal, or differing only by indentation before ours.
fn same(plan: &str, ours: &str, theirs: &str) -> Result<(), String> {
    let (a, b) = (lines(ours), lines(theirs));
    if a.len() != b.len() {
        return Err("node count differs".to_owned());
    }
    for (x, y) in a.iter().zip(&b) {
        if x.depth != y.depth || x.label != y.label {
            return Err(format!("node differs: {} vs {}", x.label, y.label));
        }
        let indentation = y.start <= x.start
            && plan
                .get(y.start..x.start)
                .is_some_and(|s| s.bytes().all(|c| c == b' ' || c == b'\t'));
        let eol = x.label == "text"
            && x.start < y.start
            && plan
                .get(x.start..y.start)
                .is_some_and(|s| s == "\n" || s == "\r\n" || s == "\r");
        // A task item's paragraph whose head text was only the whitespace
        // after the check: mdast-util-gfm-task-list-item drops that text and
        // keeps the paragraph start, markdown-rs moves it.
        let task = x.label == "paragraph"
            && plan.get(x.start..).is_some_and(|s| {
                s.starts_with("[ ]") || s.starts_with("[x]") || s.starts_with("[X]")
            });
        if !indentation && !eol && !task {
            return Err(format!(
                "start of {} differs: {} vs {}",
                x.label, x.start, y.start
            ));
        }
    }
    Ok(())
}

/// A line whose ATX heading content starts with `#` (see the module docs).
fn heading_starts_with_hash(plan: &str) -> bool {
    // Over-approximated: a `#` run, whitespace, then `#` anywhere (headings
    // can sit after container prefixes of any kind).
    let b = plan.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'#' && {
            let ws = b[i + 1..]
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            ws > 0 && b.get(i + 1 + ws) == Some(&b'#')
        }
    })
}

/// A possible table head starting with a character markdown-rs dispatches
/// elsewhere (see the module docs).
fn table_head_quirk(plan: &str) -> bool {
    let quirk = |l: &str| l.starts_with(['#', '$', '`', '~', '*', '_', '<', 'e', 'i', '{']);
    let lines: Vec<&str> = plan
        .lines()
        .map(|l| l.trim_start_matches([' ', '\t', '>']))
        .collect();
    let head = lines
        .windows(2)
        .any(|w| quirk(w[0]) && w[1].contains('-') && w[1].contains('|'));
    // Any row after a delimiter row may be a body row there.
    let delimiter = lines
        .iter()
        .position(|l| l.contains('-') && l.contains('|'));
    head || delimiter.is_some_and(|d| lines[d + 1..].iter().any(|l| quirk(l)))
}

/// Drops text nodes made only of line endings directly inside text elements
/// (markdown-rs does not keep them; see the module docs).
fn without_eol_texts_in_elements(mut tree: chopin_mcp::dialect::Tree) -> chopin_mcp::dialect::Tree {
    use chopin_mcp::dialect::Kind;
    for i in 0..tree.nodes.len() {
        if !matches!(tree.nodes[i].kind, Kind::TextElement(_)) {
            continue;
        }
        let children = std::mem::take(&mut tree.nodes[i].children);
        let kept = children
            .into_iter()
            .filter(|&c| !matches!(&tree.nodes[c].kind, Kind::Text { value } if value.chars().all(|ch| ch == '\n' || ch == '\r')))
            .collect();
        tree.nodes[i].children = kept;
    }
    tree
}

/// A lazy-line failure whose tag started on an unprefixed (lazy) line.
fn lazy_tag_started_on_lazy_line(plan: &str, issue: &chopin_mcp::dialect::Issue) -> bool {
    if !issue.message.contains("Unexpected lazy line") {
        return false;
    }
    let Some(line) = issue.line else { return false };
    let previous = plan.lines().nth(line.saturating_sub(2)).unwrap_or("");
    line >= 2 && !previous.starts_with([' ', '\t', '>'])
}

/// Whether a reason quotes a character from U+10000 up (`(U+1D518)`).
fn quotes_astral_character(reason: &str) -> bool {
    reason.split("(U+").skip(1).any(|rest| {
        let hex: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
        hex.len() >= 5
    })
}

/// An attention marker (`*`, `_`, `~`) right next to a different marker or
/// to an escaped one (see the module docs).
fn marker_next_to_marker(plan: &str) -> bool {
    let b = plan.as_bytes();
    let marker = |c: u8| matches!(c, b'*' | b'_' | b'~');
    (1..b.len()).any(|i| {
        marker(b[i - 1]) && marker(b[i]) && (b[i - 1] != b[i] || (i >= 2 && b[i - 2] == b'\\'))
    })
}

/// A `list` directly inside a `list`: no valid mdast, markdown-rs builds it
/// after an item whose fenced code is still open (see the module docs).
fn list_in_list(shape: &str) -> bool {
    let mut parents: Vec<String> = Vec::new();
    for line in lines(shape) {
        parents.truncate(line.depth);
        if line.label == "list" && parents.last().is_some_and(|p| p == "list") {
            return true;
        }
        parents.push(line.label);
    }
    false
}

/// A list item whose content starts with a code or math fence.
fn item_starting_with_fence(plan: &str) -> bool {
    plan.lines().any(|l| {
        let t = l.trim_start_matches([' ', '\t', '>']);
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let rest = if t.starts_with(['-', '*', '+']) {
            &t[1..]
        } else if digits > 0 && t[digits..].starts_with(['.', ')']) {
            &t[digits + 1..]
        } else {
            return false;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        rest.starts_with("```") || rest.starts_with("~~~") || rest.starts_with("$$")
    })
}

/// An empty list item right after a non-blank line (see the module docs).
fn empty_item_after_text(plan: &str) -> bool {
    let lines: Vec<&str> = plan.lines().collect();
    let empty_item = |l: &str| {
        let t = l.trim_start_matches([' ', '\t', '>']);
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let rest = if t.starts_with(['-', '*', '+']) {
            &t[1..]
        } else if digits > 0 && t[digits..].starts_with(['.', ')']) {
            &t[digits + 1..]
        } else {
            return false;
        };
        rest.trim_matches([' ', '\t']).is_empty()
    };
    lines
        .windows(2)
        .any(|w| !w[0].trim().is_empty() && empty_item(w[1]))
        || plan.ends_with("\n- ")
}

fn compare(plan: &str) -> Result<(), String> {
    if item_starting_with_fence(plan) || empty_item_after_text(plan) {
        return Ok(());
    }
    let star_next_to_underscore = marker_next_to_marker(plan);
    // A lazy line made only of one or two of one marker character.
    let short_marker_line = plan.lines().any(|l| {
        let t = l.trim_matches([' ', '\t']);
        (1..=2).contains(&t.len())
            && t.chars().all(|c| c == t.chars().next().unwrap_or(' '))
            && t.starts_with(['`', '~', '*', '_', '$'])
    });
    if heading_starts_with_hash(plan)
        || table_head_quirk(plan)
        || star_next_to_underscore
        || short_marker_line
    {
        return Ok(());
    }
    let ours = chopin_mcp::dialect::parse(plan);
    let Some(theirs) = oracle::shape(plan) else {
        return Ok(());
    };
    match (ours, theirs) {
        (Ok(_), Ok(shape)) if list_in_list(&shape) => Ok(()),
        (Ok(tree), Ok(shape)) => {
            let ours = without_eol_texts_in_elements(tree).shape(true);
            same(plan, &ours, &shape).map_err(|e| format!("{e}\nours:\n{ours}\ntheirs:\n{shape}"))
        }
        (Err(_), Err(_)) => Ok(()),
        (Err(issue), Ok(_)) if issue.message.contains("Unexpected end of file") => Ok(()),
        (Err(issue), Ok(_)) if quotes_astral_character(&issue.message) => Ok(()),
        (Err(issue), Ok(_)) if lazy_tag_started_on_lazy_line(plan, &issue) => Ok(()),
        (Err(issue), Ok(_))
            if [
                "link",
                "image",
                "linkReference",
                "imageReference",
                "emphasis",
                "strong",
                "delete",
            ]
            .iter()
            .any(|t| issue.message.ends_with(&format!("before the end of `{t}`"))) =>
        {
            Ok(())
        }
        (Err(issue), Ok(shape)) => {
            Err(format!("we fail ({}), they parse:\n{shape}", issue.message))
        }
        (Ok(tree), Err(at)) => Err(format!(
            "we parse, they fail at {at:?}:\n{}",
            tree.shape(true)
        )),
    }
}

fn check_all(inputs: impl IntoIterator<Item = String>) {
    let mut failures = Vec::new();
    let mut count = 0;
    for plan in inputs {
        count += 1;
        if let Err(e) = compare(&plan) {
            failures.push(format!("=== {plan:?}\n{e}"));
        }
    }
    assert!(count > 0);
    assert!(
        failures.is_empty(),
        "{} of {count} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn section_12_plans_match_markdown_rs() {
    let plans = common::section12::plans();
    assert_eq!(plans.len(), 92);
    check_all(plans.into_iter().map(|(_, plan)| plan));
}

#[test]
fn conformance_corpus_matches_markdown_rs() {
    let corpus = include_str!("fixtures/dialect/corpus.txt");
    check_all(corpus.split("\n====\n").map(str::to_owned));
}

#[test]
fn realistic_plans_match_markdown_rs() {
    check_all([
        include_str!("fixtures/dialect/plan_full.md").to_owned(),
        include_str!("fixtures/dialect/plan_nested.md").to_owned(),
        include_str!("fixtures/dialect/plan_tricky.md").to_owned(),
    ]);
}

/// A deterministic generator of small plans from Markdown and JSX fragments.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const FRAGMENTS: &[&str] = &[
    "a",
    "b c",
    " ",
    "  ",
    "\n",
    "\n\n",
    "*",
    "**",
    "_",
    "__",
    "~~",
    "`",
    "``",
    "$",
    "[",
    "]",
    "](x)",
    "![",
    "(",
    ")",
    "# ",
    "> ",
    "- ",
    "1. ",
    "* ",
    "+ ",
    "| ",
    " |",
    "|---|",
    "\\",
    "\\*",
    "&amp;",
    "&#x41;",
    "<Callout type=\"note\">",
    "</Callout>",
    "<Underline>",
    "</Underline>",
    "<Chart />",
    "<B x=\"1\" />",
    "```",
    "~~~",
    "$$",
    "[^1]",
    "[^1]: ",
    "---",
    "===",
    "    ",
    "\t",
    "[x]",
    "[ ] ",
    "😀",
    "é",
    "x_y",
    "a*b",
    "<>",
    "</>",
    "[a]: /u\n",
];

/// Fragments biased to JSX inside containers.
const JSX_FRAGMENTS: &[&str] = &[
    "<Callout type=\"note\">",
    "</Callout>",
    "<Research />",
    "<Tabs>",
    "</Tabs>",
    "<Tab label=\"a\">",
    "</Tab>",
    "<Underline>",
    "</Underline>",
    "\n",
    "\n\n",
    "> ",
    "- ",
    "1. ",
    "  ",
    "    ",
    "text",
    "*",
    "`",
    "[a](b)",
    "<B\n  x=\"1\"\n/>",
    "<C y={1} />",
    "{",
    "}",
    "| a |\n| - |\n",
    "```\n",
    "$$\n",
    "[^1]: ",
    "[^1]",
];

fn generated(seed: u64, n: usize) -> Vec<String> {
    let mut g = Gen(seed);
    (0..n)
        .map(|_| {
            let parts = 1 + (g.next() % 24) as usize;
            let mut s = String::new();
            let fragments = if seed % 2 == 0 {
                JSX_FRAGMENTS
            } else {
                FRAGMENTS
            };
            for _ in 0..parts {
                s.push_str(g.pick(fragments));
            }
            s.truncate(2048);
            s
        })
        .collect()
}

/// A larger run for local bug hunting: `cargo test --test
/// dialect_differential -- --ignored`.
#[test]
#[ignore]
fn many_generated_inputs_match_markdown_rs() {
    for seed in 1..=40u64 {
        check_all(generated(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 5000));
    }
}

#[test]
fn generated_inputs_match_markdown_rs() {
    check_all(generated(0x5eed_1234_abcd_0001, 4000));
    check_all(generated(0x0dd_ba11_cafe_f00d, 4000));
    check_all(generated(0x0dd_ba11_cafe_f00e, 4000));
}
