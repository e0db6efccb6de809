//! Plans for the benches: typical ones built from valid sections, and the
//! adversarial families of the linear-time tests. Shared by the dialect,
//! endpoint and markdown-rs comparison benches.

/// Valid plan sections (every component, headings, emphasis, links, lists,
/// tables, code, math, footnotes).
pub const SECTIONS: &[&str] = &[
    include_str!("../../dialect/tests/fixtures/plan_full.md"),
    include_str!("../../dialect/tests/fixtures/plan_tricky.md"),
];

/// A realistic plan of about `size` bytes: whole sections, repeated. (At
/// 256 KiB the minted ids take the canonical plan over the limit, so that
/// plan also reports `source-too-large`; all other work is done.)
pub fn typical(size: usize) -> String {
    let mut plan = String::new();
    let mut i = 0;
    while plan.len() < size {
        let section = SECTIONS[i % SECTIONS.len()];
        if plan.len() + section.len() > size && !plan.is_empty() {
            // Fill the rest with prose paragraphs.
            while plan.len() + 80 < size {
                plan.push_str(
                    "Prose with *emphasis*, `code` and a [link](https://example.com/a).\n\n",
                );
            }
            break;
        }
        plan.push_str(section);
        plan.push('\n');
        i += 1;
    }
    plan
}

pub fn fill(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len())
}

pub fn adversarial(size: usize) -> Vec<(&'static str, String)> {
    let half = size / 2;
    vec![
        ("backtick pairs", fill("``a", size)),
        ("> markers", format!("{} x", ">".repeat(size - 2))),
        (
            "[ brackets",
            format!("{}a{}", "[".repeat(half - 1), "]".repeat(half - 1)),
        ),
        ("link openers", fill("[a](", size)),
        ("* delimiters", fill("*a", size)),
        ("_ delimiters", fill("_a_b ", size)),
        ("~~ delimiters", fill("~~a", size)),
        ("< literal", fill("a < ", size)),
        ("nested lists", format!("{}x", "- ".repeat(half - 1))),
        ("nested block quotes", format!("{}x", "> ".repeat(half - 1))),
        ("nested JSX", {
            let open = "<Callout type=\"note\">\n";
            let close = "</Callout>\n";
            let n = size / (open.len() + close.len());
            format!("{}x\n{}", open.repeat(n), close.repeat(n))
        }),
        ("multi-line expressions", {
            let n = size / 9;
            format!("{}{}", "<a {\n".repeat(n), "}> x".repeat(n))
        }),
        ("long line", fill("word ", size)),
        ("many blocks", fill("# h\n\npara\n\n- item\n\n", size)),
    ]
}
