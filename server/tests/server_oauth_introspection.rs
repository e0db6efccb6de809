//! AUTH.md §2 "Opaque tokens", with `--oauth-introspect`: an opaque token is
//! checked at the issuer's introspection endpoint (client_secret_basic);
//! accepted while active, refused within 5 s of its revocation (the positive
//! cache's bound), and answered 503 `retry-after: 5` when the authorization
//! server cannot answer or refuses the server's own credentials. JWTs are
//! never introspected. Neither the tokens nor the client secret reach the
//! logs.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use std::time::{Duration, Instant};

use support::status;

/// A server introspecting with the given secret file; client-credentials
/// tokens name the client in `client_id`, the caller claim here.
fn introspecting(
    auth: &oauth::AuthServer,
    secret_file: &std::path::Path,
) -> (support::Server, String) {
    oauth::serve(
        auth,
        &[
            "--oauth-introspect",
            "--oauth-client-id",
            oauth::SERVER_CLIENT.0,
            "--oauth-client-secret-file",
            secret_file.to_str().unwrap(),
            "--oauth-caller-claim",
            "client_id",
            "--grant",
            "opaque-bot=*",
        ],
    )
}

#[test]
fn an_opaque_token_is_accepted_until_revoked() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = introspecting(&auth, &oauth::secret_file());
    let token = auth.client_token(oauth::OPAQUE_BOT, "chopin:read", &resource);
    assert!(!token.contains('.'), "an opaque token: {token}");
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&token))),
        200
    );
    // Garbage is inactive: 401 invalid_token.
    let garbage = server.post(&support::read_body(), Some("not-a-token-the-as-issued"));
    assert_eq!(status(&garbage), 401, "{garbage}");
    assert!(garbage.contains(r#"error="invalid_token""#), "{garbage}");
    // Revoked at the AS: refused within the 5 s the answer may be cached.
    auth.revoke(oauth::OPAQUE_BOT, &token);
    let revoked = Instant::now();
    loop {
        let reply = server.post(&support::read_body(), Some(&token));
        if status(&reply) == 401 {
            break;
        }
        assert_eq!(status(&reply), 200, "{reply}");
        assert!(
            revoked.elapsed() < Duration::from_secs(7),
            "still accepted after {:?}",
            revoked.elapsed()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    println!("refused {:?} after revocation", revoked.elapsed());
    // A JWT is validated, not introspected, beside opaque tokens.
    let jwt = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    assert_eq!(status(&server.post(&support::read_body(), Some(&jwt))), 200);
    std::thread::sleep(Duration::from_millis(300));
    let logs = server.logs();
    assert!(
        logs.contains("auth=introspection") && logs.contains("caller=opaque-bot"),
        "{logs}"
    );
    assert!(logs.contains("refusal=\"inactive\""), "{logs}");
    assert!(
        logs.lines()
            .any(|l| l.contains("auth=jwt") && l.contains("caller=reader-bot")),
        "{logs}"
    );
    for secret in [
        token.as_str(),
        oauth::SERVER_CLIENT.1,
        "not-a-token-the-as-issued",
    ] {
        assert!(!logs.contains(secret), "a secret in the logs:\n{logs}");
    }
}

#[test]
fn an_authorization_server_that_cannot_answer_makes_it_503() {
    if !oauth::installed() {
        return;
    }
    let mut auth = oauth::AuthServer::start();
    // The server's own credentials refused: 503, logged as an error.
    let wrong = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("wrong-secret-{}", std::process::id()));
    std::fs::write(&wrong, "not-the-secret\n").unwrap();
    let (refused, resource) = introspecting(&auth, &wrong);
    let token = auth.client_token(oauth::OPAQUE_BOT, "chopin:read", &resource);
    let reply = refused.post(&support::read_body(), Some(&token));
    assert_eq!(status(&reply), 503, "{reply}");
    assert!(
        reply.to_ascii_lowercase().contains("retry-after: 5"),
        "{reply}"
    );
    assert!(
        !reply.to_ascii_lowercase().contains("www-authenticate"),
        "{reply}"
    );
    assert!(reply.ends_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"authorization unavailable"}}"#), "{reply}");
    std::thread::sleep(Duration::from_millis(300));
    let logs = refused.logs();
    assert!(
        logs.contains("ERROR") && logs.contains("introspection at"),
        "{logs}"
    );
    assert!(logs.contains("reason=auth_unavailable"), "{logs}");
    assert!(
        !logs.contains("not-the-secret") && !logs.contains(&token),
        "{logs}"
    );

    // The AS gone: a token it issued before cannot be judged (not cached).
    let (server, resource) = introspecting(&auth, &oauth::secret_file());
    let unseen = auth.client_token(oauth::OPAQUE_BOT, "chopin:read", &resource);
    auth.stop();
    let began = Instant::now();
    let reply = server.post(&support::read_body(), Some(&unseen));
    assert_eq!(status(&reply), 503, "{reply}");
    assert!(
        began.elapsed() < Duration::from_secs(7),
        "{:?}",
        began.elapsed()
    );
    // Not cached: still 503, not 401.
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&unseen))),
        503
    );
}
