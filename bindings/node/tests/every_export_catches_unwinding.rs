//! Every function the addon exports catches unwinding: a panic becomes a
//! JavaScript exception instead of aborting Node or Bun. The napi-rs
//! exports say `#[napi(catch_unwind)]`; the plain Node-API callbacks of
//! src/ffi.rs run their bodies inside `guard`, which catches it.

use std::fs;
use std::path::Path;

fn source(file: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file)).unwrap()
}

#[test]
fn every_napi_rs_export_says_catch_unwind() {
    let lib = source("lib.rs");
    let attributes: Vec<&str> = lib
        .lines()
        .filter(|line| line.trim_start().starts_with("#[napi"))
        .collect();
    assert!(attributes.len() >= 8, "{attributes:?}");
    for attribute in attributes {
        assert!(attribute.contains("catch_unwind"), "{attribute}");
    }
}

#[test]
fn every_plain_callback_runs_inside_guard_and_is_exported() {
    let ffi = source("ffi.rs");
    let callbacks: Vec<&str> = ffi
        .split("unsafe extern \"C\" fn ")
        .skip(1)
        .map(|rest| rest.split('(').next().unwrap())
        .collect();
    let exported: Vec<&str> = chopin_mcp_node::export_names().collect();
    assert_eq!(
        callbacks.len(),
        exported.len(),
        "{callbacks:?} / {exported:?}"
    );
    for body in ffi.split("unsafe extern \"C\" fn ").skip(1) {
        let first = body.lines().nth(1).unwrap_or_default().trim();
        assert!(
            first.starts_with("guard(env, ||"),
            "{}",
            body.lines().next().unwrap()
        );
    }
}
