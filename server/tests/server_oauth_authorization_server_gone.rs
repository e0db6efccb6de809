//! AUTH.md §2: while the authorization server is unreachable, the keys
//! fetched before keep validating tokens (cached or not), an unknown `kid`
//! gets 401 without a long wait, and the server keeps serving.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::status;

#[test]
fn known_keys_keep_validating_after_the_authorization_server_stops() {
    if !oauth::installed() {
        return;
    }
    let mut auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let used = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&used))),
        200
    );
    // Issued before the AS stops, presented only after: not in any cache
    // but the keys'.
    let fresh = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    let unknown = auth.mint(json!({
        "claims": auth.claims(&resource, "alice", "chopin:read"), "kid": "gone-kid"
    }));
    auth.stop();
    // Past the refetch window, so the unknown kid does try a refetch.
    std::thread::sleep(Duration::from_secs(6));
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&fresh))),
        200
    );
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&used))),
        200
    );
    let began = Instant::now();
    let reply = server.post(&support::read_body(), Some(&unknown));
    assert_eq!(status(&reply), 401, "{reply}");
    // A refetch waits at most 2 s (here the AS refuses connections at once).
    assert!(
        began.elapsed() < Duration::from_secs(4),
        "{:?}",
        began.elapsed()
    );
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&fresh))),
        200
    );
    std::thread::sleep(Duration::from_millis(300));
    let logs = server.logs();
    assert!(logs.contains("the cached keys stay in use"), "{logs}");
}
