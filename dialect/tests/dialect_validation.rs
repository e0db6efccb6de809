//! DIALECT.md §3–§9: every issue code with its exact message (§7.3, §7.4).

use chopin_dialect::SequentialIds;
use chopin_dialect::{Kind, Tree, check, validate_tree};

fn messages(plan: &str) -> Vec<(&'static str, String)> {
    check(plan, &SequentialIds::new(1_750_000_000_000))
        .issues
        .into_iter()
        .map(|i| (i.code, i.message))
        .collect()
}

fn assert_messages(plan: &str, expected: &[(&str, &str)]) {
    let got = messages(plan);
    let got: Vec<(&str, &str)> = got.iter().map(|(c, m)| (*c, m.as_str())).collect();
    assert_eq!(got, expected, "{plan:?}");
}

const ULID: &str = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

#[test]
fn component_placement_messages() {
    assert_messages(
        "<Chart />",
        &[("unknown-component", "`Chart` is not a plan component")],
    );
    assert_messages(
        "<>\nx\n</>",
        &[("fragment", "JSX fragments are not allowed in plans")],
    );
    assert_messages(
        "- <Columns>\n  <Column>\n  a\n  </Column>\n  <Column>\n  b\n  </Column>\n  </Columns>",
        &[(
            "bad-layout-placement",
            "`Columns` must be a top-level block",
        )],
    );
    assert_messages(
        "a <Callout type=\"note\">x</Callout>",
        &[(
            "wrong-kind",
            "`Callout` is a flow component but was used as text",
        )],
    );
    assert_messages(
        "<Underline>\nx\n</Underline>",
        &[(
            "wrong-kind",
            "`Underline` is a text component but was used as flow",
        )],
    );
    assert_messages(
        "<Question header=\"h\" prompt=\"p\" multiple=\"true\">\n<Option label=\"a\" />\n</Question>",
        &[(
            "bad-parent",
            "`Question` must be a direct child of Questionnaire",
        )],
    );
    assert_messages(
        "<Note by=\"u\" text=\"t\" />",
        &[("bad-parent", "`Note` must be a direct child of Decision")],
    );
    assert_messages(
        "<Callout type=\"note\">\n<Callout type=\"tip\">\ny\n</Callout>\n</Callout>",
        &[("bad-nesting", "`Callout` cannot appear inside `Callout`")],
    );
}

#[test]
fn attribute_messages() {
    assert_messages(
        "<Callout type=\"note\" {...p} />",
        &[("spread-attribute", "Spread attributes are not allowed")],
    );
    assert_messages(
        "<Callout type={x} />",
        &[
            (
                "expression-attribute",
                "`type` must be a quoted string, not an expression",
            ),
            ("missing-attribute", "`Callout` requires `type`"),
        ],
    );
    assert_messages(
        "<Callout type=\"note\" colour=\"r\" />",
        &[("unknown-attribute", "`Callout` has no `colour` attribute")],
    );
    assert_messages(
        "<Callout type=\"note\" type=\"tip\" />",
        &[("duplicate-attribute", "`type` is set more than once")],
    );
    assert_messages(
        "<Callout id=\"x\" type=\"note\" />",
        &[("bad-id", "`Callout.id` must be a ULID")],
    );
    assert_messages(
        "<Research id=\"a b\" />",
        &[(
            "bad-reference",
            "`Research.id` must be a safe external reference",
        )],
    );
    assert_messages(
        &format!("<Research id=\"{}\" />", "a".repeat(97)),
        &[(
            "bad-reference",
            "`Research.id` must be a safe external reference",
        )],
    );
    assert_messages(
        "<Research id=\"8f4d193b-2018-4977-b404-0092bb911676\" />",
        &[],
    );
    assert_messages(&format!("<Research id=\"{ULID}\" />"), &[]);
    assert_messages(
        "<Callout type=\"note\" title=\"\u{3000}\" />",
        &[("empty-attribute", "`Callout.title` cannot be empty")],
    );
    assert_messages(
        &format!("<Callout type=\"note\" title=\"{}\" />", "x".repeat(101)),
        &[(
            "attribute-too-long",
            "`Callout.title` exceeds 100 characters",
        )],
    );
    assert_messages(
        "<Callout type=\"Note\" />",
        &[(
            "bad-attribute-value",
            "`Callout.type` must be one of note, tip, important, warning, danger",
        )],
    );
    assert_messages(
        "<Questionnaire status=\"closed\">\n<Question header=\"h\" prompt=\"p\" multiple=\"yes\">\n<Option label=\"a\" />\n</Question>\n</Questionnaire>",
        &[
            (
                "bad-attribute-value",
                "`Questionnaire.status` must be one of open, decided, reopened, discarded, expired",
            ),
            (
                "bad-attribute-value",
                "`Question.multiple` must be one of true, false",
            ),
        ],
    );
    for width in ["0", "4097", "01", "1.0", "99999999999999999999999"] {
        assert_messages(
            &format!("<Image src=\"https://x.y/a.png\" alt=\"a\" width=\"{width}\" />"),
            &[(
                "bad-attribute-value",
                "`Image.width` must be an integer from 1 to 4096",
            )],
        );
    }
    // A value is read from the first attribute with the name (§4.5).
    assert_messages(
        "<Callout type={x} type=\"note\" />",
        &[(
            "expression-attribute",
            "`type` must be a quoted string, not an expression",
        )],
    );
}

