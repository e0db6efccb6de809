//! DIALECT.md §2: syntax details, including where the dialect deliberately
//! differs from markdown-rs (§1, §2.5).

use chopin_dialect::SequentialIds;
use chopin_dialect::{Attr, AttrValue, Kind, Tree, check, parse};

fn tree(plan: &str) -> Tree {
    parse(plan).unwrap_or_else(|issue| panic!("{plan:?}: {issue:?}"))
}

/// Node types in document (pre-) order.
fn kinds(plan: &str) -> Vec<String> {
    let t = tree(plan);
    let mut out = Vec::new();
    let mut stack = vec![0];
    while let Some(id) = stack.pop() {
        out.push(t.nodes[id].kind.type_name().to_owned());
        stack.extend(t.nodes[id].children.iter().rev());
    }
    out
}

/// Each node's kind and depth, in document order.
fn shape(plan: &str) -> Vec<(usize, String)> {
    let t = tree(plan);
    let mut out = Vec::new();
    let mut stack = vec![(0, 0)];
    while let Some((id, depth)) = stack.pop() {
        out.push((depth, t.nodes[id].kind.type_name().to_owned()));
        stack.extend(t.nodes[id].children.iter().rev().map(|&c| (c, depth + 1)));
    }
    out
}

fn first_element_attrs(plan: &str) -> Vec<Attr> {
    let t = tree(plan);
    t.nodes
        .iter()
        .find_map(|n| n.kind.element().map(|e| e.attrs.clone()))
        .expect("an element")
}

#[test]
fn js_whitespace_inside_tags() {
    // U+FEFF is JavaScript whitespace, U+0085 is not (§1.3, §2.5).
    assert!(parse("<\u{feff}Research />").is_ok());
    let issue = parse("<\u{85}Research />").expect_err("U+0085 is not whitespace");
    assert_eq!(issue.offset, Some(1));
}

#[test]
fn star_next_to_underscore_is_plain_text() {
    for plan in ["*a_*b", "a*_b*"] {
        assert!(!kinds(plan).iter().any(|k| k == "emphasis"), "{plan:?}");
    }
}

#[test]
fn astral_punctuation_flanks_as_one_character() {
    assert!(!kinds("a*😀*b").iter().any(|k| k == "emphasis"));
    assert!(kinds("*😀*").iter().any(|k| k == "emphasis"));
}

#[test]
fn single_tilde_is_literal_and_double_tilde_deletes() {
    assert!(!kinds("~a~").iter().any(|k| k == "delete"));
    assert!(kinds("~~a~~").iter().any(|k| k == "delete"));
}

#[test]
fn absent_constructs_stay_text() {
    for plan in [
        "https://example.com",
        "{1+1}",
        "import x from './y'",
        "    indented",
        "export const a = 1",
    ] {
        assert_eq!(kinds(plan), ["root", "paragraph", "text"], "{plan:?}");
    }
}

