//! update_document's argument check (LIFECYCLE.md §1, §2): exactly `id`,
//! `revision`, `plan` and `idempotencyKey`; a locator of 1–2048 scalar
//! values; a revision read as JavaScript reads a number, then a safe
//! integer ≥ 0; a plan and a key that are not blank. Every refusal is the
//! one `-32602` message (the error result's text in 2026-07-28), and the
//! host is never asked.

mod common;

use common::{Step, assert_refused, read_write, tool_call};
use serde_json::{Value, json};

const MESSAGE: &str = "update_document requires a valid revision and plan";
const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn arguments() -> Value {
    json!({"id": ID, "revision": 4, "plan": "# Revised\n\nUpdated prose.\n", "idempotencyKey": "update-plan-1"})
}

fn with(name: &str, value: Value) -> Value {
    let mut arguments = arguments();
    arguments[name] = value;
    arguments
}

fn without(name: &str) -> Value {
    let mut arguments = arguments();
    arguments.as_object_mut().unwrap().remove(name);
    arguments
}

/// Each argument body, with `revision` spelled as raw JSON.
fn spelled(revision: &str) -> String {
    format!(r##"{{"id":"{ID}","revision":{revision},"plan":"# Revised\n","idempotencyKey":"k"}}"##)
}

/// The revision the host is asked with, for arguments spelled raw.
fn host_revision(arguments: &str) -> Option<u64> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"update_document","arguments":{arguments}}}}}"#
    );
    let mut host = common::Host::seed();
    let reply = common::Request::post_raw(body).send(&read_write(), &mut host);
    assert_eq!(reply.status, 200);
    host.update_inputs.first().map(|input| input.revision)
}

#[test]
fn every_row_of_the_argument_table_is_refused_before_the_host() {
    let cases = [
        with("revision", json!(-1)),
        with("revision", json!(1.5)),
        with("revision", json!("4")),
        with("revision", json!(null)),
        with("revision", json!(9_007_199_254_740_992_u64)),
        with("revision", json!(true)),
        with("revision", json!([4])),
        with("id", json!(" \t\u{3000}")),
        with("id", json!("")),
        with("id", json!("x".repeat(2049))),
        with("id", json!(7)),
        with("idempotencyKey", json!("k".repeat(129))),
        with("idempotencyKey", json!("")),
        with("idempotencyKey", json!(" ")),
        with("plan", json!("")),
        with("plan", json!("\n \n")),
        with("plan", json!(["# Plan"])),
        with("extra", json!(1)),
        without("id"),
        without("revision"),
        without("plan"),
        without("idempotencyKey"),
        json!({}),
    ];
    for arguments in cases {
        assert_refused(&read_write(), "update_document", &arguments, MESSAGE);
    }
}

#[test]
fn revisions_javascript_reads_as_4_are_4_and_minus_zero_is_0() {
    for (revision, expected) in [
        ("4", 4),
        ("4.0", 4),
        ("4e0", 4),
        ("4.0000000000000001", 4),
        ("0.4E1", 4),
        ("-0", 0),
        ("9007199254740991", 9_007_199_254_740_991),
    ] {
        assert_eq!(
            host_revision(&spelled(revision)),
            Some(expected),
            "{revision}"
        );
    }
    for revision in ["1e400", "-1e400", "9007199254740992", "-1", "4.5", "\"4\""] {
        assert_eq!(host_revision(&spelled(revision)), None, "{revision}");
    }
}

#[test]
fn the_limits_count_scalar_values_and_the_locator_is_passed_as_sent() {
    let emoji = "😀".repeat(2048);
    for id in [
        emoji.as_str(),
        "  spaced id  ",
        "https://chopin.example/documents/x?y",
    ] {
        for modern in [false, true] {
            let request = tool_call("update_document", &with("id", json!(id)), modern);
            let (reply, transcript) = request.exchange(&read_write());
            assert_eq!(reply.status, 200);
            assert_eq!(transcript[1], Step::Update(id.to_owned()), "{id}");
        }
    }
    let key = "🔑".repeat(128);
    let (_, transcript) = tool_call(
        "update_document",
        &with("idempotencyKey", json!(key)),
        false,
    )
    .exchange(&read_write());
    assert_eq!(transcript[1], Step::Update(ID.to_owned()));
}

#[test]
fn among_duplicate_keys_the_last_one_wins() {
    let arguments = format!(
        r##"{{"revision":"4","id":"{ID}","revision":4,"plan":"# Revised\n","idempotencyKey":"k"}}"##
    );
    assert_eq!(host_revision(&arguments), Some(4));
    let arguments = format!(
        r##"{{"revision":4,"id":"{ID}","revision":-1,"plan":"# Revised\n","idempotencyKey":"k"}}"##
    );
    assert_eq!(host_revision(&arguments), None);
}