#[test]
fn content_messages() {
    assert_messages(
        "<Image src=\"https://x.y/a.png\" alt=\"\" width=\"1\">\nx\n</Image>",
        &[("unexpected-children", "`Image` cannot have children")],
    );
    assert_messages(
        "<Tabs>\nx\n</Tabs>",
        &[
            ("unexpected-child", "`Tabs` may only contain Tab"),
            ("missing-children", "`Tabs` requires at least one Tab"),
        ],
    );
    assert_messages(
        "<Decision quote=\"q\" by=\"u\" at=\"t\">\nx\n<Note by=\"u\" text=\"t\" />\n</Decision>",
        &[("unexpected-child", "`Decision` may only contain Note")],
    );
    assert_messages(
        "<Columns>\n<Column>\na\n</Column>\n</Columns>",
        &[("bad-column-count", "`Columns` requires exactly two columns")],
    );
    assert_messages(
        "<Questionnaire thread=\"t\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\nx\n</Question>\n</Questionnaire>",
        &[
            (
                "unexpected-child",
                "`Question` may only contain Option, Answer, Previous",
            ),
            (
                "missing-children",
                "`Question` requires at least one Option or Answer or Previous",
            ),
        ],
    );
}

#[test]
fn choice_messages() {
    let opts: String = (0..21)
        .map(|i| format!("<Option id=\"01J000000000000000000000{i:02}\" label=\"o\" />\n"))
        .collect();
    let ids: Vec<String> = (0..21)
        .map(|i| format!("01J000000000000000000000{i:02}"))
        .collect();
    let plan = format!(
        "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"true\">\n{opts}<Answer value=\"v\" choices=\"{}\" />\n<Previous by=\"u\" at=\"t\" choices=\"{}\" />\n</Question>\n</Questionnaire>",
        ids.join(" "),
        ids.join("\t"),
    );
    assert_messages(
        &plan,
        &[
            (
                "too-many-answer-choices",
                "Answer accepts at most 20 choices",
            ),
            (
                "too-many-previous-choices",
                "Previous accepts at most 20 choices",
            ),
        ],
    );
    let plan = "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n<Option id=\"01J00000000000000000000001\" label=\"a\" />\n<Previous by=\"u\" at=\"t\" choices=\" 01J00000000000000000000001  01J00000000000000000000001 z \" />\n</Question>\n</Questionnaire>";
    assert_messages(
        plan,
        &[
            (
                "unknown-previous-choice",
                "Previous choices must name options in this question",
            ),
            (
                "duplicate-previous-choice",
                "Previous choices cannot repeat an option",
            ),
            (
                "too-many-previous-choices",
                "This question accepts one choice",
            ),
        ],
    );
    let plan = "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"true\">\n<Option label=\"a\" />\n<Previous by=\"u\" at=\"t\" />\n<Previous by=\"u\" at=\"t\" value=\"v\" />\n</Question>\n</Questionnaire>";
    assert_messages(
        plan,
        &[
            (
                "duplicate-previous",
                "Question accepts at most one Previous",
            ),
            (
                "invalid-previous-answer",
                "Previous requires choices or value, but not both",
            ),
        ],
    );
    // Minted option ids count (§5.6): choices cannot name them in advance,
    // but an Answer naming an explicit id is fine.
    let plan = "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n<Option id=\"01J00000000000000000000001\" label=\"a\" />\n<Option label=\"b\" />\n<Answer value=\"a\" choices=\"01J00000000000000000000001\" />\n</Question>\n</Questionnaire>";
    assert_messages(plan, &[]);
}