#[test]
fn character_references_decode_in_text_destinations_and_attributes() {
    let t = tree("&amp; &quot; &#x41; &bogus;");
    let text: Vec<_> = t
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            Kind::Text { value } => Some(value.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(text, ["& \" A &bogus;"]);
    let t = tree("[a](x&amp;y)");
    assert!(t.nodes.iter().any(|n| n.kind
        == Kind::Link {
            url: "x&y".to_owned()
        }));
    let attrs = first_element_attrs("<Callout type=\"a&amp;b\\c\" />");
    assert_eq!(
        attrs,
        [Attr::Named {
            name: "type".to_owned(),
            value: AttrValue::String("a&b\\c".to_owned())
        }]
    );
}

#[test]
fn attribute_forms() {
    let attrs = first_element_attrs("<B a=\"1\" b='2' c={x {y}} d {...e} f:g=\"h\" />");
    assert_eq!(
        attrs,
        [
            Attr::Named {
                name: "a".to_owned(),
                value: AttrValue::String("1".to_owned())
            },
            Attr::Named {
                name: "b".to_owned(),
                value: AttrValue::String("2".to_owned())
            },
            Attr::Named {
                name: "c".to_owned(),
                value: AttrValue::Expression("x {y}".to_owned())
            },
            Attr::Named {
                name: "d".to_owned(),
                value: AttrValue::None
            },
            Attr::Expression("...e".to_owned()),
            Attr::Named {
                name: "f:g".to_owned(),
                value: AttrValue::String("h".to_owned())
            },
        ]
    );
}

#[test]
fn tags_may_span_lines_and_values_too() {
    let attrs =
        first_element_attrs("<Callout\n  type=\"note\"\n  title=\"a\n  b\"\n>\nx\n</Callout>");
    assert_eq!(
        attrs[1],
        Attr::Named {
            name: "title".to_owned(),
            value: AttrValue::String("a\nb".to_owned())
        }
    );
}

#[test]
fn flow_and_text_elements() {
    assert_eq!(kinds("<Chart />"), ["root", "mdxJsxFlowElement"]);
    assert_eq!(
        kinds("<A></A> <B />"),
        ["root", "mdxJsxFlowElement", "mdxJsxFlowElement"]
    );
    assert_eq!(
        kinds("x <Chart />"),
        ["root", "paragraph", "text", "mdxJsxTextElement"]
    );
    // A tag line interrupts a paragraph.
    assert_eq!(
        kinds("a\n<Chart />"),
        ["root", "paragraph", "text", "mdxJsxFlowElement"]
    );
    // Indentation never makes code.
    assert_eq!(kinds("        <Chart />"), ["root", "mdxJsxFlowElement"]);
}

#[test]
fn byte_order_mark_is_skipped_but_counted() {
    let t = tree("\u{feff}# h");
    assert_eq!(t.nodes[1].kind, Kind::Heading { depth: 1 });
    assert_eq!(t.nodes[1].start, 3);
}

#[test]
fn reference_forms_parse_so_they_can_be_refused() {
    let report = check("![a][b] [c]\n\n[b]: /x\n[c]: /y", &SequentialIds::new(0));
    let codes: Vec<_> = report
        .issues
        .iter()
        .map(|i| (i.code, i.path.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("forbidden-node", "root > paragraph[0] > imageReference[0]"),
            ("forbidden-node", "root > paragraph[0] > linkReference[0]"),
            ("forbidden-node", "root > definition[0]"),
            ("forbidden-node", "root > definition[1]"),
        ]
    );
}

#[test]
fn footnote_label_with_a_space_is_a_reference_link() {
    let report = check(
        "x[^ 01ARZ3NDEKTSV4RRFFQ69G5FAV]\n\n[^ 01ARZ3NDEKTSV4RRFFQ69G5FAV]: y",
        &SequentialIds::new(0),
    );
    assert!(
        report.issues.iter().any(|i| i.code == "forbidden-node"),
        "{:?}",
        report.issues
    );
}

#[test]
fn task_items_are_list_items_with_a_state() {
    let t = tree("- [x] done\n- [ ] open\n- [y] no");
    let states: Vec<_> = t
        .nodes
        .iter()
        .filter_map(|n| match n.kind {
            Kind::ListItem { checked } => Some(checked),
            _ => None,
        })
        .collect();
    assert_eq!(states, [Some(true), Some(false), None]);
}

#[test]
fn math_and_code() {
    assert_eq!(kinds("$$\nx\n$$"), ["root", "math"]);
    assert_eq!(kinds("```js\nx\n```"), ["root", "code"]);
    assert_eq!(
        kinds("$x$ `y`"),
        ["root", "paragraph", "inlineMath", "text", "inlineCode"]
    );
}

#[test]
fn nul_characters_are_never_thematic_break_markers() {
    // Found by the differential fuzz target: a run of NULs read as `***`.
    for plan in ["\0\0\0", "  \0\0\0\0\0\0\0\rted", "- \0\0\0"] {
        let tree = chopin_dialect::parse(plan).unwrap();
        assert!(
            !tree.shape(false).contains("thematicBreak"),
            "{plan:?}: {}",
            tree.shape(false)
        );
    }
}

#[test]
fn nul_reads_as_the_replacement_character() {
    // micromark replaces NUL with U+FFFD before parsing (found by the
    // differential fuzz target): a destination may hold it, and a reason
    // quotes it as U+FFFD.
    let tree = chopin_dialect::parse("[a](https://e\0x.com)").unwrap();
    assert!(tree.shape(false).contains("link"), "{}", tree.shape(false));
    let issue = chopin_dialect::parse("<\0 />").unwrap_err();
    assert!(
        issue.message.contains("`\u{FFFD}` (U+FFFD)"),
        "{}",
        issue.message
    );
    assert_eq!(issue.offset, Some(1));
    // Attribute values hold U+FFFD where the plan holds NUL.
    let attrs = first_element_attrs("<Callout type=\"a\0b\" {c\0} d={\0} />");
    assert_eq!(
        attrs,
        [
            Attr::Named {
                name: "type".into(),
                value: AttrValue::String("a\u{FFFD}b".into())
            },
            Attr::Expression("c\u{FFFD}".into()),
            Attr::Named {
                name: "d".into(),
                value: AttrValue::Expression("\u{FFFD}".into())
            },
        ]
    );
}

#[test]
fn a_definition_destination_may_hold_nul_but_not_other_controls() {
    // NUL reads as U+FFFD (found by the differential fuzz target); DEL does not.
    let shape = |plan: &str| chopin_dialect::parse(plan).unwrap().shape(false);
    assert!(shape("[a]:\0y").contains("definition"));
    assert!(!shape("[a]: y\u{7f}z").contains("definition"));
}

#[test]
fn a_table_head_may_hold_only_empty_cells_but_not_a_lone_pipe() {
    // Each expectation checked against micromark 4 with
    // micromark-extension-gfm-table (the reference, DIALECT.md §2.1); the
    // first case was found by the differential fuzz target.
    for (plan, table) in [
        ("|  |\n| - |\n| x |", true),
        ("| |\n|-|\n", true),
        ("||\n|-|\n", true),
        ("| | |\n|-|-|\n", true),
        ("a\n-|\n", true),
        ("|\n| - |\n", false),
        (" |\n-|\n", false),
        ("||\n|-|-|\n", false),
    ] {
        let shape = chopin_dialect::parse(plan).unwrap().shape(false);
        assert_eq!(shape.contains("table"), table, "{plan:?}: {shape}");
    }
}

/// The paragraph after a footnote definition, as `Tree::shape` draws it.
fn last_paragraph(plan: &str) -> String {
    let shape = tree(plan).shape(true);
    let at = shape.rfind("\n  paragraph").expect("a top-level paragraph");
    shape[at + 1..].to_owned()
}

#[test]
fn an_image_start_can_be_a_footnote_call_once_no_image_forms() {
    // As micromark-extension-gfm-footnote: `!` stays text and the call
    // starts at `[`; the label is the text after its first character.
    let call = "  paragraph @9\n    text @9\n    footnoteReference @10\n";
    assert_eq!(last_paragraph("[^a]: y\n\n![^a]"), call);
    assert_eq!(last_paragraph("[^a]: y\n\n![^A ]"), call);
    assert_eq!(last_paragraph("[^a]: y\n\n![ ^a]"), call);
    let t = tree("[^a]: y\n\n![ ^a]");
    assert!(
        t.nodes
            .iter()
            .any(|n| matches!(&n.kind, Kind::FootnoteReference { label } if label == "^a"))
    );
    // Content between the brackets is replaced, emphasis included.
    assert_eq!(
        last_paragraph("[^*a*]: y\n\n![^*a*]"),
        "  paragraph @11\n    text @11\n    footnoteReference @12\n"
    );
    // An image wins; so does an undefined or spaced label's plain text.
    assert_eq!(
        last_paragraph("[^a]: y\n\n![^a](u)"),
        "  paragraph @9\n    image @9\n"
    );
    for plan in ["[^a]: y\n\n![^b]", "[^a]: y\n\n![^ a]", "![^a]"] {
        assert!(
            !kinds(plan).iter().any(|k| k == "footnoteReference"),
            "{plan:?}"
        );
    }
}

#[test]
fn a_link_may_hold_a_footnote_call() {
    // micromark keeps the link; markdown-rs ends it at the call (module docs).
    assert_eq!(
        last_paragraph("[^a]: y\n\n[x [^a]](u)"),
        "  paragraph @9\n    link @9\n      text @10\n      footnoteReference @12\n"
    );
    assert_eq!(
        last_paragraph("[^a]: y\n\n[x ![^a]](u)"),
        "  paragraph @9\n    link @9\n      text @10\n      footnoteReference @13\n"
    );
}

#[test]
fn a_backslash_before_a_line_ending_ends_a_bare_destination() {
    // `x\` is the destination; the next line is a paragraph of its own.
    assert_eq!(
        kinds("[b]: x\\\ny"),
        ["root", "definition", "paragraph", "text"]
    );
    assert_eq!(kinds("[b]: x\\"), ["root", "definition"]);
}

#[test]
fn a_footnote_call_label_holds_no_whitespace() {
    assert!(
        kinds("[^2]: a\n\n[^2]")
            .iter()
            .any(|k| k == "footnoteReference")
    );
    for plan in ["[^2]: a\n\n[^2\n]", "[^2]: a\n\n[^2 ]", "[^2]: a\n\n[^2\t]"] {
        assert!(
            !kinds(plan).iter().any(|k| k == "footnoteReference"),
            "{plan:?}"
        );
    }
}

#[test]
fn a_text_opening_with_an_escape_starts_at_the_backslash() {
    assert_eq!(
        tree("\\<Callout>").shape(true),
        "root @0\n  paragraph @0\n    text @0\n"
    );
    assert_eq!(
        tree("*a* \\*b").shape(true),
        "root @0\n  paragraph @0\n    emphasis @0\n      text @1\n    text @3\n"
    );
}

#[test]
fn a_failed_flow_tag_keeps_the_lines_it_read_in_one_paragraph() {
    // micromark reads `<B\n>` as one flow tag attempt, in which the second
    // line's `>` opens no block quote; with text after the tag the attempt
    // fails, and the lines form one paragraph holding a text element.
    assert_eq!(
        tree("<B\n>a</B>").shape(true),
        "root @0\n  paragraph @0\n    mdxJsxTextElement <B> @0\n      text @4\n"
    );
    // A line that does not continue the open containers but starts a new
    // one ends the tag's text instead (the end of file, not a lazy line).
    let issue = parse("- <B\n- a</B>").unwrap_err();
    assert_eq!(issue.offset, Some(5));
    assert!(
        issue.message.contains("Unexpected end of file after name"),
        "{}",
        issue.message
    );
    let issue = parse("- <B\n- - -").unwrap_err();
    assert!(
        issue.message.contains("Unexpected lazy line"),
        "{}",
        issue.message
    );
}

#[test]
fn a_list_item_takes_all_the_whitespace_after_its_marker() {
    // Indented code is off, so five or more spaces do not mean one: the
    // item's content is at column 6 and a line indented by 2 is not in it.
    assert_eq!(
        tree("-     B\n  > c").shape(true),
        "root @0\n  list @0\n    listItem @0\n      paragraph @6\n        text @6\n  blockquote @10\n    paragraph @12\n      text @12\n"
    );
}

#[test]
fn a_setext_heading_under_definitions_starts_at_the_first_definition() {
    assert_eq!(
        tree("[a]: /u\nb\n===").shape(true),
        "root @0\n  definition @0\n  heading @0\n    text @8\n"
    );
}

#[test]
fn a_closing_tag_meets_the_tag_open_outside_its_container() {
    // One stack of open tags for the document (mdast-util-mdx-jsx).
    let issue = parse("<U>x *a </V>*</U>").unwrap_err();
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Unexpected closing tag `</V>`, expected corresponding closing tag for `<U>` (1:1-1:4)"
    );
    let issue = parse("<U>x *a </U>*").unwrap_err();
    assert_eq!(
        issue.message,
        "Unable to parse plan MDX: Expected the closing tag `</U>` either after the end of `emphasis` (1:14) or another opening tag after the start of `emphasis` (1:6)"
    );
}

