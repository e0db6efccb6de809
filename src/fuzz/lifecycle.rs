//! The write tools in the fuzz bodies: answering their effects (every
//! answer of each), and `update`, the structure-aware target for
//! `update_document`'s arguments.

use bytes::Bytes;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::{Cursor, check_effect_plan, check_response, endpoint};
use crate::{
    ArchiveAnswer, ArchiveDocument, ArchivedDocument, DocumentSummary, Header, Outcome,
    RenameAnswer, RenameDocument, RequestParts, RestoreAnswer, RestoreDocument, SequentialIds,
    UpdateAnswer, UpdateDocument, UpdatedDocument, dialect,
};

/// Answers an update effect with one of its nine answers, after checking
/// that it carries a clean canonical plan.
pub(super) fn answer_update(update: UpdateDocument<u8>, choice: u8) -> Outcome<u8> {
    let input = update.update();
    check_effect_plan(&input.plan, &input.fingerprint);
    let document = UpdatedDocument {
        id: "doc".into(),
        title: "Title".into(),
        brief: None,
        source: input.plan.clone(),
        revision: input.revision.saturating_add(1),
        url: "/documents/doc".into(),
    };
    update.answer(match choice % 9 {
        0 => UpdateAnswer::Updated(&document),
        1 => UpdateAnswer::Replayed(&document),
        2 => UpdateAnswer::Conflict,
        3 => UpdateAnswer::RevisionConflict(u64::from(choice)),
        4 => UpdateAnswer::Locked,
        5 => UpdateAnswer::Protected,
        6 => UpdateAnswer::Archived,
        7 => UpdateAnswer::Forbidden,
        _ => UpdateAnswer::Unavailable,
    })
}

/// Answers a rename effect; its title arrives trimmed and not empty.
pub(super) fn answer_rename(rename: RenameDocument<u8>, choice: u8) -> Outcome<u8> {
    let title = rename.title();
    assert!(!title.is_empty(), "an empty title reached the host");
    assert_eq!(
        title.trim_matches(dialect::is_js_whitespace),
        title,
        "an untrimmed title reached the host"
    );
    let renamed = DocumentSummary {
        archived_at: None,
        description: None,
        id: "doc".into(),
        title: title.to_owned(),
    };
    rename.answer(match choice % 5 {
        0 => RenameAnswer::Renamed(&renamed),
        1 => RenameAnswer::Archived,
        2 => RenameAnswer::Conflict,
        3 => RenameAnswer::Forbidden,
        _ => RenameAnswer::Unavailable,
    })
}

pub(super) fn answer_archive(archive: ArchiveDocument<u8>, choice: u8) -> Outcome<u8> {
    let archived = ArchivedDocument {
        description: None,
        id: "doc".into(),
        title: "Title".into(),
        archived_at: "2026-08-23T12:34:56.000Z".into(),
    };
    archive.answer(match choice % 3 {
        0 => ArchiveAnswer::Archived(&archived),
        1 => ArchiveAnswer::Forbidden,
        _ => ArchiveAnswer::Unavailable,
    })
}

pub(super) fn answer_restore(restore: RestoreDocument<u8>, choice: u8) -> Outcome<u8> {
    let restored = DocumentSummary {
        archived_at: None,
        description: None,
        id: "doc".into(),
        title: "Title".into(),
    };
    restore.answer(match choice % 3 {
        0 => RestoreAnswer::Restored(&restored),
        1 => RestoreAnswer::Forbidden,
        _ => RestoreAnswer::Unavailable,
    })
}

/// Revision spellings: the first seven are revisions (LIFECYCLE.md §2),
/// the others are refused.
const REVISIONS: [&str; 16] = [
    "4",
    "4.0",
    "4e0",
    "4.0000000000000001",
    "-0",
    "0",
    "9007199254740991",
    "-1",
    "1.5",
    "\"4\"",
    "null",
    "1e400",
    "9007199254740992",
    "true",
    "[4]",
    "{}",
];

const MESSAGE: &str = "update_document requires a valid revision and plan";

