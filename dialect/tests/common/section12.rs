//! The plans of DIALECT.md §12, in row order (shared by the differential
//! test; the expected results live in `dialect_conformance.rs`).

fn rep(s: &str, n: usize) -> String {
    s.repeat(n)
}

/// `(row, plan)` for all 92 rows.
pub fn plans() -> Vec<(u32, String)> {
    vec![
        (1, String::from("<Chart />\n")),
        (2, String::from("<Callout")),
        (3, String::from("<Callout type=\"note\">\nunclosed\n")),
        (4, String::from("<Callout type=\"note\">\n</Tabs>\n")),
        (5, String::from("</Callout>")),
        (6, String::from("<!-- c -->")),
        (7, String::from("<https://x.y>")),
        (8, String::from("x <= y")),
        (9, String::from("and <3")),
        (10, String::from("a < b")),
        (11, String::from("5 > 3")),
        (12, String::from("\\<Callout>")),
        (13, String::from("{1+1}")),
        (14, String::from("import x from './y'")),
        (15, String::from("    indented")),
        (
            16,
            String::from("# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n"),
        ),
        (17, String::from("<Callout type=\"note\">x</Callout>")),
        (18, String::from("<Callout type=\"note\"></Callout>")),
        (19, String::from("<>\nx\n</>")),
        (20, String::from("<div>x</div>")),
        (21, String::from("<a.b />")),
        (
            22,
            String::from("<Chart>\n<Callout type=\"nope\" />\n</Chart>"),
        ),
        (
            23,
            String::from("<Callout type=\"note\" {...p}>\nx\n</Callout>"),
        ),
        (24, String::from("<Callout type={x}>\nx\n</Callout>")),
        (
            25,
            String::from("<Callout type=\"note\" hidden>\nx\n</Callout>"),
        ),
        (
            26,
            String::from("<Callout type=\"nope\" colour=\"red\">\nx\n</Callout>"),
        ),
        (
            27,
            String::from("<Callout type=\"note\" type=\"tip\">\nx\n</Callout>"),
        ),
        (
            28,
            String::from("<Callout id=\"x\" type=\"note\">\nx\n</Callout>"),
        ),
        (
            29,
            String::from("<Callout id={x} type=\"note\">\nx\n</Callout>"),
        ),
        (
            30,
            String::from("<Callout type=\"note\" title=\"  \">\nx\n</Callout>"),
        ),
        (
            31,
            format!(
                "<Callout type=\"note\" title=\"{}\">\nx\n</Callout>",
                rep("x", 101)
            ),
        ),
        (
            32,
            format!(
                "<Callout type=\"note\" title=\"{}\">\nx\n</Callout>",
                rep("😀", 100)
            ),
        ),
        (
            33,
            String::from(
                "<Callout type=\"note\">\n<Callout type=\"tip\">\ny\n</Callout>\n</Callout>",
            ),
        ),
        (34, String::from("<Tab label=\"A\">\nx\n</Tab>")),
        (
            35,
            String::from("- item\n\n  <Tab label=\"x\">\n  y\n  </Tab>"),
        ),
        (36, String::from("<Tabs>\nhello\n</Tabs>")),
        (
            37,
            String::from(
                "<Tabs>\n<Tab label=\"A\">\nx\n</Tab>\n</Tabs>\n\n<Tabs>\n<Tab label=\"\">\ny\n</Tab>\n</Tabs>",
            ),
        ),
        (38, String::from("<Columns>\n</Columns>")),
        (
            39,
            String::from(
                "> <Columns>\n> <Column>\n> a\n> </Column>\n> <Column>\n> b\n> </Column>\n> </Columns>",
            ),
        ),
        (
            40,
            String::from(
                "<Columns>\n<Column>\n<Callout type=\"note\">\nx\n</Callout>\n</Column>\n<Column>\ny\n</Column>\n</Columns>",
            ),
        ),
        (
            41,
            String::from(
                "<Questionnaire>\n<Callout type=\"note\">\nx\n</Callout>\n</Questionnaire>",
            ),
        ),
        (42, String::from("<Research />")),
        (43, String::from("<Research id=\"bad id\" />")),
        (44, String::from("<Underline>\nx\n</Underline>")),
        (45, String::from("<Note by=\"u\" text=\"n\" />")),
        (
            46,
            String::from("<Decision quote=\"q\" by=\"u\" at=\"t\">\n</Decision>"),
        ),
        (
            47,
            String::from(
                "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            48,
            String::from(
                "<Questionnaire status=\"open\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            49,
            String::from(
                "<Questionnaire thread=\"t\" status=\"open\">\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            50,
            String::from(
                "<Questionnaire>\n<Question header=\"\" prompt=\" \" multiple=\"true\">\n<Option label=\"\" />\n<Answer value=\"\" />\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            51,
            String::from(
                "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"false\">\n<Option id=\"01J00000000000000000000001\" label=\"a\" />\n<Answer value=\"a\" choices=\"01J00000000000000000000001 01J00000000000000000000001 x\" />\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            52,
            String::from(
                "<Questionnaire>\n<Question header=\"h\" prompt=\"p\" multiple=\"true\">\n<Option label=\"a\" />\n<Previous by=\"u\" at=\"t\" choices=\"z\" value=\"v\" />\n<Previous by=\"u\" at=\"t\" />\n</Question>\n</Questionnaire>",
            ),
        ),
        (
            53,
            String::from("<Image src=\"https://x.y/a.png\" alt=\"\" width=\"100\" />"),
        ),
        (
            54,
            String::from("<Image src=\"http://x.y/a.png\" alt=\"\" width=\"0\" />"),
        ),
        (55, String::from("<Image alt=\"a\" width=\"10\" />")),
        (
            56,
            String::from("<Image src=\"https://x.y/a.png \" alt=\"\" width=\"1\" />"),
        ),
        (57, String::from("[x](javascript:alert(1))")),
        (58, String::from("[x](mailto:a@b.c) [y](src/index.ts)")),
        (59, String::from("[x](<https://exa mple.com>)")),
        (60, String::from("![a](img.png)")),
        (61, format!("![a](/images/{}.png)", rep("0", 64))),
        (62, String::from("![a](data:image/png;base64,AA)")),
        (63, String::from("Fine.\n\nSee [here](//evil.com).\n")),
        (64, String::from("[a](<java script:x>)")),
        (65, String::from("[a](https://ex&#x200B;ample.com)")),
        (66, String::from("[a](< https://x.y>)")),
        (67, String::from("[a](docs\\\\a.md)")),
        (68, String::from("x[^1]\n\n[^1]: y")),
        (
            69,
            String::from("x[^01arz3ndektsv4rrffq69g5fav]\n\n[^01arz3ndektsv4rrffq69g5fav]: y"),
        ),
        (70, String::from("[a][b]\n\n[b]: https://x.y")),
        (71, format!("| a |\n| - |\n|{}", rep(" x |", 21))),
        (72, format!("| a |\n| - |\n{}", rep("| x |\n", 100))),
        (73, vec!["![a](https://x.y/a.png)"; 101].join("\n\n")),
        (74, format!("{} x", rep(">", 18))),
        (75, format!("{} x", rep(">", 19))),
        (76, String::from("\u{FEFF}<Chart />")),
        (77, String::from("😀 x\n\n<Chart />\n")),
        (78, String::from("a\r\n\r\n<Chart />")),
        (79, String::from("\tx <Chart />")),
        (80, format!("# {}\n", rep("😀", 65536))),
        (81, String::from("a <Underline>b\n")),
        (
            82,
            String::from("> <Callout\ntype=\"note\">\nx\n</Callout>"),
        ),
        (83, String::from("a <B\n\nc")),
        (84, String::from("| a <| b |\n| - | - |")),
        (85, String::from("x <\ny")),
        (
            86,
            String::from("> a <Underline\nclass=\"x\">u</Underline>"),
        ),
        (
            87,
            String::from("> <Underline\nclass=\"x\">u</Underline> text"),
        ),
        (88, String::from("<a𝔘 />")),
        (
            89,
            String::from("<\u{a0}Callout type=\"note\">\nx\n</Callout>"),
        ),
        (
            90,
            String::from("<Callout {/* c */} type=\"note\">\nx\n</Callout>"),
        ),
        (
            91,
            String::from(
                "x[^\u{a0}01ARZ3NDEKTSV4RRFFQ69G5FAV]\n\n[^\u{a0}01ARZ3NDEKTSV4RRFFQ69G5FAV]: y",
            ),
        ),
        (92, String::from("a*😀 [l](javascript:x) 😀*a")),
    ]
}
