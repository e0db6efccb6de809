//! `--db-statement-timeout` on SQLite, both servers: how long a create
//! waits for the write lock another process holds on the file (SQLite's
//! busy timeout). With 1 s it gets a 503 with `retry-after` after about a
//! second, and its retry creates the document once the lock is gone; reads
//! answer meanwhile (WAL). With 0 there is no limit, not "fail at once": a
//! create waits out a lock held longer than the 5 s default, then creates.
#![allow(clippy::disallowed_methods)] // the test times the answers

#[path = "interop/harness.rs"]
mod support;

#[path = "support/calls.rs"]
mod calls;

use std::time::{Duration, Instant};

use calls::{create_body, created_id, header, list_ids, post};
use support::{DOC_ID, SERVERS, Server, import_file, status, temp_path};

/// A server of `name` on a fresh file with the seed document, and the file.
fn on_file(name: &str, timeout: &str) -> (Server, std::path::PathBuf) {
    let db = temp_path("busy", "db");
    let import = import_file();
    let flags = [
        "--import",
        import.to_str().unwrap(),
        "--db-statement-timeout",
        timeout,
    ];
    let server = Server::on_db(name, db.to_str().unwrap(), &flags);
    (server, db)
}

/// Another process's write lock on the file (a `BEGIN IMMEDIATE`).
fn hold_write_lock(db: &std::path::Path) -> rusqlite::Connection {
    let blocker = rusqlite::Connection::open(db).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    blocker
}

#[test]
fn a_create_behind_another_processs_lock_gets_503_at_the_timeout_and_its_retry_creates() {
    for name in SERVERS {
        let (server, db) = on_file(name, "1");
        let blocker = hold_write_lock(&db);
        let started = Instant::now();
        let response = post(server.addr, &create_body("k", "K"));
        let elapsed = started.elapsed();
        assert_eq!(status(&response), 503, "{name}: {response}");
        assert_eq!(
            header(&response, "retry-after").as_deref(),
            Some("1"),
            "{name}"
        );
        assert!(
            response.ends_with("\r\n\r\nthe database did not answer in time: retry later"),
            "{name}: {response}"
        );
        assert!(
            elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5),
            "{name}: answered after {elapsed:?}"
        );
        // Readers are not held up by the writer's lock.
        let read = post(server.addr, &calls::read_body(DOC_ID));
        assert_eq!(status(&read), 200, "{name}: {read}");
        drop(blocker);
        let id = created_id(&post(server.addr, &create_body("k", "K")))
            .unwrap_or_else(|| panic!("{name}: the retry failed"));
        let again = created_id(&post(server.addr, &create_body("k", "K")));
        assert_eq!(again, Some(id.clone()), "{name}");
        let mut listed = list_ids(server.addr);
        listed.sort();
        let mut expected = vec![DOC_ID.to_owned(), id];
        expected.sort();
        assert_eq!(listed, expected, "{name}: created once");
    }
}

#[test]
fn with_timeout_zero_a_create_waits_for_the_lock_without_limit() {
    for name in SERVERS {
        let (server, db) = on_file(name, "0");
        let blocker = hold_write_lock(&db);
        let addr = server.addr;
        let started = Instant::now();
        let create = std::thread::spawn(move || post(addr, &create_body("slow", "Slow")));
        // Longer than the 5 s default.
        std::thread::sleep(Duration::from_secs(6));
        assert!(!create.is_finished(), "{name}: the create did not wait");
        drop(blocker);
        let response = create.join().unwrap();
        assert!(
            created_id(&response).is_some(),
            "{name}: after {:?}: {response}",
            started.elapsed()
        );
    }
}
