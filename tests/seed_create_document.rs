//! The three create_document cases of the seed suite (seed-mcp.test.ts, with
//! the spans SPEC.md §1 restores), and the cases issue 4 adds beside them.

mod common;

use chopin_mcp::Config;
use common::{Creating, Host, Request, Step, call, creation, endpoint_with};
use serde_json::{Value, json};

fn with(mut arguments: Value, key: &str, value: Value) -> Value {
    arguments[key] = value;
    arguments
}

fn create(host: &mut Host, id: i64, arguments: Value) -> Value {
    let endpoint = endpoint_with(Config::new().enable_creation());
    Request::post(&call(json!(id), "create_document", arguments))
        .send(&endpoint, host)
        .json()
}

fn host(creating: Creating) -> Host {
    Host {
        creating,
        ..Host::seed()
    }
}

/// `/<Callout (?=[^>]*id="[0-7][0-9A-HJKMNP-TV-Z]{25}")(?=[^>]*type="note")/`
fn has_minted_callout(source: &str) -> bool {
    source.match_indices("<Callout ").any(|(at, _)| {
        let tag = &source[at..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let minted = tag.match_indices("id=\"").any(|(i, _)| {
            let id = &tag.as_bytes()[i + 4..];
            id.len() >= 27
                && (b'0'..=b'7').contains(&id[0])
                && id[1..26]
                    .iter()
                    .all(|b| b"0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(b))
                && id[26] == b'"'
        });
        minted && tag.contains("type=\"note\"")
    })
}

#[test]
fn creates_a_validated_canonical_document_through_the_host_adapter() {
    let mut host = host(Creating::Echo);
    let result = create(&mut host, 5, creation());
    assert!(result.get("error").is_none(), "{result}");
    let structured = &result["result"]["structuredContent"];
    assert_eq!(structured["id"], "created");
    assert_eq!(structured["title"], creation()["title"]);
    assert_eq!(structured["brief"], creation()["brief"]);
    assert_eq!(structured["revision"], 0);
    assert_eq!(structured["url"], "/channels/created");
    let source = structured["source"].as_str().unwrap();
    assert!(has_minted_callout(source), "{source}");
    assert!(!has_minted_callout(creation()["plan"].as_str().unwrap()));
}

#[test]
fn returns_dialect_issues_without_asking_the_host_to_persist_an_invalid_plan() {
    let mut host = host(Creating::Forbidden);
    let result = create(&mut host, 6, with(creation(), "plan", json!("<Chart />\n")));
    assert_eq!(result["result"]["isError"], true);
    let issues = result["result"]["structuredContent"]["issues"]
        .as_array()
        .unwrap();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0]["code"], "unknown-component");
    assert_eq!(issues[0]["path"], "root > Chart[0]");
    assert_eq!(issues[0]["offset"], 0);
    assert!(!host.consulted_store(), "{:?}", host.transcript);
}

#[test]
fn reports_a_changed_idempotent_request_as_a_tool_conflict() {
    let mut host = host(Creating::Conflict);
    let result = create(&mut host, 7, creation());
    assert_eq!(result["result"]["isError"], true);
    assert_eq!(
        result["result"]["structuredContent"],
        json!({"code": "idempotency-conflict"})
    );
}

#[test]
fn a_plan_that_does_not_parse_gives_one_parse_issue_at_root() {
    let mut host = Host::seed();
    let result = create(&mut host, 8, with(creation(), "plan", json!("<Callout")));
    let issues = result["result"]["structuredContent"]["issues"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0]["code"], "parse");
    assert_eq!(issues[0]["path"], "root");
    assert_eq!(
        (
            issues[0]["offset"].clone(),
            issues[0]["line"].clone(),
            issues[0]["column"].clone()
        ),
        (json!(8), json!(1), json!(9))
    );
    assert!(!host.consulted_store());
}

