//! DIALECT.md §10: canonicalization is a minimal edit with the length,
//! same-tree and fixed-point properties.

use chopin_dialect::{IdSource, SequentialIds};
use chopin_dialect::{MAX_SOURCE_BYTES, canonicalize, check, parse};

const T0: u64 = 1_750_000_000_000;

fn corpus() -> Vec<String> {
    let mut plans: Vec<String> = include_str!("fixtures/corpus.txt")
        .split("\n====\n")
        .map(str::to_owned)
        .collect();
    plans.push(include_str!("fixtures/plan_full.md").to_owned());
    plans.push(include_str!("fixtures/plan_nested.md").to_owned());
    plans.extend(
        [
            "<Tabs>\n<Tab label=\"A\">\nx\n</Tab>\n</Tabs>\n",
            "<Research />",
            "<\u{a0}Callout type=\"note\">\nx\n</Callout>",
            "<Chart>\n<Callout type=\"note\">\n</Callout>\n</Chart>\n",
            "- a <Callout type=\"note\">x</Callout>\n",
            "<Callout\n  type=\"note\"\n>\nx\n</Callout>\n",
            "> <Tabs>\n> <Tab label=\"a\">\n> x\n> </Tab>\n> </Tabs>\n",
            "<Callout {...p} type=\"note\">\nx\n</Callout>",
            "<Callout id type=\"note\">\nx\n</Callout>",
            "\u{FEFF}<Columns>\r\n<Column>\r\na\r\n</Column>\r\n</Columns>\r\n",
        ]
        .map(str::to_owned),
    );
    plans
}

#[test]
fn seed_example_gets_one_id_after_the_name() {
    let plan = "# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n";
    let ids = SequentialIds::new(T0);
    let report = check(plan, &ids);
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    let id = SequentialIds::new(T0).mint().to_string();
    assert_eq!(
        report.canonical,
        format!(
            "# Draft\n\n<Callout id=\"{id}\" type=\"note\">\nCreated through MCP.\n</Callout>\n"
        )
    );
    assert_eq!(report.minted, 1);
}

#[test]
fn ids_are_minted_in_document_order() {
    let plan = "<Tabs>\n<Tab label=\"A\">\nx\n</Tab>\n</Tabs>\n";
    let report = check(plan, &SequentialIds::new(T0));
    let source = SequentialIds::new(T0);
    let (a, b) = (source.mint().to_string(), source.mint().to_string());
    assert_eq!(
        report.canonical,
        format!("<Tabs id=\"{a}\">\n<Tab id=\"{b}\" label=\"A\">\nx\n</Tab>\n</Tabs>\n")
    );
}

#[test]
fn only_identified_components_and_research_without_id_are_minted() {
    for (plan, minted) in [
        ("<Research />", 1),
        ("<Research id=\"r-1\" />", 0),
        ("<Callout id=\"x\" type=\"note\">\nx\n</Callout>", 0),
        ("<Callout id=\"\" type=\"note\">\nx\n</Callout>", 0),
        ("<Callout id={x} type=\"note\">\nx\n</Callout>", 0),
        ("<Callout id type=\"note\">\nx\n</Callout>", 0),
        ("<Callout {...id} type=\"note\">\nx\n</Callout>", 1),
        ("<Answer value=\"a\" />", 0),
        ("<Previous by=\"u\" at=\"t\" value=\"v\" />", 0),
        ("<Note by=\"u\" text=\"t\" />", 0),
        ("a <Underline>b</Underline>", 0),
        (
            "<Image src=\"https://x.y/a.png\" alt=\"\" width=\"1\" />",
            0,
        ),
        ("<Chart />", 0),
        ("<>\nx\n</>", 0),
        ("<callout type=\"note\" />", 0),
        // Inside unknown components, paragraphs and list items.
        (
            "<Chart>\n<Callout type=\"note\">\n</Callout>\n</Chart>\n",
            1,
        ),
        ("x <Callout type=\"note\">y</Callout>", 1),
        ("- <Research />", 1),
    ] {
        let report = check(plan, &SequentialIds::new(T0));
        assert_eq!(report.minted, minted, "{plan:?}");
        assert_eq!(report.canonical.len(), plan.len() + 32 * minted, "{plan:?}");
    }
}

#[test]
fn minting_reaches_below_too_deep_nodes() {
    let plan = format!("{}<Research />\n", "> ".repeat(30));
    let report = check(&plan, &SequentialIds::new(T0));
    assert_eq!(report.minted, 1);
    assert_eq!(
        report.issues.iter().map(|i| i.code).collect::<Vec<_>>(),
        ["too-deep"]
    );
}

#[test]
fn length_property() {
    for plan in corpus() {
        let report = check(&plan, &SequentialIds::new(T0));
        if report.issues.first().is_some_and(|i| i.code == "parse") {
            assert_eq!(report.canonical, plan);
            continue;
        }
        assert_eq!(
            report.canonical.len(),
            plan.len() + 32 * report.minted,
            "{plan:?}"
        );
    }
}

