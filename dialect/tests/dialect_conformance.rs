//! DIALECT.md §12: every conformance row, plus §2.4's must-fail and
//! must-parse lists with their exact reasons.

use chopin_dialect::SequentialIds;
use chopin_dialect::{Issue, check};

/// An expected issue: code, path and location (`None` for whole-plan issues).
type Expect = (&'static str, &'static str, Option<(usize, usize, usize)>);

fn run(row: u32, plan: &str, expected: &[Expect], minted: Option<usize>) {
    let ids = SequentialIds::new(1_750_000_000_000);
    let report = check(plan, &ids);
    let got: Vec<Expect> = report
        .issues
        .iter()
        .map(|i: &Issue| {
            let loc = i
                .offset
                .map(|o| (o, i.line.unwrap_or(0), i.column.unwrap_or(0)));
            (i.code, leak(i.path.clone()), loc)
        })
        .collect();
    assert_eq!(
        got, expected,
        "row {row}: {plan:?}\nissues: {:#?}",
        report.issues
    );
    if let Some(n) = minted {
        assert_eq!(report.minted, n, "row {row}: minted");
        assert_eq!(
            report.canonical.len(),
            plan.len() + 32 * n,
            "row {row}: canonical length"
        );
    }
}

macro_rules! rows {
    ($( $name:ident: $row:literal, $plan:expr => [$( ($code:literal, $path:expr $(, $o:literal, $l:literal, $c:literal)?) ),* $(,)?] $(minted $n:literal)? ; )*) => {
        $(
            #[test]
            fn $name() {
                let plan: String = $plan.into();
                let expected: Vec<Expect> = vec![$( ($code, leak($path), loc!($($o, $l, $c)?)) ),*];
                let minted: Option<usize> = None $(.or(Some($n)))?;
                run($row, &plan, &expected, minted);
            }
        )*
    };
}

macro_rules! loc {
    () => {
        None
    };
    ($o:literal, $l:literal, $c:literal) => {
        Some(($o, $l, $c))
    };
}

fn leak(s: impl Into<String>) -> &'static str {
    Box::leak(s.into().into_boxed_str())
}

fn rep(s: &str, n: usize) -> String {
    s.repeat(n)
}

