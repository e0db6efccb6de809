//! Tool calls to a running server by address, from any thread, for the
//! PostgreSQL tests (replicas, TLS, pooler, pools, timeouts) and the write
//! tools' end-to-end tests. Each call is one connection
//! (`connection: close`).
#![allow(dead_code)]

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::Barrier;
use std::time::Duration;

use super::support::{TOKEN, read_all, status};

pub fn tool_call(tool: &str, arguments: &serde_json::Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

pub fn create_body(key: &str, title: &str) -> String {
    let plan = format!("# {title}\n\nOne plan, one database.\n");
    tool_call("create_document", &super::support::draft(key, title, &plan))
}

pub fn read_body(id: &str) -> String {
    tool_call("read_document", &serde_json::json!({"id": id}))
}

pub fn list_body() -> String {
    tool_call(
        "list_documents",
        &serde_json::json!({"repository": "githubnext/chopin"}),
    )
}

pub fn update_body(id: &str, revision: u64, plan: &str, key: &str) -> String {
    tool_call(
        "update_document",
        &serde_json::json!({"id": id, "revision": revision, "plan": plan, "idempotencyKey": key}),
    )
}

pub fn rename_body(id: &str, title: &str) -> String {
    tool_call(
        "rename_document",
        &serde_json::json!({"id": id, "title": title}),
    )
}

pub fn archive_body(id: &str) -> String {
    tool_call("archive_document", &serde_json::json!({"id": id}))
}

pub fn restore_body(id: &str) -> String {
    tool_call("restore_document", &serde_json::json!({"id": id}))
}

/// POSTs `body` to the server at `addr`; the raw response, empty when the
/// connection failed or broke before an answer.
pub fn post(addr: SocketAddr, body: &str) -> String {
    post_as(addr, TOKEN, body)
}

/// [`post`] with the bearer token `token`.
pub fn post_as(addr: SocketAddr, token: &str, body: &str) -> String {
    post_with(addr, &format!("authorization: Bearer {token}\r\n"), body)
}

/// [`post`] in the session `session` (its `mcp-session-id` header line).
pub fn post_in_session(addr: SocketAddr, session: &str, body: &str) -> String {
    post_with(
        addr,
        &format!("authorization: Bearer {TOKEN}\r\nmcp-session-id: {session}\r\n"),
        body,
    )
}

/// POSTs `body` with the header lines `headers` (each ending in CRLF)
/// after `host`; the raw response, empty when the connection failed or
/// broke before an answer.
pub fn post_with(addr: SocketAddr, headers: &str, body: &str) -> String {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\n{headers}\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return String::new();
    }
    read_all(&mut stream)
}

/// `GET path`; the raw response.
pub fn get(addr: SocketAddr, path: &str) -> String {
    get_with(addr, path, "")
}

/// `GET path` with the bearer token the test servers accept; the raw
/// response.
pub fn get_authorized(addr: SocketAddr, path: &str) -> String {
    get_with(addr, path, &format!("authorization: Bearer {TOKEN}\r\n"))
}

fn get_with(addr: SocketAddr, path: &str, headers: &str) -> String {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let request =
        format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\n{headers}connection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return String::new();
    }
    read_all(&mut stream)
}

/// The value of header `name` (lower case) in a raw response.
pub fn header(response: &str, name: &str) -> Option<String> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// The `structuredContent` of a 200 tool answer.
pub fn content(response: &str) -> Option<serde_json::Value> {
    if status(response) != 200 {
        return None;
    }
    let body: serde_json::Value = serde_json::from_str(response.split("\r\n\r\n").nth(1)?).ok()?;
    let content = body["result"]["structuredContent"].clone();
    (!content.is_null()).then_some(content)
}

/// The `result` of a 200 answer (a tool's result: `structuredContent`,
/// `isError`, …).
pub fn result(response: &str) -> Option<serde_json::Value> {
    if status(response) != 200 {
        return None;
    }
    let body: serde_json::Value = serde_json::from_str(response.split("\r\n\r\n").nth(1)?).ok()?;
    let result = body["result"].clone();
    (!result.is_null()).then_some(result)
}

/// The `structuredContent` of a tool's error result (`isError`), `None`
/// for anything else.
pub fn error_content(response: &str) -> Option<serde_json::Value> {
    let result = result(response)?;
    (result["isError"] == true).then(|| result["structuredContent"].clone())
}

/// The `structuredContent` of a tool's success (no `isError`), `None` for
/// anything else.
pub fn success(response: &str) -> Option<serde_json::Value> {
    let result = result(response)?;
    (result.get("isError").is_none()).then(|| result["structuredContent"].clone())
}

/// The id a create answered with.
pub fn created_id(response: &str) -> Option<String> {
    content(response)?["id"].as_str().map(str::to_owned)
}

/// The ids `list_documents` answers for `githubnext/chopin`.
pub fn list_ids(addr: SocketAddr) -> Vec<String> {
    let response = post(addr, &list_body());
    let listed = content(&response).unwrap_or_else(|| panic!("not a list: {response}"));
    listed["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .map(|d| d["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// `count` threads released together by one barrier, each running `task`
/// with its number; what each returned, in order.
pub fn at_once<T: Send>(count: usize, task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let barrier = Barrier::new(count);
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..count)
            .map(|n| {
                let (barrier, task) = (&barrier, &task);
                scope.spawn(move || {
                    barrier.wait();
                    task(n)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    })
}

/// Three rounds of 12 clients creating with one key at once, spread over
/// the servers at `addrs`: in each round every client gets the same
/// document, and afterwards every server lists the three.
pub fn race_one_key(addrs: &[SocketAddr]) {
    for round in 0..3 {
        let body = create_body(&format!("race-{round}"), &format!("Race {round}"));
        let answers: Vec<serde_json::Value> = at_once(12, |n| post(addrs[n % addrs.len()], &body))
            .into_iter()
            .map(|response| {
                content(&response).unwrap_or_else(|| panic!("round {round}: {response}"))
            })
            .collect();
        for answer in &answers {
            assert_eq!(answer, &answers[0], "round {round}");
        }
    }
    for addr in addrs {
        assert_eq!(list_ids(*addr).len(), 3);
    }
}
