//! AUTH.md §2–§3: tokens minted in the test against the real authorization
//! server's keys, each refused with 401 `invalid_token` and its reason
//! logged as a label (never the token): a forged key, `alg: none`, HMAC
//! keyed with the public key, expired, wrong issuer, wrong audience, no
//! `kid` with two keys, a caller that is also a static token's caller, and
//! more (oversized, wrong `typ`, not yet valid, issued in the future, an
//! embedded `jwk`/`jku` that must not be used). A token without the read
//! scope is a valid token lacking a scope: 403 `insufficient_scope`
//! (AUTH.md §1.1's table).

#[path = "support/oauth.rs"]
mod oauth;
#[path = "interop/harness.rs"]
mod support;

use serde_json::{Value, json};
use support::status;

#[test]
fn every_bad_token_is_invalid_token_with_its_reason_logged() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let good = auth.claims(&resource, "alice", "chopin:read");
    let with = |key: &str, value: Value| {
        let mut claims = good.clone();
        claims[key] = value;
        claims
    };
    // The control: a well-minted token is accepted.
    let accepted = auth.mint(json!({"claims": good}));
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&accepted))),
        200
    );

    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "forged key",
            json!({"claims": good, "key": "forged"}),
            "bad_signature",
        ),
        (
            "alg none",
            json!({"claims": good, "key": "none"}),
            "algorithm_refused",
        ),
        (
            "HMAC with the public key",
            json!({"claims": good, "key": "hmac-public"}),
            "algorithm_refused",
        ),
        (
            "expired",
            json!({"claims": with("exp", json!(oauth::now() - 120))}),
            "expired",
        ),
        (
            "wrong issuer",
            json!({"claims": with("iss", json!("http://127.0.0.1:1"))}),
            "wrong_issuer",
        ),
        (
            "wrong audience",
            json!({"claims": with("aud", json!("http://127.0.0.1:1/mcp"))}),
            "wrong_audience",
        ),
        (
            "no kid with two keys",
            json!({"claims": good, "kid": null}),
            "no_kid_ambiguous",
        ),
        (
            "a static caller's name",
            json!({"claims": with("sub", json!("octocat"))}),
            "static_caller_collision",
        ),
        (
            "unknown kid",
            json!({"claims": good, "kid": "no-such-kid"}),
            "unknown_kid",
        ),
        (
            "not yet valid",
            json!({"claims": with("nbf", json!(oauth::now() + 600))}),
            "not_yet_valid",
        ),
        (
            "issued in the future",
            json!({"claims": with("iat", json!(oauth::now() + 600))}),
            "issued_in_future",
        ),
        (
            "wrong typ",
            json!({"claims": good, "typ": "id+jwt"}),
            "wrong_type",
        ),
        (
            "no exp",
            json!({"claims": {"iss": auth.issuer, "aud": resource, "sub": "alice", "scope": "chopin:read"}}),
            "expired",
        ),
        (
            "no caller",
            json!({"claims": with("sub", json!(""))}),
            "no_caller",
        ),
        (
            "oversized",
            json!({"claims": with("pad", json!("x".repeat(9000)))}),
            "jwt_too_large",
        ),
        // A key named by URL or carried inline is never used: still forged.
        (
            "forged with jku",
            json!({"claims": good, "key": "forged", "jku": "http://127.0.0.1:1/jwks"}),
            "bad_signature",
        ),
    ];
    let mut tokens = vec![accepted];
    for (name, spec, _) in &cases {
        let token = auth.mint(spec.clone());
        let reply = server.post(&support::read_body(), Some(&token));
        assert_eq!(status(&reply), 401, "{name}: {reply}");
        assert!(
            reply
                .to_ascii_lowercase()
                .contains(r#"www-authenticate: bearer error="invalid_token""#),
            "{name}: {reply}"
        );
        assert!(
            reply.ends_with(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized"}}"#
            ),
            "{name}: {reply}"
        );
        tokens.push(token);
    }
    // The real AS's own tokens for the wrong resource are refused too.
    let elsewhere = auth.client_token(oauth::READER_BOT, "chopin:read", "http://127.0.0.1:1/mcp");
    assert_eq!(
        status(&server.post(&support::read_body(), Some(&elsewhere))),
        401
    );
    tokens.push(elsewhere);

    // Without the read scope: a valid token, short of a scope (403).
    let scopeless = auth.mint(json!({"claims": with("scope", json!("openid profile"))}));
    let reply = server.post(&support::read_body(), Some(&scopeless));
    assert_eq!(status(&reply), 403, "{reply}");
    assert!(
        reply.contains(r#"error="insufficient_scope", scope="chopin:read""#),
        "{reply}"
    );
    tokens.push(scopeless);

    std::thread::sleep(std::time::Duration::from_millis(300));
    let logs = server.logs();
    for (name, _, reason) in &cases {
        assert!(
            logs.contains(&format!("refusal=\"{reason}\"")),
            "{name}: no {reason} in\n{logs}"
        );
    }
    assert!(logs.contains("reason=invalid_token"), "{logs}");
    for token in &tokens {
        // No token, nor any of its three parts, in the logs.
        for part in token.split('.').filter(|p| p.len() > 8) {
            assert!(!logs.contains(part), "a token part in the logs:\n{logs}");
        }
    }
}
