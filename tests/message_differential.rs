//! The one-pass message reader against `serde_json` (`chopin_mcp::fuzz::message`
//! panics on any difference in verdict or picked members, and on any value it
//! picked that the readers for validated text, `json::members`, `elements`
//! and `string`, read otherwise than `serde_json`) on deterministic,
//! adversarial bodies: mutations of real ones, random JSON-ish bytes,
//! generated values with every escape, surrogate and number form, and
//! nesting around the depths where either side changes gear.

use chopin_mcp::fuzz::message;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn real_bodies() -> Vec<String> {
    let mut bodies = vec![
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#.to_string(),
        r#" { "jsonrpc" : "2.0" , "method" : "notifications/initialized" } "#.to_string(),
        "{\n\t\"id\":\"a\\u0062\",\r\n\"params\":[1,-2.5e+3,true,false,null,\"\\\"\"]}".to_string(),
        r#"{"params":{"_meta":{"\u0069o.modelcontextprotocol/protocolVersion":"x"},"_meta":{"a":1}},"params":{"_meta":[]}}"#.to_string(),
        r#"{"params":{"\ud800":1,"name":"n"},"id":{"\ud800":[{"\udc00":2}]}}"#.to_string(),
    ];
    for (method, params) in [
        ("tools/list", ""),
        (
            "tools/call",
            r#""name":"read_document","arguments":{"id":"f401"},"#,
        ),
        ("server/discover", ""),
        ("tools/list", r#""cursor":"","#),
        ("subscriptions/listen", r#""notifications":{},"#),
        ("resources/read", r#""uri":"x","#),
    ] {
        bodies.push(format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params}{META}}}}}"#
        ));
    }
    bodies
}

/// A xorshift generator: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Fragments that matter to the grammar, each alone or glued to others.
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    " ",
    "\t",
    "\n",
    "\r",
    "\u{c}",
    "\u{0}",
    "\u{1f}",
    "\u{7f}",
    "é",
    "😀",
    "\u{a0}",
    "0",
    "1",
    "-",
    "+",
    ".",
    "e",
    "E",
    "9",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    "\\u",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\u00e9",
    "\\uD800\\u",
    "\\x",
    "\\/",
    "\\b",
    "\"jsonrpc\"",
    "\"id\"",
    "\"method\"",
    "\"params\"",
    "\"_meta\"",
    "\"name\"",
    "\"arguments\"",
    "\"protocolVersion\"",
    "\"io.modelcontextprotocol/protocolVersion\"",
    "\"io.modelcontextprotocol/clientCapabilities\"",
    "\"\\u0069d\"",
    "\"par\\u0061ms\"",
    "\"\\ud800\"",
    "\"_m\\u0065ta\"",
];

/// Number forms: valid ones, and refused ones.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1.5",
    "1e400",
    "-1e-400",
    "1E+2",
    "1.5e3",
    "123456789012345678901234567890",
    "0.0000",
    "1e0001",
    "0e0",
    "-0.0E-0",
    "7",
];
const BAD_NUMBERS: &[&str] = &[
    "01", "-01", "00", "1.", ".5", "1e", "1e+", "1e-", "+1", "-", "0x1", "2.", "-.5", "1.0e",
    "1..2", "1ee2", "NaN", "Infinity",
];

const STRINGS: &[&str] = &[
    r#""""#,
    r#""a""#,
    r#""\"""#,
    r#""\\""#,
    r#""\/\b\f\n\r\t""#,
    r#""\u0000""#,
    r#""\uFFFF""#,
    r#""\ud800""#,
    r#""\udc00""#,
    r#""\ud800\udc00""#,
    r#""\ud800\u0041""#,
    r#""\ud800\ud800""#,
    r#""\ud800\n""#,
    "\"\u{7f}\"",
    "\"é😀\"",
    r#""}]\"{[""#,
    r#""long string of more than eight bytes \" with \\ escapes""#,
];
const BAD_STRINGS: &[&str] = &[
    r#""\u12""#,
    r#""\u12g4""#,
    r#""\a""#,
    "\"\t\"",
    "\"\u{1}\"",
    "\"abc",
];

