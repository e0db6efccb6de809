//! AUTH.md §2 "Keys": the authorization server rotates its signing key and
//! the server follows without a restart, within seconds: a token signed with
//! the new key (an unknown `kid`) makes the server refetch the JWKS (at most
//! once per 5 s); tokens whose key is still published keep working; once a
//! key leaves the JWKS, its tokens, cached ones included, are refused.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use std::time::{Duration, Instant};

use support::status;

/// Presents `token` until the answer is `wanted` (within `limit`); how long
/// that took.
fn until(server: &support::Server, token: &str, wanted: u16, limit: Duration) -> Duration {
    let began = Instant::now();
    loop {
        let reply = server.post(&support::read_body(), Some(token));
        if status(&reply) == wanted {
            return began.elapsed();
        }
        assert!(
            began.elapsed() < limit,
            "still {} after {limit:?}: {reply}",
            status(&reply)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_rotated_key_is_picked_up_and_a_retired_one_refused() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let old = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    assert_eq!(status(&server.post(&support::read_body(), Some(&old))), 200);

    // A new signing key: the AS's next token names a kid the server has not
    // seen. It is accepted once the refetch window (5 s) allows a refetch.
    let new_kid = auth.rotate();
    let new = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    let header = new.split('.').next().unwrap();
    assert!(String::from_utf8_lossy(&base64_url(header)).contains(&new_kid));
    let took = until(&server, &new, 200, Duration::from_secs(15));
    println!("the new key was accepted after {took:?}");
    // The old key is still published: its token still works.
    assert_eq!(status(&server.post(&support::read_body(), Some(&old))), 200);

    // The old keys are retired, and a further rotation makes the server
    // refetch: the set it then holds has no old key, so the old token,
    // cached until now, is refused.
    auth.retire_old_keys();
    auth.rotate();
    let newest = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    until(&server, &newest, 200, Duration::from_secs(15));
    assert_eq!(auth.kids().len(), 2);
    until(&server, &old, 401, Duration::from_secs(15));
    assert_eq!(status(&server.post(&support::read_body(), Some(&new))), 200);
    std::thread::sleep(Duration::from_millis(200));
    let logs = server.logs();
    assert!(logs.contains("refusal=\"unknown_kid\""), "{logs}");
}

fn base64_url(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .expect("base64url")
}
