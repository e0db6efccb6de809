//! Which tools an endpoint lists, in which order, with which definitions
//! (LIFECYCLE.md §1): the read tools always, each write tool when the host
//! enables it, in the order list, read, create, update, rename, archive,
//! restore; each definition exactly the spec's, keys in order; and the body
//! budget of an endpoint that takes plans.

mod common;

use chopin_mcp::{CREATION_BUDGET, Config, Endpoint, READ_ONLY_BUDGET};
use common::{Host, Request, endpoint_with, read_write};
use serde_json::json;

/// The fixture's JSON without the whitespace between tokens: the bytes an
/// endpoint writes, keys in the fixture's order.
fn compact(fixture: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in fixture.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// An array fixture's elements, compacted, without the brackets.
fn elements(fixture: &str) -> String {
    let array = compact(fixture);
    array[1..array.len() - 1].to_owned()
}

fn tools_list(endpoint: &Endpoint) -> String {
    let reply = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(endpoint, &mut Host::seed());
    reply.raw_member("result")
}

fn names(endpoint: &Endpoint) -> Vec<String> {
    let list: serde_json::Value = serde_json::from_str(&tools_list(endpoint)).unwrap();
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_read_write_endpoint_lists_every_definition_exactly_in_order() {
    let expected = format!(
        r#"{{"tools":[{},{},{}]}}"#,
        elements(include_str!("fixtures/tools.json")),
        compact(include_str!("fixtures/create_document.json")),
        elements(include_str!("fixtures/lifecycle_tools.json")),
    );
    assert_eq!(tools_list(&read_write()), expected);
}

#[test]
fn each_write_tool_is_listed_only_when_enabled() {
    let cases: [(Config, &[&str]); 7] = [
        (Config::new(), &[]),
        (Config::new().enable_update(), &["update_document"]),
        (Config::new().enable_rename(), &["rename_document"]),
        (Config::new().enable_restore(), &["restore_document"]),
        (
            Config::new().enable_restore().enable_archive(),
            &["archive_document", "restore_document"],
        ),
        (
            Config::new().enable_rename().enable_creation(),
            &["create_document", "rename_document"],
        ),
        (
            Config::new().enable_lifecycle(),
            &[
                "update_document",
                "rename_document",
                "archive_document",
                "restore_document",
            ],
        ),
    ];
    for (config, writes) in cases {
        let mut expected = vec!["list_documents", "read_document"];
        expected.extend_from_slice(writes);
        assert_eq!(names(&endpoint_with(config)), expected);
    }
}

#[test]
fn an_endpoint_that_takes_plans_takes_their_bodies() {
    for (config, budget) in [
        (Config::new(), READ_ONLY_BUDGET),
        (Config::new().enable_update(), CREATION_BUDGET),
        (Config::new().enable_creation(), CREATION_BUDGET),
        (Config::new().enable_rename(), READ_ONLY_BUDGET),
        (
            Config::new().enable_archive().enable_restore(),
            READ_ONLY_BUDGET,
        ),
        (Config::new().enable_lifecycle(), CREATION_BUDGET),
        (Config::new().enable_lifecycle().body_budget(100), 100),
    ] {
        assert_eq!(Endpoint::new(config).unwrap().body_budget(), budget);
    }
    assert_eq!(CREATION_BUDGET, 786_432);
}
