//! The `chopin-plan` command, run as a plan author runs it: its output
//! formats, exit statuses, standard input, and `fmt`'s writes and checks.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use chopin_dialect::{SequentialIds, catalog_summary, check, components, issues_json};

const CLEAN: &str = "# Plan\n\n<Research id=\"01JD2X7K4M8Q3R5T6V7W8X9Y0Z\" />\n";
const MISSING_ID: &str = "# Plan\n\n<Research />\n";
/// Three issues, the last two after multi-byte characters on their line.
const WITH_ISSUES: &str = "# Plan\n\n<Bogus />\n\né😀 <Callout type=\"zzz\">x</Callout>\n";

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chopin-plan"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A scratch folder of this test's own, removed when the test ends.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("chopin-plan-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn check_is_silent_and_succeeds_on_a_clean_plan() {
    let dir = scratch("clean");
    let path = write(&dir, "clean.md", CLEAN);
    let out = run(&["check", &path], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn check_prints_path_line_column_code_message_and_exits_1() {
    let dir = scratch("issues");
    let path = write(&dir, "plan.md", WITH_ISSUES);
    let out = run(&["check", &path], b"");
    assert_eq!(out.status.code(), Some(1));
    let report = check(WITH_ISSUES, &SequentialIds::new(0));
    assert_eq!(report.issues.len(), 3);
    let expected: String = report
        .issues
        .iter()
        .map(|issue| {
            format!(
                "{path}:{}:{}: {}: {}\n",
                issue.line.unwrap(),
                issue.column.unwrap(),
                issue.code,
                issue.message
            )
        })
        .collect();
    assert_eq!(text(&out.stdout), expected);
    // The column counts characters: `é😀 ` is three before the tag.
    assert!(text(&out.stdout).contains(&format!("{path}:5:4: bad-attribute-value: ")));
}

#[test]
fn an_issue_without_a_location_is_path_code_message() {
    let plan = format!("# Plan\n\n{}", "word ".repeat(60_000));
    let out = run(&["check", "-"], plan.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("<stdin>: source-too-large: "),
        "{stdout}"
    );
}

#[test]
fn json_format_prints_the_issues_object_create_document_answers_with() {
    let dir = scratch("json");
    let path = write(&dir, "plan.md", WITH_ISSUES);
    let out = run(&["check", "--format", "json", &path, "-"], CLEAN.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let mut single = issues_json(&check(WITH_ISSUES, &SequentialIds::new(0)).issues);
    single.push(b'\n');
    assert_eq!(
        text(&out.stdout),
        format!("{}{{\"issues\":[]}}\n", text(&single))
    );
    let inline = run(&["check", "--format=json", "-"], WITH_ISSUES.as_bytes());
    assert_eq!(text(&inline.stdout), text(&single));
}

#[test]
fn standard_input_is_named_stdin() {
    let out = run(&["check", "-"], b"<Callout");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).starts_with("<stdin>:1:9: parse: Unable to parse plan MDX: "));
}

#[test]
fn usage_and_input_errors_exit_2() {
    let dir = scratch("errors");
    let missing = dir.join("missing.md");
    let binary = write(&dir, "binary.md", "");
    fs::write(&binary, [b'#', b' ', 0xff, b'\n']).unwrap();
    let clean = write(&dir, "clean.md", WITH_ISSUES);
    for args in [
        vec![],
        vec!["lint", "x.md"],
        vec!["check"],
        vec!["check", "--format", "xml", "x.md"],
        vec!["check", "--format"],
        vec!["check", "--write", "x.md"],
        vec!["fmt", "--write", "-"],
        vec!["fmt", "--write", "--check", "x.md"],
        vec!["catalog", "x.md"],
        vec!["check", missing.to_str().unwrap()],
        vec!["check", &binary],
        // An unreadable file beside one with issues: errors win.
        vec!["check", &clean, missing.to_str().unwrap()],
    ] {
        let out = run(&args, b"");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).starts_with("chopin-plan: "), "{args:?}");
    }
    let out = run(&["check", &binary], b"");
    assert!(text(&out.stderr).contains("not UTF-8"));
}

