//! read_document's id and answer (SURFACE.md §3): the seed's id rule (1–128
//! scalar values, not blank, exactly `{id}`), a locator within it reaching
//! the host as sent; the host's `description`, `archivedAt` and `url`
//! answered in §1.5's order, each only when given; the schema's `url`
//! optional.

mod common;

use chopin_mcp::{Document, Outcome};
use common::{Host, Request, assert_refused, call, endpoint, seed_document};
use serde_json::{Value, json};

/// Reads `id`, answering `document`; what the host was asked and the reply.
fn read(id: &str, document: Option<&Document>) -> (String, common::Reply) {
    let mut asked = String::new();
    let request = Request::post(&call(json!(1), "read_document", json!({"id": id})));
    let (reply, effects) = request.answered(&endpoint(), |outcome| match outcome {
        Outcome::Read(read) => {
            asked = read.id().to_owned();
            read.answer(document)
        }
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!((reply.status, effects), (200, 1));
    (asked, reply)
}

fn full() -> Document {
    Document {
        description: Some("A generated line.".into()),
        archived_at: Some("2026-08-23T12:34:56.000Z".into()),
        url: Some("https://chopin.test/documents/o/r/s".into()),
        ..seed_document()
    }
}

#[test]
fn locators_within_128_reach_the_host_as_sent() {
    for id in [
        "https://chopin.test/documents/o/r/s".to_owned(),
        "/documents/f401c8d6-3717-4f1d-8473-cfdd0af894e4".to_owned(),
        " padded ".to_owned(),
        "x".repeat(128),
        "é".repeat(128),
    ] {
        assert_eq!(read(&id, None).0, id);
    }
}

#[test]
fn the_seed_s_id_rule_and_message_stand() {
    for arguments in [
        json!({"id": "x".repeat(129)}),
        json!({"id": " \t"}),
        json!({"id": ""}),
        json!({}),
        json!({"id": "x", "extra": true}),
        json!({"id": 7}),
    ] {
        assert_refused(
            &endpoint(),
            "read_document",
            &arguments,
            "read_document requires an id",
        );
    }
}

#[test]
fn every_field_the_host_gives_is_answered_in_order() {
    let document = full();
    let (_, reply) = read("f401c8d6-3717-4f1d-8473-cfdd0af894e4", Some(&document));
    let result = &reply.json()["result"];
    let expected = json!({
        "id": document.id,
        "title": document.title,
        "description": "A generated line.",
        "archivedAt": "2026-08-23T12:34:56.000Z",
        "source": document.source,
        "revision": document.revision,
        "url": "https://chopin.test/documents/o/r/s",
    });
    assert_eq!(result["structuredContent"], expected);
    let text = result["content"][0]["text"].as_str().unwrap();
    let keys: Vec<&str> = ["\"id\"", "\"title\"", "\"description\"", "\"archivedAt\""]
        .into_iter()
        .chain(["\"source\"", "\"revision\"", "\"url\""])
        .collect();
    let positions: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(positions.is_sorted(), "{text}");
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), expected);
}

#[test]
fn a_document_without_the_optional_fields_answers_none_of_them() {
    let (_, reply) = read(
        "f401c8d6-3717-4f1d-8473-cfdd0af894e4",
        Some(&seed_document()),
    );
    let structured = &reply.json()["result"]["structuredContent"];
    for absent in ["description", "archivedAt", "url", "brief"] {
        assert!(structured.get(absent).is_none(), "{absent}");
    }
    let document = seed_document();
    assert_eq!(
        structured,
        &json!({
            "id": document.id,
            "title": document.title,
            "source": document.source,
            "revision": document.revision,
        })
    );
}

#[test]
fn the_schema_keeps_128_and_offers_the_fields_with_url_optional() {
    let tools = Request::post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send(&endpoint(), &mut Host::seed())
        .json();
    let read = &tools["result"]["tools"][1];
    assert_eq!(read["name"], "read_document");
    assert_eq!(
        read["description"],
        "Read a Chopin document by ID or canonical URL."
    );
    assert_eq!(read["inputSchema"]["properties"]["id"]["maxLength"], 128);
    let output = &read["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(
        output["required"],
        json!(["id", "title", "source", "revision"])
    );
    for field in ["description", "url"] {
        assert_eq!(output["properties"][field], json!({"type": "string"}));
    }
    assert_eq!(
        output["properties"]["archivedAt"],
        json!({"type": "string", "format": "date-time"})
    );
}
