//! `chopin-plan`'s command line as clap reads it: a misspelt option gets a
//! suggestion and exit status 2, options may follow the files, and `--`
//! ends the options.

use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chopin-plan"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_misspelt_option_gets_a_suggestion_and_exit_2() {
    let out = run(&["check", "--formt", "json", "plan.md"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("chopin-plan: "), "{stderr}");
    assert!(
        stderr.contains("tip: a similar argument exists: '--format'"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn options_may_follow_the_files_and_double_dash_ends_them() {
    let dir = std::env::temp_dir().join(format!("chopin-plan-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = dir.join("-plan.md");
    std::fs::write(&plan, "# Plan\n\n<Bogus />\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chopin-plan"))
        .args(["check", "--", "-plan.md", "--format=json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    // After `--`, `--format=json` is a file name, which cannot be read.
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--format=json: cannot read"));
    assert!(text(&out.stdout).starts_with("-plan.md:3:1: unknown-component: "));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chopin-plan"))
        .args(["check", "./-plan.md", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("{\"issues\":["));
    let _ = std::fs::remove_dir_all(&dir);
}
