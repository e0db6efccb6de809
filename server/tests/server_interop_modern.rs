//! The official MCP clients on revision 2026-07-28 against both servers:
//!
//! - the TypeScript SDK v2 client (`@modelcontextprotocol/client`, pinned by
//!   `server/tests/interop-v2/package-lock.json`): `node interop-v2/modern.mjs`,
//!   pinned to 2026-07-28 and in `auto` mode;
//! - the Python SDK (`mcp`, pinned by `server/tests/python/requirements.txt`):
//!   `python/.venv/bin/python python/client.py`, with `mode="2026-07-28"` and
//!   `mode="auto"` (which must land on 2026-07-28).
//!
//! Each script prints one line per check and exits non-zero on any failure.
//! Without its install (`npm ci` in `interop-v2`; the venv `.ci/run` makes)
//! a test prints "skipped: …" and passes, unless `CI` is set.

#[path = "interop/harness.rs"]
mod support;

use std::path::{Path, PathBuf};

use support::{DOC_ID, SERVERS, Server, TOKEN};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Runs `program script URL TOKEN DOC_ID REPOSITORY` in `dir` against each
/// server (seeded, creation enabled) and fails on a non-zero exit.
fn run_against_both(what: &str, program: &Path, script: &str, dir: &Path) {
    for name in SERVERS {
        let server = Server::seeded(name);
        let url = format!("http://{}/mcp", server.addr);
        support::run_client(
            &format!("{what} against {name}"),
            program,
            dir,
            &[script, &url, TOKEN, DOC_ID, "githubnext/chopin"],
        );
    }
}

#[test]
fn the_typescript_sdk_v2_client_works_with_both_servers_on_2026_07_28() {
    let Some(dir) = support::npm_folder("interop-v2", "@modelcontextprotocol/client") else {
        return;
    };
    run_against_both(
        "the TypeScript SDK v2 client",
        Path::new("node"),
        "modern.mjs",
        &dir,
    );
}

#[test]
fn the_python_sdk_client_works_with_both_servers_on_2026_07_28() {
    let Some(python) = support::python_sdk() else {
        return;
    };
    let dir = tests_dir().join("python");
    run_against_both("the Python SDK client", &python, "client.py", &dir);
}