#[test]
fn catalog_prints_a_line_per_component_with_its_required_attributes() {
    let out = run(&["catalog"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert_eq!(printed, catalog_summary());
    for component in components() {
        let line = printed
            .lines()
            .find(|line| {
                line.strip_prefix('<')
                    .and_then(|rest| rest.strip_prefix(component.name()))
                    .is_some_and(|rest| rest.starts_with([' ', '>']))
            })
            .unwrap_or_else(|| panic!("no line for {}", component.name()));
        for attribute in component.attributes() {
            if attribute.required() && !(component.mints_id() && attribute.name() == "id") {
                let named = format!(" {}", attribute.name());
                assert!(line.contains(&named), "{line}: {}", attribute.name());
            }
        }
    }
}

#[test]
fn help_says_what_a_column_counts_and_version_prints_the_version() {
    for flag in ["--help", "-h"] {
        let out = run(&[flag], b"");
        assert_eq!(out.status.code(), Some(0));
        let help = text(&out.stdout);
        assert!(help.contains("PATH:LINE:COLUMN: CODE: MESSAGE"));
        assert!(help.contains("Unicode scalar values"));
        assert!(help.contains("fresh ULIDs"));
        // Where an author finds the dialect, in the repository itself; no
        // file the repository does not hold.
        assert!(help.contains("docs/plans.md"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for word in help.split(|c: char| c.is_whitespace() || "(),;:".contains(c)) {
            if word.ends_with(".md") {
                assert!(root.join(word).exists(), "--help cites {word}");
            }
        }
    }
    let out = run(&["fmt", "--help"], b"");
    assert!(text(&out.stdout).starts_with("chopin-plan: check and format"));
    let out = run(&["--version"], b"");
    assert_eq!(
        text(&out.stdout),
        format!("chopin-plan {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn fmt_mints_fresh_ulids_and_its_output_formats_to_the_same_bytes() {
    let first = run(&["fmt", "-"], MISSING_ID.as_bytes());
    assert_eq!(first.status.code(), Some(0));
    let canonical = text(&first.stdout);
    let id = canonical
        .split("id=\"")
        .nth(1)
        .and_then(|rest| rest.get(..26))
        .unwrap();
    assert!(id.chars().all(|c| c.is_ascii_alphanumeric()), "{canonical}");
    assert_eq!(
        canonical,
        MISSING_ID.replace("<Research />", &format!("<Research id=\"{id}\" />"))
    );
    let again = run(&["fmt", "-"], canonical.as_bytes());
    assert_eq!(text(&again.stdout), canonical);
    // Fresh ids: a second run mints another.
    let second = run(&["fmt", "-"], MISSING_ID.as_bytes());
    assert_ne!(text(&second.stdout), canonical);
}

#[test]
fn fmt_check_fails_on_a_plan_that_is_not_canonical_and_write_fixes_it() {
    let dir = scratch("write");
    let path = write(&dir, "plan.md", MISSING_ID);
    let clean = write(&dir, "clean.md", CLEAN);
    let out = run(&["fmt", "--check", &path, &clean], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!("{path}: not canonical (1 id to mint; run chopin-plan fmt --write)\n")
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        MISSING_ID,
        "--check writes nothing"
    );
    let out = run(&["fmt", "--write", &path, &clean], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let written = fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("# Plan\n\n<Research id=\""));
    assert_eq!(fs::read_to_string(&clean).unwrap(), CLEAN);
    assert_eq!(run(&["fmt", "--check", &path], b"").status.code(), Some(0));
    assert_eq!(
        fs::read_dir(&*dir).unwrap().count(),
        2,
        "no temporary file left"
    );
}

#[test]
fn fmt_of_a_plan_with_issues_prints_them_on_stderr_and_writes_nothing() {
    let dir = scratch("fmt-issues");
    let path = write(&dir, "plan.md", WITH_ISSUES);
    for mode in ["--write", "--check"] {
        let out = run(&["fmt", mode, &path], b"");
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!("{path}:3:1: unknown-component: ")),
            "{stderr}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), WITH_ISSUES);
    }
    let out = run(&["fmt", "-"], WITH_ISSUES.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}
