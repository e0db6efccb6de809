//! Starting with `--oauth-issuer` (AUTH.md §2, "Discovery at start"): the
//! authorization server's metadata is read first (RFC 8414, then OpenID
//! Connect), its `issuer` must equal the flag byte for byte, outbound URLs
//! are https or loopback http, no redirect is followed, answers are capped
//! and timed out. Any failure stops the start: a message naming the cause,
//! exit 1. Usage errors exit 2; `chopin-mcp-blocking` refuses OAuth.
//!
//! The authorization servers here are scripted, hostile ones (a few lines
//! of HTTP on a loopback port); the real one is in the other
//! `server_oauth_*` tests.

#[path = "support/scripted_as.rs"]
mod scripted_as;
#[path = "interop/harness.rs"]
mod support;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use scripted_as::scripted;

use support::run;

/// The start against `issuer` fails with exit status 1: its stderr.
fn refused(issuer: &str) -> String {
    let (code, stderr) = start(issuer);
    assert_eq!(code, Some(1), "{stderr}");
    stderr
}

fn start(issuer: &str) -> (Option<i32>, String) {
    run(
        "chopin-mcp-server",
        &[
            "--memory",
            "--oauth-issuer",
            issuer,
            "--resource",
            "http://127.0.0.1:1/mcp",
        ],
    )
}

fn metadata(issuer: &str) -> String {
    format!(r#"{{"issuer":"{issuer}","jwks_uri":"{issuer}/jwks"}}"#)
}

const JWKS: &str = r#"{"keys":[]}"#;

#[test]
fn rfc_8414_metadata_is_tried_before_openid_configuration() {
    let (issuer, asked) = scripted(|base, path| match path {
        "/.well-known/oauth-authorization-server" => Some((404, String::new(), "{}".into())),
        // An issuer that differs only by a trailing slash is another issuer.
        "/.well-known/openid-configuration" => {
            Some((200, String::new(), metadata(&format!("{base}/"))))
        }
        _ => Some((404, String::new(), "{}".into())),
    });
    let stderr = refused(&issuer);
    assert!(stderr.contains("must be equal byte for byte"), "{stderr}");
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration"
        ]
    );
}

#[test]
fn a_matching_issuer_with_a_jwks_starts() {
    let (issuer, asked) = scripted(|base, path| match path {
        "/.well-known/oauth-authorization-server" => Some((200, String::new(), metadata(base))),
        "/jwks" => Some((200, String::new(), JWKS.into())),
        _ => Some((404, String::new(), "{}".into())),
    });
    let server = support::Server::start(
        "chopin-mcp-server",
        &[
            "--memory",
            "--oauth-issuer",
            &issuer,
            "--resource",
            "http://127.0.0.1:1/mcp",
        ],
    );
    assert!(
        server
            .banner
            .iter()
            .any(|line| line.contains("OAuth: tokens from")),
        "{:?}",
        server.banner
    );
    // No token is generated when users sign in.
    assert!(
        !server.banner.iter().any(|line| line.starts_with("token:")),
        "{:?}",
        server.banner
    );
    assert_eq!(
        *asked.lock().unwrap(),
        ["/.well-known/oauth-authorization-server", "/jwks"]
    );
}

#[test]
fn a_redirect_is_not_followed() {
    let (issuer, asked) = scripted(|base, _| {
        Some((
            302,
            format!("location: {base}/elsewhere\r\n"),
            String::new(),
        ))
    });
    let stderr = refused(&issuer);
    assert!(stderr.contains("redirects are not followed"), "{stderr}");
    assert!(!asked.lock().unwrap().iter().any(|p| p == "/elsewhere"));
}

