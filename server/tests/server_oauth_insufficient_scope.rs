//! AUTH.md §3 and LIFECYCLE.md §1: raw requests with tokens from the real
//! authorization server: create_document without the create scope, and
//! each write tool without the write scope, are refused with 403
//! `insufficient_scope` naming every scope the request needs (a batch: all
//! of them), and nothing is written (raw requests, since the SDK would
//! step up by itself and hide the refusal); `--oauth-write-scope` renames
//! the write scope in the metadata and the challenges.

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

/// A write tool's call, as a raw JSON-RPC request with id `w1`.
fn write_call(tool: &str, arguments: serde_json::Value) -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": "w1", "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    })
    .to_string()
}

fn revision(server: &support::Server, token: &str) -> u64 {
    let read = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{DOC_ID}"}}}}}}"#
    );
    let reply = server.post(&read, Some(token));
    let body: serde_json::Value =
        serde_json::from_str(reply.split("\r\n\r\n").nth(1).unwrap_or_default()).expect("JSON");
    body["result"]["structuredContent"]["revision"]
        .as_u64()
        .expect("a revision")
}

#[test]
fn the_write_tools_need_the_write_scope_and_nothing_is_written_without_it() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    // May read and create, not write.
    let creator = auth.client_token(oauth::READER_BOT, "chopin:read chopin:create", &resource);
    let writes = [
        write_call(
            "update_document",
            serde_json::json!({"id": DOC_ID, "revision": 2, "plan": "# Never\n", "idempotencyKey": "w"}),
        ),
        write_call(
            "rename_document",
            serde_json::json!({"id": DOC_ID, "title": "Never"}),
        ),
        write_call("archive_document", serde_json::json!({"id": DOC_ID})),
        write_call("restore_document", serde_json::json!({"id": DOC_ID})),
    ];
    for write in &writes {
        let reply = server.post(write, Some(&creator));
        assert_eq!(status(&reply), 403, "{reply}");
        assert!(
            reply.to_ascii_lowercase().contains(
                r#"www-authenticate: bearer error="insufficient_scope", scope="chopin:read chopin:write", resource_metadata=""#
            ),
            "{reply}"
        );
        assert!(
            reply.ends_with(
                r#"{"jsonrpc":"2.0","id":"w1","error":{"code":-32000,"message":"insufficient scope"}}"#
            ),
            "{reply}"
        );
    }
    // A batch needing every scope, from a read-only token: one 403 naming
    // all three, before any effect.
    let reader = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    let draft = support::draft("batch-403", "Never created", "# Never created\n");
    let batch = format!(
        r#"[{},{{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{{"name":"create_document","arguments":{draft}}}}}]"#,
        writes[0]
    );
    let reply = server.post(&batch, Some(&reader));
    assert_eq!(status(&reply), 403, "{reply}");
    assert!(
        reply
            .to_ascii_lowercase()
            .contains(r#"scope="chopin:read chopin:create chopin:write""#),
        "{reply}"
    );
    // Nothing was written: the document is as imported; with the write
    // scope the same update applies.
    assert_eq!(revision(&server, &reader), 2);
    let writer = auth.client_token(oauth::READER_BOT, "chopin:read chopin:write", &resource);
    let reply = server.post(&writes[0], Some(&writer));
    assert_eq!(status(&reply), 200, "{reply}");
    assert!(!reply.contains("isError"), "{reply}");
    assert_eq!(revision(&server, &reader), 3);
}

#[test]
fn a_renamed_write_scope_is_published_and_asked_for() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &["--oauth-write-scope", "plans:revise"]);
    let metadata = server.raw(
        b"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n",
    );
    assert!(
        metadata.contains(r#""scopes_supported":["chopin:read","chopin:create","plans:revise"]"#),
        "{metadata}"
    );
    let no_write = auth.mint(serde_json::json!({
        "claims": auth.claims(&resource, "reader-bot", "chopin:read chopin:write")
    }));
    let rename = write_call(
        "rename_document",
        serde_json::json!({"id": DOC_ID, "title": "Renamed"}),
    );
    let reply = server.post(&rename, Some(&no_write));
    assert_eq!(status(&reply), 403, "{reply}");
    assert!(
        reply.contains(r#"scope="chopin:read plans:revise""#),
        "{reply}"
    );
    let with = auth.mint(serde_json::json!({
        "claims": auth.claims(&resource, "reader-bot", "chopin:read plans:revise")
    }));
    let reply = server.post(&rename, Some(&with));
    assert_eq!(status(&reply), 200, "{reply}");
    assert!(reply.contains(r#""structuredContent":{"id":"#), "{reply}");
}
