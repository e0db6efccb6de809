//! SPEC.md §7: the arguments `list_documents` and `read_document` accept, that
//! the host is consulted only for valid ones, and how results serialize.

mod common;

use std::collections::BTreeMap;

use chopin_mcp::Document;
use common::{Host, Reply, Request, Step, call, endpoint, seed_document};
use serde_json::value::RawValue;
use serde_json::{Value, json};

const NEEDS_REPOSITORY: &str = "list_documents requires a repository";
const NEEDS_ID: &str = "read_document requires an id";

/// Sends a raw `tools/call` of `tool` with raw `arguments`; returns the reply
/// and the host's transcript.
fn call_raw(tool: &str, arguments: &str) -> (Reply, Vec<Step>) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    Request::post_raw(body).exchange(&endpoint())
}

fn call_json(tool: &str, arguments: &Value) -> (Reply, Vec<Step>) {
    Request::post(&call(json!(1), tool, arguments.clone())).exchange(&endpoint())
}

fn assert_invalid((reply, transcript): (Reply, Vec<Step>), message: &str, what: &str) {
    assert_eq!(reply.status, 200, "{what}");
    assert_eq!(
        reply.json(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": message}}),
        "{what}"
    );
    assert_eq!(
        transcript,
        [Step::Authenticate, Step::Respond(200)],
        "{what}: the host is not consulted"
    );
}

fn assert_listed((reply, transcript): (Reply, Vec<Step>), repository: &str) {
    let body = reply.json();
    assert!(body.get("error").is_none(), "{repository}: {body}");
    assert!(
        body["result"]["structuredContent"]["documents"].is_array(),
        "{repository}: {body}"
    );
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List(repository.to_owned()),
            Step::Respond(200)
        ]
    );
}

fn assert_read((reply, transcript): (Reply, Vec<Step>), id: &str) {
    let body = reply.json();
    assert!(body.get("error").is_none(), "{id:?}: {body}");
    assert_eq!(
        body["result"],
        json!({"content": [], "isError": true}),
        "{id:?}"
    );
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read(id.to_owned()),
            Step::Respond(200)
        ],
        "{id:?}"
    );
}

#[test]
fn valid_repositories_reach_the_host_as_written() {
    for repository in [
        "a/b",
        "githubnext/chopin",
        &format!("{}/x", "o".repeat(39)),
        &format!("o/{}", "n".repeat(100)),
        &format!("{}/{}", "O".repeat(39), "N".repeat(100)),
        "a/...",
        "a/.b",
        "a/..b",
        "a-b/c",
        "a-b-c/d",
        "A1-2b/x.y_z-w",
        "0/0",
        "a/_",
        "a/-",
    ] {
        assert_listed(
            call_json("list_documents", &json!({"repository": repository})),
            repository,
        );
    }
}

#[test]
fn invalid_repositories_are_refused_without_consulting_the_host() {
    for repository in [
        &format!("{}/x", "o".repeat(40)),
        &format!("o/{}", "n".repeat(101)),
        "a--b/c",
        "-a/b",
        "a-/b",
        "a/.",
        "a/..",
        "./chopin",
        "owner/..",
        "a/b/c",
        "a",
        "/b",
        "a/",
        "",
        "/",
        "a b/c",
        "a/b c",
        "a/b\n",
        "a/b ",
        " a/b",
        "ä/b",
        "a/ä",
        "a_b/c",
        "a.b/c",
        "a/b~",
        "a/b%2F",
        "a\\b",
    ] {
        assert_invalid(
            call_json("list_documents", &json!({"repository": repository})),
            NEEDS_REPOSITORY,
            repository,
        );
    }
}

#[test]
fn list_arguments_must_be_exactly_a_repository_string() {
    for arguments in [
        json!({}),
        json!({"repository": "a/b", "extra": 1}),
        json!({"repository": "a/b", "id": "x"}),
        json!({"repo": "a/b"}),
        json!({"Repository": "a/b"}),
        json!({"repository": 5}),
        json!({"repository": null}),
        json!({"repository": ["a/b"]}),
        json!({"repository": {"owner": "a", "name": "b"}}),
        json!({"repository": true}),
    ] {
        assert_invalid(
            call_json("list_documents", &arguments),
            NEEDS_REPOSITORY,
            &arguments.to_string(),
        );
    }
}

