//! The official MCP TypeScript SDK client against both servers: runs
//! `node server/tests/interop/interop.mjs URL TOKEN` (see that file).
//!
//! Needs `npm ci` in `server/tests/interop` first; without `node_modules` the test
//! says so and passes, so that a machine without Node can still run the rest,
//! unless `CI` is set (`.ci/run` installs it).

#[path = "interop/harness.rs"]
mod support;

use std::path::Path;
use std::process::Command;

use support::{DOC_ID, SERVERS, Server, TOKEN};

#[test]
fn the_typescript_sdk_client_works_with_both_servers() {
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let how = format!("run `npm ci` in {}", interop.display());
    if !support::installed(&interop.join("node_modules"), &how) {
        return;
    }
    for name in SERVERS {
        let server = Server::seeded(name);
        let url = format!("http://{}/mcp", server.addr);
        let output = Command::new("node")
            .arg("interop.mjs")
            .args([url.as_str(), TOKEN, DOC_ID, "githubnext/chopin"])
            .current_dir(&interop)
            .output()
            .expect("run node");
        let stdout = String::from_utf8_lossy(&output.stdout);
        println!("{name}:\n{stdout}");
        assert!(
            output.status.success(),
            "{name}: interop failed\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
