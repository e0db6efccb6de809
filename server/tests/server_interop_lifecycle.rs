//! A plan's whole life through the official MCP clients, against both
//! servers (LIFECYCLE.md; issue 39's real clients): create, read with its
//! brief, update (updated, replayed, revision-conflict, a plan with dialect
//! issues), rename by URL, archive, restore, and a denied list — every
//! answer read by the client without throwing:
//!
//! - the TypeScript SDK 1.32 in the handshake era (`interop/lifecycle.mjs`);
//! - the TypeScript SDK v2 client on 2026-07-28 (`interop-v2/lifecycle.mjs`);
//! - the Python SDK in both eras, `mode="legacy"` and `mode="2026-07-28"`
//!   (`python/lifecycle.py`), with create_document's issues result as well.
//!
//! Each server runs seeded, read-write, with a caller granted
//! `githubnext/chopin` only, so that a list of `acme/private` is denied.
//! Without an install a test prints "skipped: …" and passes, unless `CI` is
//! set.

#[path = "interop/harness.rs"]
mod support;

use std::path::{Path, PathBuf};

use support::{SERVERS, Server};

/// The caller's token, its grant, and the repository it may not list.
const TOKEN: &str = "lifecycle";
const REPOSITORY: &str = "githubnext/chopin";
const DENIED: &str = "acme/private";

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Runs `program script URL TOKEN REPOSITORY DENIED` in `dir` against each
/// server and fails on a non-zero exit.
fn run_against_both(what: &str, program: &Path, script: &str, dir: &Path) {
    let grant = format!("lifecycle-bot={REPOSITORY}");
    for name in SERVERS {
        let server = Server::seeded_with(
            name,
            &["--token", "lifecycle=lifecycle-bot", "--grant", &grant],
        );
        let url = format!("http://{}/mcp", server.addr);
        support::run_client(
            &format!("{what} against {name}"),
            program,
            dir,
            &[script, &url, TOKEN, REPOSITORY, DENIED],
        );
    }
}

#[test]
fn the_typescript_sdk_client_lives_a_plans_whole_life_in_the_handshake_era() {
    let Some(dir) = support::npm_folder("interop", "@modelcontextprotocol/sdk") else {
        return;
    };
    run_against_both(
        "the TypeScript SDK client",
        Path::new("node"),
        "lifecycle.mjs",
        &dir,
    );
}

#[test]
fn the_typescript_sdk_v2_client_lives_a_plans_whole_life_on_2026_07_28() {
    let Some(dir) = support::npm_folder("interop-v2", "@modelcontextprotocol/client") else {
        return;
    };
    run_against_both(
        "the TypeScript SDK v2 client",
        Path::new("node"),
        "lifecycle.mjs",
        &dir,
    );
}

#[test]
fn the_python_sdk_client_lives_a_plans_whole_life_in_both_eras() {
    let Some(python) = support::python_sdk() else {
        return;
    };
    let dir = tests_dir().join("python");
    run_against_both("the Python SDK client", &python, "lifecycle.py", &dir);
}