const KEYS: &[&str] = &[
    r#""jsonrpc""#,
    r#""id""#,
    r#""method""#,
    r#""params""#,
    r#""_meta""#,
    r#""name""#,
    r#""arguments""#,
    r#""uri""#,
    r#""cursor""#,
    r#""notifications""#,
    r#""protocolVersion""#,
    r#""io.modelcontextprotocol/protocolVersion""#,
    r#""io.modelcontextprotocol/clientCapabilities""#,
    r#""\u005fmeta""#,
    r#""\u0070arams""#,
    r#""io.modelcontextprotocol\/protocolVersion""#,
    r#""\ud800""#,
    r#""\udc00x""#,
    r#""\ud83d\ude00""#,
    r#""x""#,
    r#""""#,
    r#""na\u006de""#,
    r#""\ud800\u005f""#,
];

const SPACES: &[&str] = &["", "", "", " ", "\n\t\r "];
const BAD_SPACES: &[&str] = &["\u{c}", "\u{a0}", "\u{0}", "x"];

/// Picks from `good`, or with `noise` now and then from `bad`.
fn choose<'a>(rng: &mut Rng, noise: bool, good: &[&'a str], bad: &[&'a str]) -> &'a str {
    if noise && rng.below(24) == 0 {
        rng.pick(bad)
    } else {
        rng.pick(good)
    }
}

/// A random value, valid unless `noise` slips a bad fragment in, `budget`
/// bounding its size.
fn value(rng: &mut Rng, noise: bool, out: &mut String, budget: &mut usize, depth: usize) {
    *budget = budget.saturating_sub(1);
    let choice = if *budget == 0 || depth > 6 {
        rng.below(4)
    } else {
        rng.below(8)
    };
    match choice {
        0 => out.push_str(choose(rng, noise, NUMBERS, BAD_NUMBERS)),
        1 => out.push_str(choose(rng, noise, STRINGS, BAD_STRINGS)),
        2 => out.push_str(choose(
            rng,
            noise,
            &["true", "false", "null"],
            &["nul", "truex"],
        )),
        3 => out.push_str(choose(
            rng,
            noise,
            &["{}", "[]", "{ }", "[ ]"],
            &["[,]", "{,}"],
        )),
        4..=6 => object(rng, noise, out, budget, depth + 1),
        _ => {
            out.push('[');
            for index in 0..rng.below(4) {
                if index > 0 {
                    out.push_str(choose(rng, noise, &[",", " , "], &[",,", ""]));
                }
                out.push_str(choose(rng, noise, SPACES, BAD_SPACES));
                value(rng, noise, out, budget, depth + 1);
            }
            out.push_str(choose(rng, noise, &["]", " ]"], &[",]", "}"]));
        }
    }
}

fn object(rng: &mut Rng, noise: bool, out: &mut String, budget: &mut usize, depth: usize) {
    out.push('{');
    for index in 0..rng.below(5) {
        if index > 0 {
            out.push_str(choose(rng, noise, &[",", " ,\n"], &[",,", ""]));
        }
        out.push_str(choose(rng, noise, SPACES, BAD_SPACES));
        out.push_str(rng.pick(KEYS));
        out.push_str(choose(rng, noise, SPACES, BAD_SPACES));
        out.push_str(choose(rng, noise, &[":"], &["", "::"]));
        out.push_str(choose(rng, noise, SPACES, BAD_SPACES));
        value(rng, noise, out, budget, depth);
    }
    out.push_str(choose(rng, noise, &["}", " }"], &[",}", "]", ""]));
}

/// Runs the comparison; counts the bodies, and those `serde_json` accepted.
fn compare(bodies: impl IntoIterator<Item = Vec<u8>>) -> (usize, usize) {
    let (mut total, mut accepted) = (0, 0);
    for body in bodies {
        total += 1;
        accepted += usize::from(message(&body));
    }
    (total, accepted)
}

#[test]
fn real_bodies_are_read_as_serde_json_reads_them() {
    let bodies = real_bodies();
    let (total, accepted) = compare(bodies.iter().map(|b| b.clone().into_bytes()));
    assert_eq!(accepted, total);
}

#[test]
fn mutated_real_bodies_agree_with_serde_json() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut mutated = Vec::new();
    for body in real_bodies() {
        let bytes = body.as_bytes();
        // Every truncation, and every single-byte deletion.
        for cut in 0..bytes.len() {
            mutated.push(bytes[..cut].to_vec());
            mutated.push([&bytes[..cut], &bytes[cut + 1..]].concat());
        }
        for _ in 0..3000 {
            let mut text = bytes.to_vec();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(text.len() + 1);
                match rng.below(4) {
                    0 => {
                        let piece = rng.pick(PIECES).as_bytes();
                        text.splice(at..at, piece.iter().copied());
                    }
                    1 if at < text.len() => {
                        text.remove(at);
                    }
                    2 => {
                        // Duplicate a slice (a repeated member, say).
                        let end = (at + rng.below(40)).min(text.len());
                        let copy = text[at..end].to_vec();
                        text.splice(at..at, copy);
                    }
                    _ => {
                        let piece = rng.pick(PIECES).as_bytes();
                        let end = (at + piece.len()).min(text.len());
                        text.splice(at..end, piece.iter().copied());
                    }
                }
            }
            mutated.push(text);
        }
    }
    let (total, accepted) = compare(mutated);
    // Both verdicts are well exercised.
    assert!(
        accepted > total / 20 && accepted < total * 19 / 20,
        "{accepted} of {total}"
    );
}

