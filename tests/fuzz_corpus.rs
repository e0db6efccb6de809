//! Replays every committed fuzz seed through the same bodies the fuzz targets
//! run, so CI exercises them. (The dialect's own targets replay theirs in
//! `dialect/tests/fuzz_corpus.rs`.)

use std::fs;
use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        body(&fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count > 0, "no seeds for {target}");
}

#[test]
fn handle_seeds_keep_their_invariants() {
    replay("handle", chopin_mcp::fuzz::handle);
}

#[test]
fn ops_seeds_keep_their_invariants() {
    replay("ops", chopin_mcp::fuzz::ops);
}

#[test]
fn accept_seeds_keep_their_invariants() {
    replay("accept", chopin_mcp::fuzz::accept);
}

#[test]
fn jsonrpc_seeds_keep_their_invariants() {
    replay("jsonrpc", chopin_mcp::fuzz::jsonrpc);
}

#[test]
fn http1_seeds_keep_their_invariants() {
    replay("http1", chopin_mcp::fuzz::http1);
}

#[test]
fn create_seeds_keep_their_invariants() {
    replay("create", chopin_mcp::fuzz::create);
}

#[test]
fn update_seeds_keep_their_invariants() {
    replay("update", chopin_mcp::fuzz::update);
}

#[test]
fn image_seeds_keep_their_invariants() {
    replay("image", chopin_mcp::fuzz::image);
}

#[test]
fn message_seeds_agree_with_serde_json() {
    replay("message", |data| {
        chopin_mcp::fuzz::message(data);
    });
}
