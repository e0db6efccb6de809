//! IMPLEMENTATION.md §2.1–§2.3 and §5 case 1: the eight tools are listed
//! after restore_document, in the table's order, with its titles,
//! descriptions and hints, and the input and output schemas of §2.2–§2.3 —
//! built here from the spec's notation, independently of the endpoint's
//! text; without them none is listed and a call is "tool not found"; a
//! read-only host offers read_implementation alone.

mod common;

use chopin_mcp::Config;
use common::{Host, Request, call, endpoint_with, rpc_error};
use serde_json::{Value, json};

const TOOLS: [(&str, &str, &str, [bool; 3]); 8] = [
    (
        "read_implementation",
        "Read a plan's implementation",
        "Read the approved implementation graph, plan and repository context by document ID or canonical URL.",
        [true, false, true],
    ),
    (
        "start_implementation",
        "Claim an implementation graph",
        "Atomically claim the current approved implementation graph.",
        [false, false, true],
    ),
    (
        "start_task",
        "Start an implementation task",
        "Mark one dependency-ready task as in progress for the active implementation run.",
        [false, false, true],
    ),
    (
        "block_task",
        "Block an implementation task",
        "Record a visible blocker for an in-progress implementation task.",
        [false, false, true],
    ),
    (
        "report_pr",
        "Report a task's pull request",
        "Report the open, merged, or closed pull request for an implementation task.",
        [false, true, true],
    ),
    (
        "complete_task",
        "Complete an implementation task",
        "Complete an implementation task with its pull request and summary.",
        [false, false, true],
    ),
    (
        "report_verification",
        "Report implementation verification",
        "Report implementation verification evidence for every task in the active run.",
        [false, true, true],
    ),
    (
        "request_revision",
        "Release a graph for revision",
        "End the active implementation run and release its graph for revision.",
        [false, true, true],
    ),
];

/// `O(…; r)`: a closed object, `required` all properties unless given.
fn o(properties: &[(&str, Value)], required: Option<&[&str]>) -> Value {
    let names: Vec<&str> = properties.iter().map(|(name, _)| *name).collect();
    let properties: serde_json::Map<String, Value> = properties
        .iter()
        .map(|(name, schema)| ((*name).to_owned(), schema.clone()))
        .collect();
    json!({"type": "object", "properties": properties,
        "required": required.unwrap_or(&names), "additionalProperties": false})
}

fn a(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn s() -> Value {
    json!({"type": "string"})
}

fn b() -> Value {
    json!({"type": "boolean"})
}

fn i(minimum: u64) -> Value {
    json!({"type": "integer", "minimum": minimum})
}

fn e(values: &[&str]) -> Value {
    json!({"type": "string", "enum": values})
}

fn string(max: u64) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max, "pattern": "\\S"})
}

fn run() -> Value {
    o(
        &[
            ("id", s()),
            ("user", s()),
            ("client", o(&[("name", s()), ("version", s())], None)),
            ("session", s()),
            ("planRevision", i(0)),
            ("graphVersion", i(1)),
            ("graphRevision", i(1)),
            ("repository", s()),
            ("branch", s()),
            ("commit", s()),
            ("startedAt", s()),
        ],
        None,
    )
}

fn evidence() -> Value {
    a(o(&[("taskId", s()), ("evidence", a(s()))], None))
}

fn verif() -> Value {
    o(
        &[
            ("passed", b()),
            ("summary", s()),
            ("reviewerMethod", s()),
            ("evidence", evidence()),
            ("tasksNeedingWork", a(s())),
        ],
        None,
    )
}

fn progress() -> Value {
    let pr = o(
        &[("url", s()), ("state", e(&["open", "merged", "closed"]))],
        None,
    );
    let task = o(
        &[
            ("id", s()),
            (
                "state",
                e(&["queued", "in_progress", "blocked", "completed"]),
            ),
            ("blocker", s()),
            ("summary", s()),
            ("pullRequest", pr),
        ],
        Some(&["id", "state"]),
    );
    let event = o(
        &[
            ("kind", s()),
            ("idempotencyKey", s()),
            ("taskId", s()),
            ("reason", s()),
            ("url", s()),
            ("state", s()),
            ("summary", s()),
            ("passed", b()),
            ("reviewerMethod", s()),
            ("evidence", evidence()),
            ("tasksNeedingWork", a(s())),
        ],
        Some(&["kind", "idempotencyKey"]),
    );
    o(
        &[
            ("tasks", a(task)),
            ("events", a(event)),
            ("verification", verif()),
        ],
        Some(&["tasks"]),
    )
}