#[test]
fn reasons_place_the_end_of_a_construct_where_its_token_ends() {
    // Trailing whitespace and a closing sequence belong to the token.
    for (plan, end) in [
        ("<U>\n# a </U> #  ", "2:13"),
        ("<U>\na </U>  ", "2:9"),
        ("<U>\n| a | b |\n| - | - |\n| </U> | c |  ", "4:8"),
        ("<U>\n| a | b |\n| - | - |\n| c | </U> |  ", "4:15"),
    ] {
        let issue = parse(plan).unwrap_err();
        assert!(
            issue.message.contains("after the end of")
                && issue.message.contains(&format!("({end})")),
            "{plan:?}: {}",
            issue.message
        );
    }
}

#[test]
fn a_lazy_line_fails_after_the_prefixes_that_matched() {
    // The list item's indentation matched, the block quote did not.
    let issue = parse("- > <B\n  x=\"1\"\n/>").unwrap_err();
    assert!(
        issue.message.contains("Unexpected lazy line"),
        "{}",
        issue.message
    );
    assert_eq!(issue.offset, Some(9));
}

#[test]
fn runs_inside_a_match_get_a_second_pass() {
    // The 8-run and the 12-run cannot finish pairing under the rule of
    // three until the 6-run has taken part of the 12-run; micromark resolves
    // the span inside the outer emphasis again, so all four strongs nest.
    assert_eq!(
        tree("*'********:************:******").shape(true),
        "root @0\n  paragraph @0\n    emphasis @0\n      text @1\n      strong @2\n        strong @4\n          strong @6\n            strong @8\n              text @10\n      strong @19\n        strong @21\n          text @23\n    text @29\n"
    );
}

