//! DIALECT.md §2.5: parsing is linear on adversarial inputs.
//!
//! Each family is parsed at three sizes, each double the last; the parser's
//! inner-loop step counter (`parse_counting`) must grow by at most a constant
//! factor close to 2 per doubling. No wall-clock assertions.

use chopin_dialect::parse_counting;

use chopin_test_support::linear;

fn assert_linear(family: &str, make: impl Fn(usize) -> String) {
    linear::assert_linear(family, [2_000, 4_000, 8_000], make, |plan| {
        let (_, s) = parse_counting(plan);
        assert!(s > 0, "{family}: no work counted");
        s
    });
}

#[test]
fn backtick_runs() {
    assert_linear("``a", |n| "``a".repeat(n));
    assert_linear("`a``", |n| "`a``".repeat(n));
    assert_linear("growing unmatched runs", |n| {
        let mut s = String::new();
        let mut k = 1;
        while s.len() < n * 4 {
            s.push_str(&"`".repeat(k));
            s.push('a');
            k = k % 50 + 1;
        }
        s
    });
}

#[test]
fn dollar_runs() {
    assert_linear("$$a", |n| "$a$$".repeat(n));
}

#[test]
fn block_quote_markers() {
    assert_linear("> on one line", |n| format!("{} x", ">".repeat(n)));
    assert_linear("> per line, lazy", |n| {
        format!("{} x\n{}", ">".repeat(n), "y\n".repeat(n))
    });
    assert_linear("> then blank lines", |n| {
        format!("{} x\n{}", "> ".repeat(n), "\n".repeat(n))
    });
}

#[test]
fn brackets() {
    assert_linear("[ ... ]", |n| {
        format!("{}a{}", "[".repeat(n), "]".repeat(n))
    });
    assert_linear("[a](", |n| "[a](".repeat(n));
    assert_linear("[a]", |n| "[a]".repeat(n));
    assert_linear("![", |n| "![".repeat(n));
    assert_linear("[a](b \"", |n| "[a](b \"".repeat(n));
    assert_linear("[a](b (", |n| "[a](b (".repeat(n));
    assert_linear("[a](b ((", |n| "[a](b ((x".repeat(n));
    assert_linear("nested links", |n| {
        format!("{}a{}", "[".repeat(n), "](b)".repeat(n))
    });
    assert_linear("[^", |n| "x[^".repeat(n));
    // Image starts that may be footnote calls: nested, and side by side with
    // long labels and leading whitespace.
    assert_linear("nested ![^ with a footnote", |n| {
        format!("[^a]: y\n\n{}a{}", "![^".repeat(n), "]".repeat(n))
    });
    assert_linear("![   ^a…] with a footnote", |n| {
        format!("[^a]: y\n\n{}", "![   ^aaaaaaaaaaaaaaaaaaaa   ] ".repeat(n))
    });
    assert_linear("nested brackets with a definition", |n| {
        format!("[a]: /u\n\n{}a{}", "[".repeat(n), "]".repeat(n))
    });
    assert_linear("full references", |n| {
        format!("[b]: /u\n\n{}", "[a][b] [c][".repeat(n))
    });
}

#[test]
fn emphasis_delimiters() {
    assert_linear("*a", |n| "*a".repeat(n));
    assert_linear("a*", |n| "a*".repeat(n));
    assert_linear("*** then _", |n| {
        format!("{}a{}", "*".repeat(n), "_".repeat(n))
    });
    assert_linear("**a*", |n| "**a*".repeat(n));
    assert_linear("_a_b", |n| "_a_b ".repeat(n));
    assert_linear("*_", |n| "*_".repeat(n));
    assert_linear("openers then closers", |n| {
        format!("{}{}", "*a ".repeat(n), " b*".repeat(n))
    });
    // Spans between matched runs get a second pass (micromark's
    // `insideSpan`): runs the rule of three kept apart, nested and side by
    // side, each delimiter resolved in one span at a time.
    assert_linear("second passes, side by side", |n| {
        "*'********:************:******".repeat(n)
    });
    assert_linear("second passes, nested", |n| {
        format!(
            "{}x{}",
            "*'********:".repeat(n),
            ":************:******".repeat(n)
        )
    });
    assert_linear("long runs that both open and close", |n| {
        ":********".repeat(n) + ":"
    });
}