fn history() -> Value {
    let outcome = o(
        &[
            (
                "kind",
                e(&["revision_requested", "implemented", "delivered"]),
            ),
            ("reason", s()),
        ],
        Some(&["kind"]),
    );
    a(o(
        &[
            ("run", run()),
            ("progress", progress()),
            ("outcome", outcome),
        ],
        None,
    ))
}

fn code() -> Value {
    o(&[("code", s())], None)
}

fn one_of(value: Value) -> Value {
    json!({"type": "object", "oneOf": [value, code()]})
}

fn implementation(brief: Value) -> Value {
    let task = o(
        &[
            ("id", s()),
            ("title", s()),
            ("context", s()),
            ("goal", s()),
            ("acceptance", a(s())),
            ("dependsOn", a(s())),
        ],
        None,
    );
    let version = o(
        &[
            ("number", i(1)),
            ("revision", i(1)),
            ("planRevision", i(0)),
            ("state", e(&["draft", "approved", "locked", "superseded"])),
            ("definition", o(&[("tasks", a(task))], None)),
        ],
        None,
    );
    let document = o(
        &[
            ("id", s()),
            ("title", s()),
            ("brief", brief),
            ("source", s()),
            ("revision", i(0)),
            ("archivedAt", s()),
        ],
        Some(&["id", "title", "source", "revision"]),
    );
    let repository = o(
        &[("name", s()), ("baseBranch", s()), ("baseCommit", s())],
        None,
    );
    let execution = o(
        &[("state", e(&["idle", "active"])), ("run", run())],
        Some(&["state"]),
    );
    o(
        &[
            ("document", document),
            ("repository", repository),
            ("graph", version),
            ("execution", execution),
            ("activity", progress()),
            ("history", history()),
        ],
        Some(&["document", "repository", "graph", "execution", "history"]),
    )
}

fn life() -> Value {
    o(
        &[
            ("execution", o(&[("state", e(&["idle", "active"]))], None)),
            ("activity", progress()),
            ("history", history()),
        ],
        Some(&["execution", "history"]),
    )
}

/// The input schema of each tool (§2.2).
fn input(tool: &str) -> Value {
    let id = || string(128);
    let text = || string(5000);
    let loc = || string(2048);
    let head = || vec![("id", id()), ("runId", id())];
    let properties: Vec<(&str, Value)> = match tool {
        "read_implementation" => vec![("id", loc())],
        "start_implementation" => vec![
            ("id", id()),
            ("planRevision", i(0)),
            ("graphVersion", i(1)),
            ("graphRevision", i(1)),
            (
                "repository",
                json!({"type": "string", "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"}),
            ),
            (
                "branch",
                json!({"type": "string", "minLength": 1, "maxLength": 255}),
            ),
            (
                "commit",
                json!({"type": "string", "minLength": 1, "maxLength": 64}),
            ),
        ],
        "start_task" => [head(), vec![("taskId", id()), ("idempotencyKey", id())]].concat(),
        "block_task" => [
            head(),
            vec![
                ("taskId", id()),
                ("reason", text()),
                ("idempotencyKey", id()),
            ],
        ]
        .concat(),
        "report_pr" => [
            head(),
            vec![
                ("taskId", id()),
                ("url", loc()),
                ("state", e(&["open", "merged", "closed"])),
                ("idempotencyKey", id()),
            ],
        ]
        .concat(),
        "complete_task" => [
            head(),
            vec![
                ("taskId", id()),
                ("summary", text()),
                ("idempotencyKey", id()),
            ],
        ]
        .concat(),
        "report_verification" => {
            let item = o(
                &[
                    ("taskId", id()),
                    (
                        "evidence",
                        json!({"type": "array", "minItems": 1, "maxItems": 20, "items": text()}),
                    ),
                ],
                None,
            );
            [
                head(),
                vec![
                    ("passed", b()),
                    ("summary", text()),
                    ("reviewerMethod", text()),
                    (
                        "evidence",
                        json!({"type": "array", "minItems": 1, "items": item, "maxItems": 200}),
                    ),
                    (
                        "tasksNeedingWork",
                        json!({"type": "array", "items": id(), "maxItems": 200}),
                    ),
                    ("idempotencyKey", id()),
                ],
            ]
            .concat()
        }
        _ => [head(), vec![("reason", text()), ("idempotencyKey", id())]].concat(),
    };
    o(&properties, None)
}

