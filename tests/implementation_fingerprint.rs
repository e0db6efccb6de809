//! The replay fingerprint of a lifecycle call (IMPLEMENTATION.md §2.4): hex
//! SHA-256 of `{"idempotencyKey","tool","runId", fields in schema order}`.

use chopin_mcp::implementation::{Command, Event, Evidence, PrState, Verification, fingerprint};
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn the_specs_start_task_example_reproduces() {
    let object = r#"{"idempotencyKey":"start-claim","tool":"start_task","runId":"01K2XQ7Z0000000000000000R1","taskId":"claim"}"#;
    assert_eq!(object.len(), 106);
    let event = Event {
        idempotency_key: "start-claim".into(),
        command: Command::StartTask {
            task_id: "claim".into(),
        },
    };
    let print = fingerprint("01K2XQ7Z0000000000000000R1", &event);
    assert_eq!(
        print,
        "9e6575dd4cd6ad3043af53c17ee6e791baa9c6810dff6c70dd2d325b07cc2732"
    );
    assert_eq!(print, hex(object.as_bytes()));
}

#[test]
fn each_tool_writes_its_fields_in_its_input_schema_order() {
    let run = "R";
    let cases = [
        (
            Command::BlockTask {
                task_id: "t".into(),
                reason: "r".into(),
            },
            r#"{"idempotencyKey":"k","tool":"block_task","runId":"R","taskId":"t","reason":"r"}"#,
        ),
        (
            Command::ReportPr {
                task_id: "t".into(),
                url: "u".into(),
                state: PrState::Merged,
            },
            r#"{"idempotencyKey":"k","tool":"report_pr","runId":"R","taskId":"t","url":"u","state":"merged"}"#,
        ),
        (
            Command::CompleteTask {
                task_id: "t".into(),
                summary: "s".into(),
            },
            r#"{"idempotencyKey":"k","tool":"complete_task","runId":"R","taskId":"t","summary":"s"}"#,
        ),
        (
            Command::ReportVerification(Verification {
                passed: false,
                summary: "s".into(),
                reviewer_method: "m".into(),
                evidence: vec![Evidence {
                    task_id: "t".into(),
                    evidence: vec!["e2".into(), "e1".into()],
                }],
                tasks_needing_work: vec!["t".into()],
            }),
            r#"{"idempotencyKey":"k","tool":"report_verification","runId":"R","passed":false,"summary":"s","reviewerMethod":"m","evidence":[{"taskId":"t","evidence":["e2","e1"]}],"tasksNeedingWork":["t"]}"#,
        ),
        (
            Command::RequestRevision {
                reason: "\"quoted\"\n".into(),
            },
            r#"{"idempotencyKey":"k","tool":"request_revision","runId":"R","reason":"\"quoted\"\n"}"#,
        ),
    ];
    for (command, object) in cases {
        let event = Event {
            idempotency_key: "k".into(),
            command,
        };
        assert_eq!(fingerprint(run, &event), hex(object.as_bytes()), "{object}");
    }
}

#[test]
fn the_run_and_the_key_change_the_fingerprint() {
    let event = |key: &str| Event {
        idempotency_key: key.into(),
        command: Command::StartTask {
            task_id: "claim".into(),
        },
    };
    let base = fingerprint("R1", &event("k"));
    assert_ne!(base, fingerprint("R2", &event("k")));
    assert_ne!(base, fingerprint("R1", &event("k2")));
    assert_eq!(base, fingerprint("R1", &event("k")));
}