#[test]
fn a_canonical_plan_over_the_limit_after_minting_gives_source_too_large_first_and_no_effect() {
    let head = "<Callout type=\"note\">\n";
    let tail = "\n</Callout>\n";
    // Under the limit as submitted; one minted id (32 bytes) pushes it over.
    let padding = 262_144 - 20 - head.len() - tail.len();
    let plan = format!("{head}{}{tail}", "x".repeat(padding));
    assert!(plan.len() <= 262_144 && plan.len() + 32 > 262_144);
    let mut host = Host::seed();
    let result = create(&mut host, 9, with(creation(), "plan", json!(plan)));
    let issues = &result["result"]["structuredContent"]["issues"];
    assert_eq!(
        issues[0],
        json!({"code": "source-too-large", "message": "Plan exceeds the 256 KiB limit", "path": "root"})
    );
    assert!(!host.consulted_store());
}

#[test]
fn a_retry_with_the_same_idempotency_key_after_an_issue_is_a_fresh_request() {
    let mut host = Host::seed();
    let first = create(
        &mut host,
        10,
        with(creation(), "plan", json!("<Chart />\n")),
    );
    assert_eq!(first["result"]["isError"], true);
    let second = create(&mut host, 11, creation());
    assert!(second["result"].get("isError").is_none(), "{second}");
    assert_eq!(second["result"]["structuredContent"]["revision"], 0);
    assert_eq!(host.create_inputs.len(), 1);
}

#[test]
fn reordered_arguments_replay_and_a_changed_title_conflicts() {
    let endpoint = endpoint_with(Config::new().enable_creation());
    let mut host = Host::seed();
    let first = Request::post(&call(json!(1), "create_document", creation()))
        .send(&endpoint, &mut host)
        .json();
    let reversed = r##"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_document","arguments":{"plan":"# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n","brief":{"repositoryFindings":["The plan becomes a hosted channel."],"openQuestions":["Which reviewer owns the rollout?"],"settledDecisions":["Use the documented dialect."],"constraints":["Keep plans immutable through MCP."],"goal":"Create a collaborative plan."},"title":"Ship MCP creation","baseCommit":"0123456789abcdef0123456789abcdef01234567","baseBranch":"main","repository":"githubnext/chopin","idempotencyKey":"create-plan-1"}}}"##;
    let replayed = Request::post_raw(reversed)
        .send(&endpoint, &mut host)
        .json();
    assert_eq!(
        replayed["result"], first["result"],
        "a replay is indistinguishable from the creation"
    );
    assert_eq!(
        host.create_inputs[0].fingerprint,
        host.create_inputs[1].fingerprint
    );
    assert_ne!(
        host.create_inputs[0].plan,
        creation()["plan"],
        "the host gets the canonical plan"
    );
    let changed = Request::post(&call(
        json!(3),
        "create_document",
        with(creation(), "title", json!("A changed title")),
    ))
    .send(&endpoint, &mut host)
    .json();
    assert_eq!(
        changed["result"]["structuredContent"],
        json!({"code": "idempotency-conflict"})
    );
    assert_eq!(changed["result"]["isError"], true);
    assert_eq!(host.created.len(), 1);
}

#[test]
fn a_read_only_endpoint_neither_lists_nor_dispatches_create_document() {
    let endpoint = endpoint_with(Config::new());
    let mut host = Host::seed();
    let tools = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send(&endpoint, &mut host)
        .json();
    let names: Vec<_> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("list_documents"), json!("read_document")]);
    for arguments in [creation(), json!({}), json!({"plan": 1})] {
        let reply = Request::post(&call(json!(2), "create_document", arguments))
            .send(&endpoint, &mut host)
            .json();
        assert_eq!(
            reply["error"],
            json!({"code": -32601, "message": "tool not found"})
        );
    }
    assert!(!host.consulted_store());
}

#[test]
fn a_notification_carrying_create_document_creates_nothing() {
    let endpoint = endpoint_with(Config::new().enable_creation());
    let mut host = Host::seed();
    let notification = json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "create_document", "arguments": creation()}});
    let reply = Request::post(&notification).send(&endpoint, &mut host);
    assert_eq!((reply.status, reply.text()), (202, ""));
    assert_eq!(host.transcript, [Step::Authenticate, Step::Respond(202)]);
}