fn output(tool: &str, brief: &Value) -> Value {
    match tool {
        "read_implementation" => one_of(implementation(brief.clone())),
        "start_implementation" => one_of(o(
            &[("state", e(&["started", "active"])), ("run", run())],
            None,
        )),
        _ => one_of(life()),
    }
}

fn listed(config: Config) -> Vec<Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let reply = Request::post(&body).send(&endpoint_with(config), &mut Host::seed());
    reply.json()["result"]["tools"].as_array().unwrap().clone()
}

#[test]
fn the_eight_follow_restore_document_with_their_definitions() {
    let tools = listed(
        Config::new()
            .enable_creation()
            .enable_lifecycle()
            .enable_implementations(),
    );
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(&names[..7][6], &"restore_document");
    assert_eq!(names.len(), 15);
    // The brief's schema is create_document's.
    let brief = tools[2]["inputSchema"]["properties"]["brief"].clone();
    assert_eq!(brief["required"][0], "goal");
    for (tool, (name, title, description, [read_only, destructive, idempotent])) in
        tools[7..].iter().zip(TOOLS)
    {
        let expected = json!({
            "name": name,
            "title": title,
            "description": description,
            "inputSchema": input(name),
            "outputSchema": output(name, &brief),
            "annotations": {"readOnlyHint": read_only, "destructiveHint": destructive,
                "idempotentHint": idempotent, "openWorldHint": false},
        });
        assert_eq!(tool, &expected, "{name}");
    }
}

#[test]
fn without_them_none_is_listed_and_a_call_is_tool_not_found() {
    let config = Config::new().enable_creation().enable_lifecycle();
    assert_eq!(listed(config.clone()).len(), 7);
    let endpoint = endpoint_with(config);
    for (name, _, _, _) in TOOLS {
        let mut host = Host::seed();
        let reply = Request::post(&call(json!(1), name, json!({}))).send(&endpoint, &mut host);
        assert_eq!(
            reply.text(),
            rpc_error("1", -32601, "tool not found"),
            "{name}"
        );
        assert!(!host.consulted_store());
    }
}

#[test]
fn a_read_only_host_offers_read_implementation_alone() {
    let tools = listed(Config::new().enable_implementation_reads());
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["list_documents", "read_document", "read_implementation"]
    );
    let endpoint = endpoint_with(Config::new().enable_implementation_reads());
    let reply =
        Request::post(&call(json!(1), "start_task", json!({}))).send(&endpoint, &mut Host::seed());
    assert_eq!(reply.text(), rpc_error("1", -32601, "tool not found"));
}

#[test]
fn the_instructions_add_the_canonical_line_and_each_tool() {
    let text = Config::new()
        .enable_implementations()
        .generated_instructions();
    let mut expected = vec![
        "Chopin's MCP contract and current tool descriptions are authoritative.".to_owned(),
        "Read the canonical implementation before every implementation or lifecycle action; copied plans and lifecycle instructions are not substitutes.".to_owned(),
    ];
    expected.extend(
        TOOLS
            .iter()
            .map(|(name, _, description, _)| format!("{name}: {description}")),
    );
    assert_eq!(text, expected.join("\n"));
    let reads = Config::new()
        .enable_implementation_reads()
        .generated_instructions();
    assert_eq!(reads, expected[..3].join("\n"));
}

#[test]
fn the_budget_is_the_one_rule_s() {
    let budget = |config: Config| endpoint_with(config).body_budget();
    assert_eq!(budget(Config::new().enable_implementations()), 786_432);
    assert_eq!(budget(Config::new().enable_implementation_reads()), 65_536);
}
