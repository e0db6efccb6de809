//! SURFACE.md §10 on both servers: `initialize` issues a stateless
//! `mcp-session-id`, and an update sending it to another server process is
//! served and (by the async server, which logs request lines) logged with
//! its client (`client_name`, `client_version`).

#[path = "interop/harness.rs"]
mod support;

use support::{DOC_ID, SERVERS, Server, TOKEN, import_file, status};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"Codex","version":"1.2.3"}}}"#;

fn capturing(name: &str) -> Server {
    let import = import_file();
    let args = [
        "--memory",
        "--token",
        "allowed=octocat",
        "--grant",
        "octocat=*",
        "--import",
        import.to_str().unwrap(),
    ];
    Server::start_capturing(name, &args, &[("RUST_LOG", "info")])
}

/// The `mcp-session-id` header of a raw HTTP response.
fn session_of(response: &str) -> Option<String> {
    let head = response.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .map(str::to_owned)
}

#[test]
fn initialize_issues_a_session_id_and_an_update_sending_it_is_logged_with_its_client() {
    for name in SERVERS {
        let issuer = Server::seeded(name);
        let response = issuer.post(INITIALIZE, Some(TOKEN));
        assert_eq!(status(&response), 200, "{name}");
        let session = session_of(&response).unwrap_or_else(|| panic!("{name}: {response}"));
        assert!(
            session.starts_with("c1.Q29kZXg.MS4yLjM."),
            "{name}: {session}"
        );
        assert_eq!(session.len(), "c1.Q29kZXg.MS4yLjM.".len() + 26);
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        assert_eq!(session_of(&issuer.post(ping, Some(TOKEN))), None, "{name}");
        drop(issuer);

        // Another process: nothing of the first was kept, and the id reads.
        let server = capturing(name);
        let update = format!(
            r##"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"update_document","arguments":{{"id":"{DOC_ID}","revision":0,"plan":"# Revised\n","idempotencyKey":"session-1"}}}}}}"##
        );
        let headers = format!("authorization: Bearer {TOKEN}\r\nmcp-session-id: {session}\r\n");
        let response = server.post_with(&update, &headers);
        assert_eq!(status(&response), 200, "{name}: {response}");
        // Only the async server logs request lines (tests/server_logs.rs).
        if name != "chopin-mcp-server" {
            continue;
        }
        let lines = server.request_lines(1);
        let line = lines
            .last()
            .unwrap_or_else(|| panic!("{name}: no request line"));
        assert!(line.contains("tool=update_document"), "{name}: {line}");
        assert!(
            line.contains(" client_name=Codex client_version=1.2.3 "),
            "{name}: {line}"
        );
    }
}