#[test]
fn same_tree_property() {
    let mut checked = 0;
    for plan in corpus() {
        let Ok(mut tree) = parse(&plan) else { continue };
        let (canonical, _) = canonicalize(&plan, &mut tree, &SequentialIds::new(T0));
        let reparsed = parse(&canonical).expect("the canonical plan parses");
        assert_eq!(reparsed.shape(false), tree.shape(false), "{plan:?}");
        checked += 1;
    }
    assert!(checked > 50);
}

#[test]
fn fixed_point_property() {
    for plan in corpus() {
        let first = check(&plan, &SequentialIds::new(T0));
        let second = check(&first.canonical, &SequentialIds::new(T0 + 1));
        assert_eq!(second.canonical, first.canonical, "{plan:?}");
        assert_eq!(second.minted, 0, "{plan:?}");
    }
}

#[test]
fn issue_offsets_refer_to_the_submitted_plan() {
    let plan = "<Tabs>\n<Tab label=\"\">\ny\n</Tab>\n</Tabs>";
    let report = check(plan, &SequentialIds::new(T0));
    let issue = &report.issues[0];
    assert_eq!((issue.code, issue.offset), ("empty-attribute", Some(7)));
}

#[test]
fn source_too_large_is_counted_after_minting() {
    // One id pushes a plan just under the limit over it.
    let head = "<Research />\n";
    let under = format!("{head}{}", "a".repeat(MAX_SOURCE_BYTES - head.len() - 10));
    assert!(under.len() < MAX_SOURCE_BYTES);
    let report = check(&under, &SequentialIds::new(T0));
    assert_eq!(report.minted, 1);
    assert_eq!(report.canonical.len(), under.len() + 32);
    assert_eq!(
        report.issues.iter().map(|i| i.code).collect::<Vec<_>>(),
        ["source-too-large"]
    );
    // Without the id it fits.
    let fits = format!(
        "<Research id=\"r\" />\n{}",
        "a".repeat(MAX_SOURCE_BYTES - 30)
    );
    assert!(fits.len() <= MAX_SOURCE_BYTES);
    assert!(check(&fits, &SequentialIds::new(T0)).issues.is_empty());
}

#[test]
fn nothing_else_changes() {
    let plan = "\u{FEFF}<Callout\ttype='tip'>\r\n  \\*x\\*\r\n</Callout>\r\n\r\n\r\n";
    let report = check(plan, &SequentialIds::new(T0));
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    let id = SequentialIds::new(T0).mint().to_string();
    assert_eq!(
        report.canonical,
        plan.replacen("<Callout", &format!("<Callout id=\"{id}\""), 1)
    );
}

/// Deterministic xorshift generator for property inputs.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as usize
    }
}

/// Self-contained units, so most generated plans parse.
const UNITS: &[&str] = &[
    "<Callout type=\"note\">\nx\n</Callout>",
    "<Research />",
    "<Tabs>\n<Tab label=\"a\">\nt\n</Tab>\n</Tabs>",
    "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n<Option label=\"o\" />\n</Question>\n</Questionnaire>",
    "<Callout\n type=\"tip\"\n>\ny\n</Callout>",
    "<Chart>\n<Research />\n</Chart>",
    "x <Underline>u</Underline> <Callout type=\"note\">i</Callout>",
    "<Research id=\"r\" />",
    "text *em* `code` [l](https://x.y)",
    "<Columns>\n<Column>\na\n</Column>\n<Column>\nb\n</Column>\n</Columns>",
    "<Callout id=\"01ARZ3NDEKTSV4RRFFQ69G5FAV\" type=\"note\">\nz\n</Callout>",
    "<\u{a0}Research />",
    "<Experiment experiment=\"e\" view=\"v\" />",
];

const PREFIXES: &[&str] = &["", "", "> ", "- ", "1. ", "  "];

#[test]
fn properties_hold_on_generated_plans() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    for _ in 0..3000 {
        let mut plan = String::new();
        for _ in 0..1 + g.next() % 6 {
            let prefix = PREFIXES[g.next() % PREFIXES.len()];
            let unit = UNITS[g.next() % UNITS.len()];
            for line in unit.lines() {
                plan.push_str(prefix);
                plan.push_str(line);
                plan.push('\n');
            }
            plan.push('\n');
        }
        let Ok(mut tree) = parse(&plan) else { continue };
        parsed += 1;
        let (canonical, minted) = canonicalize(&plan, &mut tree, &SequentialIds::new(T0));
        assert_eq!(canonical.len(), plan.len() + 32 * minted, "{plan:?}");
        let reparsed = parse(&canonical).expect("the canonical plan parses");
        assert_eq!(reparsed.shape(false), tree.shape(false), "{plan:?}");
        let again = check(&canonical, &SequentialIds::new(T0));
        assert_eq!(
            (again.canonical.as_str(), again.minted),
            (canonical.as_str(), 0),
            "{plan:?}"
        );
    }
    assert!(parsed > 1000, "only {parsed} generated plans parsed");
}
