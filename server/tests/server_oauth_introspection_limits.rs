//! AUTH.md §2 "Opaque tokens", against a scripted authorization server:
//! garbage cannot flood it — a refused token is answered from the negative
//! cache for 5 s, and at most 16 introspections are in flight (beyond, 503 at
//! once) — and one that does not answer costs a request at most the call
//! timeout (5 s), answered 503 and not cached.

#[path = "support/scripted_as.rs"]
mod scripted_as;
#[path = "interop/harness.rs"]
mod support;

use std::time::{Duration, Instant};

use scripted_as::scripted;
use support::{Server, status};

fn metadata(base: &str) -> String {
    format!(
        r#"{{"issuer":"{base}","jwks_uri":"{base}/jwks","introspection_endpoint":"{base}/introspect"}}"#
    )
}

fn serve(issuer: &str) -> Server {
    let secret = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("limits-secret-{}", std::process::id()));
    std::fs::write(&secret, "s3cret-value\n").unwrap();
    Server::start_capturing(
        "chopin-mcp-server",
        &[
            "--memory",
            "--oauth-issuer",
            issuer,
            "--resource",
            "http://127.0.0.1:1/mcp",
            "--oauth-introspect",
            "--oauth-client-id",
            "chopin",
            "--oauth-client-secret-file",
            secret.to_str().unwrap(),
        ],
        &[],
    )
}

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

#[test]
fn a_refused_opaque_token_is_introspected_once_per_five_seconds() {
    let (issuer, asked) = scripted(|base, path| match path {
        "/jwks" => Some((200, String::new(), r#"{"keys":[]}"#.into())),
        "/introspect" => Some((200, String::new(), r#"{"active":false}"#.into())),
        _ => Some((200, String::new(), metadata(base))),
    });
    let server = serve(&issuer);
    let introspections = || {
        asked
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == "/introspect")
            .count()
    };
    for _ in 0..10 {
        assert_eq!(status(&server.post(PING, Some("garbage-opaque"))), 401);
    }
    assert_eq!(introspections(), 1);
    std::thread::sleep(Duration::from_millis(5200));
    assert_eq!(status(&server.post(PING, Some("garbage-opaque"))), 401);
    assert_eq!(introspections(), 2);
    let logs = server.logs();
    assert!(
        !logs.contains("garbage-opaque") && !logs.contains("s3cret-value"),
        "{logs}"
    );
}

#[test]
fn at_most_sixteen_introspections_are_in_flight() {
    let (issuer, _) = scripted(|base, path| match path {
        "/jwks" => Some((200, String::new(), r#"{"keys":[]}"#.into())),
        "/introspect" => None, // never answers
        _ => Some((200, String::new(), metadata(base))),
    });
    let server = std::sync::Arc::new(serve(&issuer));
    let waiting: Vec<_> = (0..16)
        .map(|i| {
            let server = std::sync::Arc::clone(&server);
            std::thread::spawn(move || {
                let began = Instant::now();
                let reply = server.post(PING, Some(&format!("opaque-{i}")));
                (status(&reply), began.elapsed())
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1000));
    // The seventeenth: refused at once, not queued behind the others.
    let began = Instant::now();
    let reply = server.post(PING, Some("opaque-17"));
    assert_eq!(status(&reply), 503, "{reply}");
    assert!(
        reply.to_ascii_lowercase().contains("retry-after: 5"),
        "{reply}"
    );
    assert!(
        began.elapsed() < Duration::from_millis(800),
        "{:?}",
        began.elapsed()
    );
    // The sixteen: 503 once the call times out (5 s), none much later.
    for thread in waiting {
        let (code, waited) = thread.join().unwrap();
        assert_eq!(code, 503);
        assert!(waited < Duration::from_secs(8), "{waited:?}");
    }
    let logs = server.logs();
    assert!(logs.contains("introspections already in flight"), "{logs}");
}
