//! AUTH.md §3: SDK step-up. The TypeScript SDK 1.32.2 signs in with the
//! read scope the 401 names; its create_document meets 403
//! `insufficient_scope` naming both scopes, and the SDK authorizes again for
//! both (same registration) and the create succeeds
//! (`interop/oauth.mjs step-up` checks each step).

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use support::DOC_ID;

#[test]
fn the_typescript_sdk_steps_up_from_read_to_create() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    oauth::sdk_client("step-up", &resource, DOC_ID, "githubnext/chopin");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let logs = server.logs();
    assert!(
        logs.lines().any(|l| l.contains("status=403")
            && l.contains("reason=insufficient_scope")
            && l.contains("caller=alice")),
        "{logs}"
    );
}
