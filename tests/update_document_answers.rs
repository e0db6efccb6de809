//! update_document's results (LIFECYCLE.md §1, §2): every host answer's
//! exact bytes in both eras, and a store that keeps the duties — a
//! compare-and-set on the revision, keys per caller, a replay answered as
//! the update left the document, and nothing but `unavailable` for a
//! document the caller may not see.

mod common;

use chopin_mcp::Brief;
use common::{Fixed, Host, Request, Step, Writing, assert_result, call, read_write, text_members};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn update(revision: u64, plan: &str, key: &str) -> Value {
    json!({"id": ID, "revision": revision, "plan": plan, "idempotencyKey": key})
}

fn answering(fixed: Fixed) -> impl Fn() -> Host {
    move || Host {
        writing: Writing::Always(fixed),
        ..Host::seed()
    }
}

fn asked() -> [Step; 1] {
    [Step::Update(ID.to_owned())]
}

#[test]
fn every_code_answer_is_its_error_result() {
    for (fixed, value) in [
        (Fixed::Conflict, r#"{"code":"idempotency-conflict"}"#),
        (
            Fixed::RevisionConflict(7),
            r#"{"code":"revision-conflict","revision":7}"#,
        ),
        (Fixed::Locked, r#"{"code":"document-locked"}"#),
        (Fixed::Protected, r#"{"code":"protected-projection"}"#),
        (Fixed::Archived, r#"{"code":"document-archived"}"#),
        (Fixed::Forbidden, r#"{"code":"repository-forbidden"}"#),
        (Fixed::Unavailable, r#"{"code":"document-unavailable"}"#),
    ] {
        assert_result(
            &read_write(),
            answering(fixed),
            "update_document",
            &update(4, "# Revised\n", "k"),
            &text_members(value, true),
            &asked(),
        );
    }
}

#[test]
fn an_update_is_answered_with_the_document_it_made() {
    let document = format!(
        r##"{{"id":"{ID}","title":"Release readiness","source":"# Revised\n","revision":5,"url":"/documents/{ID}"}}"##
    );
    assert_result(
        &read_write(),
        Host::seed,
        "update_document",
        &update(4, "# Revised\n", "k"),
        &text_members(&document, false),
        &asked(),
    );
}

#[test]
fn a_document_with_a_brief_is_answered_with_it_between_title_and_source() {
    let with_brief = || {
        let mut host = Host::seed();
        host.documents[0].1.brief = Some(Brief {
            goal: "Ship it.".into(),
            constraints: vec!["No downtime.".into()],
            settled_decisions: Vec::new(),
            open_questions: Vec::new(),
            repository_findings: vec!["\"quoted\"".into()],
        });
        host
    };
    let document = format!(
        r##"{{"id":"{ID}","title":"Release readiness","brief":{{"goal":"Ship it.","constraints":["No downtime."],"settledDecisions":[],"openQuestions":[],"repositoryFindings":["\"quoted\""]}},"source":"# Revised\n","revision":5,"url":"/documents/{ID}"}}"##
    );
    assert_result(
        &read_write(),
        with_brief,
        "update_document",
        &update(4, "# Revised\n", "k"),
        &text_members(&document, false),
        &asked(),
    );
}

/// Sends update_document with `arguments` to `host` and returns the reply's
/// result.
fn send(host: &mut Host, arguments: Value) -> Value {
    Request::post(&call(json!(1), "update_document", arguments))
        .send(&read_write(), host)
        .json()["result"]
        .clone()
}

#[test]
fn a_retry_is_replayed_as_the_update_left_the_document() {
    let mut host = Host::seed();
    let first = send(&mut host, update(4, "# Revised\n", "k1"));
    assert_eq!(first["structuredContent"]["revision"], 5);
    // Another update moves the document on; the first key still answers
    // as its update left the document, indistinguishable from the first.
    let second = send(&mut host, update(5, "# Again\n", "k2"));
    assert_eq!(second["structuredContent"]["revision"], 6);
    assert_eq!(send(&mut host, update(4, "# Revised\n", "k1")), first);
    // The same key with other values is a conflict.
    assert_eq!(
        send(&mut host, update(4, "# Changed\n", "k1"))["structuredContent"],
        json!({"code": "idempotency-conflict"})
    );
    // A stale revision under a new key names the current one.
    assert_eq!(
        send(&mut host, update(4, "# Late\n", "k3"))["structuredContent"],
        json!({"code": "revision-conflict", "revision": 6})
    );
    assert_eq!(host.documents[0].1.source, "# Again\n");
}

#[test]
fn a_document_the_caller_may_not_see_is_unavailable_and_a_url_names_it() {
    let mut hidden = Host::seed();
    hidden.grants.clear();
    assert_eq!(
        send(&mut hidden, update(4, "# Revised\n", "k"))["structuredContent"],
        json!({"code": "document-unavailable"})
    );
    let mut host = Host::seed();
    let mut by_url = update(4, "# Revised\n", "k");
    by_url["id"] = json!(format!("https://chopin.example/documents/{ID}"));
    assert_eq!(send(&mut host, by_url)["structuredContent"]["revision"], 5);
    host.archived.insert(ID.to_owned(), "then".to_owned());
    assert_eq!(
        send(&mut host, update(5, "# Revised\n", "k2"))["structuredContent"],
        json!({"code": "document-archived"})
    );
}