#[test]
fn attribute_values_keep_line_endings_and_drop_indentation_as_micromark_does() {
    // Quoted values keep the plan's line ending and drop the whitespace
    // after it; expressions in flow tags drop up to two whitespace codes (a
    // tab is one code; the columns left of it stay as spaces).
    for (plan, value) in [
        ("<B a=\"x\r\n  y\" />", AttrValue::String("x\r\ny".into())),
        (
            "<B a={x\r\n   y} />",
            AttrValue::Expression("x\r\n y".into()),
        ),
        (
            "<B a={x\n\t\ty} />",
            AttrValue::Expression("x\n  \ty".into()),
        ),
        ("<B a={x\n  \ty} />", AttrValue::Expression("x\n\ty".into())),
    ] {
        assert_eq!(
            first_element_attrs(plan),
            [Attr::Named {
                name: "a".into(),
                value
            }],
            "{plan:?}"
        );
    }
}

#[test]
fn a_one_column_delimiter_row_needs_no_pipe() {
    // `-:` is no setext underline, so it makes the line above a table head.
    for plan in ["a\n-:", "a\n:-", "a\n:-:"] {
        assert_eq!(kinds(plan)[1], "table", "{plan:?}");
    }
    assert_eq!(kinds("a\n---")[1], "heading");
    assert_eq!(kinds("a|b\n-:")[1], "paragraph");
}

