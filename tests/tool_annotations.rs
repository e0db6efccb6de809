//! Tools say what they do: every tool has a human-readable `title` and the
//! `annotations` clients decide their prompts from (MCP `ToolAnnotations`),
//! in both eras, the same bytes in each.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, endpoint_with, mreq};
use serde_json::{Value, json};

fn legacy_tools(config: Config) -> Vec<Value> {
    let reply = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(&endpoint_with(config), &mut Host::seed());
    reply.json()["result"]["tools"].as_array().unwrap().clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|tool| tool["name"] == name).unwrap()
}

#[test]
fn reads_are_read_only_and_closed_world() {
    let tools = legacy_tools(Config::new().enable_creation());
    for (name, title) in [
        ("list_documents", "List plan documents"),
        ("read_document", "Read a plan document"),
    ] {
        let tool = tool(&tools, name);
        assert_eq!(tool["title"], title);
        // destructiveHint and idempotentHint mean something only for a tool
        // that is not read-only: left out.
        assert_eq!(
            tool["annotations"],
            json!({"readOnlyHint": true, "openWorldHint": false})
        );
    }
}

#[test]
fn create_writes_but_neither_destroys_nor_repeats() {
    let tools = legacy_tools(Config::new().enable_creation());
    let create = tool(&tools, "create_document");
    assert_eq!(create["title"], "Create a plan document");
    assert_eq!(
        create["annotations"],
        json!({
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        })
    );
}

#[test]
fn the_write_tools_say_what_they_replace_and_that_a_retry_is_safe() {
    let endpoint = endpoint_with(Config::new().enable_lifecycle());
    let reply = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(&endpoint, &mut Host::seed());
    let tools = reply.json()["result"]["tools"].as_array().unwrap().clone();
    for (name, title, destructive) in [
        ("update_document", "Revise a plan document", true),
        ("rename_document", "Rename a plan document", true),
        ("archive_document", "Archive a plan document", true),
        ("restore_document", "Restore a plan document", false),
    ] {
        let tool = tool(&tools, name);
        assert_eq!(tool["title"], title);
        // All four hints, in the order LIFECYCLE.md §1 gives.
        let annotations = format!(
            r#""annotations":{{"readOnlyHint":false,"destructiveHint":{destructive},"idempotentHint":true,"openWorldHint":false}}}}"#
        );
        let definition = reply
            .text()
            .split(r#"{"name":"#)
            .find(|piece| piece.starts_with(&format!("\"{name}\"")))
            .unwrap();
        assert!(definition.contains(&annotations), "{name}: {definition}");
    }
}

#[test]
fn every_tool_has_a_title_and_annotations_in_both_eras_byte_for_byte() {
    for config in [
        Config::new(),
        Config::new().enable_creation(),
        Config::new().enable_creation().enable_lifecycle(),
    ] {
        let legacy = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .send(&endpoint_with(config.clone()), &mut Host::seed());
        let (modern, _) = mreq("tools/list", json!({})).exchange(&endpoint_with(config));
        let raw = legacy.raw_member("result");
        let legacy_tools: Value = serde_json::from_str(&raw).unwrap();
        // The same bytes: the modern list embeds the legacy array as sent.
        let array = &raw["{\"tools\":".len()..raw.len() - 1];
        assert!(modern.text().contains(&format!("\"tools\":{array},")));
        assert_eq!(modern.json()["result"]["tools"], legacy_tools["tools"]);
        for tool in legacy_tools["tools"].as_array().unwrap() {
            assert!(
                tool["title"].as_str().is_some_and(|t| !t.is_empty()),
                "{tool}"
            );
            assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{tool}");
            assert_eq!(tool["annotations"]["openWorldHint"], false, "{tool}");
        }
    }
}
