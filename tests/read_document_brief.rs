//! A document's brief read back (LIFECYCLE.md §5): a document the host
//! reads with a brief is answered `{id, title, brief, source, revision}`,
//! in both eras; without one, exactly as before.

mod common;

use chopin_mcp::Brief;
use common::{Host, Step, assert_result, endpoint, text_members};
use serde_json::json;

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

#[test]
fn a_brief_is_answered_between_title_and_source() {
    let with_brief = || {
        let mut host = Host::seed();
        host.documents[0].1.brief = Some(Brief {
            goal: "Create a collaborative plan.".into(),
            constraints: vec!["Keep plans \"immutable\".".into()],
            settled_decisions: vec!["Use the dialect.".into()],
            open_questions: Vec::new(),
            repository_findings: vec!["Line\nbreak".into()],
        });
        host
    };
    let document = format!(
        r##"{{"id":"{ID}","title":"Release readiness","brief":{{"goal":"Create a collaborative plan.","constraints":["Keep plans \"immutable\"."],"settledDecisions":["Use the dialect."],"openQuestions":[],"repositoryFindings":["Line\nbreak"]}},"source":"# Release readiness\n","revision":4}}"##
    );
    assert_result(
        &endpoint(),
        with_brief,
        "read_document",
        &json!({"id": ID}),
        &text_members(&document, false),
        &[Step::Read(ID.to_owned())],
    );
}

#[test]
fn without_a_brief_a_read_is_answered_as_before() {
    let document = format!(
        r##"{{"id":"{ID}","title":"Release readiness","source":"# Release readiness\n","revision":4}}"##
    );
    assert_result(
        &endpoint(),
        Host::seed,
        "read_document",
        &json!({"id": ID}),
        &text_members(&document, false),
        &[Step::Read(ID.to_owned())],
    );
}
