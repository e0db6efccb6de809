//! SURFACE.md §10: `Config::generated_instructions` is upstream's text — the
//! authority line, then `<name>: <description>` for each offered tool from
//! create_document on, in tool order, each description the one its
//! `tools/list` definition carries.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, endpoint_with};
use serde_json::{Value, json};

const AUTHORITY: &str = "Chopin's MCP contract and current tool descriptions are authoritative.";

/// The `tools/list` definitions of an endpoint built from `config`.
fn listed(config: Config) -> Vec<Value> {
    let endpoint = endpoint_with(config);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let reply = Request::post(&body).send(&endpoint, &mut Host::seed());
    reply.json()["result"]["tools"].as_array().unwrap().clone()
}

#[test]
fn read_only_instructions_are_the_authority_line_alone() {
    assert_eq!(Config::new().generated_instructions(), AUTHORITY);
}

#[test]
fn every_offered_write_tool_has_its_listed_description_in_tool_order() {
    let config = Config::new().enable_creation().enable_lifecycle();
    let mut expected = vec![AUTHORITY.to_owned()];
    for tool in listed(config.clone()).iter().skip(2) {
        let (name, description) = (&tool["name"], &tool["description"]);
        expected.push(format!(
            "{}: {}",
            name.as_str().unwrap(),
            description.as_str().unwrap()
        ));
    }
    assert_eq!(expected.len(), 6);
    assert_eq!(config.generated_instructions(), expected.join("\n"));
    let text = config.generated_instructions();
    assert!(text.contains("\narchive_document: Archive a Chopin document by ID or canonical URL."));
    assert!(text.contains("\nrestore_document: "));
    assert!(!text.contains("delete_document"));
    assert!(!text.contains("read_document:"));
}

#[test]
fn only_offered_tools_are_described() {
    let text = Config::new().enable_rename().generated_instructions();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].starts_with("rename_document: "), "{text}");
}

#[test]
fn initialize_sends_the_generated_instructions_when_configured_with_them() {
    let config = Config::new().enable_update();
    let text = config.generated_instructions();
    let endpoint = endpoint_with(config.instructions(text.clone()));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    let reply = Request::post(&body).send(&endpoint, &mut Host::seed());
    assert_eq!(reply.json()["result"]["instructions"], text.as_str());
}
