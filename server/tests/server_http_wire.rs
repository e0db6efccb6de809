//! What both servers write on the wire around the endpoint's answers: a
//! `HEAD` gets a head only and the connection carries on, an absolute-form
//! target is served as its path, a 204 carries no `content-length`,
//! `chopin-mcp-server` dates its responses, and a response larger than the
//! socket takes at once (sent from where it is, not copied behind its head)
//! arrives whole, with the next request answered after it.

#[path = "interop/harness.rs"]
mod support;

use std::io::Write;

use support::{DOC_ID, SERVERS, Server, TOKEN, read_all, status, temp_path};

/// The head and the rest of the first response in `text`.
fn split_head(text: &str) -> (&str, &str) {
    text.split_once("\r\n\r\n").unwrap_or((text, ""))
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then_some(value.trim())
    })
}

#[test]
fn a_head_request_gets_no_body_and_the_next_request_is_answered() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let mut stream = server.connect();
        // HEAD on a probe (405, whose body is left out), on another path
        // (404) and on the endpoint, then a GET pipelined behind them.
        let requests = format!(
            "HEAD /healthz HTTP/1.1\r\nhost: {0}\r\n\r\n\
             HEAD /elsewhere HTTP/1.1\r\nhost: {0}\r\n\r\n\
             HEAD /mcp HTTP/1.1\r\nhost: {0}\r\nauthorization: Bearer {1}\r\n\r\n\
             GET /healthz HTTP/1.1\r\nhost: {0}\r\nconnection: close\r\n\r\n",
            server.addr, TOKEN
        );
        stream.write_all(requests.as_bytes()).unwrap();
        let all = read_all(&mut stream);
        let (first, rest) = split_head(&all);
        assert_eq!(status(first), 405, "{name}: {all}");
        assert!(header(first, "content-length").is_some(), "{name}: {first}");
        assert!(
            rest.starts_with("HTTP/1.1 404 "),
            "{name}: body after HEAD: {all}"
        );
        let (second, rest) = split_head(rest);
        assert_eq!(status(second), 404, "{name}: {all}");
        let (third, rest) = split_head(rest);
        assert_eq!(status(third), 405, "{name}: {all}");
        assert!(header(third, "content-length").is_some(), "{name}: {third}");
        assert!(
            rest.starts_with("HTTP/1.1 200 "),
            "{name}: body after HEAD: {all}"
        );
        let (_, body) = split_head(rest);
        assert!(!body.is_empty(), "{name}: the GET's body: {all}");
    }
}

#[test]
fn an_absolute_form_target_is_served_as_its_path() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let probe = server.raw(
            format!(
                "GET http://{0}/healthz HTTP/1.1\r\nhost: {0}\r\nconnection: close\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        );
        assert_eq!(status(&probe), 200, "{name}: {probe}");
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let list = server.raw(
            format!(
                "POST http://{0}/mcp HTTP/1.1\r\nhost: {0}\r\nauthorization: Bearer {TOKEN}\r\n\
                 content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
                 mcp-protocol-version: 2025-06-18\r\ncontent-length: {1}\r\nconnection: close\r\n\r\n{body}",
                server.addr,
                body.len()
            )
            .as_bytes(),
        );
        assert_eq!(status(&list), 200, "{name}: {list}");
        assert!(list.contains("read_document"), "{name}: {list}");
        let elsewhere = server.raw(
            format!(
                "GET http://{0}/mcp/more HTTP/1.1\r\nhost: {0}\r\nconnection: close\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        );
        assert_eq!(status(&elsewhere), 404, "{name}: {elsewhere}");
    }
}

#[test]
fn a_204_has_no_content_length() {
    for name in SERVERS {
        let origin = "http://app.example";
        let server = Server::seeded_with(name, &["--allow-origin", origin]);
        let preflight = server.raw(
            format!(
                "OPTIONS /mcp HTTP/1.1\r\nhost: {}\r\norigin: {origin}\r\n\
                 access-control-request-method: POST\r\nconnection: close\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        );
        let (head, body) = split_head(&preflight);
        assert_eq!(status(head), 204, "{name}: {preflight}");
        assert_eq!(header(head, "content-length"), None, "{name}: {head}");
        assert_eq!(body, "", "{name}: {preflight}");
    }
}

#[test]
fn the_async_server_dates_every_response() {
    let server = Server::seeded("chopin-mcp-server");
    let probe = server.raw(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    let refused = server.post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, None);
    let missing = server.raw(b"GET /nowhere HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    for response in [&probe, &refused, &missing] {
        let (head, _) = split_head(response);
        let date = header(head, "date").unwrap_or_else(|| panic!("no date: {head}"));
        // An IMF-fixdate: `Thu, 03 Dec 2026 09:40:00 GMT`.
        assert_eq!(date.len(), 29, "{date}");
        assert!(
            date.ends_with(" GMT") && date.as_bytes()[3] == b',',
            "{date}"
        );
    }
    assert_eq!(status(&refused), 401, "{refused}");
}

#[test]
fn a_response_larger_than_the_socket_takes_arrives_whole() {
    // 4 MiB of source: more than loopback's send buffer holds, so the
    // server's writes of it are partial while the client is not reading.
    let line = "- a step of the plan, long enough to fill the document\n";
    let source = format!(
        "# Big\n\n{}the end\n",
        line.repeat(4 * 1024 * 1024 / line.len())
    );
    let import = temp_path("big", "json");
    let document = serde_json::json!([{
        "id": DOC_ID,
        "repository": "githubnext/chopin",
        "title": "Big",
        "source": source,
        "revision": 1,
    }]);
    std::fs::write(&import, document.to_string()).unwrap();
    let import = import.to_str().unwrap();
    for name in SERVERS {
        let server = Server::on_db(name, "--memory", &["--import", import]);
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{DOC_ID}"}}}}}}"#
        );
        let request = |close: &str| {
            format!(
                "POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\n\
                 content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
                 content-length: {}\r\n{close}\r\n{body}",
                server.addr,
                body.len()
            )
        };
        let mut stream = server.connect();
        let both = request("") + &request("connection: close\r\n");
        stream.write_all(both.as_bytes()).unwrap();
        // Let the server fill the socket and wait on it.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let all = read_all(&mut stream);
        let mut rest = all.as_str();
        for n in 0..2 {
            let (head, after) = split_head(rest);
            assert_eq!(status(head), 200, "{name}: response {n}: {head}");
            let length: usize = header(head, "content-length").unwrap().parse().unwrap();
            assert!(after.len() >= length, "{name}: response {n} cut short");
            let (answer, next) = after.split_at(length);
            let answer: serde_json::Value = serde_json::from_str(answer).unwrap();
            assert_eq!(
                answer["result"]["structuredContent"]["source"], source,
                "{name}: response {n}"
            );
            rest = next;
        }
        assert!(rest.is_empty(), "{name}: {} bytes after both", rest.len());
    }
}