#[test]
fn a_repository_written_with_escapes_is_judged_by_what_it_decodes_to() {
    for raw in [
        r#"{"repository":"githubnext\/chopin"}"#,
        r#"{"repository":"\u0067ithubnext/chopin"}"#,
        r#"{"\u0072epository":"githubnext\u002fchopin"}"#,
    ] {
        let (reply, transcript) = call_raw("list_documents", raw);
        assert_eq!(
            transcript,
            [
                Step::Authenticate,
                Step::List("githubnext/chopin".into()),
                Step::Respond(200)
            ],
            "{raw}"
        );
        assert_eq!(
            reply.json()["result"]["structuredContent"]["documents"][0]["id"],
            seed_document().id,
            "{raw}"
        );
    }
    for raw in [
        r#"{"repository":"a\u002fb\/c"}"#,
        r#"{"repository":"a\/\u002e"}"#,
        r#"{"repository":"a/b\u0000"}"#,
    ] {
        assert_invalid(call_raw("list_documents", raw), NEEDS_REPOSITORY, raw);
    }
}

#[test]
fn the_last_duplicate_argument_wins() {
    assert_listed(
        call_raw(
            "list_documents",
            r#"{"repository":"-bad/x","repository":"good/x"}"#,
        ),
        "good/x",
    );
    assert_invalid(
        call_raw(
            "list_documents",
            r#"{"repository":"good/x","repository":"-bad/x"}"#,
        ),
        NEEDS_REPOSITORY,
        "last is bad",
    );
}

#[test]
fn read_ids_of_up_to_128_code_points_reach_the_host() {
    for id in [
        "x".to_owned(),
        "x".repeat(128),
        "😀".repeat(128),
        format!("{}😀", "a".repeat(127)),
        "e\u{301}".repeat(64),
        "missing".to_owned(),
        " padded ".to_owned(),
    ] {
        assert_read(call_json("read_document", &json!({"id": id})), &id);
    }
}

#[test]
fn read_ids_longer_than_128_code_points_are_refused() {
    for id in [
        "x".repeat(129),
        "😀".repeat(129),
        format!("{}😀", "a".repeat(128)),
        format!("{}e", "e\u{301}".repeat(64)),
        "x".repeat(1000),
    ] {
        assert_invalid(
            call_json("read_document", &json!({"id": id})),
            NEEDS_ID,
            &format!("{} chars", id.chars().count()),
        );
    }
}

#[test]
fn blank_read_ids_are_refused_by_javascript_whitespace() {
    for id in [
        "",
        " ",
        " \t",
        "\n\r",
        "\u{b}\u{c}",
        "\u{a0}",
        "\u{1680}",
        "\u{2000}",
        "\u{2005}",
        "\u{200a}",
        "\u{2028}",
        "\u{2029}",
        "\u{202f}",
        "\u{205f}",
        "\u{3000}",
        "\u{feff}",
        "\u{3000} \u{feff}\u{a0}",
        &" ".repeat(128),
    ] {
        assert_invalid(
            call_json("read_document", &json!({"id": id})),
            NEEDS_ID,
            &format!("{id:?}"),
        );
    }
}

#[test]
fn characters_that_are_not_javascript_whitespace_make_an_id_non_blank() {
    // U+0085 is whitespace to Unicode (and to Rust) but not to JavaScript's \s.
    for id in [
        "\u{85}", "\u{200b}", "\u{180e}", "\u{1c}", " \u{85} ", "\u{0}",
    ] {
        assert_read(call_json("read_document", &json!({"id": id})), id);
    }
}

#[test]
fn read_arguments_must_be_exactly_an_id_string() {
    for arguments in [
        json!({}),
        json!({"id": "x", "extra": true}),
        json!({"id": "x", "repository": "a/b"}),
        json!({"ID": "x"}),
        json!({"id": 5}),
        json!({"id": null}),
        json!({"id": ["x"]}),
        json!({"id": {"id": "x"}}),
    ] {
        assert_invalid(
            call_json("read_document", &arguments),
            NEEDS_ID,
            &arguments.to_string(),
        );
    }
}

#[test]
fn a_read_id_written_with_escapes_reaches_the_host_decoded() {
    let (_, transcript) = call_raw("read_document", r#"{"id":"a\u0062\/c\n"}"#);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read("ab/c\n".into()),
            Step::Respond(200)
        ]
    );
    let (reply, transcript) = call_raw("read_document", r#"{"id":"\u3000\ufeff"}"#);
    assert_invalid((reply, transcript), NEEDS_ID, "escaped blanks");
}

