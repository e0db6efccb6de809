//! Whether and how invoke_planner is offered (SURFACE.md §1, §9; §12 cases
//! 13, 16, 34, 35): only with `Config::enable_planner`, else "tool not
//! found" with its arguments unexamined; listed last of the document
//! tools with its definition exactly, the description replaceable; the
//! write scope beside the read scope; the 786,432-byte budget.

mod common;

use chopin_mcp::{CREATION_BUDGET, Config, Endpoint, READ_ONLY_BUDGET};
use common::{
    Host, Request, Step, as_token, assert_modern_error, call, endpoint, endpoint_with,
    insufficient, mreq, mreq_id, read_write, rpc_error, scope_of,
};
use serde_json::{Value, json};

fn planner() -> Endpoint {
    endpoint_with(Config::new().enable_planner())
}

fn tools(endpoint: &Endpoint) -> Vec<Value> {
    let reply = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(endpoint, &mut Host::seed());
    reply.json()["result"]["tools"].as_array().unwrap().clone()
}

fn names(endpoint: &Endpoint) -> Vec<String> {
    tools(endpoint)
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/invoke_planner.json")).unwrap()
}

#[test]
fn without_enable_planner_the_tool_is_not_listed_and_not_found() {
    for endpoint in [endpoint(), read_write()] {
        assert!(!names(&endpoint).iter().any(|name| name == "invoke_planner"));
        for arguments in [
            json!({"id": "doc", "instruction": "Plan."}),
            json!({}),
            json!({"id": 7}),
        ] {
            let request = Request::post(&call(json!(1), "invoke_planner", arguments.clone()));
            let (reply, transcript) = request.exchange(&endpoint);
            assert_eq!(
                (reply.status, reply.text()),
                (200, &*rpc_error("1", -32601, "tool not found"))
            );
            assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
            assert_modern_error(
                &endpoint,
                &mreq(
                    "tools/call",
                    json!({"name": "invoke_planner", "arguments": arguments}),
                ),
                400,
                &rpc_error("1", -32602, "tool not found"),
            );
        }
    }
}

#[test]
fn with_it_the_definition_is_listed_exactly_after_the_lifecycle_tools() {
    assert_eq!(
        tools(&planner()),
        [tools(&endpoint()), vec![fixture()]].concat()
    );
    let all = endpoint_with(
        Config::new()
            .enable_creation()
            .enable_lifecycle()
            .enable_planner(),
    );
    let listed = names(&all);
    assert_eq!(listed.len(), 8);
    assert_eq!(listed[6..], ["restore_document", "invoke_planner"]);
    // Every output schema is an object (§12 case 34).
    for tool in tools(&all) {
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
    }
}

#[test]
fn a_configured_description_replaces_the_default_and_nothing_else() {
    let description = "Ask the \"planner\" \\ of a document.\nIt runs as you.";
    let endpoint = endpoint_with(
        Config::new()
            .enable_planner()
            .planner_description(description),
    );
    let listed = tools(&endpoint);
    let mut expected = fixture();
    expected["description"] = json!(description);
    assert_eq!(listed.last(), Some(&expected));
    // Modern clients list the same definition.
    let reply = mreq("tools/list", json!({})).send(&endpoint, &mut Host::seed());
    let modern = reply.json()["result"]["tools"].as_array().unwrap().clone();
    assert_eq!(modern.last(), Some(&expected));
}

#[test]
fn a_call_needs_the_read_and_the_write_scope() {
    let arguments = json!({"id": "doc", "instruction": "Plan."});
    let requests = [
        Request::post(&call(json!(9), "invoke_planner", arguments.clone())),
        mreq_id(
            json!(9),
            "tools/call",
            json!({"name": "invoke_planner", "arguments": arguments}),
        ),
    ];
    for request in requests {
        for token in ["reader", "writer", "both", "scopeless"] {
            let (reply, transcript) = as_token(request.clone(), token).exchange(&planner());
            assert_eq!(
                (reply.status, reply.text()),
                (403, &*insufficient("9")),
                "{token}"
            );
            assert_eq!(
                scope_of(reply.header("www-authenticate")),
                "chopin:read chopin:write",
                "{token}"
            );
            assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
        }
        for token in ["editor", "all", "allowed"] {
            let (reply, transcript) = as_token(request.clone(), token).exchange(&planner());
            assert_eq!(reply.status, 200, "{token}");
            assert_eq!(
                transcript,
                [
                    Step::Authenticate,
                    Step::Invoke("doc".to_owned()),
                    Step::Respond(200)
                ]
            );
        }
    }
}

#[test]
fn the_planner_alone_raises_the_budget_to_786432_bytes() {
    assert_eq!(endpoint().body_budget(), READ_ONLY_BUDGET);
    assert_eq!(planner().body_budget(), CREATION_BUDGET);
    assert_eq!(CREATION_BUDGET, 786_432);
    assert_eq!(
        endpoint_with(Config::new().enable_planner().body_budget(100)).body_budget(),
        100
    );
    // A call padded to exactly the budget is read; one byte more is 413.
    let padded = |len: usize| {
        let mut body = serde_json::to_vec(&call(
            json!(1),
            "invoke_planner",
            json!({"id": "doc", "instruction": "Plan."}),
        ))
        .unwrap();
        body.resize(len, b' ');
        Request::post_raw(body)
    };
    let (reply, transcript) = padded(CREATION_BUDGET).exchange(&planner());
    assert_eq!(reply.status, 200);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Invoke("doc".to_owned()),
            Step::Respond(200)
        ]
    );
    let (reply, transcript) = padded(CREATION_BUDGET + 1).exchange(&planner());
    assert_eq!((reply.status, reply.text()), (413, "request too large"));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
}

#[test]
fn the_generated_instructions_quote_the_description_in_force() {
    let text = Config::new().enable_planner().generated_instructions();
    let fixture = fixture();
    let line = format!(
        "invoke_planner: {}",
        fixture["description"].as_str().unwrap()
    );
    assert!(text.lines().any(|l| l == line), "{text}");
    let replaced = Config::new()
        .enable_planner()
        .planner_description("Ask the planner.")
        .generated_instructions();
    assert!(
        replaced
            .lines()
            .any(|l| l == "invoke_planner: Ask the planner."),
        "{replaced}"
    );
    assert!(
        !Config::new()
            .generated_instructions()
            .contains("invoke_planner")
    );
}
