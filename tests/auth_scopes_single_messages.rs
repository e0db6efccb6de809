//! AUTH.md §1.2 for one message, in both eras: every request needs the read
//! scope, `create_document` the create scope too; the need is decided once
//! the body is parsed and the era known, before parameters, tool arguments
//! and any effect; answers that do not depend on scopes are the same for
//! every caller.

mod common;

use chopin_mcp::Config;
use common::{
    Request, Step, as_token, call, creation, endpoint_with, insufficient, mreq_id, ping, scope_of,
};
use serde_json::{Value, json};

fn creating() -> Config {
    Config::new().enable_creation()
}

#[test]
fn a_read_token_reads_but_does_not_create() {
    let document = common::seed_document();
    let read = Request::post(&call(json!(1), "read_document", json!({"id": document.id})));
    let (reply, transcript) = as_token(read, "reader").exchange(&endpoint_with(creating()));
    assert_eq!(reply.status, 200);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Read(document.id.clone()),
            Step::Respond(200)
        ]
    );

    let create = Request::post(&call(json!(2), "create_document", creation()));
    let (reply, transcript) = as_token(create, "reader").exchange(&endpoint_with(creating()));
    assert_eq!(reply.status, 403);
    assert_eq!(reply.text(), insufficient("2"));
    assert_eq!(
        scope_of(reply.header("www-authenticate")),
        "chopin:read chopin:create"
    );
    assert_eq!(
        transcript,
        [Step::Authenticate, Step::Respond(403)],
        "nothing created"
    );
}

#[test]
fn without_the_read_scope_every_request_is_refused() {
    for body in [
        ping(json!(1)),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        call(
            json!(1),
            "list_documents",
            json!({"repository": "githubnext/chopin"}),
        ),
        json!({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}),
    ] {
        for token in ["creator", "scopeless"] {
            let request = as_token(Request::post(&body), token);
            let (reply, transcript) = request.exchange(&endpoint_with(creating()));
            assert_eq!(
                (reply.status, reply.text()),
                (403, &*insufficient("1")),
                "{body} {token}"
            );
            assert_eq!(scope_of(reply.header("www-authenticate")), "chopin:read");
            assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
        }
    }
}

#[test]
fn create_needs_both_scopes_and_the_refusal_names_both() {
    let create = Request::post(&call(json!("k"), "create_document", creation()));
    let (reply, _) = as_token(create.clone(), "creator").exchange(&endpoint_with(creating()));
    assert_eq!(reply.status, 403);
    assert_eq!(
        scope_of(reply.header("www-authenticate")),
        "chopin:read chopin:create"
    );
    // (One exchange: the endpoint's ids advance with each create.)
    let mut host = common::Host::seed();
    let reply = as_token(create, "both").send(&endpoint_with(creating()), &mut host);
    assert_eq!(reply.status, 200);
    assert!(
        host.transcript
            .contains(&Step::Create("githubnext/chopin".to_owned()))
    );
}

#[test]
fn the_scope_is_decided_before_parameters_and_tool_arguments() {
    // Arguments that would fail their checks: the 403 comes first.
    let bad = call(json!(3), "create_document", json!({"title": 7}));
    let (reply, _) = as_token(Request::post(&bad), "reader").exchange(&endpoint_with(creating()));
    assert_eq!((reply.status, reply.text()), (403, &*insufficient("3")));
    let malformed = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": 5});
    let (reply, _) =
        as_token(Request::post(&malformed), "scopeless").exchange(&endpoint_with(creating()));
    assert_eq!((reply.status, reply.text()), (403, &*insufficient("4")));
    // A read token's malformed call is judged as before: read is enough.
    let (reply, _) =
        as_token(Request::post(&malformed), "reader").exchange(&endpoint_with(creating()));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["error"]["code"], -32602);
}

#[test]
fn invalid_messages_keep_their_json_rpc_errors() {
    // Not a request: nothing to authorize, the reject table answers.
    for body in [
        json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
        json!({"id": 1}),
    ] {
        let (reply, _) =
            as_token(Request::post(&body), "scopeless").exchange(&endpoint_with(creating()));
        assert_eq!(reply.status, 200, "{body}");
        assert_eq!(reply.json()["error"]["code"], -32600);
    }
}

#[test]
fn create_document_without_creation_is_tool_not_found_and_needs_no_create_scope() {
    let create = Request::post(&call(json!(5), "create_document", creation()));
    let (reply, _) = as_token(create, "reader").exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32601, "message": "tool not found"})
    );
}

#[test]
fn discovery_answers_are_the_same_for_every_caller() {
    let bodies: [Value; 2] = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ];
    for body in bodies {
        let (all, _) =
            as_token(Request::post(&body), "allowed").exchange(&endpoint_with(creating()));
        let (read, _) =
            as_token(Request::post(&body), "reader").exchange(&endpoint_with(creating()));
        assert_eq!(all, read, "{body}");
    }
    // create_document is listed for a read-only caller, so it can step up.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (reply, _) = as_token(Request::post(&list), "reader").exchange(&endpoint_with(creating()));
    assert!(reply.text().contains("\"create_document\""));
    // Modern: the same, and the cache hint stays public.
    let modern = |token: &str| as_token(mreq_id(json!(1), "tools/list", json!({})), token);
    let (all, _) = modern("allowed").exchange(&endpoint_with(creating()));
    let (read, _) = modern("reader").exchange(&endpoint_with(creating()));
    assert_eq!(all, read);
    assert!(read.text().contains(r#""cacheScope":"public""#));
}

#[test]
fn the_modern_era_decides_scopes_after_the_method_and_before_params() {
    let endpoint = endpoint_with(creating());
    let create = as_token(
        mreq_id(
            json!(7),
            "tools/call",
            json!({"name": "create_document", "arguments": creation()}),
        ),
        "reader",
    );
    let (reply, transcript) = create.exchange(&endpoint);
    assert_eq!((reply.status, reply.text()), (403, &*insufficient("7")));
    assert_eq!(
        scope_of(reply.header("www-authenticate")),
        "chopin:read chopin:create"
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
    // Bad arguments do not come first.
    let bad = as_token(
        mreq_id(
            json!(8),
            "tools/call",
            json!({"name": "create_document", "arguments": {}}),
        ),
        "reader",
    );
    assert_eq!(bad.exchange(&endpoint).0.status, 403);
    for method in ["server/discover", "tools/list"] {
        let request = as_token(mreq_id(json!(9), method, json!({})), "creator");
        let (reply, _) = request.exchange(&endpoint);
        assert_eq!(
            (reply.status, reply.text()),
            (403, &*insufficient("9")),
            "{method}"
        );
    }
    // The ladder before M5 answers first (here M2, `_meta`), and an unknown
    // method gets its 404.
    let no_meta = as_token(
        Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list"),
        "creator",
    );
    assert_eq!(no_meta.exchange(&endpoint).0.status, 400);
    let unknown = as_token(mreq_id(json!(1), "no/such", json!({})), "creator");
    assert_eq!(unknown.exchange(&endpoint).0.status, 404);
    // With the read scope a modern read goes through.
    let document = common::seed_document();
    let read = as_token(
        mreq_id(
            json!(1),
            "tools/call",
            json!({"name": "read_document", "arguments": {"id": document.id}}),
        ),
        "reader",
    );
    assert_eq!(read.exchange(&endpoint).0.status, 200);
}
