//! The catalog in a few lines of plain text, for a model about to write a
//! plan or an author at a terminal (`chopin-plan catalog`). Written from the
//! catalog's data, so it names what the validator checks; the rules the
//! data does not hold (a few per component, below) are written beside it.

use crate::catalog::{AttributeType, CATALOG, Component, Content, Placement};

/// What the catalog's data does not say about a component, in a few words.
/// `tests` holds every name to the catalog.
const NOTES: &[(&str, &str)] = &[
    (
        "Image",
        "src: an https: URL or /images/<64 hex digits>.png (or .jpg, .jpeg, .webp, .gif)",
    ),
    ("Experiment", "experiment: a reference"),
    (
        "Question",
        "choices of Answer and Previous: Option ids, space-separated",
    ),
    ("Previous", "exactly one of choices and value"),
    ("Columns", "at the top level only, exactly two Column"),
    (
        "Research",
        "id: a reference (letters, digits, . _ : -), minted when left out",
    ),
];

const HEAD: &str = "\
Plans are Markdown (CommonMark, GFM tables, ~~strikethrough~~, task lists, \
footnotes [^ULID], $math$) with these components and no others. A component's \
tags stand on lines of their own with Markdown between them, unless marked \
\"in prose\". Attribute values are \"quoted strings\"; ? marks an optional one, ≤N at \
most N characters. Leave ids out: they are minted.\n";

const TAIL: &str = "\
Refused: HTML tags and <!-- comments -->, <https://...> autolinks, reference \
links and [label]: definitions, {expressions} as attributes, http: links (use \
https:, mailto: or a repository path). A < before a letter starts a tag: \
write &lt; for a literal one.\n";

/// The catalog as compact plain text: one line per component (its tag with
/// its attributes, allowed values and limits, where it may stand and what it
/// may hold), what Markdown is refused, and how ids come about.
/// `chopin-plan catalog` prints it; `chopin-mcp-server` gives it to models
/// with its instructions.
///
/// ```
/// let text = chopin_dialect::catalog_summary();
/// assert!(text.contains(r#"<Callout type="note|tip|important|warning|danger" title?≤100>"#));
/// ```
pub fn catalog_summary() -> String {
    let mut out = String::with_capacity(2048);
    out.push_str(HEAD);
    for component in CATALOG {
        line(&mut out, component);
    }
    out.push_str(TAIL);
    out
}

/// `<Name attr="…" opt?>…</Name>  where; holds; refuses; note`.
fn line(out: &mut String, c: &Component) {
    out.push('<');
    out.push_str(c.name);
    for a in c.declared() {
        // An identified component's id is minted: never worth writing.
        if c.identified && a.name == "id" {
            continue;
        }
        out.push(' ');
        out.push_str(a.name);
        if !a.required {
            out.push('?');
        }
        match a.ty {
            AttributeType::Enum(values) => {
                out.push_str("=\"");
                out.push_str(&values.join("|"));
                out.push('"');
            }
            AttributeType::Integer(min, max) => {
                out.push_str(&format!("=\"{min}-{max}\""));
            }
            // A text as long as a plan may be has no limit worth saying.
            AttributeType::Reference(max) | AttributeType::Text(max)
                if max < crate::MAX_SOURCE_BYTES =>
            {
                out.push_str(&format!("≤{max}"));
            }
            AttributeType::Id | AttributeType::Reference(_) | AttributeType::Text(_) => {}
        }
    }
    match c.content {
        Content::Empty => out.push_str(" />"),
        _ => {
            out.push_str(">...</");
            out.push_str(c.name);
            out.push('>');
        }
    }
    let mut said = Vec::new();
    match c.kind {
        Placement::Flow => {}
        Placement::Text => said.push("in prose".to_owned()),
        Placement::Both => said.push("on its own lines or in prose".to_owned()),
    }
    if !c.parent.is_empty() {
        said.push(format!("in {}", c.parent.join(" or ")));
    }
    match c.content {
        Content::Blocks => said.push("Markdown inside".to_owned()),
        Content::Phrasing => said.push("inline text inside".to_owned()),
        Content::Components(names) => said.push(format!("holds {}", names.join(", "))),
        Content::Empty => {}
    }
    if !c.forbids.is_empty() {
        // Put shortly: the few components still allowed, when most are not.
        let allowed: Vec<&str> = CATALOG
            .iter()
            .map(|other| other.name)
            .filter(|name| !c.forbids.contains(name))
            .collect();
        if allowed.len() < c.forbids.len() {
            said.push(format!("no components inside but {}", allowed.join(", ")));
        } else {
            said.push(format!("no {} inside", c.forbids.join(", ")));
        }
    }
    if let Some((_, note)) = NOTES.iter().find(|(name, _)| *name == c.name) {
        said.push((*note).to_owned());
    }
    if !said.is_empty() {
        out.push_str("  ");
        out.push_str(&said.join("; "));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_is_about_a_component_of_the_catalog() {
        for (name, _) in NOTES {
            assert!(crate::catalog::lookup(name).is_some(), "{name}");
        }
    }

    #[test]
    fn every_component_has_one_line() {
        let text = catalog_summary();
        for c in CATALOG {
            let opening = format!("<{} ", c.name);
            let bare = format!("<{}>", c.name);
            let lines = text
                .lines()
                .filter(|l| l.starts_with(&opening) || l.starts_with(&bare))
                .count();
            assert_eq!(lines, 1, "{}", c.name);
        }
    }
}
