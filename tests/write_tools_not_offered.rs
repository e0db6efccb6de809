//! A write tool the host did not enable (LIFECYCLE.md §1): "tool not found"
//! in the handshake era (`-32601`) and 400 `-32602` in 2026-07-28, whatever
//! its arguments (they are not examined); malformed `arguments` are refused
//! before the lookup, offered or not.

mod common;

use chopin_mcp::{Config, Endpoint};
use common::{Request, Step, assert_modern_error, call, endpoint, endpoint_with, mreq, rpc_error};
use serde_json::{Value, json};

const TOOLS: [&str; 4] = [
    "update_document",
    "rename_document",
    "archive_document",
    "restore_document",
];

fn arguments() -> [Value; 3] {
    [
        json!({"id": "f401c8d6-3717-4f1d-8473-cfdd0af894e4", "revision": 4, "plan": "# P\n", "idempotencyKey": "k", "title": "T"}),
        json!({}),
        json!({"id": 7, "revision": "x"}),
    ]
}

/// Calls `tool` in both eras and asserts the refusal, the handshake era's
/// (200 with `legacy`) and 2026-07-28's (400 with `modern`), and that the
/// host was not asked.
fn assert_refused(
    endpoint: &Endpoint,
    tool: &str,
    arguments: &Value,
    legacy: RpcError,
    modern: RpcError,
) {
    let request = Request::post(&call(json!(1), tool, arguments.clone()));
    let (reply, transcript) = request.exchange(endpoint);
    assert_eq!(
        (reply.status, reply.text()),
        (200, &*rpc_error("1", legacy.0, legacy.1)),
        "{tool} {arguments}"
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
    assert_modern_error(
        endpoint,
        &mreq("tools/call", json!({"name": tool, "arguments": arguments})),
        400,
        &rpc_error("1", modern.0, modern.1),
    );
}

type RpcError = (i32, &'static str);

#[test]
fn a_tool_not_enabled_is_not_found_and_its_arguments_are_not_read() {
    // Read-only, and an endpoint with every other tool but the one called.
    for tool in TOOLS {
        let others = match tool {
            "update_document" => Config::new()
                .enable_rename()
                .enable_archive()
                .enable_restore(),
            "rename_document" => Config::new()
                .enable_update()
                .enable_archive()
                .enable_restore(),
            "archive_document" => Config::new()
                .enable_update()
                .enable_rename()
                .enable_restore(),
            _ => Config::new().enable_update().enable_rename(),
        };
        for endpoint in [endpoint(), endpoint_with(others.enable_creation())] {
            for arguments in arguments() {
                let (legacy, modern) = ((-32601, "tool not found"), (-32602, "tool not found"));
                assert_refused(&endpoint, tool, &arguments, legacy, modern);
            }
        }
    }
}

#[test]
fn malformed_arguments_are_refused_before_the_lookup() {
    for tool in TOOLS {
        for endpoint in [endpoint(), common::read_write()] {
            for arguments in [json!([]), json!("x"), json!(null)] {
                let invalid = (-32602, "invalid tool arguments");
                assert_refused(&endpoint, tool, &arguments, invalid, invalid);
            }
        }
    }
}
