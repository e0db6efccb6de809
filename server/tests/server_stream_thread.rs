//! `chopin-mcp-server` holds the event streams that connections open with
//! on a thread of its own, `streams`, and writes their keep-alive comments
//! from there, not from the worker that opened them: a comment a client
//! leaves unread keeps the kernel pages of the thread whose write filled
//! them, and a worker's replies would then go to fresh pages
//! (`benches/history/host-floor.md`, "Held event streams"). Which threads ran is read from
//! `/proc/PID/task`, so Linux only.
#![cfg(target_os = "linux")]

#[path = "interop/harness.rs"]
mod support;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use support::Server;

const SERVER: &str = "chopin-mcp-server";
const KEEP_ALIVE: &str = ": keep-alive\n\n";

/// How many times each thread of `pid` has gone off its CPU, by name
/// (voluntary and not): a thread that was never woken adds none.
fn switches(pid: u32) -> BTreeMap<String, u64> {
    let count = |status: &str| {
        status
            .lines()
            .filter_map(|line| line.split_once(':'))
            .filter(|(key, _)| key.ends_with("voluntary_ctxt_switches"))
            .map(|(_, value)| value.trim().parse::<u64>().unwrap())
            .sum()
    };
    support::thread_statuses(pid)
        .into_iter()
        .map(|(name, status)| (name, count(&status)))
        .collect()
}

/// Reads from `stream` until `count` keep-alive comments have come in all.
fn read_comments(stream: &mut TcpStream, seen: &mut String, count: usize) {
    let mut chunk = [0u8; 1024];
    while seen.matches(KEEP_ALIVE).count() < count {
        let n = stream.read(&mut chunk).expect("the stream stays open");
        assert!(n > 0, "the stream ended: {seen}");
        seen.push_str(std::str::from_utf8(&chunk[..n]).unwrap());
    }
}

#[test]
fn keep_alive_comments_come_from_the_streams_thread_and_wake_no_worker() {
    let server = Server::seeded(SERVER);
    let pid = server.pid();
    let main = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    let is_worker = |name: &str| name == main.trim() || name.starts_with("worker-");
    // The k-th stream a server opens gets its second comment (k + 1) x
    // 15 s / 1024 after its head: 64 of them, within the second.
    let mut streams: Vec<(TcpStream, String)> = (0..64)
        .map(|_| {
            let mut stream = server.connect();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            stream
                .write_all(b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\naccept: text/event-stream\r\n\r\n")
                .unwrap();
            (stream, String::new())
        })
        .collect();
    for (stream, seen) in &mut streams {
        read_comments(stream, seen, 1);
        assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{seen}");
    }
    // Every stream handed over (just after its head) and its worker asleep.
    std::thread::sleep(Duration::from_millis(100));
    let before = switches(pid);
    std::thread::sleep(Duration::from_secs(1));
    let after = switches(pid);
    for (stream, seen) in &mut streams {
        read_comments(stream, seen, 2);
    }
    let workers: Vec<_> = before.keys().filter(|name| is_worker(name)).collect();
    assert!(!workers.is_empty(), "{before:?}");
    for name in workers {
        assert_eq!(
            before[name], after[name],
            "{name} ran while only keep-alive comments were due: {before:?} then {after:?}"
        );
    }
    assert!(
        after["streams"] > before["streams"],
        "the streams thread wrote the comments: {before:?} then {after:?}"
    );
}