/// The raw text of `result.<member>` in a reply, as the endpoint wrote it.
fn raw_result_member(reply: &Reply, member: &str) -> String {
    let envelope: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(&reply.body).unwrap();
    let result: BTreeMap<String, Box<RawValue>> =
        serde_json::from_str(envelope["result"].get()).unwrap();
    result[member].get().to_owned()
}

/// A host holding one document with characters that need escaping.
fn host_with(document: Document) -> Host {
    Host {
        documents: vec![("githubnext/chopin".to_owned(), document)],
        ..Host::seed()
    }
}

#[test]
fn a_read_result_is_id_title_source_revision_in_that_order() {
    let document = Document {
        archived_at: None,
        description: None,
        url: None,
        id: "doc-1".into(),
        title: "Quotes \"and\" β <b>".into(),
        brief: None,
        source: "# T\n\n<Callout type=\"note\">\n\ttab \\ slash\n</Callout>\n".into(),
        revision: 12,
    };
    let compact = r##"{"id":"doc-1","title":"Quotes \"and\" β <b>","source":"# T\n\n<Callout type=\"note\">\n\ttab \\ slash\n</Callout>\n","revision":12}"##;
    let mut host = host_with(document.clone());
    let reply = Request::post(&call(json!(1), "read_document", json!({"id": "doc-1"})))
        .send(&common::endpoint(), &mut host);
    let body = reply.json();
    assert_eq!(body["result"]["content"].as_array().unwrap().len(), 1);
    assert_eq!(body["result"]["content"][0]["type"], "text");
    assert_eq!(body["result"]["content"][0]["text"], compact);
    assert_eq!(raw_result_member(&reply, "structuredContent"), compact);
    assert_eq!(
        body["result"],
        json!({
            "content": [{"type": "text", "text": compact}],
            "structuredContent": {"id": "doc-1", "title": document.title, "source": document.source, "revision": 12},
        })
    );
    assert_eq!(
        host.transcript,
        [
            Step::Authenticate,
            Step::Read("doc-1".into()),
            Step::Respond(200)
        ]
    );
}

#[test]
fn the_seed_document_reads_back_exactly() {
    let document = seed_document();
    let compact = format!(
        r##"{{"id":"{}","title":"Release readiness","source":"# Release readiness\n","revision":4}}"##,
        document.id
    );
    let (reply, _) = call_json("read_document", &json!({"id": document.id}));
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        compact.as_str()
    );
    assert_eq!(raw_result_member(&reply, "structuredContent"), compact);
}

#[test]
fn a_list_result_is_documents_of_id_and_title() {
    let document = seed_document();
    let compact = format!(
        r#"{{"documents":[{{"id":"{}","title":"Release readiness"}}]}}"#,
        document.id
    );
    let (reply, transcript) = call_json(
        "list_documents",
        &json!({"repository": "githubnext/chopin"}),
    );
    let body = reply.json();
    assert_eq!(
        body["result"]["content"][0],
        json!({"type": "text", "text": compact})
    );
    assert_eq!(raw_result_member(&reply, "structuredContent"), compact);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::List("githubnext/chopin".into()),
            Step::Respond(200)
        ]
    );
    // A repository the caller sees nothing in lists nothing (not an error).
    let (reply, _) = call_json("list_documents", &json!({"repository": "githubnext/other"}));
    assert_eq!(
        reply.json()["result"],
        json!({"content": [{"type": "text", "text": "{\"documents\":[]}"}], "structuredContent": {"documents": []}})
    );
}

#[test]
fn a_missing_and_an_inaccessible_document_look_the_same() {
    let document = seed_document();
    let missing = Request::post(&call(json!(1), "read_document", json!({"id": "nope"})))
        .send(&endpoint(), &mut Host::seed());
    let mut no_grant = Host::seed();
    no_grant.grants.clear();
    let inaccessible = Request::post(&call(json!(1), "read_document", json!({"id": document.id})))
        .send(&endpoint(), &mut no_grant);
    assert_eq!(missing.body, inaccessible.body);
    assert_eq!(
        missing.text(),
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#
    );
}