#[test]
fn a_tilde_next_to_a_star_or_underscore_run_lets_it_open_or_close() {
    // micromark loosens flanking for markers other constructs register (GFM
    // strikethrough's `~`), not for `*` or `_` themselves.
    for plan in ["r*~*", "*a~*b", "a*~b*", "_a~_ b"] {
        assert!(kinds(plan).iter().any(|k| k == "emphasis"), "{plan:?}");
    }
    for plan in ["*a_*b", "a*_b*"] {
        assert!(!kinds(plan).iter().any(|k| k == "emphasis"), "{plan:?}");
    }
}

#[test]
fn attention_and_strikethrough_resolve_in_micromarks_order() {
    // The text's first run decides which resolver goes first; inside a
    // link, strikethrough does (micromark's `insideSpan` order).
    assert!(kinds("_~~*~~*").contains(&"emphasis".to_owned()));
    assert!(!kinds("_~~*~~*").contains(&"delete".to_owned()));
    assert!(kinds("~~_*~~*").contains(&"delete".to_owned()));
    assert!(!kinds("~~_*~~*").contains(&"emphasis".to_owned()));
    let link = kinds("[_~~*~~*](u)");
    assert!(link.contains(&"delete".to_owned()) && !link.contains(&"emphasis".to_owned()));
}

