//! AUTH.md §3: a raw request with a read-only token from the real
//! authorization server: create_document is refused with 403
//! `insufficient_scope` naming both scopes, and nothing is created (a raw
//! request, since the SDK would step up by itself and hide the refusal).

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use support::{DOC_ID, status};

#[test]
fn a_read_only_token_cannot_create_and_nothing_is_created() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let token = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    // Reading works with it.
    let read = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{DOC_ID}"}}}}}}"#
    );
    assert_eq!(status(&server.post(&read, Some(&token))), 200);
    let draft = support::draft("raw-403", "Never created", "# Never created\n");
    let create = serde_json::json!({
        "jsonrpc": "2.0", "id": "c1", "method": "tools/call",
        "params": {"name": "create_document", "arguments": draft},
    });
    let reply = server.post(&create.to_string(), Some(&token));
    assert_eq!(status(&reply), 403, "{reply}");
    let lower = reply.to_ascii_lowercase();
    assert!(
        lower.contains(r#"www-authenticate: bearer error="insufficient_scope", scope="chopin:read chopin:create", resource_metadata=""#),
        "{reply}"
    );
    assert!(
        reply.ends_with(
            r#"{"jsonrpc":"2.0","id":"c1","error":{"code":-32000,"message":"insufficient scope"}}"#
        ),
        "{reply}"
    );
    // Nothing was created: the same draft with a token that may create is a
    // new document, not a replay.
    let both = auth.client_token(oauth::READER_BOT, "chopin:read chopin:create", &resource);
    let created = server.post(&create.to_string(), Some(&both));
    assert_eq!(status(&created), 200, "{created}");
    assert!(!created.contains("isError"), "{created}");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
    let listed = server.post(list, Some(&both));
    let body: serde_json::Value =
        serde_json::from_str(listed.split("\r\n\r\n").nth(1).unwrap_or_default()).expect("JSON");
    let documents = body["result"]["structuredContent"]["documents"]
        .as_array()
        .expect("documents");
    let titled = documents
        .iter()
        .filter(|d| d["title"] == "Never created")
        .count();
    assert_eq!(titled, 1, "{listed}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let logs = server.logs();
    assert!(logs.contains("reason=insufficient_scope"), "{logs}");
}
