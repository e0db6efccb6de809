//! upload_image through a real client, against both servers: the official
//! MCP TypeScript SDK client (`interop/upload.mjs`, handshake era) and the
//! Python SDK client (`python/upload.py`, both eras) upload a real PNG, read
//! the answer (validated against the tool's output schema, an error result
//! too) and fetch the image back from its path with the same token, byte for
//! byte.
//!
//! Needs `npm ci` in `server/tests/interop` and the Python venv of
//! `server/tests/python` first; without them a test says so and passes,
//! unless `CI` is set.

#[path = "interop/harness.rs"]
mod support;

use std::path::Path;

use support::{DOC_ID, SERVERS, Server, TOKEN};

#[test]
fn the_typescript_sdk_client_uploads_a_png_and_fetches_it_back() {
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let how = format!("run `npm ci` in {}", interop.display());
    if !support::installed(&interop.join("node_modules"), &how) {
        return;
    }
    for name in SERVERS {
        let server = Server::seeded(name);
        let url = format!("http://{}/mcp", server.addr);
        support::run_client(
            &format!("the TypeScript SDK client's upload against {name}"),
            Path::new("node"),
            &interop,
            &["upload.mjs", &url, TOKEN, DOC_ID],
        );
    }
}

#[test]
fn the_python_sdk_client_uploads_a_png_in_both_eras_and_fetches_it_back() {
    let Some(python) = support::python_sdk() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    for name in SERVERS {
        let server = Server::seeded(name);
        let url = format!("http://{}/mcp", server.addr);
        support::run_client(
            &format!("the Python SDK client's upload against {name}"),
            &python,
            &dir,
            &["upload.py", &url, TOKEN, DOC_ID],
        );
    }
}
