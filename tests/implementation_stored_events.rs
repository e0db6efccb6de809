//! Stored events (`EVENT`, IMPLEMENTATION.md §2.3 and §4): written as
//! compact JSON in schema order with `kind` the tool's name and no `runId`,
//! read back exactly; anything else in a stored log is `invalid-lifecycle`.

mod common;

use chopin_mcp::implementation::{Event, PrState, Refusal};
use common::implementation::{block, complete, report_pr, revise, start, verify};

fn event(command: chopin_mcp::implementation::Command) -> Event {
    Event {
        idempotency_key: "k".into(),
        command,
    }
}

#[test]
fn each_kind_is_written_in_schema_order_and_read_back() {
    let cases = [
        (
            start("a"),
            r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a"}"#,
        ),
        (
            block("a", "r"),
            r#"{"kind":"block_task","idempotencyKey":"k","taskId":"a","reason":"r"}"#,
        ),
        (
            report_pr("a", "u", PrState::Closed),
            r#"{"kind":"report_pr","idempotencyKey":"k","taskId":"a","url":"u","state":"closed"}"#,
        ),
        (
            complete("a", "s"),
            r#"{"kind":"complete_task","idempotencyKey":"k","taskId":"a","summary":"s"}"#,
        ),
        (
            verify(false, &["a"], &["a"]),
            r#"{"kind":"report_verification","idempotencyKey":"k","summary":"Reviewed.","passed":false,"reviewerMethod":"Read the diffs.","evidence":[{"taskId":"a","evidence":["a works."]}],"tasksNeedingWork":["a"]}"#,
        ),
        (
            revise("r"),
            r#"{"kind":"request_revision","idempotencyKey":"k","reason":"r"}"#,
        ),
    ];
    for (command, json) in cases {
        let written = event(command);
        assert_eq!(String::from_utf8(written.to_json()).unwrap(), json);
        assert_eq!(Event::from_json(json.as_bytes()), Ok(written));
    }
}

#[test]
fn a_stored_event_not_exactly_its_kinds_shape_is_invalid_lifecycle() {
    for text in [
        r#"{"kind":"start_task","idempotencyKey":"k"}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a","reason":"r"}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a","reason":null}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":null}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a","runId":"R"}"#,
        r#"{"kind":"start_task","taskId":"a"}"#,
        r#"{"kind":"begin_task","idempotencyKey":"k","taskId":"a"}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":7}"#,
        r#"{"kind":"report_pr","idempotencyKey":"k","taskId":"a","url":"u","state":"draft"}"#,
        r#"{"kind":"request_revision","idempotencyKey":"k","reason":"r","taskId":"a"}"#,
        r#"{"kind":"report_verification","idempotencyKey":"k","summary":"s","passed":true,"reviewerMethod":"m","evidence":[{"taskId":"a"}],"tasksNeedingWork":[]}"#,
        r#"{"kind":"report_verification","idempotencyKey":"k","summary":"s","passed":true,"reviewerMethod":"m","evidence":[],"tasksNeedingWork":[],"reason":"r"}"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a","taskId":"b"}"#,
        r#"["start_task"]"#,
        r#"{"kind":"start_task","idempotencyKey":"k","taskId":"a"}x"#,
        "",
        "\u{0}",
    ] {
        assert_eq!(
            Event::from_json(text.as_bytes()),
            Err(Refusal::InvalidLifecycle),
            "{text}"
        );
    }
}

#[test]
fn texts_are_escaped_as_json_stringify_does() {
    let written = event(block("a", "line\n\"quoted\" \u{1} é"));
    assert_eq!(
        String::from_utf8(written.to_json()).unwrap(),
        r#"{"kind":"block_task","idempotencyKey":"k","taskId":"a","reason":"line\n\"quoted\" \u0001 é"}"#
    );
    assert_eq!(Event::from_json(&written.to_json()), Ok(written));
}
