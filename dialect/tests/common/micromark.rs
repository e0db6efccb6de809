//! micromark, the dialect's reference parser (DIALECT.md §2.1), as a test
//! oracle: `tests/micromark/shape.mjs` runs micromark 4 with the dialect's
//! extensions in their order and mdast-util-from-markdown, pinned by the
//! committed lockfile (`npm ci` in `tests/micromark`). One Node process
//! parses a whole batch; its UTF-16 offsets are turned into UTF-8 bytes here.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// What the reference made of one plan.
#[derive(Debug)]
pub enum Reference {
    /// The tree, drawn as `Tree::shape(true)` draws ours.
    Tree(String),
    /// A parse failure: its offset (bytes) when micromark gives one, and
    /// whether that is the tokenizer's failure point (else the start of the
    /// construct a tag was left open in, which DIALECT.md §2.4 replaces).
    Failure {
        offset: Option<usize>,
        point: bool,
        reason: String,
    },
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/micromark")
}

/// Whether `npm ci` has run in `tests/micromark`.
pub fn installed() -> bool {
    dir().join("node_modules").exists()
}

/// Parses every plan with the reference, in order.
pub fn parse_all(plans: &[String]) -> Vec<Reference> {
    let mut child = Command::new("node")
        .arg("shape.mjs")
        .current_dir(dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node");
    let mut stdin = child.stdin.take().expect("stdin");
    let input: Vec<String> = plans
        .iter()
        .map(|p| serde_json::to_string(p).expect("json"))
        .collect();
    // Writing from another thread keeps both pipes moving.
    let writer = std::thread::spawn(move || {
        for line in input {
            stdin.write_all(line.as_bytes()).expect("write");
            stdin.write_all(b"\n").expect("write");
        }
    });
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let results: Vec<Reference> = stdout
        .lines()
        .zip(plans)
        .map(|(line, plan)| reference(plan, &line.expect("read")))
        .collect();
    writer.join().expect("writer");
    assert!(child.wait().expect("node").success(), "shape.mjs failed");
    assert_eq!(results.len(), plans.len(), "one answer per plan");
    results
}

fn reference(plan: &str, line: &str) -> Reference {
    let value: Value = serde_json::from_str(line).expect("shape.mjs output");
    let bytes = Utf16ToBytes::new(plan);
    if let Some(error) = value.get("error") {
        return Reference::Failure {
            offset: error["offset"].as_u64().map(|o| bytes.at(o as usize)),
            point: error["point"].as_bool().unwrap_or(false),
            reason: error["reason"].as_str().unwrap_or("").to_owned(),
        };
    }
    let mut out = String::new();
    for entry in value["tree"].as_array().expect("a flattened tree") {
        draw(entry, &bytes, &mut out);
    }
    Reference::Tree(out)
}

/// One node, `[depth, type, start, name?, attributes?]`, as a shape line.
fn draw(entry: &Value, bytes: &Utf16ToBytes, out: &mut String) {
    use std::fmt::Write as _;
    let depth = entry[0].as_u64().unwrap_or(0) as usize;
    for _ in 0..depth {
        out.push_str("  ");
    }
    out.push_str(entry[1].as_str().unwrap_or("?"));
    if let Some(name) = entry.get(3).and_then(Value::as_str) {
        let _ = write!(out, " <{name}>");
        for attr in entry[4].as_array().into_iter().flatten() {
            let expression = |v: &Value| v.get("e").and_then(Value::as_str).map(str::to_owned);
            match (attr[0].as_str(), &attr[1]) {
                (None, value) => {
                    let _ = write!(out, " {{{:?}}}", expression(value).unwrap_or_default());
                }
                (Some(name), Value::Null) => {
                    let _ = write!(out, " {name}");
                }
                (Some(name), Value::String(v)) => {
                    let _ = write!(out, " {name}={v:?}");
                }
                (Some(name), value) => {
                    let _ = write!(
                        out,
                        " {name}={{{:?}}}",
                        expression(value).unwrap_or_default()
                    );
                }
            }
        }
    }
    let start = match depth {
        0 => 0,
        _ => bytes.at(entry[2].as_u64().unwrap_or(0) as usize),
    };
    let _ = writeln!(out, " @{start}");
}

/// UTF-16 offsets (JavaScript string indices) to UTF-8 byte offsets.
/// micromark drops a leading U+FEFF before it counts; the dialect counts it
/// (DIALECT.md §1.2), so offsets after one move by its three bytes.
struct Utf16ToBytes {
    /// Byte offset at each UTF-16 index (both halves of a pair map to the
    /// character's start), plus the end.
    table: Vec<usize>,
}

impl Utf16ToBytes {
    fn new(plan: &str) -> Self {
        let bom = if plan.starts_with('\u{feff}') { 3 } else { 0 };
        let mut table = Vec::with_capacity(plan.len() + 1);
        for (at, c) in plan[bom..].char_indices() {
            for _ in 0..c.len_utf16() {
                table.push(bom + at);
            }
        }
        table.push(plan.len());
        Utf16ToBytes { table }
    }

    fn at(&self, utf16: usize) -> usize {
        self.table
            .get(utf16)
            .copied()
            .unwrap_or(*self.table.last().unwrap_or(&0))
    }
}

/// A character from U+10000 up next to `*`, `_` or `~`: micromark classifies
/// each half of its surrogate pair as "other", the dialect the whole
/// character (DIALECT.md §1), so the runs may flank differently.
fn astral_next_to_marker(plan: &str) -> bool {
    let chars: Vec<char> = plan.chars().collect();
    chars.windows(2).any(|w| {
        let marker = |c: char| matches!(c, '*' | '_' | '~');
        (marker(w[0]) && w[1] >= '\u{10000}') || (w[0] >= '\u{10000}' && marker(w[1]))
    })
}

/// Whether the shapes differ only in the indentation after line endings
/// inside attribute expressions of text elements (a known gap, see the
/// `chopin_dialect` module docs).
fn same_but_text_expression_indent(ours: &str, theirs: &str) -> bool {
    let normalize = |shape: &str| -> String {
        shape
            .lines()
            .map(|line| {
                if !line.trim_start().starts_with("mdxJsxTextElement") {
                    return line.to_owned();
                }
                super::differential::without_expression_indent(line)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    normalize(ours) == normalize(theirs)
}

/// Our parse of `plan` against the reference's: the same tree (node kinds,
/// nesting, JSX names and attributes, start offsets), or a failure at the
/// same offset. Tolerated: only DIALECT.md §1's deliberate differences.
pub fn compare(plan: &str, reference: &Reference) -> Result<(), String> {
    if astral_next_to_marker(plan) {
        return Ok(());
    }
    match (chopin_dialect::parse(plan), reference) {
        (Ok(tree), Reference::Tree(shape)) => {
            let ours = tree.shape(true);
            let theirs = shape;
            if ours == *theirs || same_but_text_expression_indent(&ours, theirs) {
                Ok(())
            } else {
                Err(format!("trees differ\nours:\n{ours}\nreference:\n{theirs}"))
            }
        }
        (
            Err(issue),
            Reference::Failure {
                offset,
                point,
                reason,
            },
        ) => {
            let ours = issue
                .message
                .strip_prefix("Unable to parse plan MDX: ")
                .unwrap_or(&issue.message);
            // Positions and quoted characters in reasons are in the
            // dialect's units (§1.2), micromark's in UTF-16: only ASCII plans
            // compare whole.
            let same_reason = !plan.is_ascii() || ours == reason;
            if same_reason && (!point || issue.offset == *offset) {
                Ok(())
            } else {
                Err(format!(
                    "failures differ: ours at {:?} ({ours}), reference at {offset:?} ({reason})",
                    issue.offset
                ))
            }
        }
        (Err(issue), Reference::Tree(shape)) => Err(format!(
            "we fail at {:?} ({}), the reference parses:\n{shape}",
            issue.offset, issue.message
        )),
        (Ok(tree), Reference::Failure { offset, reason, .. }) => Err(format!(
            "we parse, the reference fails at {offset:?} ({reason}):\n{}",
            tree.shape(true)
        )),
    }
}
