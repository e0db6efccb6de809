//! The differential comparison against markdown-rs (the `markdown` crate),
//! shared by `tests/dialect_differential.rs` and the `dialect_diff` fuzz
//! target: tree shape (node kinds, nesting, JSX names and attributes, start
//! offsets) and parse failure versus success, tolerating only the
//! divergences documented in `tests/dialect_differential.rs` and the
//! `chopin_dialect` module docs.

use super::oracle;

/// The plan's lines, split at every line ending the dialect knows: LF, CRLF
/// and a lone CR (`str::lines` splits at LF only).
fn plan_lines(plan: &str) -> impl Iterator<Item = &str> {
    plan.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
}

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

/// NUL in an attribute value is U+FFFD here, as micromark preprocesses it;
/// markdown-rs keeps it. Reads the label's `Debug` escapes, so that an
/// escaped backslash before a `0` stays what it is.
fn nul_as_replacement(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('0') => out.push('\u{fffd}'),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// Whitespace after a line ending inside an attribute value: micromark (and
/// this parser) drop two whitespace codes of it in expressions, markdown-rs
/// four (see the module docs); values are compared without it. Reads the
/// label's `Debug` escapes (`\n`, `\t`).
pub fn without_expression_indent(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut rest = label;
    while let Some(at) = rest.find("\\n") {
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        loop {
            if let Some(r) = rest.strip_prefix(' ') {
                rest = r;
            } else if let Some(r) = rest.strip_prefix("\\t") {
                rest = r;
            } else {
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Same shape; starts equal, or differing only by indentation before ours.
fn same(plan: &str, ours: &str, theirs: &str) -> Result<(), String> {
    let (a, b) = (lines(ours), lines(theirs));
    if a.len() != b.len() {
        return Err("node count differs".to_owned());
    }
    for (x, y) in a.iter().zip(&b) {
        let (ours, theirs) = if y.label.starts_with("mdxJsx") {
            (
                without_expression_indent(&x.label),
                without_expression_indent(&nul_as_replacement(&y.label)),
            )
        } else {
            (x.label.clone(), y.label.clone())
        };
        if x.depth != y.depth || ours != theirs {
            return Err(format!("node differs: {} vs {}", x.label, y.label));
        }
        let indentation = y.start <= x.start
            && plan
                .get(y.start..x.start)
                .is_some_and(|s| s.bytes().all(|c| c == b' ' || c == b'\t'));
        let eol = x.label == "text"
            && x.start < y.start
            && plan.get(x.start..y.start).is_some_and(|s| {
                let rest = s
                    .strip_prefix("\r\n")
                    .or_else(|| s.strip_prefix('\n'))
                    .or_else(|| s.strip_prefix('\r'));
                rest.is_some_and(|r| r.bytes().all(|c| c == b' ' || c == b'\t'))
            });
        // A task item's paragraph whose head text was only the whitespace
        // after the check: mdast-util-gfm-task-list-item drops that text and
        // keeps the paragraph start, markdown-rs moves it.
        let task = x.label == "paragraph"
            && plan.get(x.start..).is_some_and(|s| {
                s.starts_with("[ ]") || s.starts_with("[x]") || s.starts_with("[X]")
            });
        // A text that opens with an escape starts at the backslash in
        // micromark (and here), after it in markdown-rs.
        let escape = x.label == "text"
            && y.start == x.start + 1
            && plan.as_bytes().get(x.start) == Some(&b'\\');
        // A setext heading under definitions starts at the first definition
        // in micromark (and here), at its text in markdown-rs.
        let setext = x.label == "heading"
            && x.start < y.start
            && plan.get(x.start..).is_some_and(|s| s.starts_with('['));
        if !indentation && !eol && !task && !escape && !setext {
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

/// A line that may be a reference definition whose label holds whitespace:
/// markdown-rs drops the whitespace when it normalizes the identifier
/// (`[a b]: u` is defined as `ab` there, `a b` in micromark), so a reference
/// elsewhere can match there and not here.
fn definition_label_with_whitespace(plan: &str) -> bool {
    let squeeze = |label: &str| -> String {
        label
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut labels = Vec::new();
    for line in plan_lines(plan) {
        let line = line.trim_start_matches([' ', '\t', '>', '-', '*', '+']);
        if let Some((label, _)) = line.strip_prefix('[').and_then(|l| l.split_once("]:")) {
            if label.contains([' ', '\t']) {
                return true;
            }
            labels.push(squeeze(label));
        }
    }
    // Or the other way round: a bracketed text with whitespace that matches
    // a definition once the whitespace is gone (`[d01 v]` and `[d01V]:`).
    !labels.is_empty()
        && plan.split('[').skip(1).any(|rest| {
            rest.split_once(']').is_some_and(|(text, _)| {
                text.contains(char::is_whitespace) && labels.contains(&squeeze(text))
            })
        })
}

/// Whitespace between an attribute's `=` and its value (`<B a= "x" />`):
/// micromark-extension-mdx-jsx allows it, as JSX does, and so does this
/// parser; markdown-rs does not take such a tag (it becomes text).
fn whitespace_after_initializer(plan: &str) -> bool {
    // Any JavaScript whitespace (a superset of Rust's, but for U+0085).
    plan.contains('<')
        && plan.match_indices('=').any(|(i, _)| {
            plan[i + 1..]
                .chars()
                .next()
                .is_some_and(|c| c.is_whitespace() || c == '\u{feff}')
        })
}

/// A possible table head starting with a character markdown-rs dispatches
/// elsewhere (see the module docs).
fn table_head_quirk(plan: &str) -> bool {
    let quirk = |l: &str| l.starts_with(['#', '$', '`', '~', '*', '_', '<', 'e', 'i', '{']);
    let lines: Vec<&str> = plan_lines(plan)
        .map(|l| l.trim_start_matches([' ', '\t', '>']))
        .collect();
    // A delimiter row has a pipe, or an alignment colon when it is a single
    // column without pipes (`-:`, as micromark reads it).
    let delimiter_row = |l: &str| l.contains('-') && (l.contains('|') || l.contains(':'));
    let head = lines.windows(2).any(|w| quirk(w[0]) && delimiter_row(w[1]));
    // Any row after a delimiter row may be a body row there.
    let delimiter = lines.iter().position(|l| delimiter_row(l));
    head || delimiter.is_some_and(|d| lines[d + 1..].iter().any(|l| quirk(l)))
}

/// Drops text nodes made only of line endings directly inside text elements
/// (markdown-rs does not keep them; see the module docs).
fn without_eol_texts_in_elements(mut tree: chopin_dialect::Tree) -> chopin_dialect::Tree {
    use chopin_dialect::Kind;
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
fn lazy_tag_started_on_lazy_line(plan: &str, issue: &chopin_dialect::Issue) -> bool {
    if !issue.message.contains("Unexpected lazy line") {
        return false;
    }
    let Some(line) = issue.line else { return false };
    let previous = plan_lines(plan).nth(line.saturating_sub(2)).unwrap_or("");
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

/// Whether some node of the shape, with the kinds of its ancestors
/// (innermost last, JSX names dropped), satisfies `test`.
fn any_node(shape: &str, mut test: impl FnMut(&Line, &[&str]) -> bool) -> bool {
    let lines = lines(shape);
    let mut parents: Vec<&str> = Vec::new();
    for line in &lines {
        parents.truncate(line.depth);
        if test(line, &parents) {
            return true;
        }
        parents.push(line.label.split(' ').next().unwrap_or(""));
    }
    false
}

/// The container kinds a lazy line can be in.
fn is_container(kind: &str) -> bool {
    matches!(kind, "blockquote" | "listItem" | "footnoteDefinition")
}

/// A `list` directly inside a `list`: no valid mdast, markdown-rs builds it
/// after an item whose fenced code is still open (see the module docs).
fn list_in_list(shape: &str) -> bool {
    any_node(shape, |line, parents| {
        line.label == "list" && parents.last() == Some(&"list")
    })
}

/// A footnote call inside a link's text: micromark keeps the link, while
/// markdown-rs treats the call as a link of its own that ends earlier
/// openers (see the module docs).
fn footnote_call_in_link(shape: &str) -> bool {
    any_node(shape, |line, parents| {
        line.label == "footnoteReference"
            && parents.iter().any(|&p| p == "link" || p == "linkReference")
    })
}

/// An image start followed by `^` (after whitespace, if any): micromark
/// tries a footnote call only once no image formed, on the normalized label;
/// markdown-rs prefers the call and does not skip leading whitespace (see the
/// module docs).
fn image_start_before_caret(plan: &str) -> bool {
    plan.match_indices("![").any(|(i, _)| {
        plan[i + 2..]
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('^')
    })
}

/// A footnote call of markdown-rs whose label holds whitespace (`[^a\n]`):
/// micromark-extension-gfm-footnote refuses a tab, space or line ending in a
/// call's label, markdown-rs normalizes it away (see the module docs).
fn spaced_footnote_call(plan: &str, theirs: &str) -> bool {
    lines(theirs).iter().any(|line| {
        line.label == "footnoteReference"
            && plan.get(line.start..).is_some_and(|rest| {
                rest.split(']')
                    .next()
                    .is_some_and(|label| label.contains([' ', '\t', '\n', '\r']))
            })
    })
}

/// A dash line right under a definition line (`[a]: /u\n---`): micromark
/// (and this parser) make it a thematic break, markdown-rs paragraph text
/// (see the module docs).
fn dashes_under_definition(plan: &str) -> bool {
    let lines: Vec<&str> = plan_lines(plan)
        .map(|l| l.trim_start_matches([' ', '\t', '>']))
        .collect();
    lines.windows(2).any(|w| {
        w[0].starts_with('[')
            && w[0].contains("]:")
            && w[1].contains('-')
            && w[1].bytes().all(|c| matches!(c, b'-' | b' ' | b'\t'))
    })
}

/// A list item marker after a tab (`\t+\n\tx`): micromark (and this parser)
/// count the tab to its stop before the marker, markdown-rs lets the next
/// line's tab continue the item (see the module docs).
fn item_after_tab(plan: &str) -> bool {
    plan_lines(plan).any(|l| {
        let indent = &l[..l.len() - l.trim_start_matches([' ', '\t', '>']).len()];
        indent.contains('\t') && list_item(l).is_some()
    })
}

/// An element in a container whose tag starts a lazy line (no prefix) and
/// goes on into the container: micromark (and this parser) keep it in the
/// container (as flow, or in the paragraph when text follows the tag),
/// markdown-rs fails (see the module docs).
fn flow_tag_from_lazy_line(plan: &str, ours: &str) -> bool {
    any_node(ours, |line, parents| {
        let at_line_start =
            line.start == 0 || matches!(plan.as_bytes().get(line.start - 1), Some(b'\n' | b'\r'));
        line.label.starts_with("mdxJsx")
            && parents.iter().any(|&p| is_container(p))
            && at_line_start
    })
}

/// A setext heading in a container followed by a line that does not
/// continue it (`- a\n\t=\nb`): micromark (and this parser) start a new
/// paragraph outside, markdown-rs continues the container lazily after the
/// heading (see the module docs).
fn line_after_setext_heading_in_container(plan: &str, ours: &str) -> bool {
    let underline_then_text = plan_lines(plan).collect::<Vec<_>>().windows(2).any(|w| {
        let u = w[0].trim_matches([' ', '\t', '>']);
        !u.is_empty()
            && (u.bytes().all(|c| c == b'=') || u.bytes().all(|c| c == b'-'))
            && !w[1].trim().is_empty()
    });
    underline_then_text
        && any_node(ours, |line, parents| {
            line.label == "heading" && parents.last().is_some_and(|&p| is_container(p))
        })
}

/// A footnote definition directly in another: micromark (and this parser)
/// continue the inner one on the outer one's indent (its continuation check
/// sees the outer's 4-column indent token), markdown-rs needs 4 columns more
/// (see the module docs).
fn footnote_in_footnote(shape: &str) -> bool {
    any_node(shape, |line, parents| {
        line.label == "footnoteDefinition" && parents.last() == Some(&"footnoteDefinition")
    })
}

/// A line that starts a list item (after any container prefixes): the
/// ordered item's number (`None` for a bullet) and the text after the marker.
fn list_item(line: &str) -> Option<(Option<&str>, &str)> {
    let t = line.trim_start_matches([' ', '\t', '>']);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if t.starts_with(['-', '*', '+']) {
        Some((None, &t[1..]))
    } else if digits > 0 && t[digits..].starts_with(['.', ')']) {
        Some((Some(&t[..digits]), &t[digits + 1..]))
    } else {
        None
    }
}

/// A list item whose marker is followed by five or more columns of
/// whitespace and then content: with indented code off, micromark (and this
/// parser) take all of it as the item's indentation; markdown-rs keeps
/// CommonMark's "one space, then indented content" (see the module docs).
fn item_with_wide_gap(plan: &str) -> bool {
    plan_lines(plan).any(|l| {
        let Some((_, rest)) = list_item(l) else {
            return false;
        };
        let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        (gap >= 5 || rest[..gap].contains('\t')) && gap < rest.len()
    })
}

/// Where micromark's attention resolution and markdown-rs's part ways (see
/// the module docs): a run of three or more `*` or `_` (micromark, and this
/// parser, resolve the runs between a matched opener and closer once more
/// among themselves, where markdown-rs, like CommonMark's reference
/// algorithm, drops them), or `~~` with `*` or `_` (micromark runs the
/// attention and strikethrough resolvers one after the other, markdown-rs
/// as one).
fn attention_may_differ(plan: &str) -> bool {
    ["***", "___"].iter().any(|r| plan.contains(r))
        || (plan.contains("~~") && plan.contains(['*', '_']))
}

/// The node kinds without emphasis, strong, delete and text nodes (the rest
/// in order), for inputs where only attention may differ.
fn without_attention(shape: &str) -> Vec<String> {
    lines(shape)
        .into_iter()
        .filter(|l| !matches!(l.label.as_str(), "emphasis" | "strong" | "delete" | "text"))
        .map(|l| l.label)
        .collect()
}

/// A list item whose content starts with a code or math fence.
fn item_starting_with_fence(plan: &str) -> bool {
    plan_lines(plan).any(|l| {
        let Some((_, rest)) = list_item(l) else {
            return false;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        rest.starts_with("```") || rest.starts_with("~~~") || rest.starts_with("$$")
    })
}

/// A line opening an empty list item, or an ordered one not starting at 1,
/// right after a non-blank line (see the module docs).
fn item_that_cannot_interrupt_after_text(plan: &str) -> bool {
    let lines: Vec<&str> = plan_lines(plan).collect();
    // Every item a line opens interrupts (`- -` after text: the inner item
    // is empty too).
    fn empty_item(l: &str) -> bool {
        let Some((number, rest)) = list_item(l) else {
            return false;
        };
        let starts_past_one = number.is_some_and(|n| n.trim_start_matches('0') != "1");
        rest.trim_matches([' ', '\t']).is_empty() || starts_past_one || empty_item(rest)
    }
    lines
        .windows(2)
        .any(|w| !w[0].trim().is_empty() && empty_item(w[1]))
        || plan.ends_with("\n- ")
        || plan.ends_with("\r- ")
}

pub fn compare(plan: &str) -> Result<(), String> {
    if item_starting_with_fence(plan)
        || item_that_cannot_interrupt_after_text(plan)
        || item_with_wide_gap(plan)
        || dashes_under_definition(plan)
        || item_after_tab(plan)
    {
        return Ok(());
    }
    let star_next_to_underscore = marker_next_to_marker(plan);
    // NUL beside an attention marker: micromark reads it as U+FFFD (a
    // symbol, so punctuation for flanking), markdown-rs as a control
    // character ("other"): `a*\0*` is emphasis there, not here.
    // The two whitespace sets differ (§1.3 vs Rust's `char::is_whitespace`):
    // U+FEFF is whitespace in the dialect (and micromark), U+0085 is not;
    // markdown-rs has it the other way round, for flanking as for tags.
    let whitespace_set = plan.contains(['\u{feff}', '\u{85}']);
    let nul_next_to_marker = ["*\0", "\0*", "_\0", "\0_", "~\0", "\0~"]
        .iter()
        .any(|p| plan.contains(p));
    // A marker right after a block quote's `>` or a footnote label's `]:`:
    // the text starts there, so micromark sees no character before it;
    // markdown-rs classifies the prefix character (`>*>**` is emphasis in
    // micromark and here, text there).
    let marker_after_prefix = [">*", ">_", ">~", "]:*", "]:_", "]:~"]
        .iter()
        .any(|p| plan.contains(p));
    // A lazy line made only of one or two of one marker character.
    // (After any `>` markers: the line may continue some containers.)
    let short_marker_line = plan_lines(plan).any(|l| {
        let t = l
            .trim_start_matches([' ', '\t', '>'])
            .trim_end_matches([' ', '\t']);
        (1..=2).contains(&t.len())
            && t.chars().all(|c| c == t.chars().next().unwrap_or(' '))
            && t.starts_with(['`', '~', '*', '_', '$'])
    });
    if heading_starts_with_hash(plan)
        || table_head_quirk(plan)
        || definition_label_with_whitespace(plan)
        || whitespace_after_initializer(plan)
        || star_next_to_underscore
        || nul_next_to_marker
        || marker_after_prefix
        || whitespace_set
        || short_marker_line
        || image_start_before_caret(plan)
    {
        return Ok(());
    }
    let ours = chopin_dialect::parse(plan);
    let Some(theirs) = oracle::shape(plan) else {
        return Ok(());
    };
    match (ours, theirs) {
        (Ok(_), Ok(shape)) if list_in_list(&shape) => Ok(()),
        (Ok(tree), Ok(shape)) => {
            let ours = without_eol_texts_in_elements(tree).shape(true);
            if footnote_call_in_link(&ours)
                || spaced_footnote_call(plan, &shape)
                || footnote_in_footnote(&ours)
                || flow_tag_from_lazy_line(plan, &ours)
                || line_after_setext_heading_in_container(plan, &ours)
            {
                return Ok(());
            }
            if attention_may_differ(plan) && without_attention(&ours) == without_attention(&shape) {
                return Ok(());
            }
            same(plan, &ours, &shape).map_err(|e| format!("{e}\nours:\n{ours}\ntheirs:\n{shape}"))
        }
        (Err(_), Err(_)) => Ok(()),
        (Err(issue), Ok(_)) if issue.message.contains("Unexpected end of file") => Ok(()),
        // A tag open at the end of the plan whose last line is lazy (`><C\n`):
        // micromark fails at that line, markdown-rs makes the tag text (as
        // for any end of input in a tag, DIALECT.md §2.5).
        (Err(issue), Ok(_))
            if issue.message.contains("Unexpected lazy line")
                && issue
                    .offset
                    .and_then(|at| plan.get(at..))
                    .is_some_and(|rest| rest.trim().is_empty()) =>
        {
            Ok(())
        }
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
        // markdown-rs refuses `$` after the first character of a tag or
        // attribute name (`<B$ />`); DIALECT.md §2.2 and JSX allow it.
        (Ok(_), Err(Some(at))) if plan.as_bytes().get(at) == Some(&b'$') => Ok(()),
        (Ok(tree), Err(_))
            if flow_tag_from_lazy_line(plan, &tree.shape(true))
                || footnote_call_in_link(&tree.shape(true)) =>
        {
            Ok(())
        }
        (Ok(tree), Err(at)) => Err(format!(
            "we parse, they fail at {at:?}:\n{}",
            tree.shape(true)
        )),
    }
}