#[test]
fn exemptions() {
    // Pending: thread, one Question, open/reopened/discarded, single choice.
    for status in ["open", "reopened", "discarded"] {
        assert_messages(
            &format!(
                "<Questionnaire thread=\"t\" status=\"{status}\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>"
            ),
            &[],
        );
    }
    // Not pending with two Questions.
    let two = "<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n";
    let plan = format!("<Questionnaire thread=\"t\" status=\"open\">\n{two}{two}</Questionnaire>");
    assert_eq!(messages(&plan).len(), 2);
    // Free text: thread absent or empty, status absent or expired.
    assert_messages(
        &format!("<Questionnaire status=\"expired\">\n{two}</Questionnaire>"),
        &[],
    );
    // Blank values are allowed for Question, Option, Answer and Image.alt.
    assert_messages(
        "<Image src=\"https://x.y/a.png\" alt=\" \" width=\"1\" />",
        &[],
    );
}

#[test]
fn url_messages() {
    assert_messages("[a](https://exa mple.com)", &[]); // a space ends the destination: plain text
    assert_messages(
        "[a](<https://exa mple.com>)",
        &[("bad-link", "Link is not a valid URL")],
    );
    assert_messages(
        "[a](javascript:alert(1))",
        &[("bad-link-protocol", "`javascript:` links are not allowed")],
    );
    assert_messages(
        "[a](HTTP://x.y)",
        &[("bad-link-protocol", "`http:` links are not allowed")],
    );
    assert_messages(
        "[a](mailto:a@b.c) [b](https://x.y) [c](docs/a.md) [d](&plan.mdx)",
        &[],
    );
    assert_messages(
        "![a](a.png)",
        &[(
            "bad-image",
            "Image must be an absolute URL or a Chopin-hosted /images/ path",
        )],
    );
    assert_messages(
        "![a]()",
        &[(
            "bad-image",
            "Image must be an absolute URL or a Chopin-hosted /images/ path",
        )],
    );
    assert_messages(
        "![a](http://x.y/a.png)",
        &[("bad-image-protocol", "`http:` images are not allowed")],
    );
    assert_messages(&format!("![a](/images/{}.webp)", "ab".repeat(32)), &[]);
    assert_messages(
        &format!("![a](/images/{}.svg)", "ab".repeat(32)),
        &[(
            "bad-image",
            "Image must be an absolute URL or a Chopin-hosted /images/ path",
        )],
    );
}

