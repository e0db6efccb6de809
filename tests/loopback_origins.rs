//! MODERN.md §7 / §9 case 31: `allow_loopback_hosts()` also admits loopback
//! origins — `http` or `https`, `://`, `localhost` / `127.0.0.1` / `[::1]`
//! (ASCII case-insensitive), an optional `:` + 1–5 digits, nothing more — in
//! both eras. Other origins still need an exact `allow_origin`; without
//! `allow_loopback_hosts` SPEC.md's rule stands. Host is unchanged.

mod common;

use chopin_mcp::Config;
use common::{Request, Step, call, endpoint_with};
use serde_json::json;

const ACCEPTED: [&str; 9] = [
    "http://localhost:3000",
    "http://127.0.0.1:3000",
    "http://[::1]:3000",
    "https://localhost",
    "http://localhost",
    "https://127.0.0.1:8443",
    "HTTP://LOCALHOST:5173",
    "http://LocalHost:1",
    "https://[::1]:65535",
];

const REFUSED: [&str; 14] = [
    "http://evil.example.com",
    "null",
    "http://localhost.evil.com",
    "http://localhost.evil.test:3000",
    "http://localhost:3000/",
    "http://user@localhost",
    "http://localhost:",
    "http://localhost:123456",
    "ws://localhost:3000",
    "http://127.0.0.2:3000",
    "http://[::1]x",
    "localhost:3000",
    "",
    "http://localhost:3000 ",
];

fn listing() -> Request {
    Request::post(&call(
        json!(1),
        "list_documents",
        json!({"repository": "githubnext/chopin"}),
    ))
}

fn loopback() -> Config {
    Config::new().allow_loopback_hosts()
}

#[test]
fn loopback_origins_pass_and_are_echoed_as_sent() {
    for host in ["127.0.0.1:3000", "localhost:3000", "[::1]:3000"] {
        for origin in ACCEPTED {
            let request = listing().header("host", host).header("origin", origin);
            let (reply, transcript) = request.exchange(&endpoint_with(loopback()));
            assert_eq!(reply.status, 200, "{origin} via {host}");
            assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
            assert_eq!(transcript[0], Step::Authenticate);
        }
    }
}

#[test]
fn other_origins_are_refused_before_authentication() {
    for origin in REFUSED {
        let request = listing()
            .header("host", "127.0.0.1:3000")
            .header("origin", origin);
        let (reply, transcript) = request.exchange(&endpoint_with(loopback()));
        assert_eq!(
            (reply.status, reply.text()),
            (403, "origin is not allowed"),
            "{origin:?}"
        );
        assert_eq!(transcript, [Step::Respond(403)], "{origin:?}");
        assert_eq!(reply.header("access-control-allow-origin"), None);
    }
}

#[test]
fn the_host_rule_is_unchanged() {
    // dns-rebinding-protection: Host and Origin evil.example.com → 4xx.
    let rebinding = listing()
        .header("host", "evil.example.com")
        .header("origin", "http://evil.example.com");
    let (reply, transcript) = rebinding.exchange(&endpoint_with(loopback()));
    assert_eq!(reply.status, 403);
    assert_eq!(transcript, [Step::Respond(403)]);
    // A loopback origin does not widen the Host check.
    let (reply, _) = listing()
        .header("host", "evil.example.com")
        .header("origin", "http://localhost:3000")
        .exchange(&endpoint_with(loopback()));
    assert_eq!((reply.status, reply.text()), (403, "host is not allowed"));
    assert_eq!(reply.header("access-control-allow-origin"), None);
    // Its own host and origin: 2xx.
    let (reply, _) = listing()
        .header("host", "127.0.0.1:3000")
        .header("origin", "http://127.0.0.1:3000")
        .exchange(&endpoint_with(loopback()));
    assert_eq!(reply.status, 200);
}

#[test]
fn without_allow_loopback_hosts_loopback_origins_need_allow_origin() {
    let (reply, transcript) = listing()
        .header("origin", "http://localhost:3000")
        .exchange(&endpoint_with(Config::new()));
    assert_eq!((reply.status, reply.text()), (403, "origin is not allowed"));
    assert_eq!(transcript, [Step::Respond(403)]);
    // allow_host alone does not admit loopback origins either.
    let (reply, _) = listing()
        .header("origin", "http://localhost:3000")
        .exchange(&endpoint_with(Config::new().allow_host("localhost")));
    assert_eq!(reply.status, 403);
    // An exact entry admits exactly that origin.
    let exact = || Config::new().allow_origin("http://localhost:3000");
    let (ok, _) = listing()
        .header("origin", "http://localhost:3000")
        .exchange(&endpoint_with(exact()));
    assert_eq!(ok.status, 200);
    let (other, _) = listing()
        .header("origin", "http://localhost:3001")
        .exchange(&endpoint_with(exact()));
    assert_eq!(other.status, 403);
}

#[test]
fn exact_origins_still_pass_beside_loopback_ones() {
    let config = || loopback().allow_origin("https://app.example");
    for origin in ["https://app.example", "http://localhost:5173"] {
        let (reply, _) = listing()
            .header("host", "localhost:8080")
            .header("origin", origin)
            .exchange(&endpoint_with(config()));
        assert_eq!(reply.status, 200, "{origin}");
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
    }
    let (reply, _) = listing()
        .header("host", "localhost:8080")
        .header("origin", "https://other.example")
        .exchange(&endpoint_with(config()));
    assert_eq!(reply.status, 403);
}

#[test]
fn the_origin_rule_comes_before_the_version_step_in_both_eras() {
    // Whatever the version header says (a legacy one, the modern one, an
    // unknown one), a loopback origin gets past step 2 to authentication,
    // and a refused one never does.
    for version in ["2025-11-25", "2026-07-28", "1999-01-01"] {
        let request = listing()
            .header("host", "127.0.0.1:3000")
            .header("mcp-protocol-version", version);
        let (admitted, transcript) = request
            .clone()
            .header("origin", "http://localhost:3000")
            .exchange(&endpoint_with(loopback()));
        assert_ne!(admitted.status, 403, "{version}");
        assert_eq!(transcript[0], Step::Authenticate, "{version}");
        let (refused, transcript) = request
            .header("origin", "http://localhost.evil.com")
            .exchange(&endpoint_with(loopback()));
        assert_eq!(refused.status, 403, "{version}");
        assert_eq!(transcript, [Step::Respond(403)], "{version}");
    }
}
