//! SURFACE.md §1.8: one budget rule over the offered tools — 1463640 bytes
//! with upload_image; else 786432 with a tool that takes a plan (create,
//! update); else 65536; a configured `body_budget` overrides it.

mod common;

use chopin_mcp::{CREATION_BUDGET, Config, READ_ONLY_BUDGET, UPLOAD_BUDGET};
use common::{Host, Request, endpoint_with};

/// A ping of exactly `len` bytes.
fn ping_of(len: usize) -> Vec<u8> {
    let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec();
    body.resize(len, b' ');
    body
}

/// The status a ping of `len` bytes gets from an endpoint built from `config`.
fn status(config: Config, len: usize) -> u16 {
    let endpoint = endpoint_with(config);
    Request::post_raw(ping_of(len))
        .send(&endpoint, &mut Host::seed())
        .status
}

#[test]
fn each_tool_set_gets_its_budget() {
    let cases = [
        ("read-only", Config::new(), READ_ONLY_BUDGET),
        (
            "update only",
            Config::new().enable_update(),
            CREATION_BUDGET,
        ),
        (
            "create only",
            Config::new().enable_creation(),
            CREATION_BUDGET,
        ),
        (
            "rename only",
            Config::new().enable_rename(),
            READ_ONLY_BUDGET,
        ),
        (
            "archive and restore",
            Config::new().enable_archive().enable_restore(),
            READ_ONLY_BUDGET,
        ),
        (
            "read-write",
            Config::new().enable_creation().enable_lifecycle(),
            CREATION_BUDGET,
        ),
        ("upload only", Config::new().enable_upload(), UPLOAD_BUDGET),
        (
            "read-write with upload",
            Config::new()
                .enable_creation()
                .enable_lifecycle()
                .enable_upload(),
            UPLOAD_BUDGET,
        ),
    ];
    for (what, config, budget) in cases {
        assert_eq!(
            endpoint_with(config.clone()).body_budget(),
            budget,
            "{what}"
        );
        assert_eq!(status(config.clone(), budget), 200, "{what}");
        assert_eq!(status(config, budget + 1), 413, "{what}");
    }
}

#[test]
fn update_only_refuses_786433_bytes_and_read_only_65537() {
    assert_eq!(status(Config::new().enable_update(), 786_433), 413);
    assert_eq!(status(Config::new().enable_update(), 786_432), 200);
    assert_eq!(status(Config::new(), 65_537), 413);
}

#[test]
fn a_configured_budget_overrides_the_rule() {
    let config = Config::new().enable_update().body_budget(1000);
    assert_eq!(endpoint_with(config.clone()).body_budget(), 1000);
    assert_eq!(status(config, 1001), 413);
}