rows! {
    row_001: 1, "<Chart />\n" => [("unknown-component", "root > Chart[0]", 0, 1, 1)];
    row_002: 2, "<Callout" => [("parse", "root", 8, 1, 9)];
    row_003: 3, "<Callout type=\"note\">\nunclosed\n" => [("parse", "root", 0, 1, 1)];
    row_004: 4, "<Callout type=\"note\">\n</Tabs>\n" => [("parse", "root", 22, 2, 1)];
    row_005: 5, "</Callout>" => [("parse", "root", 1, 1, 2)];
    row_006: 6, "<!-- c -->" => [("parse", "root", 1, 1, 2)];
    row_007: 7, "<https://x.y>" => [("parse", "root", 7, 1, 8)];
    row_008: 8, "x <= y" => [("parse", "root", 3, 1, 4)];
    row_009: 9, "and <3" => [("parse", "root", 5, 1, 6)];
    row_010: 10, "a < b" => [] minted 0;
    row_011: 11, "5 > 3" => [] minted 0;
    row_012: 12, "\\<Callout>" => [] minted 0;
    row_013: 13, "{1+1}" => [] minted 0;
    row_014: 14, "import x from './y'" => [] minted 0;
    row_015: 15, "    indented" => [] minted 0;
    row_016: 16, "# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n" => [] minted 1;
    row_017: 17, "<Callout type=\"note\">x</Callout>" => [("wrong-kind", "root > paragraph[0] > Callout[0]", 0, 1, 1)];
    row_018: 18, "<Callout type=\"note\"></Callout>" => [] minted 1;
    row_019: 19, "<>\nx\n</>" => [("fragment", "root > fragment[0]", 0, 1, 1)];
    row_020: 20, "<div>x</div>" => [("unknown-component", "root > paragraph[0] > div[0]", 0, 1, 1)];
    row_021: 21, "<a.b />" => [("unknown-component", "root > a.b[0]", 0, 1, 1)];
    row_022: 22, "<Chart>\n<Callout type=\"nope\" />\n</Chart>" => [("unknown-component", "root > Chart[0]", 0, 1, 1)];
    row_023: 23, "<Callout type=\"note\" {...p}>\nx\n</Callout>" => [("spread-attribute", "root > Callout[0]", 0, 1, 1)];
    row_024: 24, "<Callout type={x}>\nx\n</Callout>" => [
        ("expression-attribute", "root > Callout[0]", 0, 1, 1),
        ("missing-attribute", "root > Callout[0]", 0, 1, 1),
    ];
    row_025: 25, "<Callout type=\"note\" hidden>\nx\n</Callout>" => [("expression-attribute", "root > Callout[0]", 0, 1, 1)];
    row_026: 26, "<Callout type=\"nope\" colour=\"red\">\nx\n</Callout>" => [
        ("unknown-attribute", "root > Callout[0]", 0, 1, 1),
        ("bad-attribute-value", "root > Callout[0]", 0, 1, 1),
    ];
    row_027: 27, "<Callout type=\"note\" type=\"tip\">\nx\n</Callout>" => [("duplicate-attribute", "root > Callout[0]", 0, 1, 1)];
    row_028: 28, "<Callout id=\"x\" type=\"note\">\nx\n</Callout>" => [("bad-id", "root > Callout[0]", 0, 1, 1)] minted 0;
    row_029: 29, "<Callout id={x} type=\"note\">\nx\n</Callout>" => [
        ("expression-attribute", "root > Callout[0]", 0, 1, 1),
        ("missing-attribute", "root > Callout[0]", 0, 1, 1),
    ] minted 0;
    row_030: 30, "<Callout type=\"note\" title=\"  \">\nx\n</Callout>" => [("empty-attribute", "root > Callout[0]", 0, 1, 1)];
    row_031: 31, format!("<Callout type=\"note\" title=\"{}\">\nx\n</Callout>", rep("x", 101)) => [("attribute-too-long", "root > Callout[0]", 0, 1, 1)];
    row_032: 32, format!("<Callout type=\"note\" title=\"{}\">\nx\n</Callout>", rep("😀", 100)) => [] minted 1;
    row_033: 33, "<Callout type=\"note\">\n<Callout type=\"tip\">\ny\n</Callout>\n</Callout>" => [("bad-nesting", "root > Callout[0] > Callout[0]", 22, 2, 1)];
    row_034: 34, "<Tab label=\"A\">\nx\n</Tab>" => [("bad-parent", "root > Tab[0]", 0, 1, 1)];
    row_035: 35, "- item\n\n  <Tab label=\"x\">\n  y\n  </Tab>" => [("bad-parent", "root > list[0] > listItem[0] > Tab[0]", 10, 3, 3)];
    row_036: 36, "<Tabs>\nhello\n</Tabs>" => [
        ("unexpected-child", "root > Tabs[0]", 7, 2, 1),
        ("missing-children", "root > Tabs[0]", 0, 1, 1),
    ];
    row_037: 37, "<Tabs>\n<Tab label=\"A\">\nx\n</Tab>\n</Tabs>\n\n<Tabs>\n<Tab label=\"\">\ny\n</Tab>\n</Tabs>" => [("empty-attribute", "root > Tabs[1] > Tab[0]", 48, 8, 1)];
    row_038: 38, "<Columns>\n</Columns>" => [
        ("bad-column-count", "root > Columns[0]", 0, 1, 1),
        ("missing-children", "root > Columns[0]", 0, 1, 1),
    ];
    row_039: 39, "> <Columns>\n> <Column>\n> a\n> </Column>\n> <Column>\n> b\n> </Column>\n> </Columns>" => [("bad-layout-placement", "root > blockquote[0] > Columns[0]", 2, 1, 3)];
    row_040: 40, "<Columns>\n<Column>\n<Callout type=\"note\">\nx\n</Callout>\n</Column>\n<Column>\ny\n</Column>\n</Columns>" => [("bad-nesting", "root > Columns[0] > Column[0] > Callout[0]", 19, 3, 1)];
    row_041: 41, "<Questionnaire>\n<Callout type=\"note\">\nx\n</Callout>\n</Questionnaire>" => [
        ("unexpected-child", "root > Questionnaire[0]", 16, 2, 1),
        ("missing-children", "root > Questionnaire[0]", 0, 1, 1),
        ("bad-nesting", "root > Questionnaire[0] > Callout[0]", 16, 2, 1),
    ];
    row_042: 42, "<Research />" => [] minted 1;
    row_043: 43, "<Research id=\"bad id\" />" => [("bad-reference", "root > Research[0]", 0, 1, 1)];
    row_044: 44, "<Underline>\nx\n</Underline>" => [("wrong-kind", "root > Underline[0]", 0, 1, 1)];
    row_045: 45, "<Note by=\"u\" text=\"n\" />" => [("bad-parent", "root > Note[0]", 0, 1, 1)];
    row_046: 46, "<Decision quote=\"q\" by=\"u\" at=\"t\">\n</Decision>" => [("missing-children", "root > Decision[0]", 0, 1, 1)];
    row_047: 47, "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>" => [] minted 2;
    row_048: 48, "<Questionnaire status=\"open\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>" => [("missing-children", "root > Questionnaire[0] > Question[0]", 30, 2, 1)];
    row_049: 49, "<Questionnaire thread=\"t\" status=\"open\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>" => [] minted 2;
    row_050: 50, "<Questionnaire>\n<Question header=\"\" prompt=\" \" multiple=\"true\">\n<Option label=\"\" />\n<Answer value=\"\" />\n</Question>\n</Questionnaire>" => [] minted 3;
    row_051: 51, "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n<Option id=\"01J00000000000000000000001\" label=\"a\" />\n<Answer value=\"a\" choices=\"01J00000000000000000000001 01J00000000000000000000001 x\" />\n</Question>\n</Questionnaire>" => [
        ("unknown-answer-choice", "root > Questionnaire[0] > Question[0]", 119, 4, 1),
        ("duplicate-answer-choice", "root > Questionnaire[0] > Question[0]", 119, 4, 1),
        ("too-many-answer-choices", "root > Questionnaire[0] > Question[0]", 119, 4, 1),
    ];
    row_052: 52, "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"true\">\n<Option label=\"a\" />\n<Previous by=\"u\" at=\"t\" choices=\"z\" value=\"v\" />\n<Previous by=\"u\" at=\"t\" />\n</Question>\n</Questionnaire>" => [
        ("duplicate-previous", "root > Questionnaire[0] > Question[0]", 16, 2, 1),
        ("invalid-previous-answer", "root > Questionnaire[0] > Question[0]", 86, 4, 1),
        ("unknown-previous-choice", "root > Questionnaire[0] > Question[0]", 86, 4, 1),
        ("invalid-previous-answer", "root > Questionnaire[0] > Question[0]", 135, 5, 1),
    ];
    row_053: 53, "<Image src=\"https://x.y/a.png\" alt=\"\" width=\"100\" />" => [] minted 0;
    row_054: 54, "<Image src=\"http://x.y/a.png\" alt=\"\" width=\"0\" />" => [
        ("bad-attribute-value", "root > Image[0]", 0, 1, 1),
        ("bad-image-protocol", "root > Image[0]", 0, 1, 1),
    ];
    row_055: 55, "<Image alt=\"a\" width=\"10\" />" => [
        ("missing-attribute", "root > Image[0]", 0, 1, 1),
        ("bad-image", "root > Image[0]", 0, 1, 1),
    ];
    row_056: 56, "<Image src=\"https://x.y/a.png \" alt=\"\" width=\"1\" />" => [("bad-image", "root > Image[0]", 0, 1, 1)];
    row_057: 57, "[x](javascript:alert(1))" => [("bad-link-protocol", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_058: 58, "[x](mailto:a@b.c) [y](src/index.ts)" => [] minted 0;
    row_059: 59, "[x](<https://exa mple.com>)" => [("bad-link", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_060: 60, "![a](img.png)" => [("bad-image", "root > paragraph[0] > image[0]", 0, 1, 1)];
    row_061: 61, format!("![a](/images/{}.png)", rep("0", 64)) => [] minted 0;
    row_062: 62, "![a](data:image/png;base64,AA)" => [("bad-image-protocol", "root > paragraph[0] > image[0]", 0, 1, 1)];
    row_063: 63, "Fine.\n\nSee [here](//evil.com).\n" => [("bad-link", "root > paragraph[1] > link[0]", 11, 3, 5)];
    row_064: 64, "[a](<java script:x>)" => [("bad-link", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_065: 65, "[a](https://ex&#x200B;ample.com)" => [("bad-link", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_066: 66, "[a](< https://x.y>)" => [("bad-link", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_067: 67, "[a](docs\\\\a.md)" => [("bad-link", "root > paragraph[0] > link[0]", 0, 1, 1)];
    row_068: 68, "x[^1]\n\n[^1]: y" => [
        ("bad-footnote-id", "root > paragraph[0] > footnoteReference[0]", 1, 1, 2),
        ("bad-footnote-id", "root > footnoteDefinition[0]", 7, 3, 1),
    ];
    row_069: 69, "x[^01arz3ndektsv4rrffq69g5fav]\n\n[^01arz3ndektsv4rrffq69g5fav]: y" => [] minted 0;
    row_070: 70, "[a][b]\n\n[b]: https://x.y" => [
        ("forbidden-node", "root > paragraph[0] > linkReference[0]", 0, 1, 1),
        ("forbidden-node", "root > definition[0]", 8, 3, 1),
    ];
    row_071: 71, format!("| a |\n| - |\n|{}", rep(" x |", 21)) => [("table-too-wide", "root > table[0]", 0, 1, 1)];
    row_072: 72, format!("| a |\n| - |\n{}", rep("| x |\n", 100)) => [("table-too-tall", "root > table[0]", 0, 1, 1)];
    row_073: 73, vec!["![a](https://x.y/a.png)"; 101].join("\n\n") => [("too-many-images", "root")];
    row_074: 74, format!("{} x", rep(">", 18)) => [] minted 0;
    row_075: 75, format!("{} x", rep(">", 19)) => [("too-deep", leak(format!("root{} > paragraph[0] > text[0]", rep(" > blockquote[0]", 19))), 20, 1, 21)];
    row_076: 76, "\u{FEFF}<Chart />" => [("unknown-component", "root > Chart[0]", 3, 1, 2)];
    row_077: 77, "😀 x\n\n<Chart />\n" => [("unknown-component", "root > Chart[0]", 8, 3, 1)];
    row_078: 78, "a\r\n\r\n<Chart />" => [("unknown-component", "root > Chart[0]", 5, 3, 1)];
    row_079: 79, "\tx <Chart />" => [("unknown-component", "root > paragraph[0] > Chart[0]", 3, 1, 4)];
    row_080: 80, format!("# {}\n", rep("😀", 65536)) => [("source-too-large", "root")];
    row_081: 81, "a <Underline>b\n" => [("parse", "root", 2, 1, 3)];
    row_082: 82, "> <Callout\ntype=\"note\">\nx\n</Callout>" => [("parse", "root", 11, 2, 1)];
    row_083: 83, "a <B\n\nc" => [("parse", "root", 4, 1, 5)];
    row_084: 84, "| a <| b |\n| - | - |" => [("parse", "root", 5, 1, 6)];
    row_085: 85, "x <\ny" => [] minted 0;
    row_086: 86, "> a <Underline\nclass=\"x\">u</Underline>" => [("unknown-attribute", "root > blockquote[0] > paragraph[0] > Underline[0]", 4, 1, 5)];
    row_087: 87, "> <Underline\nclass=\"x\">u</Underline> text" => [("parse", "root", 13, 2, 1)];
    row_088: 88, "<a𝔘 />" => [("parse", "root", 2, 1, 3)];
    row_089: 89, "<\u{a0}Callout type=\"note\">\nx\n</Callout>" => [] minted 1;
    row_090: 90, "<Callout {/* c */} type=\"note\">\nx\n</Callout>" => [("spread-attribute", "root > Callout[0]", 0, 1, 1)];
    row_091: 91, "x[^\u{a0}01ARZ3NDEKTSV4RRFFQ69G5FAV]\n\n[^\u{a0}01ARZ3NDEKTSV4RRFFQ69G5FAV]: y" => [
        ("bad-footnote-id", "root > paragraph[0] > footnoteReference[0]", 1, 1, 2),
        ("bad-footnote-id", "root > footnoteDefinition[0]", 34, 3, 1),
    ];
    row_092: 92, "a*😀 [l](javascript:x) 😀*a" => [("bad-link-protocol", "root > paragraph[0] > link[0]", 7, 1, 5)];
}

/// §2.4's must-fail list: offset, line, column and the exact reason.
const MUST_FAIL: &[(&str, usize, usize, usize, &str)] = &[
    (
        "<Callout",
        8,
        1,
        9,
        "Unexpected end of file in name, expected a name character such as letters, digits, `$`, or `_`; whitespace before attributes; or the end of the tag",
    ),
    (
        "<Callout type=\"note\">\nunclosed\n",
        0,
        1,
        1,
        "Expected a closing tag for `<Callout>` (1:1-1:22)",
    ),
    (
        "<Callout type=\"note\">\n</Tabs>\n",
        22,
        2,
        1,
        "Unexpected closing tag `</Tabs>`, expected corresponding closing tag for `<Callout>` (1:1-1:22)",
    ),
    (
        "</Callout>",
        1,
        1,
        2,
        "Unexpected closing slash `/` in tag, expected an open tag first",
    ),
    (
        "<!-- c -->",
        1,
        1,
        2,
        "Unexpected character `!` (U+0021) before name, expected a character that can start a name, such as a letter, `$`, or `_` (note: to create a comment in MDX, use `{/* text */}`)",
    ),
    (
        "<https://x.y>",
        7,
        1,
        8,
        "Unexpected character `/` (U+002F) before local name, expected a character that can start a name, such as a letter, `$`, or `_` (note: to create a link in MDX, use `[text](url)`)",
    ),
    (
        "x <= y",
        3,
        1,
        4,
        "Unexpected character `=` (U+003D) before name, expected a character that can start a name, such as a letter, `$`, or `_`",
    ),
    (
        "and <3",
        5,
        1,
        6,
        "Unexpected character `3` (U+0033) before name, expected a character that can start a name, such as a letter, `$`, or `_`",
    ),
    (
        "a <Underline>b\n",
        2,
        1,
        3,
        "Expected a closing tag for `<Underline>` (1:3-1:14) before the end of `paragraph`",
    ),
    (
        "> <Callout\ntype=\"note\">\nx\n</Callout>",
        11,
        2,
        1,
        "Unexpected lazy line in container, expected line to be prefixed with `>` when in a block quote, whitespace when in a list, etc",
    ),
    (
        "a <B\n",
        4,
        1,
        5,
        "Unexpected end of file in name, expected a name character such as letters, digits, `$`, or `_`; whitespace before attributes; or the end of the tag",
    ),
    (
        "x <\n",
        3,
        1,
        4,
        "Unexpected end of file before name, expected a character that can start a name, such as a letter, `$`, or `_`",
    ),
    (
        "<a𝔘 />",
        2,
        1,
        3,
        "Unexpected character `𝔘` (U+1D518) in name, expected a name character such as letters, digits, `$`, or `_`; whitespace before attributes; or the end of the tag",
    ),
    (
        "<Callout /* c */ type=\"note\">\nx\n</Callout>",
        10,
        1,
        11,
        "Unexpected character `*` (U+002A) after self-closing slash, expected `>` to end the tag (note: JS comments in JSX tags are not supported in MDX)",
    ),
];

#[test]
fn must_fail_with_exact_reasons() {
    for &(plan, offset, line, column, reason) in MUST_FAIL {
        let report = check(plan, &SequentialIds::new(0));
        let want = Issue {
            code: "parse",
            message: format!("Unable to parse plan MDX: {reason}"),
            path: "root".to_owned(),
            offset: Some(offset),
            line: Some(line),
            column: Some(column),
        };
        assert_eq!(report.issues, vec![want], "{plan:?}");
        assert_eq!(
            report.canonical, plan,
            "canonical is the submitted plan on failure"
        );
    }
}

/// §2.4's end-of-input locations and the other failure examples of §2.2–§2.5.
const FAIL_POINTS: &[(&str, usize)] = &[
    ("<Callout\n", 9),
    ("a\n<B\n", 5),
    ("> <B\n>", 5),
    ("a <B  \n", 6),
    ("x <B\ny", 6),
    ("a <B x=\"y\n\nz", 9),
    ("# a <B #", 6),
    ("a <B  \n===", 6),
    ("| a | b |\n| - | - |\n| a <B | c |", 26),
    ("x <", 3),
    ("x <\n\ny", 3),
    ("# x <", 5),
    ("| a < | b |\n| - | - |", 5),
    ("<𝔘 />", 1),
    ("<😀 />", 1),
    ("<a:😀 />", 3),
    ("<B a𝔘=\"x\" />", 4),
    ("</* c */Callout>", 2),
    ("<Research x=/* c */\"y\" />", 12),
    ("<B x=\"1\n\n", 9),
];

#[test]
fn failure_points() {
    for &(plan, offset) in FAIL_POINTS {
        let report = check(plan, &SequentialIds::new(0));
        assert_eq!(report.issues.len(), 1, "{plan:?}: {:?}", report.issues);
        assert_eq!(
            report.issues[0].code, "parse",
            "{plan:?}: {:?}",
            report.issues
        );
        assert_eq!(
            report.issues[0].offset,
            Some(offset),
            "{plan:?}: {:?}",
            report.issues
        );
    }
}

#[test]
fn astral_characters_are_quoted_whole() {
    let report = check("<😀 />", &SequentialIds::new(0));
    assert!(
        report.issues[0]
            .message
            .contains("Unexpected character `😀` (U+1F600) before name"),
        "{:?}",
        report.issues
    );
}

#[test]
fn must_parse() {
    for plan in [
        "a < b",
        "5 > 3",
        "\\<Callout>",
        "{1+1}",
        "text {x} more",
        "import x from './y'",
        "<Callout type=\"note\"></Callout>",
    ] {
        let report = check(plan, &SequentialIds::new(0));
        assert!(report.issues.is_empty(), "{plan:?}: {:?}", report.issues);
    }
    let report = check("<Callout type=\"note\">x</Callout>", &SequentialIds::new(0));
    let codes: Vec<_> = report.issues.iter().map(|i| i.code).collect();
    assert_eq!(codes, ["wrong-kind"]);
}

#[test]
fn issue_json_key_order() {
    let report = check("<Chart />\n", &SequentialIds::new(0));
    let json = serde_json::to_string(&report.issues[0]).expect("serializes");
    assert_eq!(
        json,
        r#"{"code":"unknown-component","message":"`Chart` is not a plan component","path":"root > Chart[0]","offset":0,"line":1,"column":1}"#
    );
    let report = check(
        &format!("# {}\n", "😀".repeat(65536)),
        &SequentialIds::new(0),
    );
    let json = serde_json::to_string(&report.issues).expect("serializes");
    assert_eq!(
        json,
        r#"[{"code":"source-too-large","message":"Plan exceeds the 256 KiB limit","path":"root"}]"#
    );
}

#[test]
fn closing_tag_inside_a_paragraph_names_the_paragraph() {
    let plan = "<Callout type=\"note\">\nSome text </Callout>";
    let report = check(plan, &SequentialIds::new(0));
    let issue = &report.issues[0];
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Expected the closing tag `</Callout>` either after the end of `paragraph` (2:21) or another opening tag after the start of `paragraph` (2:1)"
    );
    assert_eq!(issue.offset, Some(32));
}

#[test]
fn closing_tag_inside_a_block_quote_names_the_block_quote() {
    let plan = "<Callout type=\"note\">\n> </Callout>\n";
    let report = check(plan, &SequentialIds::new(0));
    let issue = &report.issues[0];
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Expected the closing tag `</Callout>` either after the end of `blockQuote` (2:13) or another opening tag after the start of `blockQuote` (2:1)"
    );
    assert_eq!(issue.offset, Some(24));
}

#[test]
fn container_ending_with_an_open_element() {
    let plan = "> <Callout type=\"note\">\n> x\n\ny";
    let report = check(plan, &SequentialIds::new(0));
    let issue = &report.issues[0];
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Expected a closing tag for `<Callout>` (1:3-1:24) before the end of `blockQuote`"
    );
    assert_eq!(issue.offset, Some(2));
}

/// Other failures (§2.4): the location rules and micromark's wording.
const OTHER_FAILURES: &[(&str, usize, &str)] = &[
    (
        "<A>\n</A b>",
        8,
        "Unexpected attribute in closing tag, expected the end of the tag",
    ),
    (
        "<A>\n</A/>",
        7,
        "Unexpected self-closing slash `/` in closing tag, expected the end of the tag",
    ),
    (
        "<A b={",
        6,
        "Unexpected end of file in expression, expected a corresponding closing brace for `{`",
    ),
    (
        "<A b=\"x",
        7,
        "Unexpected end of file in attribute value, expected a corresponding closing quote `\"`",
    ),
    (
        "<A b=c />",
        5,
        "Unexpected character `c` (U+0063) before attribute value, expected a character that can start an attribute value, such as `\"`, `'`, or `{`",
    ),
    (
        "<A b=<c /> />",
        5,
        "Unexpected character `<` (U+003C) before attribute value, expected a character that can start an attribute value, such as `\"`, `'`, or `{` (note: to use an element or fragment as a prop value in MDX, use `{<element />}`)",
    ),
    (
        "<A.1 />",
        3,
        "Unexpected character `1` (U+0031) before member name, expected a character that can start an attribute name, such as a letter, `$`, or `_`; whitespace before attributes; or the end of the tag",
    ),
    (
        "<A b c=\"1\" d ! />",
        13,
        "Unexpected character `!` (U+0021) after attribute name, expected a character that can start an attribute name, such as a letter, `$`, or `_`; `=` to initialize a value; or the end of the tag",
    ),
    (
        "<a@b.c>",
        2,
        "Unexpected character `@` (U+0040) in name, expected a name character such as letters, digits, `$`, or `_`; whitespace before attributes; or the end of the tag (note: to create a link in MDX, use `[text](url)`)",
    ),
    (
        "> <A>\n> x\n\ny",
        2,
        "Expected a closing tag for `<A>` (1:3-1:6) before the end of `blockQuote`",
    ),
    (
        "- <A>\n\nx",
        2,
        "Expected a closing tag for `<A>` (1:3-1:6) before the end of `listItem`",
    ),
    (
        "*a <B>b* c</B>",
        3,
        "Expected a closing tag for `<B>` (1:4-1:7) before the end of `emphasis`",
    ),
    (
        "<B>\nx *y </B>* z",
        9,
        "Expected the closing tag `</B>` either after the end of `emphasis` (2:11) or another opening tag after the start of `emphasis` (2:3)",
    ),
];

#[test]
fn other_failures_follow_the_library_wording() {
    for &(plan, offset, reason) in OTHER_FAILURES {
        let report = check(plan, &SequentialIds::new(0));
        assert_eq!(report.issues.len(), 1, "{plan:?}: {:?}", report.issues);
        let issue = &report.issues[0];
        assert_eq!(
            (issue.code, issue.message.as_str(), issue.offset),
            (
                "parse",
                format!("Unable to parse plan MDX: {reason}").as_str(),
                Some(offset)
            ),
            "{plan:?}"
        );
    }
}

#[test]
fn reasons_name_the_reference_token_a_tag_was_left_open_in() {
    // mdast-util-mdx-jsx names micromark's token, not the mdast node.
    for (plan, token) in [
        ("# a <B> #", "atxHeading"),
        ("a <B>\n===", "setextHeading"),
        ("> <B>\n\nx", "blockQuote"),
        ("- <B>\n\nx", "listItem"),
        ("[^1]: <B>\n\nx", "gfmFootnoteDefinition"),
        ("| <B> |\n| - |", "tableHeader"),
        ("| a |\n| - |\n| <B> |", "tableData"),
        ("*a <B>*", "emphasis"),
        ("**a <B>**", "strong"),
        ("~~a <B>~~", "strikethrough"),
        ("[a <B>](x)", "link"),
        ("![a <B>](x)", "image"),
        ("[a]: x\n\n[a <B>][a]", "link"),
        ("[a]: x\n\n![a <B>][a]", "image"),
        ("a <B>", "paragraph"),
    ] {
        let issue = chopin_dialect::parse(plan).unwrap_err();
        assert!(
            issue
                .message
                .ends_with(&format!("before the end of `{token}`")),
            "{plan:?}: {}",
            issue.message
        );
    }
}

#[test]
fn names_use_the_ecmascript_identifier_sets_and_local_names_are_named() {
    // ID_Start/ID_Continue, not XID: U+FE7E is a name character.
    assert!(chopin_dialect::parse("<a\u{FE7E} />").is_ok());
    let issue = chopin_dialect::parse("<B a:b\t@ />").unwrap_err();
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Unexpected character `@` (U+0040) after local attribute name, expected a character that can start an attribute name, such as a letter, `$`, or `_`; `=` to initialize a value; or the end of the tag"
    );
}

#[test]
fn at_the_end_of_the_plan_a_text_reports_before_its_containers() {
    // Both the paragraph and the block quote end at the end of the plan with
    // a tag open; micromark exits the paragraph first.
    let issue = chopin_dialect::parse("><>\n>y<>").unwrap_err();
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Expected a closing tag for `<>` (2:3-2:5) before the end of `paragraph`"
    );
}

#[test]
fn a_container_ends_at_its_last_line_with_more_than_whitespace() {
    // Trailing blank lines are not part of where micromark says it ends; a
    // line holding just `>` is.
    for (plan, end) in [
        ("<U>\n[^1]:</U>\n\n\n", "2:10"),
        ("<U>\n- </U>\n  \n", "2:7"),
        ("<U>\n> </U>\n>\n\n", "3:2"),
    ] {
        let issue = chopin_dialect::parse(plan).unwrap_err();
        assert!(
            issue.message.contains("after the end of")
                && issue.message.contains(&format!("({end}) or")),
            "{plan:?}: {}",
            issue.message
        );
    }
}
