//! AUTH.md §3: the official TypeScript SDK client 1.32.2 signs in headlessly
//! against `chopin-mcp-server` protected by a real authorization server
//! (oidc-provider, `oauth/as.mjs`): 401 → Protected Resource Metadata → AS
//! metadata → dynamic registration → authorization with PKCE and `resource`
//! → token → initialize, tools/list, list_documents, read_document,
//! create_document (`interop/oauth.mjs flow` checks each step).

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use support::{DOC_ID, TOKEN};

#[test]
fn the_typescript_sdk_signs_in_and_reads_and_creates() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let stdout = oauth::sdk_client("flow", &resource, DOC_ID, "githubnext/chopin");
    // The document exists, readable by alice's grants (here through the
    // static token of octocat, who may read everything).
    let created = stdout
        .lines()
        .find_map(|line| line.strip_prefix("created "))
        .expect("a created id");
    let reply = server.call("read_document", &format!(r#"{{"id":"{created}"}}"#));
    assert_eq!(support::status(&reply), 200, "{reply}");
    assert!(
        reply.contains(created) && !reply.contains("isError"),
        "{reply}"
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    let logs = server.logs();
    assert!(
        logs.contains("auth=jwt") && logs.contains("caller=alice"),
        "{logs}"
    );
    assert!(logs.contains("auth=static"), "{logs}");
    assert!(
        !logs.contains("eyJ") && !logs.contains(TOKEN),
        "a token in the logs:\n{logs}"
    );
}
