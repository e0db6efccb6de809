//! Every tool's output schema (SURFACE.md §1.4): an object; the code
//! variant's `"enum"` holds exactly the codes the tool answers; update's
//! `oneOf` is the document, the revision conflict, the codes and the
//! issues; every id input has `"pattern":"\\S"`.

mod common;

use common::{Host, Request, read_write};
use serde_json::{Value, json};

fn tools() -> Vec<Value> {
    Request::post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send(&read_write(), &mut Host::seed())
        .json()["result"]["tools"]
        .as_array()
        .unwrap()
        .clone()
}

fn tool(name: &str) -> Value {
    tools().into_iter().find(|t| t["name"] == name).unwrap()
}

/// The `enum` of the `oneOf` variant whose `code` has one.
fn codes(tool: &Value) -> Value {
    tool["outputSchema"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|variant| variant["properties"]["code"].get("enum").cloned())
        .unwrap()
}

#[test]
fn every_output_schema_is_an_object() {
    let tools = tools();
    assert_eq!(tools.len(), 7);
    for tool in tools {
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
    }
}

#[test]
fn each_code_enum_is_the_codes_the_tool_answers() {
    for (name, expected) in [
        ("list_documents", json!(["repository-forbidden"])),
        (
            "create_document",
            json!([
                "idempotency-conflict",
                "title-taken",
                "document-unavailable"
            ]),
        ),
        (
            "update_document",
            json!([
                "idempotency-conflict",
                "document-locked",
                "protected-projection",
                "document-archived",
                "repository-forbidden",
                "document-unavailable"
            ]),
        ),
        (
            "rename_document",
            json!([
                "document-archived",
                "title-conflict",
                "repository-forbidden",
                "document-unavailable"
            ]),
        ),
        (
            "archive_document",
            json!(["repository-forbidden", "document-unavailable"]),
        ),
        (
            "restore_document",
            json!(["repository-forbidden", "document-unavailable"]),
        ),
    ] {
        assert_eq!(codes(&tool(name)), expected, "{name}");
    }
}

#[test]
fn update_has_four_variants_with_the_revision_conflict_apart() {
    let update = tool("update_document");
    let variants = update["outputSchema"]["oneOf"].as_array().unwrap();
    assert_eq!(variants.len(), 4);
    assert_eq!(
        variants[1],
        json!({
            "type": "object",
            "properties": {
                "code": {"const": "revision-conflict"},
                "revision": {"type": "integer", "minimum": 0},
            },
            "required": ["code", "revision"],
            "additionalProperties": false,
        })
    );
    // An issue may carry members beyond code, message, path.
    let issue = &variants[3]["properties"]["issues"]["items"];
    assert_eq!(issue["required"], json!(["code", "message", "path"]));
    assert!(issue.get("additionalProperties").is_none());
}

#[test]
fn every_id_input_has_a_non_blank_pattern() {
    for name in [
        "read_document",
        "update_document",
        "rename_document",
        "archive_document",
        "restore_document",
    ] {
        let id = &tool(name)["inputSchema"]["properties"]["id"];
        assert_eq!(id["pattern"], "\\S", "{name}");
    }
    assert_eq!(
        tool("rename_document")["inputSchema"]["properties"]["id"]["maxLength"],
        128
    );
}

#[test]
fn the_changed_descriptions_are_upstream_s() {
    for (name, description) in [
        (
            "read_document",
            "Read a Chopin document by ID or canonical URL.",
        ),
        (
            "update_document",
            "Replace a Chopin document's canonical plan against the revision last read.",
        ),
        (
            "rename_document",
            "Rename a Chopin document without changing its canonical plan or revision.",
        ),
        (
            "archive_document",
            "Archive a Chopin document by ID or canonical URL.",
        ),
        (
            "restore_document",
            "Restore an archived Chopin document by ID or canonical URL.",
        ),
    ] {
        assert_eq!(tool(name)["description"], description);
    }
}
