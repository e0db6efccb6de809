//! One keep-alive connection carrying several bearer tokens, as a proxy
//! carrying several users' requests does: each request is judged by its
//! own token. A connection keeps the static token it last accepted (so the
//! same token again is not hashed and looked up again: `serve/known.rs`);
//! a different token on it, or a changed byte, is never taken for that one.
//! (A refused token is answered before the body is read, and closes its
//! connection: each refusal is tried on a connection of its own, after the
//! accepted token.)
//! Both servers.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/keep_alive.rs"]
mod keep_alive;

use keep_alive::KeepAlive;
use support::{DOC_TITLE, SERVERS, Server, read_body};

fn bearer(token: &str) -> String {
    format!("authorization: Bearer {token}\r\n")
}

fn status(head: &str) -> u16 {
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn each_request_on_a_connection_is_judged_by_its_own_token() {
    for name in SERVERS {
        // bob's token is valid, but bob has no grant: the document is not
        // his to see.
        let server = Server::seeded_with(name, &["--token", "bobs-token=bob"]);
        let mut conn = KeepAlive::open(server.addr);
        let read = read_body();
        let (head, body) = conn.post(&bearer("allowed"), &read);
        assert_eq!(status(&head), 200, "{name}: {head}");
        assert!(body.contains(DOC_TITLE), "{name}: {body}");
        // The accepted token with a byte changed, one byte more, one less,
        // and none, each after it on a connection of its own (a 401 is
        // answered before the body is read, so it closes its connection):
        // refused.
        for other in [
            bearer("allowee"),
            bearer("allowedd"),
            bearer("allowe"),
            String::new(),
        ] {
            let mut refused = KeepAlive::open(server.addr);
            let (head, _) = refused.post(&bearer("allowed"), &read);
            assert_eq!(status(&head), 200, "{name}: {head}");
            let (head, body) = refused.post(&other, &read);
            assert_eq!(status(&head), 401, "{name}, {other:?}: {head}{body}");
        }
        // Another caller's token: that caller, not the one before.
        let (head, body) = conn.post(&bearer("bobs-token"), &read);
        assert_eq!(status(&head), 200, "{name}: {head}");
        assert!(!body.contains(DOC_TITLE), "{name}: bob read it: {body}");
        // And the first again: its caller again.
        let (head, body) = conn.post(&bearer("allowed"), &read);
        assert_eq!(status(&head), 200, "{name}: {head}");
        assert!(body.contains(DOC_TITLE), "{name}: {body}");
    }
}