#[test]
fn footnote_definitions_continue_as_micromark_counts_their_indent() {
    // A definition nested right in another continues on the outer one's
    // 4-column indent; the whitespace after a label is not a list item's.
    assert_eq!(
        tree("[^1]:[^2]: a\n\n    b").shape(true),
        "root @0\n  footnoteDefinition @0\n    footnoteDefinition @5\n      paragraph @11\n        text @11\n      paragraph @18\n        text @18\n"
    );
    assert_eq!(
        tree("[^1]: - x\n\n      a").shape(true),
        "root @0\n  footnoteDefinition @0\n    list @6\n      listItem @6\n        paragraph @8\n          text @8\n        paragraph @17\n          text @17\n"
    );
}

#[test]
fn an_underline_under_definitions_only_is_a_break_or_text() {
    assert_eq!(
        kinds("[a]: /u\n---"),
        ["root", "definition", "thematicBreak"]
    );
    assert_eq!(
        kinds("[a]: /u\n==="),
        ["root", "definition", "paragraph", "text"]
    );
}

#[test]
fn a_multi_line_flow_tag_on_a_lazy_line_stays_in_the_containers() {
    // The tag is still open when micromark places the lazy line; a tag that
    // ends on the lazy line closes the block quote instead.
    assert_eq!(
        kinds("> a\n<e\n> />"),
        [
            "root",
            "blockquote",
            "paragraph",
            "text",
            "mdxJsxFlowElement"
        ]
    );
    assert_eq!(
        tree("> a\n<e\n> />").shape(true),
        "root @0\n  blockquote @0\n    paragraph @2\n      text @2\n    mdxJsxFlowElement <e> @4\n"
    );
    assert_eq!(
        tree("> a\n<e />").shape(true),
        "root @0\n  blockquote @0\n    paragraph @2\n      text @2\n  mdxJsxFlowElement <e> @4\n"
    );
}

#[test]
fn a_parenthesized_title_may_hold_an_opening_parenthesis() {
    // micromark ends such a title at the first `)`, whatever came before.
    assert_eq!(kinds("[](o (()))"), ["root", "paragraph", "link", "text"]);
    assert_eq!(kinds("[](o (a(b)c))"), ["root", "paragraph", "text"]);
}

#[test]
fn a_tab_is_indentation_for_every_container_it_reaches_into() {
    // CommonMark (and micromark) read a tab as spaces up to the next tab
    // stop: one that reaches past the outer item's indent (2) gives the
    // inner item (content at column 4) its indent too, so `=` continues the
    // inner paragraph as a setext underline and `b` is not in the list.
    for plan in ["- - a\n\t=\nb", "- - a\r\t=\nb", "\n- - \0\r\t=\n\0"] {
        let kinds = kinds(plan);
        assert!(kinds.contains(&"heading".to_owned()), "{plan:?}: {kinds:?}");
    }
    // As micromark: a tab right after `>` is not split this way.
    assert!(!kinds("> - - a\n>\t=\nb").contains(&"heading".to_owned()));
    assert_eq!(
        kinds("- a\n  - b\n\tc"),
        kinds("- a\n  - b\n    c"),
        "a tab at column 0 is four columns"
    );
    // The space a `>` takes may be one column of a tab: the tab's other
    // columns are the item's indent, so `b` continues the item.
    assert_eq!(
        shape("> - a\n>\t\n>\tb"),
        shape("> - a\n>\n>   b"),
        "a tab after `>` is one column for the quote, the rest for the item"
    );
}

#[test]
fn an_item_that_starts_blank_keeps_its_paragraph_across_a_blank_line() {
    // Only an item with no content yet is ended by a blank line; an open
    // paragraph is content, though its block is added when it closes.
    for plan in ["-\n  b\n\n  c", "- \n  b\n  x\n\n  c", "- \t\n\tb\n\t\n\tc"] {
        assert_eq!(shape(plan), shape("- b\n\n  c"), "{plan:?}");
    }
    // With nothing in it yet, the blank line ends it.
    let outside: Vec<(usize, String)> = [
        (0, "root"),
        (1, "list"),
        (2, "listItem"),
        (1, "paragraph"),
        (2, "text"),
    ]
    .map(|(depth, kind)| (depth, kind.to_owned()))
    .into();
    assert_eq!(shape("-\n\n  c"), outside);
}