#[test]
fn random_json_ish_bytes_agree_with_serde_json() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut bodies = Vec::new();
    for _ in 0..40_000 {
        let mut text = String::from(rng.pick(&["{", " {", "{\"params\":{", "[", "", "\"a\""]));
        for _ in 0..rng.below(24) {
            text.push_str(rng.pick(PIECES));
        }
        bodies.push(text.into_bytes());
        let random: Vec<u8> = (0..rng.below(24)).map(|_| rng.next() as u8).collect();
        bodies.push([b"{".as_slice(), &random].concat());
    }
    let (total, accepted) = compare(bodies);
    assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
}

#[test]
fn generated_messages_agree_with_serde_json() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut bodies = Vec::new();
    for _ in 0..60_000 {
        let noise = rng.below(2) == 0;
        let mut text = String::from(choose(&mut rng, noise, SPACES, BAD_SPACES));
        let mut budget = 40;
        object(&mut rng, noise, &mut text, &mut budget, 0);
        text.push_str(choose(
            &mut rng,
            noise,
            &["", " \n"],
            &["x", "}", ",", "\u{0}"],
        ));
        bodies.push(text.into_bytes());
    }
    let (total, accepted) = compare(bodies);
    assert!(
        accepted > total / 4 && accepted < total * 3 / 4,
        "{accepted} of {total}"
    );
}

