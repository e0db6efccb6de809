//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned by `server/tests/conformance/package-lock.json`) against both
//! servers, on revision 2026-07-28 and on the legacy 2025-11-25.
//!
//! The suite sends no `Authorization`, so it talks to each server through a
//! loopback proxy that adds the test token and forwards Host, Origin and every
//! other byte unchanged (`interop/auth_proxy.rs`).
//!
//! Each scenario runs on its own (`--scenario`, `-o DIR`); its `checks.json` is
//! judged against `conformance/expected-failures.<version>.yml`, the suite's
//! own baseline format (`- scenario:check-id`, why in the line's comment): a
//! FAILURE or WARNING not in the baseline fails the test, and so does a
//! baseline entry whose check did not fail (a stale entry). The suite's own
//! verdict on the same baseline (`--expected-failures`, its exit code) must
//! agree.
//!
//! Needs `npm ci` in `server/tests/conformance` (it brings Node 22 as the
//! `node` package); without it the test prints "skipped: …" and passes,
//! unless `CI` is set.

#[path = "interop/auth_proxy.rs"]
mod auth_proxy;
#[path = "interop/harness.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use auth_proxy::AuthProxy;
use support::{SERVERS, Server, TOKEN};

/// The scenarios run per revision (MODERN.md §10).
const RUNS: [(&str, &[&str]); 2] = [
    (
        "2026-07-28",
        &[
            "server-stateless",
            "tools-list",
            "caching",
            "http-header-validation",
            "dns-rebinding-protection",
            "server-sse-multiple-streams",
        ],
    ),
    (
        "2025-11-25",
        &[
            "server-initialize",
            "ping",
            "tools-list",
            "dns-rebinding-protection",
        ],
    ),
];

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

/// One baseline entry: `scenario` alone (the whole scenario) or `scenario:check`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    scenario: String,
    check: Option<String>,
}

/// Reads a baseline file: `server:` then `  - entry  # why` lines. Every entry
/// must say why, on its own line.
fn baseline(path: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(path).expect("read the baseline");
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        let Some(item) = line.strip_prefix("- ") else {
            continue;
        };
        let (item, why) = item.split_once(" #").unwrap_or((item, ""));
        assert!(
            !why.trim().is_empty(),
            "{}:{}: every entry says why in a `# …` comment",
            path.display(),
            number + 1
        );
        let item = item.trim();
        entries.push(match item.split_once(':') {
            Some((scenario, check)) => Entry {
                scenario: scenario.into(),
                check: Some(check.into()),
            },
            None => Entry {
                scenario: item.into(),
                check: None,
            },
        });
    }
    entries
}

/// A check as `checks.json` holds it.
struct Check {
    id: String,
    status: String,
    message: String,
}

fn failing(status: &str) -> bool {
    status == "FAILURE" || status == "WARNING"
}

/// The text without ANSI color sequences (`ESC [ … m`; the suite prints them
/// even to a pipe).
fn strip_colors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs one scenario; returns its checks and the suite's exit status.
fn run_scenario(
    node: &Path,
    cli: &Path,
    url: &str,
    version: &str,
    scenario: &str,
    expected: &Path,
) -> (Vec<Check>, bool, String) {
    let out = support::temp_path(&format!("conformance-{scenario}"), "d");
    let output = Command::new(node)
        .arg(cli)
        .args(["server", "--url", url, "--scenario", scenario])
        .args(["--spec-version", version])
        .arg("--expected-failures")
        .arg(expected)
        .arg("-o")
        .arg(&out)
        .current_dir(conformance_dir())
        .output()
        .expect("run the conformance suite");
    let printed = strip_colors(&format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ));
    let file = std::fs::read_dir(&out)
        .ok()
        .and_then(|mut dirs| dirs.next())
        .and_then(Result::ok)
        .map(|dir| dir.path().join("checks.json"));
    let Some(text) = file.and_then(|file| std::fs::read_to_string(file).ok()) else {
        panic!(
            "{scenario} ({version}): no checks.json in {}\n{printed}",
            out.display()
        );
    };
    let _ = std::fs::remove_dir_all(&out);
    let json: serde_json::Value = serde_json::from_str(&text).expect("checks.json is JSON");
    let checks = json
        .as_array()
        .expect("checks.json is an array")
        .iter()
        .map(|check| {
            let text = |key: &str| check[key].as_str().unwrap_or_default().to_owned();
            Check {
                id: text("id"),
                status: text("status"),
                message: text("errorMessage"),
            }
        })
        .collect();
    (checks, output.status.success(), printed)
}