#[test]
fn invalid_or_oversized_metadata_stops_the_start() {
    let (issuer, _) = scripted(|_, _| Some((200, String::new(), "<html>".into())));
    let stderr = refused(&issuer);
    assert!(stderr.contains("is not a JSON object"), "{stderr}");

    let (issuer, _) = scripted(|_, _| Some((200, String::new(), " ".repeat(2 << 20))));
    let stderr = refused(&issuer);
    assert!(stderr.contains("more than 1048576 bytes"), "{stderr}");
}

#[test]
fn a_jwks_uri_on_plain_http_elsewhere_is_refused() {
    let (issuer, _) = scripted(|base, _| {
        Some((
            200,
            String::new(),
            format!(r#"{{"issuer":"{base}","jwks_uri":"http://as.example/jwks"}}"#),
        ))
    });
    let stderr = refused(&issuer);
    assert!(
        stderr.contains("jwks_uri") && stderr.contains("must be https"),
        "{stderr}"
    );
}

#[test]
fn an_unreachable_or_silent_authorization_server_stops_the_start_in_time() {
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let stderr = refused(&closed);
    assert!(
        stderr.contains("cannot read the authorization server's metadata"),
        "{stderr}"
    );

    let (issuer, _) = scripted(|_, _| None);
    let began = Instant::now();
    let stderr = refused(&issuer);
    assert!(stderr.contains("timed out"), "{stderr}");
    // The call timeout is 5 s; the start gives up well before the AS does.
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn a_broken_jwks_stops_the_start() {
    let (issuer, _) = scripted(|base, path| match path {
        "/jwks" => Some((500, String::new(), "{}".into())),
        _ => Some((200, String::new(), metadata(base))),
    });
    let stderr = refused(&issuer);
    assert!(
        stderr.contains("cannot read the JWKS") && stderr.contains("answered 500"),
        "{stderr}"
    );
}

#[test]
fn oauth_flag_mistakes_are_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--oauth-issuer", "https://as.example"],
            "needs --resource",
        ),
        (
            &["--resource", "https://m.example/mcp"],
            "needs --oauth-issuer",
        ),
        (&["--oauth-read-scope", "x"], "needs --oauth-issuer"),
        (
            &[
                "--oauth-issuer",
                "https://as.example",
                "--resource",
                "https://m.example/mcp",
                "--oauth-introspect",
            ],
            "needs --oauth-client-id",
        ),
        (
            &[
                "--oauth-issuer",
                "https://as.example",
                "--resource",
                "https://m.example/mcp",
                "--oauth-caller-claim",
                "",
            ],
            "must not be empty",
        ),
    ];
    for (args, message) in cases {
        let (code, stderr) = run("chopin-mcp-server", args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn plain_http_issuers_are_for_loopback_only() {
    let stderr = refused("http://as.example");
    assert!(
        stderr.contains("https") && stderr.contains("loopback"),
        "{stderr}"
    );
}

#[test]
fn the_blocking_server_refuses_oauth() {
    let (code, stderr) = run(
        "chopin-mcp-blocking",
        &[
            "--memory",
            "--oauth-issuer",
            "https://as.example",
            "--resource",
            "https://m.example/mcp",
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("does not sign users in with OAuth"),
        "{stderr}"
    );
}

#[test]
fn the_client_secret_file_must_be_readable() {
    let (issuer, _) = scripted(|base, path| match path {
        "/jwks" => Some((200, String::new(), JWKS.into())),
        _ => Some((
            200,
            String::new(),
            format!(
                r#"{{"issuer":"{base}","jwks_uri":"{base}/jwks","introspection_endpoint":"{base}/introspect"}}"#
            ),
        )),
    });
    let (code, stderr) = run(
        "chopin-mcp-server",
        &[
            "--memory",
            "--oauth-issuer",
            &issuer,
            "--resource",
            "http://127.0.0.1:1/mcp",
            "--oauth-introspect",
            "--oauth-client-id",
            "chopin",
            "--oauth-client-secret-file",
            "/nonexistent/secret",
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot read the client secret file /nonexistent/secret"),
        "{stderr}"
    );
}
