//! Request logs of `chopin-mcp-server` (stderr): one line per request with
//! its fields, refusals with their reason, `RUST_LOG` and `--log-format`,
//! and no secret or document text in any line.

#[path = "interop/harness.rs"]
mod support;

use std::path::Path;
use std::process::Command;

use support::{DOC_ID, DOC_TITLE, Server, status};

const SERVER: &str = "chopin-mcp-server";
/// A token no log line could contain by accident.
const SECRET: &str = "tok-9f3b2c7e1d-ZQX";
/// The seeded document's source (see the harness's import file).
const DOC_SOURCE: &str = "Ship when the checklist is green.";
const CREATED_TITLE: &str = "Quarterly zebra migration";
const CREATED_PLAN: &str = "Herd the zebras northward";

fn seeded(args: &[&str], env: &[(&str, &str)]) -> Server {
    let import = support::import_file();
    let token = format!("{SECRET}=octocat");
    let mut all = vec![
        "--memory",
        "--token",
        &token,
        "--grant",
        "octocat=*",
        "--import",
        import.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    Server::start_capturing(SERVER, &all, env)
}

fn authorized(server: &Server, body: &str) -> String {
    server.post_with(
        body,
        &format!("authorization: Bearer {SECRET}\r\nmcp-protocol-version: 2025-06-18\r\n"),
    )
}

fn call(tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    )
}

fn create_arguments(key: &str) -> String {
    support::draft(
        key,
        CREATED_TITLE,
        &format!("# Zebras\n\n{CREATED_PLAN}.\n"),
    )
    .to_string()
}

#[test]
fn a_full_interop_run_and_raw_requests_log_no_token_title_source_or_plan() {
    let server = seeded(&[], &[]);
    let url = format!("http://{}/mcp", server.addr);
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let ran_interop = interop.join("node_modules").exists();
    if ran_interop {
        let output = Command::new("node")
            .arg("interop.mjs")
            .args([url.as_str(), SECRET, DOC_ID, "githubnext/chopin"])
            .current_dir(&interop)
            .output()
            .expect("run node");
        assert!(
            output.status.success(),
            "interop failed\n{}",
            String::from_utf8_lossy(&output.stdout)
        );
    } else {
        println!(
            "interop part skipped: no node_modules in {}",
            interop.display()
        );
    }
    let read = authorized(
        &server,
        &call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#)),
    );
    assert!(
        read.contains(DOC_TITLE) && read.contains(DOC_SOURCE),
        "{read}"
    );
    let list = authorized(
        &server,
        &call("list_documents", r#"{"repository":"githubnext/chopin"}"#),
    );
    assert!(list.contains(DOC_TITLE), "{list}");
    let created = authorized(
        &server,
        &call("create_document", &create_arguments("logs-1")),
    );
    assert!(created.contains(CREATED_TITLE), "{created}");
    // Refusals carrying secrets: a wrong token, the right one in the wrong
    // scheme, the right one from a forbidden origin, and a body over budget.
    let wrong = server.post_with("{}", &format!("authorization: Bearer {SECRET}x\r\n"));
    assert_eq!(status(&wrong), 401);
    let basic = server.post_with("{}", &format!("authorization: Basic {SECRET}\r\n"));
    assert_eq!(status(&basic), 401);
    let origin = server.post_with(
        "{}",
        &format!("authorization: Bearer {SECRET}\r\norigin: https://{SECRET}.example\r\n"),
    );
    assert_eq!(status(&origin), 403);
    let secret_path = format!(
        "GET /{SECRET}?title=Release%20readiness HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {SECRET}\r\nconnection: close\r\n\r\n"
    );
    assert_eq!(status(&server.raw(secret_path.as_bytes())), 404);

    let expected = if ran_interop { 20 } else { 7 };
    let lines = server.request_lines(expected);
    assert!(lines.len() >= expected, "{lines:#?}");
    let logs = server.logs();
    for secret in [
        SECRET,
        DOC_TITLE,
        DOC_SOURCE,
        "Release readiness",
        CREATED_TITLE,
        CREATED_PLAN,
        "Ship MCP creation",   // the interop's created title
        "Created through MCP", // and its plan
        "Bearer",
        "Basic",
    ] {
        assert!(
            !logs.contains(secret),
            "the logs contain {secret:?}:\n{logs}"
        );
    }
    // The reads were logged, with who read what.
    assert!(
        lines.iter().any(|line| line.contains("tool=read_document")
            && line.contains("caller=octocat")
            && line.contains("status=200")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|line| line.contains("create=created")),
        "{lines:#?}"
    );
}

#[test]
fn each_request_gets_one_line_with_every_field() {
    let server = seeded(&[], &[]);
    let read = authorized(
        &server,
        &call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#)),
    );
    assert_eq!(status(&read), 200);
    let lines = server.request_lines(1);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    let line = &lines[0];
    for field in [
        " INFO ",
        "http_method=POST",
        "path=/mcp",
        "status=200",
        "protocol_version=2025-06-18",
        "era=legacy",
        "rpc_method=tools/call",
        "tool=read_document",
        "caller=octocat",
        "duration_us=",
        "request_bytes=",
        "response_bytes=",
    ] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    let body = call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
    assert!(
        line.contains(&format!("request_bytes={} ", body.len())),
        "{line}"
    );
    let response_body = read.split("\r\n\r\n").nth(1).unwrap();
    assert!(
        line.contains(&format!("response_bytes={}", response_body.len())),
        "{line}"
    );
}

#[test]
fn refusals_are_logged_at_info_with_their_reason() {
    let server = seeded(&[], &[]);
    assert_eq!(status(&server.post_with("{}", "")), 401);
    let forbidden = server.post_with(
        "{}",
        &format!("authorization: Bearer {SECRET}\r\norigin: https://evil.example\r\n"),
    );
    assert_eq!(status(&forbidden), 403);
    let too_large = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {SECRET}\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: 100000000\r\nconnection: close\r\n\r\n",
        server.addr
    );
    assert_eq!(status(&server.raw(too_large.as_bytes())), 413);
    let huge_head = format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\nx-filler: {}\r\n\r\n",
        server.addr,
        "a".repeat(128 * 1024)
    );
    assert_eq!(status(&server.raw(huge_head.as_bytes())), 431);
    assert_eq!(status(&authorized(&server, "{not json")), 400);
    let lines = server.request_lines(5);
    for (code, reason) in [
        ("401", "reason=unauthorized"),
        ("403", "reason=origin_not_allowed"),
        ("413", "reason=too_large"),
        ("431", "reason=header_fields_too_large"),
        ("400", "reason=parse_error"),
    ] {
        assert!(
            lines.iter().any(|line| line.contains(" INFO ")
                && line.contains(&format!("status={code}"))
                && line.contains(reason)),
            "no {code} line with {reason}: {lines:#?}"
        );
    }
}

