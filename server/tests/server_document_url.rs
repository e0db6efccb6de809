//! The `url` a create answers (`/documents/<id>`) resolves, on both
//! servers: `GET` and `HEAD` with a token whose caller may read the
//! document give its canonical plan as Markdown with an `etag` of its
//! revision; a missing document and a hidden one get the same 404; no token
//! gets `/mcp`'s 401; CORS as for `/mcp`.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "support/pg.rs"]
mod pg;
#[path = "interop/harness.rs"]
mod support;

use std::io::Write;

use serde_json::Value;
use support::{DOC_ID, SERVERS, Server, TOKEN, draft, read_all, status};

/// `METHOD target` with `headers` (lines ending in CRLF), connection closed
/// after it.
fn request(server: &Server, method: &str, target: &str, headers: &str) -> String {
    server.raw(
        format!(
            "{method} {target} HTTP/1.1\r\nhost: {}\r\n{headers}connection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    )
}

fn get(server: &Server, target: &str, token: Option<&str>) -> String {
    let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
    request(server, "GET", target, &auth)
}

fn body(response: &str) -> &str {
    response.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = response
        .split_once("\r\n\r\n")
        .map_or(response, |(head, _)| head);
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The response without its `date` (which differs from one to the next).
fn dateless(response: &str) -> String {
    response
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("date:"))
        .collect::<Vec<_>>()
        .join("\r\n")
}

/// Creates a plan; the create's structured answer.
fn create(server: &Server, key: &str) -> Value {
    let call = serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
        "name":"create_document",
        "arguments": draft(key, "Saved carts", "# Saved carts\n\n<Callout type=\"note\">\nKeep them.\n</Callout>\n")}});
    let response = server.post(&call.to_string(), Some(TOKEN));
    let reply: Value = serde_json::from_str(body(&response)).expect("JSON");
    reply["result"]["structuredContent"].clone()
}

#[test]
fn a_created_document_s_url_answers_its_canonical_plan() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let created = create(&server, "url-1");
        let url = created["url"].as_str().expect("a url");
        assert!(url.starts_with("/documents/"), "{name}: {url}");
        let response = get(&server, url, Some(TOKEN));
        assert_eq!(status(&response), 200, "{name}: {response}");
        assert_eq!(
            header(&response, "content-type"),
            Some("text/markdown; charset=utf-8")
        );
        assert_eq!(header(&response, "etag"), Some("\"0\""), "{name}");
        assert_eq!(
            header(&response, "cache-control"),
            Some("private, no-cache")
        );
        // The canonical plan: the minted id is in it.
        assert_eq!(
            body(&response),
            created["source"].as_str().unwrap(),
            "{name}"
        );
        assert!(body(&response).contains("<Callout id=\""), "{name}");
        // HEAD: the same head, no body.
        let head = request(
            &server,
            "HEAD",
            url,
            &format!("authorization: Bearer {TOKEN}\r\n"),
        );
        assert_eq!(
            dateless(&head),
            dateless(response.split("\r\n\r\n").next().unwrap()) + "\r\n\r\n",
            "{name}"
        );
    }
}

#[test]
fn the_etag_is_the_revision_and_if_none_match_gets_304() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let target = format!("/documents/{DOC_ID}");
        let response = get(&server, &target, Some(TOKEN));
        assert_eq!(header(&response, "etag"), Some("\"2\""), "{name}");
        let auth = format!("authorization: Bearer {TOKEN}\r\n");
        let unchanged = request(
            &server,
            "GET",
            &target,
            &format!("{auth}if-none-match: \"2\"\r\n"),
        );
        assert_eq!(status(&unchanged), 304, "{name}: {unchanged}");
        assert_eq!(body(&unchanged), "", "{name}");
        assert_eq!(header(&unchanged, "content-length"), None, "{name}");
        let changed = request(
            &server,
            "GET",
            &target,
            &format!("{auth}if-none-match: \"1\"\r\n"),
        );
        assert_eq!(status(&changed), 200, "{name}");
    }
}

#[test]
fn a_missing_document_and_a_hidden_one_get_the_same_404() {
    for name in SERVERS {
        let server = Server::seeded_with(
            name,
            &["--token", "other=bob", "--grant", "bob=someone/else"],
        );
        let target = format!("/documents/{DOC_ID}");
        let hidden = get(&server, &target, Some("other"));
        let missing = get(
            &server,
            "/documents/01JD2X7K4M8Q3R5T6V7W8X9Y00",
            Some("other"),
        );
        assert_eq!(status(&hidden), 404, "{name}: {hidden}");
        assert_eq!(dateless(&hidden), dateless(&missing), "{name}");
        // The one who may see it does.
        assert_eq!(status(&get(&server, &target, Some(TOKEN))), 200, "{name}");
    }
}

#[test]
fn without_a_token_the_answer_is_mcp_s_401() {
    for name in SERVERS {
        for extra in [
            &[][..],
            &["--resource-metadata", "https://meta.example/prm"],
        ] {
            let server = Server::seeded_with(name, extra);
            let target = format!("/documents/{DOC_ID}");
            for token in [None, Some("wrong")] {
                let document = get(&server, &target, token);
                let mcp = server.post(&support::read_body(), token);
                assert_eq!(status(&document), 401, "{name}");
                let challenge = header(&document, "www-authenticate");
                assert!(challenge.is_some(), "{name}");
                assert_eq!(challenge, header(&mcp, "www-authenticate"), "{name}");
                assert_eq!(body(&document), body(&mcp), "{name}");
            }
        }
    }
}

