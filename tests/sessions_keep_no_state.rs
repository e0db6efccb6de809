//! SURFACE.md §10, IMPLEMENTATION.md §3: sessions are stateless — 100,000
//! `initialize` calls leave the endpoint holding exactly the memory it held
//! before, while every reply still issues its own id.

mod common;
#[path = "common/live_bytes.rs"]
mod live_bytes;

use std::collections::HashSet;

use common::{Host, Request, read_write};
use serde_json::json;

#[test]
fn a_hundred_thousand_initializes_keep_nothing() {
    let endpoint = read_write();
    let request = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "clientInfo": {"name": "load", "version": "1"}}}));
    let mut host = Host::seed();
    let mut issue = || {
        let reply = request.send(&endpoint, &mut host);
        host.transcript.clear();
        reply.header("mcp-session-id").unwrap().to_owned()
    };
    // Warm up: anything made once (lazily) is made now.
    let mut seen = HashSet::new();
    for _ in 0..100 {
        seen.insert(issue());
    }
    let before = live_bytes::live();
    for _ in 0..100_000 {
        let id = issue();
        assert!(id.starts_with("c1.bG9hZA.MQ."));
    }
    assert_eq!(
        live_bytes::live(),
        before,
        "the endpoint kept memory per initialize"
    );
    assert!(!seen.contains(&issue()), "each initialize gets a new id");
}
