//! `prepare_update` (SURFACE.md §11's `prepareUpdate`): outside the
//! endpoint, the host input update_document's effect would carry for the
//! same arguments — the canonical plan with ids minted from the given
//! source and the fingerprint of the submitted values — or the plan's
//! issues, or nothing where the endpoint answers -32602.

mod common;

use chopin_mcp::{PreparedUpdate, SequentialIds, prepare_update};
use common::{Host, Request, call, read_write};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const CALLOUT: &str = "<Callout type=\"note\">\nA note.\n</Callout>\n";

fn update(plan: &str) -> Value {
    json!({"id": ID, "revision": 4, "plan": plan, "idempotencyKey": "update-plan-1"})
}

fn prepared(arguments: &str) -> Option<PreparedUpdate> {
    prepare_update(arguments, &SequentialIds::new(1_750_000_000_000))
}

#[test]
fn it_gives_what_the_endpoint_s_update_effect_carries() {
    for plan in ["# Revised\n\nUpdated prose.\n", CALLOUT] {
        let mut host = Host::seed();
        Request::post(&call(json!(1), "update_document", update(plan)))
            .send(&read_write(), &mut host);
        let Some(PreparedUpdate::Update(input)) = prepared(&update(plan).to_string()) else {
            panic!("a clean plan is prepared");
        };
        assert_eq!(input, host.update_inputs[0], "{plan}");
    }
}

#[test]
fn minted_ids_come_from_the_source_and_the_fingerprint_from_the_submitted_plan() {
    let Some(PreparedUpdate::Update(input)) = prepared(&update(CALLOUT).to_string()) else {
        panic!("a clean callout is prepared");
    };
    assert!(input.plan.starts_with("<Callout id=\""), "{}", input.plan);
    assert_ne!(input.plan, CALLOUT);
    assert_eq!(
        input.fingerprint,
        "47de85ef8680e43b358506492410405c7a195b8ae0b362546cb1d6b79ef3f01d"
    );
}

#[test]
fn a_plan_with_issues_gives_them() {
    let Some(PreparedUpdate::Issues(issues)) = prepared(&update("<Chart />\n").to_string()) else {
        panic!("an unknown component is an issue");
    };
    assert_eq!(issues[0].code, "unknown-component");
}

#[test]
fn arguments_the_endpoint_refuses_give_nothing() {
    let mut cases: Vec<String> = [
        json!({"id": ID, "revision": -1, "plan": "# A\n", "idempotencyKey": "k"}),
        json!({"id": ID, "revision": 1.5, "plan": "# A\n", "idempotencyKey": "k"}),
        json!({"id": ID, "revision": "4", "plan": "# A\n", "idempotencyKey": "k"}),
        json!({"id": " ", "revision": 4, "plan": "# A\n", "idempotencyKey": "k"}),
        json!({"id": ID, "revision": 4, "plan": " ", "idempotencyKey": "k"}),
        json!({"id": ID, "revision": 4, "plan": "# A\n", "idempotencyKey": "x".repeat(129)}),
        json!({"id": ID, "revision": 4, "plan": "# A\n", "idempotencyKey": "k", "extra": true}),
        json!({"id": ID, "revision": 4, "plan": "# A\n"}),
        json!([1]),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    cases.extend(["", "{", "nul", "{\"id\":1}x", "[[[[", "\u{a0}{}"].map(str::to_owned));
    cases.push("[".repeat(100_000));
    for arguments in &cases {
        assert_eq!(prepared(arguments), None, "{arguments:.60}");
    }
}
