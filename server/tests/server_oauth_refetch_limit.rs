//! AUTH.md §2 "Keys", against a scripted authorization server: a flood of
//! tokens naming unknown `kid`s causes at most one JWKS refetch per 5 s, and
//! a request waiting for a refetch that hangs is answered (401) within the
//! stated bound (2 s), however long the authorization server takes.

#[path = "support/scripted_as.rs"]
mod scripted_as;
#[path = "interop/harness.rs"]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use scripted_as::scripted;
use support::{Server, status};

fn metadata(base: &str) -> String {
    format!(r#"{{"issuer":"{base}","jwks_uri":"{base}/jwks"}}"#)
}

/// A JWT-shaped token naming `kid` (its signature is never reached).
fn naming(kid: &str) -> String {
    let b64 = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    format!(
        "{}.{}.c2ln",
        b64(&format!(r#"{{"alg":"RS256","kid":"{kid}"}}"#)),
        b64("{}")
    )
}

fn serve(issuer: &str) -> Server {
    Server::start_capturing(
        "chopin-mcp-server",
        &[
            "--memory",
            "--token",
            "allowed=octocat",
            "--oauth-issuer",
            issuer,
            "--resource",
            "http://127.0.0.1:1/mcp",
        ],
        &[],
    )
}

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

#[test]
fn unknown_kid_floods_refetch_at_most_once_per_five_seconds() {
    let (issuer, asked) = scripted(|base, path| match path {
        "/jwks" => Some((200, String::new(), r#"{"keys":[]}"#.into())),
        _ => Some((200, String::new(), metadata(base))),
    });
    let server = serve(&issuer);
    let fetches = || {
        asked
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == "/jwks")
            .count()
    };
    assert_eq!(fetches(), 1, "the fetch at start");
    // Within 5 s of the start's fetch: refused at once, no refetch.
    for i in 0..20 {
        assert_eq!(
            status(&server.post(PING, Some(&naming(&format!("a{i}"))))),
            401
        );
    }
    assert_eq!(fetches(), 1);
    std::thread::sleep(Duration::from_millis(5200));
    // Past the window: the first unknown kid refetches, the rest of the
    // flood within 5 s does not.
    for i in 0..20 {
        assert_eq!(
            status(&server.post(PING, Some(&naming(&format!("b{i}"))))),
            401
        );
    }
    assert_eq!(fetches(), 2);
    // Static tokens are untouched by all this.
    assert_eq!(status(&server.post(PING, Some("allowed"))), 200);
}

static HANGING_JWKS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_hanging_refetch_holds_a_request_at_most_two_seconds() {
    let (issuer, _) = scripted(|base, path| match path {
        // The start's fetch answers; every later one hangs.
        "/jwks" if HANGING_JWKS.fetch_add(1, Ordering::SeqCst) == 0 => {
            Some((200, String::new(), r#"{"keys":[]}"#.into()))
        }
        "/jwks" => None,
        _ => Some((200, String::new(), metadata(base))),
    });
    let server = serve(&issuer);
    std::thread::sleep(Duration::from_millis(5200));
    let began = Instant::now();
    assert_eq!(status(&server.post(PING, Some(&naming("late")))), 401);
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_millis(3500),
        "{waited:?}"
    );
    // Meanwhile, and after, everything else is served at once.
    let began = Instant::now();
    assert_eq!(status(&server.post(PING, Some("allowed"))), 200);
    assert!(began.elapsed() < Duration::from_millis(500));
}
