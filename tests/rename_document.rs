//! rename_document (LIFECYCLE.md §3, SURFACE.md §6): exactly `id` (an id:
//! at most 128 scalar values) and `title`; the title trimmed as JavaScript
//! trims, then judged (1–120 scalar values) and handed to the host
//! trimmed; every answer's exact bytes in both eras.

mod common;

use common::{Fixed, Host, Step, Writing, assert_refused, assert_result, read_write, text_members};
use serde_json::json;

const MESSAGE: &str = "rename_document requires an id and valid title";
const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

#[test]
fn invalid_arguments_are_refused_before_the_host() {
    for arguments in [
        json!({"id": ID}),
        json!({"title": "T"}),
        json!({"id": ID, "title": "T", "extra": 1}),
        json!({"id": " ", "title": "T"}),
        json!({"id": "x".repeat(129), "title": "T"}),
        json!({"id": "x".repeat(2049), "title": "T"}),
        json!({"id": ID, "title": ""}),
        json!({"id": ID, "title": " \t\u{feff}"}),
        json!({"id": ID, "title": "x".repeat(121)}),
        // 121 once trimmed.
        json!({"id": ID, "title": format!(" {} ", "x".repeat(121))}),
        json!({"id": ID, "title": 7}),
        json!({"id": ID, "title": null}),
    ] {
        assert_refused(&read_write(), "rename_document", &arguments, MESSAGE);
    }
}

#[test]
fn the_title_reaches_the_host_trimmed_and_the_id_as_sent() {
    let mut host = Host::seed();
    let arguments = json!({"id": format!(" {ID}"), "title": "  Launch plan  "});
    let reply = common::Request::post(&common::call(json!(1), "rename_document", arguments))
        .send(&read_write(), &mut host);
    assert_eq!(reply.status, 200);
    assert_eq!(
        host.rename_inputs,
        [(format!(" {ID}"), "Launch plan".to_owned())]
    );
    // 120 scalar values once trimmed are a title, whatever surrounds them.
    let mut host = Host::seed();
    let padded = format!(" {} ", "x".repeat(120));
    let arguments = json!({"id": ID, "title": padded});
    let reply = common::Request::post(&common::call(json!(1), "rename_document", arguments))
        .send(&read_write(), &mut host);
    assert_eq!(reply.status, 200);
    assert_eq!(host.rename_inputs, [(ID.to_owned(), "x".repeat(120))]);
    let title = "😀".repeat(120);
    assert_result(
        &read_write(),
        Host::seed,
        "rename_document",
        &json!({"id": ID, "title": title}),
        &text_members(&format!(r#"{{"id":"{ID}","title":"{title}"}}"#), false),
        &[Step::Rename(ID.to_owned())],
    );
}

#[test]
fn a_rename_is_answered_with_the_id_and_the_new_title() {
    assert_result(
        &read_write(),
        Host::seed,
        "rename_document",
        &json!({"id": ID, "title": "  Launch plan  "}),
        &text_members(&format!(r#"{{"id":"{ID}","title":"Launch plan"}}"#), false),
        &[Step::Rename(ID.to_owned())],
    );
}

#[test]
fn every_code_answer_is_its_error_result() {
    for (fixed, code) in [
        (Fixed::Archived, "document-archived"),
        (Fixed::Conflict, "title-conflict"),
        (Fixed::Forbidden, "repository-forbidden"),
        (Fixed::Unavailable, "document-unavailable"),
    ] {
        assert_result(
            &read_write(),
            move || Host {
                writing: Writing::Always(fixed),
                ..Host::seed()
            },
            "rename_document",
            &json!({"id": ID, "title": "T"}),
            &text_members(&format!(r#"{{"code":"{code}"}}"#), true),
            &[Step::Rename(ID.to_owned())],
        );
    }
}