#[test]
fn a_percent_encoded_id_names_its_document_and_other_paths_stay_404() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let encoded = DOC_ID.replace('-', "%2D");
        let response = get(&server, &format!("/documents/{encoded}?x=1"), Some(TOKEN));
        assert_eq!(status(&response), 200, "{name}: {response}");
        for target in ["/documents", "/documents/a/b", "/documents/%zz"] {
            let response = get(&server, target, Some(TOKEN));
            assert_eq!(status(&response), 404, "{name} {target}");
        }
    }
}

#[test]
fn head_then_get_share_a_kept_alive_connection() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let mut stream = server.connect();
        let target = format!("/documents/{DOC_ID}");
        let auth = format!("authorization: Bearer {TOKEN}");
        let host = format!("host: {}", server.addr);
        write!(
            stream,
            "HEAD {target} HTTP/1.1\r\n{host}\r\n{auth}\r\n\r\nGET {target} HTTP/1.1\r\n{host}\r\n{auth}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let both = read_all(&mut stream);
        assert_eq!(both.matches("HTTP/1.1 200").count(), 2, "{name}: {both}");
        assert!(
            both.ends_with("Ship when the checklist is green.\n"),
            "{name}"
        );
        assert_eq!(both.matches("# Release readiness").count(), 1, "{name}");
    }
}

#[test]
fn a_browser_page_is_admitted_as_for_mcp() {
    const ORIGIN: &str = "https://app.example";
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--allow-origin", ORIGIN]);
        let target = format!("/documents/{DOC_ID}");
        let auth = format!("authorization: Bearer {TOKEN}\r\n");
        let response = request(
            &server,
            "GET",
            &target,
            &format!("{auth}origin: {ORIGIN}\r\n"),
        );
        assert_eq!(status(&response), 200, "{name}");
        assert_eq!(
            header(&response, "access-control-allow-origin"),
            Some(ORIGIN)
        );
        assert_eq!(
            header(&response, "access-control-expose-headers"),
            Some("www-authenticate, etag")
        );
        let preflight = request(
            &server,
            "OPTIONS",
            &target,
            &format!(
                "origin: {ORIGIN}\r\naccess-control-request-method: GET\r\naccess-control-request-headers: authorization\r\n"
            ),
        );
        assert_eq!(status(&preflight), 204, "{name}: {preflight}");
        assert_eq!(
            header(&preflight, "access-control-allow-methods"),
            Some("GET, HEAD")
        );
        let refused = request(
            &server,
            "GET",
            &target,
            &format!("{auth}origin: https://evil.example\r\n"),
        );
        assert_eq!(status(&refused), 403, "{name}");
        assert_eq!(body(&refused), "origin is not allowed");
    }
}

#[test]
fn the_request_log_names_the_route_never_the_id() {
    let server = Server::start_capturing(
        "chopin-mcp-server",
        &support::db_args(
            "--memory",
            &["--import", support::import_file().to_str().unwrap()],
        ),
        &[],
    );
    let response = get(&server, &format!("/documents/{DOC_ID}"), Some(TOKEN));
    assert_eq!(status(&response), 200);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !server.logs().contains("status=200") && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let logs = server.logs();
    assert!(logs.contains("path=/documents/{id}"), "{logs}");
    assert!(logs.contains("caller=octocat"), "{logs}");
    assert!(!logs.contains(DOC_ID), "{logs}");
}

#[test]
fn a_document_on_postgresql_resolves_too() {
    let Some(cluster) = pg::shared() else {
        return;
    };
    let server = Server::on_db("chopin-mcp-server", &cluster.database(), &[]);
    let created = create(&server, "url-pg");
    let url = created["url"].as_str().expect("a url");
    let response = get(&server, url, Some(TOKEN));
    assert_eq!(status(&response), 200, "{response}");
    assert_eq!(body(&response), created["source"].as_str().unwrap());
}

/// With OAuth: a token with the read scope reads; one without it gets the
/// 403 `/mcp` gives its event stream; no token gets `/mcp`'s 401, whose
/// challenge names the server's own resource metadata.
#[test]
fn with_oauth_the_read_scope_is_needed_as_for_mcp() {
    if !oauth::installed() {
        return;
    }
    let auth = oauth::AuthServer::start();
    let (server, resource) = oauth::serve(&auth, &[]);
    let target = format!("/documents/{DOC_ID}");
    let reader = auth.client_token(oauth::READER_BOT, "chopin:read", &resource);
    assert_eq!(status(&get(&server, &target, Some(&reader))), 200);
    let creator = auth.client_token(oauth::READER_BOT, "chopin:create", &resource);
    let refused = get(&server, &target, Some(&creator));
    let stream = request(
        &server,
        "GET",
        "/mcp",
        &format!("authorization: Bearer {creator}\r\naccept: text/event-stream\r\n"),
    );
    assert_eq!(status(&refused), 403, "{refused}");
    assert_eq!(status(&stream), 403, "{stream}");
    assert_eq!(
        header(&refused, "www-authenticate"),
        header(&stream, "www-authenticate")
    );
    assert_eq!(body(&refused), body(&stream));
    let anonymous = get(&server, &target, None);
    let mcp = server.post(&support::read_body(), None);
    assert_eq!(status(&anonymous), 401);
    let challenge = header(&anonymous, "www-authenticate").unwrap();
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    assert_eq!(Some(challenge), header(&mcp, "www-authenticate"));
}
