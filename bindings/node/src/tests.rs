//! The endpoint's steps and answers driven in Rust, without Node: what each
//! writes for JavaScript, and the misuses it refuses.

use std::borrow::Cow;

use super::*;

const HEADERS: &[u8] = b"authorization\0Bearer t\0content-type\0application/json\0";
const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"plan-1"}}}"#;

fn text(out: Result<&[u8], Misuse>) -> String {
    String::from_utf8(out.expect("a step").to_vec()).unwrap()
}

#[test]
fn a_read_goes_authenticate_body_read_respond_and_frees_its_slot() {
    let mut core = Core::new("{}").unwrap();
    assert_eq!(text(core.start_listed(0, "POST", HEADERS)), "a");
    assert_eq!(text(core.authenticate(0, Verdict::Caller, &[], None)), "b");
    assert_eq!(text(core.finish(0, Some(READ.as_bytes()))), "rplan-1");
    assert_eq!(core.in_flight(), 1);
    let document = DocumentRef {
        archived_at: None,
        description: None,
        url: None,
        id: Some("plan-1"),
        title: "Plan",
        source: "# Plan\n",
        revision: 2,
    };
    let out = text(core.answer_found(0, document, None));
    let (head, body) = out.split_once('\0').unwrap();
    assert!(
        head.starts_with("H0200\ncontent-type\napplication/json\n"),
        "{head}"
    );
    assert!(body.contains(
        r##""structuredContent":{"id":"plan-1","title":"Plan","source":"# Plan\n","revision":2}"##
    ));
    assert_eq!(core.in_flight(), 0);
    // The same head again is named by its id.
    core.start_listed(0, "POST", HEADERS).unwrap();
    core.authenticate(0, Verdict::Caller, &[], None).unwrap();
    core.finish(0, Some(READ.as_bytes())).unwrap();
    assert!(text(core.answer_absent(0)).starts_with("R0{"));
}

#[test]
fn a_body_from_the_apart_size_crosses_apart_from_its_head() {
    let mut core = Core::new("{}").unwrap();
    let read = |core: &mut Core, source: &str| {
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], Some(READ.as_bytes()))
            .unwrap();
        let document = DocumentRef {
            archived_at: None,
            description: None,
            url: None,
            id: Some("plan-1"),
            title: "Plan",
            source,
            revision: 2,
        };
        text(core.answer_found(0, document, None))
    };
    let small = "# Plan\n";
    assert!(read(&mut core, small).starts_with("H0"));
    let large = "# Plan\n\nA line of the plan.\n".repeat(wire::APART_FROM / 16);
    assert_eq!(read(&mut core, &large), "PR0");
    // The response waits in the slot until its body is taken.
    assert_eq!(core.in_flight(), 1);
    let response = core.body(0).unwrap();
    let body = std::str::from_utf8(response.body()).unwrap();
    assert!(
        body.starts_with(r#"{"jsonrpc":"2.0","id":4,"result":"#),
        "{body}"
    );
    assert!(body.len() >= wire::APART_FROM, "{}", body.len());
    assert_eq!(core.in_flight(), 0);
    assert!(core.body(0).is_err());
    // Below the size, the body is in the outcome again.
    assert!(read(&mut core, small).starts_with("R0{"));
}