#[test]
fn introduced_url_messages() {
    let link = |url: &str| format!("[a](<{url}>)");
    assert_messages(
        &link("java&#x200B;script:alert(1)"),
        &[("bad-link", "Link contains hidden or control characters")],
    );
    assert_messages(
        &link("&#xFEFF;https://example.com"),
        &[("bad-link", "Link contains hidden or control characters")],
    );
    assert_messages(
        &link(" javascript:alert(1)"),
        &[("bad-link", "Link cannot start or end with whitespace")],
    );
    assert_messages(
        &link("https://example.com "),
        &[("bad-link", "Link cannot start or end with whitespace")],
    );
    assert_messages(
        &link("java script:alert(1)"),
        &[("bad-link", "Link hides a protocol behind whitespace")],
    );
    assert_messages(
        "[a](//evil.com)",
        &[(
            "bad-link",
            "Link without a protocol must stay in the repository",
        )],
    );
    assert_messages(
        "[a](/\\\\evil.com)",
        &[(
            "bad-link",
            "Link without a protocol must stay in the repository",
        )],
    );
    assert_messages("[a](docs/a.md) [b](https://example.com)", &[]);
    assert_messages(
        "<Image src=\"https://x.y/a.png\u{200B}\" alt=\"\" width=\"1\" />",
        &[(
            "bad-image",
            "Image URL contains hidden or control characters",
        )],
    );
    assert_messages(
        "<Image src=\" https://x.y/a.png\" alt=\"\" width=\"1\" />",
        &[("bad-image", "Image URL cannot start or end with whitespace")],
    );
    assert_messages(
        "![a](<ht tps://x.y/a.png>)",
        &[(
            "bad-image",
            "Image must be an absolute URL or a Chopin-hosted /images/ path",
        )],
    );
    // Only when the walk found nothing.
    assert_messages(
        "<Chart />\n\n[a](//evil.com)",
        &[("unknown-component", "`Chart` is not a plan component")],
    );
}

#[test]
fn document_limits() {
    let wide = format!("| a |\n| - |\n|{}", " x |".repeat(21));
    assert_messages(
        &wide,
        &[("table-too-wide", "Tables are limited to 20 columns")],
    );
    let tall = format!("| a |\n| - |\n{}", "| x |\n".repeat(100));
    assert_messages(
        &tall,
        &[("table-too-tall", "Tables are limited to 100 rows")],
    );
    assert_messages(&format!("| a |\n| - |\n{}", "| x |\n".repeat(99)), &[]);
    let images = vec!["<Image src=\"https://x.y/a.png\" alt=\"\" width=\"1\" />"; 101].join("\n");
    assert_messages(&images, &[("too-many-images", "Plan exceeds 100 images")]);
    assert_messages(
        &format!("{}x", "> ".repeat(19)),
        &[("too-deep", "Content nests deeper than 20 levels")],
    );
    assert_messages(
        "x[^1]\n\n[^1]: y",
        &[
            ("bad-footnote-id", "Footnote identifiers must be ULIDs"),
            ("bad-footnote-id", "Footnote identifiers must be ULIDs"),
        ],
    );
    assert_messages(
        "[a][b]\n\n[b]: /x",
        &[
            ("forbidden-node", "`linkReference` is not allowed in plans"),
            ("forbidden-node", "`definition` is not allowed in plans"),
        ],
    );
}

#[test]
fn forbidden_and_unknown_types_from_other_parsers() {
    let mut tree = Tree::new();
    tree.push(0, Kind::Other("html".to_owned()), 0);
    tree.push(0, Kind::Other("yaml".to_owned()), 1);
    let p = tree.push(0, Kind::Other("custom".to_owned()), 2);
    tree.push(p, Kind::Other("html".to_owned()), 2);
    let issues = validate_tree("abc", &tree, 3);
    let got: Vec<_> = issues
        .iter()
        .map(|i| (i.code, i.message.as_str(), i.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "forbidden-node",
                "`html` is not allowed in plans",
                "root > html[0]"
            ),
            (
                "forbidden-node",
                "`yaml` is not allowed in plans",
                "root > yaml[0]"
            ),
            (
                "unknown-node",
                "`custom` is not part of the plan dialect",
                "root > custom[0]"
            ),
        ]
    );
}

#[test]
fn issues_never_echo_prose() {
    let secret = "TOPSECRETPROSE";
    let plan = format!(
        "<Callout type=\"{secret}\" title=\"{}\" {secret}=\"x\">\n{secret}\n</Callout>\n\n<Tabs>\n{secret}\n</Tabs>\n\n[{secret}](javascript:{secret})",
        secret.repeat(20)
    );
    for (_, message) in messages(&plan) {
        assert!(
            !message.contains(secret) || message.contains(&format!("`{secret}`")),
            "{message}"
        );
    }
}
