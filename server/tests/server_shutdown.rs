//! Graceful shutdown of `chopin-mcp-server` on SIGTERM and SIGINT: a create
//! in flight completes and is stored, new connections are refused, idle
//! keep-alive connections and event streams are closed, the deadline bounds
//! a request that never finishes, and the process exits 0.

#[path = "interop/harness.rs"]
mod support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use support::{Server, TOKEN, read_all, status, temp_path};

const SERVER: &str = "chopin-mcp-server";

fn on_file(db: &str, extra: &[&str]) -> Server {
    Server::start_capturing(SERVER, &support::db_args(db, extra), &[])
}

/// Connects until the kernel refuses (the listener is closed); false if it
/// still accepts after `limit`.
fn refused_within(server: &Server, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        match TcpStream::connect(server.addr) {
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => return true,
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    false
}

fn create_request(server: &Server, title: &str) -> (String, String) {
    let plan = format!("# Slow\n\n{}\n", "A plan sent slowly. ".repeat(2000));
    let arguments = support::draft("shutdown-1", title, &plan);
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "create_document", "arguments": arguments},
    })
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    (head, body)
}

#[test]
fn a_create_in_flight_at_sigterm_completes_is_stored_and_new_connections_are_refused() {
    let db = temp_path("shutdown", "db");
    let db = db.to_str().unwrap();
    let mut server = on_file(db, &[]);
    let title = "Stored while shutting down";
    let (head, body) = create_request(&server, title);
    let mut stream = server.connect();
    stream.write_all(head.as_bytes()).unwrap();
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    stream.write_all(first).unwrap();
    std::thread::sleep(Duration::from_millis(200));

    server.signal("TERM");
    assert!(
        refused_within(&server, Duration::from_secs(3)),
        "new connections are still accepted after SIGTERM"
    );
    // The request in flight is still served, in full.
    stream.write_all(rest).unwrap();
    let response = read_all(&mut stream);
    assert_eq!(status(&response), 200, "{response}");
    let reply: serde_json::Value =
        serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let document = &reply["result"]["structuredContent"];
    assert_eq!(document["title"], title, "{reply}");
    let id = document["id"].as_str().expect("an id").to_owned();

    let exit = server.wait_exit(Duration::from_secs(5)).expect("exited");
    assert!(exit.success(), "{exit:?}\n{}", server.logs());

    // After a restart on the same file the document is there.
    let again = on_file(db, &[]);
    let read = again.call("read_document", &format!(r#"{{"id":"{id}"}}"#));
    assert_eq!(status(&read), 200, "{read}");
    assert!(read.contains(title), "{read}");
}

/// Reads until EOF; true if it came within `limit`.
fn closes_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream.set_read_timeout(Some(limit)).unwrap();
    let until = Instant::now() + limit;
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) if Instant::now() < until => {}
            Ok(_) => return false,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

#[test]
fn sigterm_closes_idle_keep_alive_connections_and_event_streams_and_exits_0() {
    let mut server = Server::seeded(SERVER);
    // A keep-alive connection that answered one request and sits idle.
    let mut idle = server.connect();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .unwrap();
    let mut chunk = [0u8; 1024];
    let read = idle.read(&mut chunk).unwrap();
    assert!(String::from_utf8_lossy(&chunk[..read]).contains("200 OK"));
    // An open event stream.
    let mut events = server.connect();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\naccept: text/event-stream\r\n\r\n",
        server.addr
    );
    events.write_all(get.as_bytes()).unwrap();
    let read = events.read(&mut chunk).unwrap();
    assert!(
        String::from_utf8_lossy(&chunk[..read]).contains("text/event-stream"),
        "{}",
        String::from_utf8_lossy(&chunk[..read])
    );

    let started = Instant::now();
    server.signal("TERM");
    assert!(
        closes_within(&mut idle, Duration::from_secs(3)),
        "the idle connection stayed open"
    );
    assert!(
        closes_within(&mut events, Duration::from_secs(3)),
        "the event stream stayed open"
    );
    let exit = server.wait_exit(Duration::from_secs(5)).expect("exited");
    assert!(exit.success(), "{exit:?}");
    // Well before the 10 s deadline: nothing was left to wait for.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn sigint_shuts_down_the_same_way() {
    let mut server = Server::seeded(SERVER);
    assert_eq!(
        status(&server.raw(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")),
        200
    );
    server.signal("INT");
    let exit = server.wait_exit(Duration::from_secs(5)).expect("exited");
    assert!(exit.success(), "{exit:?}");
}

#[test]
fn the_shutdown_timeout_bounds_a_request_that_never_finishes() {
    let mut server = Server::seeded_with(SERVER, &["--shutdown-timeout", "1"]);
    let (head, body) = create_request(&server, "Never finished");
    let mut stalled = server.connect();
    stalled.write_all(head.as_bytes()).unwrap();
    stalled.write_all(&body.as_bytes()[..100]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    server.signal("TERM");
    let exit = server.wait_exit(Duration::from_secs(6)).expect("exited");
    let took = started.elapsed();
    assert!(exit.success(), "{exit:?}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(4),
        "{took:?}"
    );
    assert!(closes_within(&mut stalled, Duration::from_secs(2)));
}