#[test]
fn nesting_around_the_gear_changes_agrees_with_serde_json() {
    // 64 levels: where the reader's inline record of open containers ends;
    // 128: serde_json's recursion limit, which counts only the message
    // object here (it skips nested values without a limit).
    let mut bodies = Vec::new();
    for depth in [
        1, 2, 3, 4, 62, 63, 64, 65, 66, 126, 127, 128, 129, 130, 200, 1000,
    ] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"_meta\":", "}]")] {
            let nested = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let short = format!("{}1{}", open.repeat(depth), close.repeat(depth - 1));
            let swapped = nested.replacen(close, if close == "]" { "}" } else { "]" }, 1);
            for inner in [&nested, &short, &swapped] {
                for body in [
                    format!(r#"{{"id":{inner}}}"#),
                    format!(r#"{{"params":{inner}}}"#),
                    format!(r#"{{"params":{{"_meta":{inner},"name":{inner}}}}}"#),
                    format!(
                        r#"{{"params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{inner}}}}}}}"#
                    ),
                    format!(r#"{{"params":{{"arguments":{inner},"_meta":{{}}}}, "method":"m"}}"#),
                ] {
                    bodies.push(body.into_bytes());
                }
            }
        }
    }
    let (total, accepted) = compare(bodies);
    assert!(
        accepted > total / 4 && accepted < total * 3 / 4,
        "{accepted} of {total}"
    );
}

#[test]
fn keys_compared_as_words_agree_with_serde_json() {
    // The keys the reader compares as words when written `"key":` (the
    // message's four, `params`' `name` and `arguments`), the other picked
    // keys, near misses one byte short or long, escaped spellings and a lone
    // surrogate; with and without whitespace around the colon, or none. The
    // values include `"2.0"` (compared whole after `"jsonrpc":`) and near
    // misses.
    let keys = [
        "id",
        "method",
        "params",
        "jsonrpc",
        "name",
        "arguments",
        "_meta",
        "uri",
        "cursor",
        "i",
        "idd",
        "methods",
        "metho",
        "param",
        "paramsx",
        "jsonrp",
        "jsonrpcx",
        "nam",
        "names",
        "argument",
        "argumentsx",
        "argumentt",
        "\\u0069d",
        "n\\u0061me",
        "argument\\u0073",
        "j\\u0073onrpc",
        "\\ud800",
        "",
    ];
    let values = [
        "\"2.0\"",
        "\"2.00\"",
        "\"2.\\u0030\"",
        "\"2.0",
        "4",
        "\"tools/call\"",
        r#"{"name":"read_document","arguments":{"id":"x"}}"#,
        "{}",
        "[]",
    ];
    let mut bodies = Vec::new();
    for key in keys {
        for colon in [":", " :", ": ", "", "::"] {
            for value in values {
                let member = format!("\"{key}\"{colon}{value}");
                for body in [
                    format!("{{{member}}}"),
                    format!("{{\"jsonrpc\":\"2.0\",{member}}}"),
                    format!("{{{member},{member}}}"),
                    format!("{{\"params\":{{{member}}},\"method\":\"x\"}}"),
                    format!("{{\"params\":{{\"name\":\"a\",{member}}},\"id\":{member}}}"),
                ] {
                    if colon == ":" {
                        // Every cut: the word compares near the end of the text.
                        for cut in 0..body.len() {
                            bodies.push(body.as_bytes()[..cut].to_vec());
                        }
                    }
                    bodies.push(body.into_bytes());
                }
            }
        }
    }
    let (total, accepted) = compare(bodies);
    assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
}

#[test]
fn one_digit_numbers_and_what_follows_agree_with_serde_json() {
    // A number of one digit is read in line; anything that could continue
    // it (digits, a fraction, an exponent) or follow it wrongly goes the
    // long way or is refused, at each level and at the end of the text.
    let mut bodies = Vec::new();
    for digit in ["0", "4", "9", "-1"] {
        for after in [
            "", "0", "7", ".", ".5", "e", "E1", "e+2", "+", "-", "x", " ", ",", "}", "]", "\"",
        ] {
            let number = format!("{digit}{after}");
            for body in [
                format!("{{\"id\":{number}}}"),
                format!("{{\"id\":{number},\"method\":\"m\"}}"),
                format!("{{\"params\":{{\"cursor\":{number}}}}}"),
                format!("{{\"params\":{{\"arguments\":{{\"id\":{number}}}}}}}"),
                format!("{{\"x\":[{number}]}}"),
                format!("{{\"id\":{number}"),
            ] {
                bodies.push(body.into_bytes());
            }
        }
    }
    let (total, accepted) = compare(bodies);
    assert!(accepted > 0 && accepted < total, "{accepted} of {total}");
}