#[test]
fn json_format_writes_one_object_per_line() {
    let server = seeded(&["--log-format", "json"], &[]);
    let read = authorized(
        &server,
        &call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#)),
    );
    assert_eq!(status(&read), 200);
    assert_eq!(status(&server.post_with("{}", "")), 401);
    let lines = server.request_lines(2);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    // Two connections, so two workers may write their lines in either
    // order: each is found by its status.
    let objects: Vec<serde_json::Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let with_status = |code: u64| {
        objects
            .iter()
            .find(|object| object["status"] == code)
            .unwrap_or_else(|| panic!("no line with status {code}: {lines:#?}"))
    };
    let read = with_status(200);
    assert_eq!(read["level"], "INFO");
    assert_eq!(read["target"], "chopin_mcp_server::request");
    assert_eq!(read["status"], 200);
    assert_eq!(read["rpc_method"], "tools/call");
    assert_eq!(read["tool"], "read_document");
    assert_eq!(read["caller"], "octocat");
    assert_eq!(read["era"], "legacy");
    assert!(read["duration_us"].is_u64(), "{read}");
    let refused = with_status(401);
    assert_eq!(refused["reason"], "unauthorized");
    assert!(refused.get("caller").is_none(), "{refused}");
}

#[test]
fn rust_log_filters_the_request_lines() {
    let server = seeded(&[], &[("RUST_LOG", "off")]);
    let read = authorized(
        &server,
        &call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#)),
    );
    assert_eq!(status(&read), 200);
    let quiet = seeded(&[], &[("RUST_LOG", "warn")]);
    assert_eq!(status(&quiet.post_with("{}", "")), 401);
    // A third server, logging, shows the lines would have been there by now.
    let loud = seeded(&[], &[("RUST_LOG", "chopin_mcp_server=info")]);
    assert_eq!(status(&loud.post_with("{}", "")), 401);
    assert_eq!(loud.request_lines(1).len(), 1);
    assert_eq!(server.logs(), "");
    assert_eq!(quiet.logs(), "");
}

#[test]
fn an_event_stream_gets_one_line_when_it_opens_and_a_refused_one_gets_one_too() {
    use std::io::{Read, Write};
    let server = seeded(&[], &[]);
    // The first request of each connection: a stream (held without hyper)
    // and a GET the endpoint refuses (handed to hyper, which answers it).
    let get = |token: &str| {
        format!(
            "GET /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {token}\r\n\
             accept: text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n\r\n",
            server.addr
        )
    };
    let mut stream = server.connect();
    stream.write_all(get(SECRET).as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut chunk = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains(": keep-alive\n\n") {
        let n = stream.read(&mut chunk).unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    assert!(String::from_utf8_lossy(&seen).starts_with("HTTP/1.1 200 OK\r\n"));
    let refused = get("wrong").replace("\r\n\r\n", "\r\nconnection: close\r\n\r\n");
    let refused = server.raw(refused.as_bytes());
    assert_eq!(status(&refused), 401, "{refused}");
    let lines = server.request_lines(2);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    // Each worker hands its lines to the log when it has nothing to do:
    // two connections' lines may arrive in either order.
    let line = |status: &str| {
        lines
            .iter()
            .find(|line| line.contains(status))
            .unwrap_or_else(|| panic!("no {status} line: {lines:#?}"))
    };
    let (opened, unauthorized) = (line("status=200"), line("status=401"));
    for field in [
        "http_method=GET",
        "path=/mcp",
        "status=200",
        "protocol_version=2025-06-18",
        "rpc_method=none",
        "tool=none",
        "caller=octocat",
        "auth=static",
        "request_bytes=0",
        "response_bytes=0",
    ] {
        assert!(opened.contains(field), "{field} missing: {opened}");
    }
    // A bearer token presented and refused is `invalid_token` (AUTH.md §2).
    assert!(
        unauthorized.contains("reason=invalid_token"),
        "{unauthorized}"
    );
    assert!(
        !lines.iter().any(|line| line.contains(SECRET)),
        "{lines:#?}"
    );
}
