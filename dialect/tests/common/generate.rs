//! Deterministic small plans from Markdown and JSX fragments, for the
//! differential tests against markdown-rs and micromark.

/// A deterministic generator of small plans from Markdown and JSX fragments.
pub struct Gen(u64);

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

pub const FRAGMENTS: &[&str] = &[
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
pub const JSX_FRAGMENTS: &[&str] = &[
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

pub fn generated(seed: u64, n: usize) -> Vec<String> {
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
