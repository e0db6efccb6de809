//! list_documents' `includeArchived` (SURFACE.md §2): an optional boolean,
//! handed to the host (`false` when absent); summaries carry the host's
//! `description` and `archivedAt`; anything but a boolean, or another key,
//! is refused before the host.

mod common;

use chopin_mcp::{DocumentSummary, DocumentSummaryRef, Outcome};
use common::{Request, assert_refused, call, endpoint};
use serde_json::{Value, json};

/// Lists with `arguments`, answering `summaries`; the flag the host saw and
/// the result's `structuredContent`.
fn list(arguments: Value, summaries: &[DocumentSummary]) -> (Option<bool>, Value) {
    let mut flag = None;
    let request = Request::post(&call(json!(1), "list_documents", arguments));
    let (reply, effects) = request.answered(&endpoint(), |outcome| match outcome {
        Outcome::List(list) => {
            assert_eq!(list.repository(), "githubnext/chopin");
            flag = Some(list.include_archived());
            list.answer(summaries)
        }
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!((reply.status, effects), (200, 1));
    (flag, reply.json()["result"]["structuredContent"].clone())
}

fn summaries() -> Vec<DocumentSummary> {
    vec![
        DocumentSummary {
            id: "a".into(),
            title: "Live".into(),
            description: Some("A generated line.".into()),
            archived_at: None,
        },
        DocumentSummary {
            id: "b".into(),
            title: "Gone".into(),
            description: None,
            archived_at: Some("2026-08-23T12:34:56.000Z".into()),
        },
        DocumentSummary {
            id: "c".into(),
            title: "Both \"quoted\"".into(),
            description: Some("line\nbreak".into()),
            archived_at: Some("2026-08-24T00:00:00.000Z".into()),
        },
    ]
}

#[test]
fn the_flag_reaches_the_host_false_when_absent() {
    let repository = "githubnext/chopin";
    let (flag, _) = list(json!({"repository": repository}), &[]);
    assert_eq!(flag, Some(false));
    let (flag, _) = list(
        json!({"repository": repository, "includeArchived": true}),
        &[],
    );
    assert_eq!(flag, Some(true));
    let (flag, _) = list(
        json!({"repository": repository, "includeArchived": false}),
        &[],
    );
    assert_eq!(flag, Some(false));
}

#[test]
fn summaries_carry_description_and_archived_at_in_order() {
    let (_, listed) = list(
        json!({"repository": "githubnext/chopin", "includeArchived": true}),
        &summaries(),
    );
    assert_eq!(
        listed,
        json!({"documents": [
            {"id": "a", "title": "Live", "description": "A generated line."},
            {"id": "b", "title": "Gone", "archivedAt": "2026-08-23T12:34:56.000Z"},
            {"id": "c", "title": "Both \"quoted\"", "description": "line\nbreak",
             "archivedAt": "2026-08-24T00:00:00.000Z"},
        ]})
    );
}

#[test]
fn the_text_content_holds_the_members_in_the_documented_order() {
    let request = Request::post(&call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ));
    let owned = summaries();
    let (reply, _) = request.answered(&endpoint(), |outcome| match outcome {
        Outcome::List(list) => list.answer(&owned),
        other => panic!("unexpected {other:?}"),
    });
    let text = reply.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        text,
        r#"{"documents":[{"id":"a","title":"Live","description":"A generated line."},{"id":"b","title":"Gone","archivedAt":"2026-08-23T12:34:56.000Z"},{"id":"c","title":"Both \"quoted\"","description":"line\nbreak","archivedAt":"2026-08-24T00:00:00.000Z"}]}"#
    );
    // Borrowed summaries answer the same bytes.
    let (again, _) = request.answered(&endpoint(), |outcome| match outcome {
        Outcome::List(list) => {
            let borrowed: Vec<DocumentSummaryRef<'_>> = owned
                .iter()
                .map(|s| DocumentSummaryRef {
                    id: &s.id,
                    title: &s.title,
                    description: s.description.as_deref(),
                    archived_at: s.archived_at.as_deref(),
                })
                .collect();
            list.answer_borrowed(&borrowed)
        }
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!(again.text(), reply.text());
}

#[test]
fn a_flag_that_is_not_a_boolean_or_another_key_is_refused() {
    for arguments in [
        json!({"repository": "githubnext/chopin", "includeArchived": "yes"}),
        json!({"repository": "githubnext/chopin", "includeArchived": null}),
        json!({"repository": "githubnext/chopin", "includeArchived": 1}),
        json!({"repository": "githubnext/chopin", "includeArchived": 0}),
        json!({"repository": "githubnext/chopin", "includeArchived": [true]}),
        json!({"repository": "githubnext/chopin", "extra": true}),
        json!({"includeArchived": true}),
    ] {
        assert_refused(
            &endpoint(),
            "list_documents",
            &arguments,
            "list_documents requires a repository",
        );
    }
}

#[test]
fn the_schema_offers_the_flag_and_the_summary_fields() {
    let tools = Request::post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send(&endpoint(), &mut common::Host::seed())
        .json();
    let list = &tools["result"]["tools"][0];
    assert_eq!(list["name"], "list_documents");
    assert_eq!(
        list["inputSchema"]["properties"]["includeArchived"],
        json!({"type": "boolean", "default": false})
    );
    let item = &list["outputSchema"]["oneOf"][0]["properties"]["documents"]["items"];
    assert_eq!(
        item["properties"]["archivedAt"],
        json!({"type": "string", "format": "date-time"})
    );
    assert_eq!(item["required"], json!(["id", "title"]));
}