#[test]
fn a_body_given_with_the_answer_is_pushed_and_finished() {
    let mut core = Core::new("{}").unwrap();
    core.start_listed(0, "POST", HEADERS).unwrap();
    let body = Some(READ.as_bytes());
    assert_eq!(
        text(core.authenticate(0, Verdict::Caller, &[], body)),
        "rplan-1"
    );
    // A refusal before the body ignores it.
    core.release(0);
    core.start_listed(0, "POST", HEADERS).unwrap();
    let out = text(core.authenticate(0, Verdict::Refused, &[], body));
    assert!(out.starts_with("H0401\n"), "{out}");
    // Over the budget: 413.
    let mut small = Core::new(r#"{"bodyBudget":8}"#).unwrap();
    small.start_listed(0, "POST", HEADERS).unwrap();
    let out = text(small.authenticate(0, Verdict::Caller, &[], body));
    assert!(out.ends_with("\0request too large"), "{out}");
}

#[test]
fn the_wrong_answer_is_a_misuse_and_the_exchange_still_waits() {
    let mut core = Core::new("{}").unwrap();
    core.start_listed(0, "POST", HEADERS).unwrap();
    let Misuse(message) = core.answer_absent(0).unwrap_err();
    assert_eq!(
        message,
        "the exchange in slot 0 waits for the authenticate answer, not read"
    );
    assert_eq!(text(core.authenticate(0, Verdict::Caller, &[], None)), "b");
    let Misuse(message) = core.push(1, b"x").unwrap_err();
    assert_eq!(message, "no exchange is waiting in slot 1");
}

#[test]
fn named_and_listed_headers_start_alike() {
    let mut core = Core::new(r#"{"allowedHosts":["mcp.example"]}"#).unwrap();
    let mut values = [None; wire::NAMED.len()];
    values[1] = Some(&b"mcp.example"[..]);
    values[3] = Some(&b"Bearer t"[..]);
    assert_eq!(text(core.start(0, "POST", &values)), "a");
    core.release(0);
    assert_eq!(
        text(core.start_listed(0, "POST", b"Host\0mcp.example\0authorization\0Bearer t")),
        "a"
    );
    core.release(0);
    values[1] = Some(&b"mcp.example, mcp.example"[..]);
    assert!(text(core.start(0, "POST", &values)).ends_with("host is not allowed"));
}

/// `start_answered` in slot 0 for a POST of READ by a caller with every
/// scope, the named values `read` and those marked the same (`same`).
fn answered(core: &mut Core, read: &[Option<&[u8]>; wire::NAMED.len()], same: u32) -> String {
    let values = NamedValues { read, same };
    let body = Some(Cow::Borrowed(READ.as_bytes()));
    text(core.start_answered(0, "POST", values, Verdict::Caller, &[], body))
}

#[test]
fn start_answered_is_start_then_authenticate() {
    let mut core = Core::new(r#"{"allowedHosts":["mcp.example"]}"#).unwrap();
    let mut values = [None; wire::NAMED.len()];
    values[1] = Some(&b"mcp.example"[..]);
    values[4] = Some(&b"2025-03-26"[..]);
    assert_eq!(answered(&mut core, &values, 0), "rplan-1");
    core.release(0);
    // An answer before authentication stands: the caller is not used.
    values[1] = Some(&b"elsewhere.example"[..]);
    let out = answered(&mut core, &values, 0);
    assert!(out.ends_with("host is not allowed"), "{out}");
    assert_eq!(core.in_flight(), 0);
    // A held body over the budget: 413, as a pushed one.
    let mut small = Core::new(r#"{"bodyBudget":8}"#).unwrap();
    values[1] = None;
    let out = answered(&mut small, &values, 0);
    assert!(
        out.starts_with("H0413\n") && out.ends_with("\0request too large"),
        "{out}"
    );
    assert_eq!(small.in_flight(), 0);
}

#[test]
fn start_answered_takes_a_value_marked_same_from_the_last_it_read() {
    let mut core = Core::new("{}").unwrap();
    const ACCEPT: usize = 5;
    let mut values = [None; wire::NAMED.len()];
    values[ACCEPT] = Some(&b"text/html"[..]);
    let refused = answered(&mut core, &values, 0);
    assert!(refused.starts_with("H0406\n"), "{refused}");
    // Marked the same, not passed: the Accept read last, refused again.
    let none = [None; wire::NAMED.len()];
    assert_eq!(answered(&mut core, &none, 1 << ACCEPT), "R0not acceptable");
    // Not marked: no Accept at all, as without the one before.
    let fresh = answered(&mut Core::new("{}").unwrap(), &none, 0);
    assert_eq!(answered(&mut core, &none, 0), fresh);
    core.release(0);
    // A value read replaces the one remembered.
    values[ACCEPT] = Some(&b"application/json, text/event-stream"[..]);
    assert_eq!(answered(&mut core, &values, 0), "rplan-1");
    core.release(0);
    assert_eq!(answered(&mut core, &none, 1 << ACCEPT), "rplan-1");
    core.release(0);
    assert_eq!(core.in_flight(), 0);
}

#[test]
fn slots_grow_one_at_a_time() {
    let mut core = Core::new("{}").unwrap();
    let Misuse(message) = core.start_listed(1, "POST", HEADERS).unwrap_err();
    assert_eq!(message, "slot 1 is past the next one (0)");
    for slot in 0..3 {
        assert_eq!(text(core.start_listed(slot, "POST", HEADERS)), "a");
    }
    assert_eq!(core.in_flight(), 3);
    core.release(1);
    assert_eq!(core.in_flight(), 2);
    assert_eq!(text(core.start_listed(1, "POST", HEADERS)), "a");
}

#[test]
fn a_push_over_the_budget_answers_413_and_frees_the_slot() {
    let mut core = Core::new(r#"{"bodyBudget":4}"#).unwrap();
    core.start_listed(0, "POST", HEADERS).unwrap();
    core.authenticate(0, Verdict::Caller, &[], None).unwrap();
    assert_eq!(text(core.push(0, b"1234")), "b");
    let out = text(core.push(0, b"5"));
    assert!(
        out.starts_with("H0413\n") && out.ends_with("\0request too large"),
        "{out}"
    );
    assert_eq!(core.in_flight(), 0);
}

#[test]
fn the_create_effect_carries_the_input_fields_as_json_and_its_plan_crosses_apart() {
    let mut core = Core::new(r#"{"create":true}"#).unwrap();
    let draft = r##"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_document","arguments":{"idempotencyKey":"k","repository":"o/r","baseBranch":"main","baseCommit":"c","title":"Tï","brief":{"goal":"G","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"plan":"# P\n"}}}"##;
    core.start_listed(0, "POST", HEADERS).unwrap();
    core.authenticate(0, Verdict::Caller, &[], None).unwrap();
    let out = text(core.finish(0, Some(draft.as_bytes())));
    let fields = out.strip_prefix('c').unwrap();
    let plan = std::str::from_utf8(core.plan(0).unwrap()).unwrap();
    assert!(
        fields.starts_with(r#"{"idempotencyKey":"k","repository":"o/r","baseBranch":"main","baseCommit":"c","title":"Tï","brief":{"goal":"G","#),
        "{fields}"
    );
    assert!(
        fields.contains(r#","fingerprint":""#)
            && fields.ends_with(r#","client":{"name":"unknown","version":"unknown"}}"#),
        "{fields}"
    );
    assert_eq!(plan, "# P\n");
    assert!(core.plan(1).is_err());
    let Misuse(message) = core
        .answer_create(0, CreateKind::Created, Some("{}"), None)
        .unwrap_err();
    assert!(
        message.starts_with("a created document: missing field"),
        "{message}"
    );
    // Without a source, the document's is the canonical plan.
    core.start_listed(0, "POST", HEADERS).unwrap();
    core.authenticate(0, Verdict::Caller, &[], None).unwrap();
    core.finish(0, Some(draft.as_bytes())).unwrap();
    let created = r#"{"id":"n","title":"T","brief":{"goal":"G","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"revision":0,"url":"/n"}"#;
    let out = text(core.answer_create(0, CreateKind::Created, Some(created), None));
    assert!(
        out.contains(r##""source":"# P\n","revision":0,"url":"/n"}"##),
        "{out}"
    );
}

/// Drives a `tools/call` of `tool` with `arguments` to its effect.
fn effect(core: &mut Core, tool: &str, arguments: &str) -> String {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    core.start_listed(0, "POST", HEADERS).unwrap();
    core.authenticate(0, Verdict::Caller, &[], None).unwrap();
    text(core.finish(0, Some(call.as_bytes())))
}

#[test]
fn the_lifecycle_effects_carry_their_input_and_take_their_answers() {
    let mut core =
        Core::new(r#"{"update":true,"rename":true,"archive":true,"restore":true}"#).unwrap();
    let out = effect(
        &mut core,
        "update_document",
        r##"{"id":"dï","revision":4,"plan":"# P\n","idempotencyKey":"k"}"##,
    );
    let fields = out.strip_prefix('u').unwrap();
    assert!(
        fields.starts_with(r#"{"id":"dï","revision":4,"idempotencyKey":"k","fingerprint":""#),
        "{fields}"
    );
    assert_eq!(core.plan(0).unwrap(), b"# P\n");
    let out = text(core.answer_update(0, UpdateKind::RevisionConflict, None, None, 7));
    assert!(
        out.contains(r#""structuredContent":{"code":"revision-conflict","revision":7}"#),
        "{out}"
    );
    // Without a source, the updated document's is the canonical plan.
    effect(
        &mut core,
        "update_document",
        r##"{"id":"d","revision":4,"plan":"# P\n","idempotencyKey":"k"}"##,
    );
    let fields = r#"{"id":"d","title":"T","revision":5,"url":"/d"}"#;
    let out = text(core.answer_update(0, UpdateKind::Updated, Some(fields), None, 0));
    assert!(
        out.contains(
            r##""structuredContent":{"id":"d","title":"T","source":"# P\n","revision":5,"url":"/d"}"##
        ),
        "{out}"
    );

    let out = effect(&mut core, "rename_document", r#"{"id":"é","title":" T "}"#);
    assert_eq!(out, "n1:éT");
    let out = text(core.answer_rename(0, ChangeKind::Done, Some(("é", "T", None))));
    assert!(
        out.contains(r#""structuredContent":{"id":"é","title":"T"}"#),
        "{out}"
    );

    assert_eq!(effect(&mut core, "archive_document", r#"{"id":"d"}"#), "vd");
    let Misuse(message) = core
        .answer_archive(0, ChangeKind::Conflict, None)
        .unwrap_err();
    assert_eq!(
        message,
        "an archive is answered archived, forbidden or unavailable"
    );
    // A misuse leaves the exchange waiting for its answer.
    let out = text(core.answer_archive(0, ChangeKind::Done, Some((("d", "T", None), "then"))));
    assert!(
        out.contains(r#""structuredContent":{"id":"d","title":"T","archivedAt":"then"}"#),
        "{out}"
    );

    assert_eq!(effect(&mut core, "restore_document", r#"{"id":"d"}"#), "sd");
    let out = text(core.answer_restore(0, ChangeKind::Forbidden, None));
    assert!(
        out.contains(r#""structuredContent":{"code":"repository-forbidden"}"#),
        "{out}"
    );
    assert_eq!(core.in_flight(), 0);
}

#[test]
fn a_list_answered_forbidden_is_repository_forbidden() {
    let mut core = Core::new("{}").unwrap();
    assert_eq!(
        effect(&mut core, "list_documents", r#"{"repository":"o/r"}"#),
        "lo/r"
    );
    let out = text(core.answer_list_forbidden(0));
    assert!(
        out.contains(r#""structuredContent":{"code":"repository-forbidden"},"isError":true"#),
        "{out}"
    );
}

#[test]
fn a_list_answer_pairs_ids_and_titles() {
    let mut core = Core::new("{}").unwrap();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"o/r"}}}"#;
    for (answer, ok) in [
        (r#"["a","A"]"#, true),
        (r#"["a"]"#, false),
        (r#"{"a":1}"#, false),
    ] {
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        assert_eq!(text(core.finish(0, Some(list.as_bytes()))), "lo/r");
        let out = core.answer_list(0, answer);
        assert_eq!(out.is_ok(), ok, "{answer}");
        if let Ok(out) = out {
            assert!(
                String::from_utf8_lossy(out)
                    .contains(r#""structuredContent":{"documents":[{"id":"a","title":"A"}]}"#)
            );
        }
        core.release(0);
    }
}

#[test]
fn the_tools_are_tools_list_s_in_the_endpoint_s_order() {
    let core = Core::new(r#"{"create":true}"#).unwrap();
    assert!(
        core.tools()
            .starts_with(r#"[{"name":"list_documents","title":"List plan documents","#)
    );
    let names: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(core.tools())
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        ["list_documents", "read_document", "create_document"]
    );
}