#[test]
fn the_conformance_suite_passes_on_both_servers() {
    let dir = conformance_dir();
    let node = dir.join("node_modules/node/bin/node");
    let cli = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let how = format!("run `npm ci` in {}", dir.display());
    if !support::installed(&node, &how) || !support::installed(&cli, &how) {
        return;
    }

    let mut problems = Vec::new();
    for name in SERVERS {
        let server = Server::seeded(name);
        let proxy = AuthProxy::start(server.addr, TOKEN);
        let url = proxy.url();
        for (version, scenarios) in RUNS {
            let expected_file = dir.join(format!("expected-failures.{version}.yml"));
            let expected = baseline(&expected_file);
            for entry in &expected {
                assert!(
                    scenarios.contains(&entry.scenario.as_str()),
                    "{}: {} is not a scenario run at {version}",
                    expected_file.display(),
                    entry.scenario
                );
            }
            for &scenario in scenarios {
                let (checks, suite_ok, printed) =
                    run_scenario(&node, &cli, &url, version, scenario, &expected_file);
                let whole = expected
                    .iter()
                    .any(|e| e.scenario == scenario && e.check.is_none());
                let excused: BTreeSet<&str> = expected
                    .iter()
                    .filter(|e| e.scenario == scenario)
                    .filter_map(|e| e.check.as_deref())
                    .collect();
                // The suite's own summary and baseline verdict, as it printed them.
                for line in printed.lines().map(str::trim).filter(|line| {
                    line.starts_with("Passed:")
                        || line.starts_with("Baseline")
                        || line.starts_with("Unexpected")
                        || line.starts_with("~ ")
                        || line.starts_with("✗ ")
                        || line.starts_with("✓ ")
                }) {
                    println!("{name} {version} {scenario} | {line}");
                }
                let mut failed = BTreeSet::new();
                for check in &checks {
                    let mark = if failing(&check.status) {
                        failed.insert(check.id.as_str());
                        if whole || excused.contains(check.id.as_str()) {
                            "expected"
                        } else {
                            problems.push(format!(
                                "{name} {version} {scenario}: unexpected {} {}: {}",
                                check.status, check.id, check.message
                            ));
                            "UNEXPECTED"
                        }
                    } else {
                        ""
                    };
                    println!(
                        "{name} {version} {scenario} {:<55} {:<8} {mark}",
                        check.id, check.status
                    );
                }
                if whole && failed.is_empty() {
                    problems.push(format!(
                        "{name} {version} {scenario}: stale baseline entry, the scenario passes"
                    ));
                }
                for check in &excused {
                    if !failed.contains(check) {
                        problems.push(format!(
                            "{name} {version} {scenario}: stale baseline entry {check}: it did not fail"
                        ));
                    }
                }
                let ours = !problems
                    .iter()
                    .any(|p| p.starts_with(&format!("{name} {version} {scenario}:")));
                if suite_ok != ours {
                    problems.push(format!(
                        "{name} {version} {scenario}: the suite's baseline verdict ({}) differs from ours ({})\n{printed}",
                        if suite_ok { "pass" } else { "fail" },
                        if ours { "pass" } else { "fail" },
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "conformance problems:\n{}",
        problems.join("\n")
    );
}
