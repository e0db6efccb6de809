//! A denied repository is said, not hidden (LIFECYCLE.md §5): the list
//! effect's `forbidden()` answers `text({"code":"repository-forbidden"},
//! error)` in both eras, and a repository the caller may see without
//! documents is still `{"documents":[]}`.

mod common;

use common::{Host, Step, assert_result, endpoint, text_members};
use serde_json::json;

#[test]
fn a_denied_list_is_the_repository_forbidden_error_result() {
    let denied = || Host {
        denied: vec!["githubnext/secret".to_owned()],
        ..Host::seed()
    };
    assert_result(
        &endpoint(),
        denied,
        "list_documents",
        &json!({"repository": "githubnext/secret"}),
        &text_members(r#"{"code":"repository-forbidden"}"#, true),
        &[Step::List("githubnext/secret".to_owned())],
    );
}

#[test]
fn a_repository_without_documents_is_still_an_empty_list() {
    let empty = || {
        let mut host = Host::seed();
        host.denied.push("githubnext/secret".to_owned());
        host.documents.clear();
        host
    };
    assert_result(
        &endpoint(),
        empty,
        "list_documents",
        &json!({"repository": "githubnext/chopin"}),
        &text_members(r#"{"documents":[]}"#, false),
        &[Step::List("githubnext/chopin".to_owned())],
    );
}