/// `update`: structure-aware update_document calls in either era. The
/// arguments come from the input (locator, key, plan, a revision spelled
/// from a list or by the input, a key left out or one added); the
/// expectation is worked out apart from the endpoint. An invalid call gets
/// its `-32602` (legacy) or its error text (modern) and no effect; a plan
/// with issues gets them and no effect; otherwise the one update effect
/// carries the locator and key as sent, the revision as JavaScript reads
/// it, a clean canonical plan and the fingerprint of the submitted values.
pub fn update(data: &[u8]) {
    let mut input = Cursor { data };
    let control = input.byte();
    let choice = input.byte();
    let answer = input.byte();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let id = text(input.slice());
    let key = text(input.slice());
    let spelled = text(input.slice());
    let plan = text(input.rest());
    let id = if control & 1 == 0 {
        "doc-1".to_owned()
    } else {
        id
    };
    let key = if control & 2 == 0 {
        "key-1".to_owned()
    } else {
        key
    };
    // A revision spelled by the input, when it is one JSON value.
    let revision = match serde_json::from_str::<&RawValue>(&spelled) {
        Ok(raw) if control & 4 != 0 => raw.get().to_owned(),
        _ => REVISIONS[usize::from(choice) % REVISIONS.len()].to_owned(),
    };
    let string = |value: &str| serde_json::to_string(value).unwrap_or_default();
    let mut members = vec![
        ("id", string(&id)),
        ("revision", revision.clone()),
        ("plan", string(&plan)),
        ("idempotencyKey", string(&key)),
    ];
    let missing = control & 8 != 0;
    if missing {
        members.remove(usize::from(choice >> 4) % members.len());
    }
    let surplus = control & 16 != 0;
    if surplus {
        members.push(("surplus", "true".to_owned()));
    }
    let arguments = members
        .iter()
        .map(|(name, value)| format!("{name:?}:{value}"))
        .collect::<Vec<_>>()
        .join(",");
    let modern = control & 32 != 0;
    let meta = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"update_document","arguments":{{{arguments}}}{}}}}}"#,
        if modern { meta } else { "" }
    );
    let mut headers = vec![Header::new("authorization", b"Bearer x")];
    if modern {
        headers.extend([
            Header::new("mcp-protocol-version", b"2026-07-28"),
            Header::new("mcp-method", b"tools/call"),
            Header::new("mcp-name", b"update_document"),
        ]);
    }
    let parts = RequestParts::new("POST", "/mcp", &headers);

    let expected_revision = read_revision(&revision);
    let valid = !missing
        && !surplus
        && is_text(&id, 2048)
        && is_text(&key, 128)
        && is_text(&plan, 786_432)
        && expected_revision.is_some();
    let clean = valid
        && dialect::check(&plan, &SequentialIds::new(3))
            .issues
            .is_empty();

    let mut outcome = endpoint(786_432).handle(&parts, Bytes::from(body));
    let mut effects = Vec::new();
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.answer(Some(7)),
            Outcome::Update(effect) => {
                effects.push("update");
                let sent = effect.update();
                assert!(clean, "an update effect for an invalid call or plan");
                assert_eq!((&sent.id, &sent.idempotency_key), (&id, &key));
                assert_eq!(Some(sent.revision), expected_revision);
                assert_eq!(
                    sent.fingerprint,
                    fingerprint(&key, &id, sent.revision, &plan)
                );
                answer_update(effect, answer)
            }
            _ => unreachable!("an update call starts no other effect"),
        };
    };
    check_response(&response, &effects, true);
    assert_eq!(response.status(), 200);
    let reply: serde_json::Value =
        serde_json::from_slice(response.body()).expect("the reply is JSON");
    if !valid {
        let refused = match modern {
            false => reply["error"]["code"] == -32602 && reply["error"]["message"] == MESSAGE,
            true => {
                reply["result"]["isError"] == true
                    && reply["result"]["content"][0]["text"] == MESSAGE
            }
        };
        assert!(refused, "an invalid call was not refused: {reply}");
    } else if !clean {
        assert!(
            reply["result"]["structuredContent"]["issues"].is_array(),
            "a plan with issues was not answered with them"
        );
    }
    assert_eq!(effects.len(), usize::from(clean));
}

/// A string of at most `max` scalar values, not all whitespace.
fn is_text(value: &str, max: usize) -> bool {
    value.chars().count() <= max && !value.chars().all(dialect::is_js_whitespace)
}

/// The revision JavaScript reads from `raw`: `serde_json`'s number (its
/// own parser), then a safe integer ≥ 0.
fn read_revision(raw: &str) -> Option<u64> {
    let number = serde_json::from_str::<serde_json::Value>(raw)
        .ok()?
        .as_f64()?;
    let safe = (0.0..=9_007_199_254_740_991.0).contains(&number) && number.trunc() == number;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    safe.then_some(number as u64)
}

/// LIFECYCLE.md §2's fingerprint, written out apart from the endpoint's.
fn fingerprint(key: &str, id: &str, revision: u64, plan: &str) -> String {
    let string = |value: &str| serde_json::to_string(value).unwrap_or_default();
    let json = format!(
        r#"{{"idempotencyKey":{},"id":{},"revision":{revision},"plan":{}}}"#,
        string(key),
        string(id),
        string(plan)
    );
    Sha256::digest(json.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
