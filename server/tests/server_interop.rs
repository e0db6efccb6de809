//! The official MCP TypeScript SDK client against both servers: runs
//! `node server/tests/interop/interop.mjs URL TOKEN` (see that file).
//!
//! Needs `npm ci` in `server/tests/interop` first; without `node_modules` the test
//! says so and passes, so that a machine without Node can still run the rest,
//! unless `CI` is set (`.ci/run` installs it).

#[path = "interop/harness.rs"]
mod support;

use std::path::Path;

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
        support::run_client(
            &format!("the TypeScript SDK client against {name}"),
            Path::new("node"),
            &interop,
            &["interop.mjs", &url, TOKEN, DOC_ID, "githubnext/chopin"],
        );
    }
}
