//! create_document (DIALECT.md §11): advertisement, argument validation,
//! fingerprints, the host input, and every result shape.

mod common;

use chopin_mcp::Config;
use common::{Creating, Host, Request, call, creation, endpoint_with};
use serde_json::{Value, json};

fn send(host: &mut Host, arguments: Value) -> Value {
    let endpoint = endpoint_with(Config::new().enable_creation());
    Request::post(&call(json!(1), "create_document", arguments))
        .send(&endpoint, host)
        .json()
}

fn edit(f: impl FnOnce(&mut Value)) -> Value {
    let mut arguments = creation();
    f(&mut arguments);
    arguments
}

#[test]
fn a_creating_endpoint_lists_the_exact_definition_last() {
    let endpoint = endpoint_with(Config::new().enable_creation());
    let tools = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(&endpoint, &mut Host::seed())
        .json();
    let tools = tools["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3);
    let expected: Value =
        serde_json::from_str(include_str!("fixtures/create_document.json")).unwrap();
    assert_eq!(tools[2], expected);
}

#[test]
fn every_invalid_draft_is_refused_before_the_host_is_asked() {
    let long = |n: usize| json!("x".repeat(n));
    let cases: Vec<(&str, Value)> = vec![
        (
            "missing key",
            edit(|a| drop(a.as_object_mut().unwrap().remove("baseBranch"))),
        ),
        ("extra key", edit(|a| a["extra"] = json!(1))),
        ("non-string key", edit(|a| a["idempotencyKey"] = json!(1))),
        (
            "blank title",
            edit(|a| a["title"] = json!(" \u{3000}\u{feff}")),
        ),
        ("empty plan", edit(|a| a["plan"] = json!(""))),
        ("blank plan", edit(|a| a["plan"] = json!("\n\n"))),
        (
            "idempotencyKey 129",
            edit(|a| a["idempotencyKey"] = long(129)),
        ),
        ("baseBranch 256", edit(|a| a["baseBranch"] = long(256))),
        ("baseCommit 65", edit(|a| a["baseCommit"] = long(65))),
        ("title 121", edit(|a| a["title"] = long(121))),
        ("repository", edit(|a| a["repository"] = json!("owner/.."))),
        (
            "repository owner",
            edit(|a| a["repository"] = json!("a--b/c")),
        ),
        ("brief array", edit(|a| a["brief"] = json!([]))),
        ("brief null", edit(|a| a["brief"] = json!(null))),
        (
            "brief goal blank",
            edit(|a| a["brief"]["goal"] = json!("\t")),
        ),
        ("brief goal 4097", edit(|a| a["brief"]["goal"] = long(4097))),
        (
            "brief goal missing",
            edit(|a| drop(a["brief"].as_object_mut().unwrap().remove("goal"))),
        ),
        (
            "brief constraints missing",
            edit(|a| drop(a["brief"].as_object_mut().unwrap().remove("constraints"))),
        ),
        (
            "brief item not a string",
            edit(|a| a["brief"]["openQuestions"] = json!(["a", 1])),
        ),
        (
            "brief list not an array",
            edit(|a| a["brief"]["settledDecisions"] = json!("a")),
        ),
    ];
    for (name, arguments) in cases {
        let mut host = Host::seed();
        let reply = send(&mut host, arguments);
        assert_eq!(
            reply["error"],
            json!({"code": -32602, "message": "create_document requires a valid draft"}),
            "{name}"
        );
        assert!(!host.consulted_store(), "{name}");
    }
}

#[test]
fn caps_count_scalar_values_and_empty_brief_lists_are_fine() {
    let mut host = Host::seed();
    let arguments = edit(|a| {
        a["title"] = json!("😀".repeat(120));
        a["idempotencyKey"] = json!("k".repeat(128));
        a["brief"]["constraints"] = json!([]);
        a["brief"]["openQuestions"] = json!([""]);
    });
    let reply = send(&mut host, arguments);
    assert!(reply["result"].get("isError").is_none(), "{reply}");
    assert_eq!(host.create_inputs.len(), 1);
}

#[test]
fn unknown_brief_keys_are_dropped_before_fingerprinting() {
    let mut plain = Host::seed();
    send(&mut plain, creation());
    let mut extra = Host::seed();
    send(&mut extra, edit(|a| a["brief"]["owner"] = json!("someone")));
    assert_eq!(
        plain.create_inputs[0].fingerprint,
        extra.create_inputs[0].fingerprint
    );
    let brief = serde_json::to_value(&extra.create_inputs[0].brief).unwrap();
    assert!(brief.get("owner").is_none());
}

#[test]
fn malformed_params_are_invalid_tool_arguments_on_every_host() {
    for config in [Config::new(), Config::new().enable_creation()] {
        let endpoint = endpoint_with(config);
        for arguments in [json!([]), json!(null), json!("x")] {
            let reply = Request::post(&call(json!(1), "create_document", arguments))
                .send(&endpoint, &mut Host::seed())
                .json();
            assert_eq!(
                reply["error"],
                json!({"code": -32602, "message": "invalid tool arguments"})
            );
        }
    }
}

#[test]
fn the_host_input_carries_the_canonical_plan_and_the_spec_fingerprint() {
    let mut host = Host::seed();
    send(&mut host, creation());
    let input = &host.create_inputs[0];
    assert_eq!(
        input.fingerprint,
        "76c4bab01ff1132bc2d596f03ef07d21cac77a9722f62482820689eb1d4a8dde"
    );
    assert_eq!(
        input.plan.len(),
        creation()["plan"].as_str().unwrap().len() + 32
    );
    assert!(input.plan.starts_with("# Draft\n\n<Callout id=\""));
    let keys: Vec<String> = serde_json::to_value(input)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let text = serde_json::to_string(input).unwrap();
    let order: Vec<usize> = [
        "idempotencyKey",
        "repository",
        "baseBranch",
        "baseCommit",
        "title",
        "brief",
        "plan",
        "fingerprint",
    ]
    .iter()
    .map(|k| text.find(&format!("\"{k}\":")).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(keys.len(), 8);

    let mut changed = Host::seed();
    send(
        &mut changed,
        edit(|a| a["title"] = json!("A changed title")),
    );
    assert_eq!(
        changed.create_inputs[0].fingerprint,
        "7018777a3f4c516d4aa764584fad7125d47eae2c30a7d58ba2bf98c5b053a459"
    );
}

#[test]
fn every_field_changes_the_fingerprint() {
    let base = {
        let mut host = Host::seed();
        send(&mut host, creation());
        host.create_inputs[0].fingerprint.clone()
    };
    let edits: Vec<Value> = vec![
        edit(|a| a["idempotencyKey"] = json!("create-plan-2")),
        edit(|a| a["repository"] = json!("githubnext/other")),
        edit(|a| a["baseBranch"] = json!("dev")),
        edit(|a| a["baseCommit"] = json!("1123456789abcdef0123456789abcdef01234567")),
        edit(|a| a["brief"]["goal"] = json!("Another goal.")),
        edit(|a| a["brief"]["repositoryFindings"] = json!([])),
        edit(|a| a["plan"] = json!("# Draft\n")),
    ];
    for arguments in edits {
        let mut host = Host {
            grants: [(
                "octocat".to_owned(),
                vec![
                    "githubnext/chopin".to_owned(),
                    "githubnext/other".to_owned(),
                ],
            )]
            .into(),
            ..Host::seed()
        };
        send(&mut host, arguments.clone());
        assert_ne!(host.create_inputs[0].fingerprint, base, "{arguments}");
    }
}

#[test]
fn each_host_answer_has_its_result_shape() {
    let mut created = Host::seed();
    let reply = send(&mut created, creation());
    let result = &reply["result"];
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    assert_eq!(result["content"][0]["type"], "text");
    let raw = Request::post(&call(json!(1), "create_document", creation()))
        .send(
            &endpoint_with(Config::new().enable_creation()),
            &mut Host::seed(),
        )
        .text()
        .to_owned();
    let structured = &raw[raw.find("\"structuredContent\":").unwrap()..];
    let order: Vec<usize> = ["id", "title", "brief", "source", "revision", "url"]
        .iter()
        .map(|k| structured.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{structured}");

    let mut forbidden = Host {
        creating: Creating::Forbidden,
        ..Host::seed()
    };
    assert_eq!(
        send(&mut forbidden, creation())["result"],
        json!({"content": [], "isError": true})
    );

    let mut ungranted = Host {
        grants: Default::default(),
        ..Host::seed()
    };
    assert_eq!(
        send(&mut ungranted, creation())["result"],
        json!({"content": [], "isError": true})
    );

    let mut unavailable = Host {
        creating: Creating::Unavailable,
        ..Host::seed()
    };
    assert_eq!(
        send(&mut unavailable, creation())["result"],
        json!({"content": [{"type": "text", "text": "{\"code\":\"document-unavailable\"}"}], "structuredContent": {"code": "document-unavailable"}, "isError": true})
    );
}

#[test]
fn the_issues_result_is_exactly_the_spec_example() {
    let reply = Request::post(&call(
        json!(1),
        "create_document",
        edit(|a| a["plan"] = json!("<Chart />\n")),
    ))
    .send(
        &endpoint_with(Config::new().enable_creation()),
        &mut Host::seed(),
    );
    let expected = r#"{"content":[{"type":"text","text":"{\"issues\":[{\"code\":\"unknown-component\",\"message\":\"`Chart` is not a plan component\",\"path\":\"root > Chart[0]\",\"offset\":0,\"line\":1,\"column\":1}]}"}],"structuredContent":{"issues":[{"code":"unknown-component","message":"`Chart` is not a plan component","path":"root > Chart[0]","offset":0,"line":1,"column":1}]},"isError":true}"#;
    assert_eq!(
        reply.text(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{expected}}}"#)
    );
}

#[test]
fn a_creating_endpoint_budgets_786432_bytes() {
    let endpoint = endpoint_with(Config::new().enable_creation());
    assert_eq!(endpoint.body_budget(), 786_432);
    let fits = Request::post_raw(" ".repeat(786_432 - 2) + "{}");
    assert_ne!(fits.send(&endpoint, &mut Host::seed()).status, 413);
    let over = Request::post_raw(" ".repeat(786_433 - 2) + "{}");
    assert_eq!(over.send(&endpoint, &mut Host::seed()).status, 413);
    let configured = endpoint_with(Config::new().enable_creation().body_budget(1000));
    assert_eq!(configured.body_budget(), 1000);
}
