//! The server's identity and guidance: `Config::server_title` and
//! `Config::instructions`, in `initialize` (the handshake era) and in
//! `serverInfo` and `server/discover` (2026-07-28); absent unless set.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, endpoint_with, mreq};
use serde_json::{Value, json};

const INSTRUCTIONS: &str = "List a repository, then read by id.\n\"Quoted\" \u{1F600}";

fn configured() -> Config {
    Config::new()
        .server_title("Chopin \"plans\"")
        .instructions(INSTRUCTIONS)
}

fn initialize(config: Config) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    });
    Request::post(&body)
        .send(&endpoint_with(config), &mut Host::seed())
        .json()["result"]
        .clone()
}

#[test]
fn initialize_carries_the_title_and_instructions_when_configured() {
    let result = initialize(configured());
    assert_eq!(
        result["serverInfo"],
        json!({"name": "chopin", "title": "Chopin \"plans\"", "version": env!("CARGO_PKG_VERSION")})
    );
    assert_eq!(result["instructions"], INSTRUCTIONS);
    let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "capabilities",
            "instructions",
            "protocolVersion",
            "serverInfo"
        ]
    );
}

#[test]
fn without_them_initialize_is_as_before() {
    let result = initialize(Config::new());
    assert!(result.get("instructions").is_none());
    assert!(result["serverInfo"].get("title").is_none());
}

#[test]
fn modern_results_carry_the_title_in_server_info_and_discover_the_instructions() {
    let endpoint = endpoint_with(configured());
    let (discover, _) = mreq("server/discover", json!({})).exchange(&endpoint);
    let discover = discover.json()["result"].clone();
    assert_eq!(discover["instructions"], INSTRUCTIONS);
    let (tools, _) = mreq("tools/list", json!({})).exchange(&endpoint);
    for result in [discover, tools.json()["result"].clone()] {
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["title"],
            "Chopin \"plans\""
        );
    }
    let (plain, _) = mreq("server/discover", json!({})).exchange(&common::endpoint());
    let plain = plain.json()["result"].clone();
    assert!(plain.get("instructions").is_none());
    assert!(
        plain["_meta"]["io.modelcontextprotocol/serverInfo"]
            .get("title")
            .is_none()
    );
}