#[test]
fn tildes() {
    assert_linear("~~a", |n| "~~a".repeat(n));
    assert_linear("~", |n| "~a".repeat(n));
}

#[test]
fn angle_brackets() {
    assert_linear("a < b", |n| "a < ".repeat(n));
    assert_linear("text elements", |n| "x <Underline>y</Underline> ".repeat(n));
    assert_linear("flow elements", |n| "<Chart />\n".repeat(n));
    // Every line starts a flow tag whose `{…}` spans to the last line, where
    // the tag ends and prose follows: each attempt turns into a paragraph.
    assert_linear("multi-line expressions in flow attempts", |n| {
        format!("{}{}", "<a {\n".repeat(n), "}> x".repeat(n))
    });
    // A lazy line starting a flow tag that goes on into the block quote.
    assert_linear("multi-line flow tags on lazy lines", |n| {
        "> a\n<e x={1\n> } />\n".repeat(n)
    });
    assert_linear("multi-line expressions in quoted flow attempts", |n| {
        format!("{}> {}", "> <a {\n".repeat(n), "}> x".repeat(n))
    });
    // The same inside block quotes that deepen on every line: each attempt
    // checks the lines its `{…}` crosses against a longer container stack.
    assert_linear("multi-line expressions in deepening quotes", |n| {
        let n = (n as f64).sqrt() as usize * 4;
        let mut s = String::new();
        for i in 1..=n {
            s.push_str(&">".repeat(i));
            s.push_str(" <a {\n");
        }
        s.push_str(&">".repeat(n));
        s.push(' ');
        s.push_str(&"}> x".repeat(n));
        s
    });
    assert_linear("unclosed quotes", |n| format!("<a b=\"{}", "x\n".repeat(n)));
    assert_linear("unclosed braces", |n| format!("<a b={{{}", "{\n".repeat(n)));
    assert_linear("runs of <", |n| format!("a {}", "< ".repeat(n)));
}

#[test]
fn nested_lists() {
    assert_linear("- on one line", |n| format!("{}x", "- ".repeat(n)));
    assert_linear("* on one line", |n| format!("{}x", "* ".repeat(n)));
    assert_linear("1. on one line", |n| format!("{}x", "1. ".repeat(n)));
    assert_linear("deep list then blank lines", |n| {
        format!("{}x\n{}y", "- ".repeat(n), "\n".repeat(n))
    });
    assert_linear("deep list, long indentation", |n| {
        format!("{}x\n{}y\n", "- ".repeat(n), " ".repeat(2 * n))
    });
}

#[test]
fn nested_block_quotes() {
    assert_linear("> > >", |n| format!("{}x", "> ".repeat(n)));
    assert_linear("alternating quote and list", |n| {
        format!("{}x\n\n", "> - ".repeat(n))
    });
}

#[test]
fn nested_jsx() {
    assert_linear("nested flow elements", |n| {
        format!(
            "{}x\n{}",
            "<Callout type=\"note\">\n".repeat(n),
            "</Callout>\n".repeat(n)
        )
    });
    assert_linear("nested text elements", |n| {
        format!("{}x{}", "<Underline>".repeat(n), "</Underline>".repeat(n))
    });
}

#[test]
fn long_lines_and_many_blocks() {
    assert_linear("long line", |n| "word ".repeat(n));
    assert_linear("many blocks", |n| {
        "# h\n\npara *x* [l](https://x.y)\n\n- item\n\n| a |\n| - |\n| b |\n\n".repeat(n / 8)
    });
    assert_linear("definitions", |n| "[a]: /u\n".repeat(n));
    assert_linear("table rows", |n| {
        format!("| a | b |\n| - | - |\n{}", "| x | y |\n".repeat(n))
    });
}

#[test]
fn node_counts_scale_linearly() {
    for make in [
        |n: usize| "*a* ".repeat(n),
        |n: usize| "> x\n\n".repeat(n),
        |n: usize| "- a\n".repeat(n),
    ] {
        let small = chopin_dialect::parse(&make(1000))
            .expect("parses")
            .nodes
            .len();
        let large = chopin_dialect::parse(&make(2000))
            .expect("parses")
            .nodes
            .len();
        assert!(large <= 2 * small + 2, "{small} -> {large}");
    }
}
