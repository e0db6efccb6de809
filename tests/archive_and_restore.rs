//! archive_document and restore_document (LIFECYCLE.md §4, SURFACE.md §7):
//! exactly `id`, a locator handed to the host as sent, refused with
//! SURFACE.md §1.6's messages; the host's `archivedAt` passed
//! through untouched; every answer's exact bytes in both eras; archive only
//! together with restore.

mod common;

use chopin_mcp::{Config, ConfigError, Endpoint};
use common::{
    ARCHIVED_AT, Fixed, Host, Step, Writing, assert_refused, assert_result, read_write,
    text_members,
};
use serde_json::json;

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

#[test]
fn invalid_arguments_are_refused_before_the_host() {
    for (tool, message) in [
        ("archive_document", "archive_document requires an id or URL"),
        ("restore_document", "restore_document requires an id or URL"),
    ] {
        for arguments in [
            json!({}),
            json!({"id": ""}),
            json!({"id": "\n\u{a0}"}),
            json!({"id": "x".repeat(2049)}),
            json!({"id": 7}),
            json!({"id": ID, "extra": true}),
            json!({"url": ID}),
        ] {
            assert_refused(&read_write(), tool, &arguments, message);
        }
    }
}

#[test]
fn an_archive_is_answered_with_the_host_s_time_untouched() {
    assert_result(
        &read_write(),
        Host::seed,
        "archive_document",
        &json!({"id": ID}),
        &text_members(
            &format!(r#"{{"id":"{ID}","title":"Release readiness","archivedAt":"{ARCHIVED_AT}"}}"#),
            false,
        ),
        &[Step::Archive(ID.to_owned())],
    );
    // Whatever the host writes: the endpoint has no clock.
    let odd = || {
        let mut host = Host::seed();
        host.archived
            .insert(ID.to_owned(), "yesterday \"noon\"".to_owned());
        host
    };
    assert_result(
        &read_write(),
        odd,
        "archive_document",
        &json!({"id": ID}),
        &text_members(
            &format!(
                r#"{{"id":"{ID}","title":"Release readiness","archivedAt":"yesterday \"noon\""}}"#
            ),
            false,
        ),
        &[Step::Archive(ID.to_owned())],
    );
}

#[test]
fn a_restore_is_answered_with_the_id_and_title() {
    let locator = format!("/documents/{ID}");
    assert_result(
        &read_write(),
        Host::seed,
        "restore_document",
        &json!({"id": locator}),
        &text_members(
            &format!(r#"{{"id":"{ID}","title":"Release readiness"}}"#),
            false,
        ),
        &[Step::Restore(locator.clone())],
    );
}

#[test]
fn every_code_answer_is_its_error_result() {
    for tool in ["archive_document", "restore_document"] {
        for (fixed, code) in [
            (Fixed::Forbidden, "repository-forbidden"),
            (Fixed::Unavailable, "document-unavailable"),
        ] {
            let step = match tool {
                "archive_document" => Step::Archive(ID.to_owned()),
                _ => Step::Restore(ID.to_owned()),
            };
            assert_result(
                &read_write(),
                move || Host {
                    writing: Writing::Always(fixed),
                    ..Host::seed()
                },
                tool,
                &json!({"id": ID}),
                &text_members(&format!(r#"{{"code":"{code}"}}"#), true),
                &[step],
            );
        }
    }
}

#[test]
fn archive_is_offered_only_with_restore() {
    assert_eq!(
        Endpoint::new(Config::new().enable_archive()).unwrap_err(),
        ConfigError::ArchiveWithoutRestore
    );
    assert_eq!(
        Endpoint::new(
            Config::new()
                .enable_creation()
                .enable_update()
                .enable_archive()
        )
        .unwrap_err(),
        ConfigError::ArchiveWithoutRestore
    );
    assert!(Endpoint::new(Config::new().enable_archive().enable_restore()).is_ok());
    assert!(Endpoint::new(Config::new().enable_restore()).is_ok());
}

#[test]
fn a_description_is_answered_and_a_restore_never_writes_archived_at() {
    use chopin_mcp::{ArchiveAnswer, ArchivedDocument, DocumentSummary, Outcome, RestoreAnswer};
    let call = |name: &str| common::Request::post(&common::call(json!(1), name, json!({"id": ID})));
    let archived = ArchivedDocument {
        id: ID.to_owned(),
        title: "Release readiness".to_owned(),
        description: Some("A generated line.".to_owned()),
        archived_at: ARCHIVED_AT.to_owned(),
    };
    let (reply, _) = call("archive_document").answered(&read_write(), |outcome| match outcome {
        Outcome::Archive(archive) => archive.answer(ArchiveAnswer::Archived(&archived)),
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        format!(
            r#"{{"id":"{ID}","title":"Release readiness","description":"A generated line.","archivedAt":"{ARCHIVED_AT}"}}"#
        )
    );
    let restored = DocumentSummary {
        id: ID.to_owned(),
        title: "Release readiness".to_owned(),
        description: Some("A generated line.".to_owned()),
        archived_at: Some(ARCHIVED_AT.to_owned()),
    };
    let (reply, _) = call("restore_document").answered(&read_write(), |outcome| match outcome {
        Outcome::Restore(restore) => restore.answer(RestoreAnswer::Restored(&restored)),
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!(
        reply.json()["result"]["structuredContent"],
        json!({"id": ID, "title": "Release readiness", "description": "A generated line."})
    );
}

#[test]
fn the_generated_instructions_hold_archive_and_restore_and_no_delete() {
    let instructions = Config::new().enable_lifecycle().generated_instructions();
    let lines: Vec<&str> = instructions.lines().collect();
    assert!(lines.contains(&"archive_document: Archive a Chopin document by ID or canonical URL."));
    assert!(lines.contains(
        &"restore_document: Restore an archived Chopin document by ID or canonical URL."
    ));
    assert!(lines.contains(
        &"rename_document: Rename a Chopin document without changing its canonical plan or revision."
    ));
    assert!(lines.contains(
        &"update_document: Replace a Chopin document's canonical plan against the revision last read."
    ));
    assert!(!instructions.contains("delete_document"));
}

#[test]
fn archive_by_url_reaches_the_host_as_sent() {
    let url = format!("https://chopin.test/documents/{ID}");
    assert_result(
        &read_write(),
        Host::seed,
        "archive_document",
        &json!({"id": url}),
        &text_members(
            &format!(r#"{{"id":"{ID}","title":"Release readiness","archivedAt":"{ARCHIVED_AT}"}}"#),
            false,
        ),
        &[Step::Archive(url.clone())],
    );
}
