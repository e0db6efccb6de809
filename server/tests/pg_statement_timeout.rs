//! The statement timeout (`--db-statement-timeout`) against a table lock
//! held by another session, directly and through PgBouncer 1.18 in
//! transaction mode: reads and creates get 503 with `retry-after` at their
//! deadline (whether they were waiting for a pooled connection or for the
//! lock), PostgreSQL itself cancelled their statements (no backend is left
//! waiting for the lock, and its log says why), `/healthz` stays 200, and the
//! creates retried with their idempotency keys once the lock is gone are
//! created exactly once. With `--db-statement-timeout 0` a request still
//! gives up (after 10 s) and its statement is cancelled.
#![allow(clippy::disallowed_methods)] // the test times the answers

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::time::{Duration, Instant};

use calls::{create_body, created_id, get, header, list_ids, post, read_body};
use support::{Server, status};

const SERVER: &str = "chopin-mcp-server";
const BUSY: &str = "the database did not answer in time: retry later";

/// Backends waiting for a lock, in any database.
fn lock_waiters(cluster: &pg::Cluster) -> String {
    cluster
        .psql(
            "postgres",
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        )
        .unwrap()
}

/// Polls until no backend waits for a lock (up to 3 s); the last count.
fn no_lock_waiters(cluster: &pg::Cluster) -> String {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let waiting = lock_waiters(cluster);
        if waiting == "0" || Instant::now() > until {
            return waiting;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A 503 for a busy database, as the server sends it.
fn assert_busy(response: &str, elapsed: Duration, at_least: Duration, at_most: Duration) {
    assert_eq!(status(response), 503, "{response}");
    assert_eq!(
        header(response, "retry-after").as_deref(),
        Some("1"),
        "{response}"
    );
    assert!(response.ends_with(&format!("\r\n\r\n{BUSY}")), "{response}");
    assert!(
        elapsed >= at_least && elapsed <= at_most,
        "answered after {elapsed:?}, not within {at_least:?}..{at_most:?}"
    );
}

/// The server on `url` (database `name` of `cluster`, directly or through
/// a pooler) with `--db-statement-timeout 1` and pools of 2, against a
/// table lock held by another session.
fn behind_a_held_lock(cluster: &pg::Cluster, name: &str, url: &str) {
    let flags = ["--db-statement-timeout", "1", "--db-pool-size", "2"];
    let server = Server::start_capturing(
        SERVER,
        &support::db_args(url, &flags),
        &[("RUST_LOG", "warn")],
    );
    let addr = server.addr;
    let before = created_id(&post(addr, &create_body("before", "Before"))).expect("a create");
    assert!(status(&post(addr, &read_body(&before))) == 200);

    let mut locker = cluster.session(name);
    locker.run("BEGIN; LOCK TABLE documents IN ACCESS EXCLUSIVE MODE;");
    // More reads and creates than the pools have connections: some wait
    // for the lock, the others for a connection.
    let keys = ["held-1", "held-2", "held-3"];
    let answers: Vec<(String, Duration)> = std::thread::scope(|scope| {
        let mut calls: Vec<_> = (0..6)
            .map(|_| {
                let body = read_body(&before);
                scope.spawn(move || {
                    let started = Instant::now();
                    (post(addr, &body), started.elapsed())
                })
            })
            .collect();
        calls.extend(keys.map(|key| {
            scope.spawn(move || {
                let started = Instant::now();
                (post(addr, &create_body(key, key)), started.elapsed())
            })
        }));
        // The process itself is fine meanwhile.
        std::thread::sleep(Duration::from_millis(300));
        let live = get(addr, "/healthz");
        assert_eq!(status(&live), 200, "{live}");
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    for (response, elapsed) in &answers {
        assert_busy(
            response,
            *elapsed,
            Duration::from_millis(900),
            Duration::from_secs(5),
        );
    }
    // PostgreSQL cancelled the statements that waited for the lock: none
    // is waiting any more, though the lock is still held.
    assert_eq!(no_lock_waiters(cluster), "0");
    let log = cluster.log();
    assert!(
        log.contains("canceling statement due to statement timeout"),
        "{log}"
    );
    let live = get(addr, "/healthz");
    assert_eq!(status(&live), 200, "{live}");
    // Each request ended by PostgreSQL's cancel or by the wait for a
    // connection, never by the server giving up on an unanswered statement.
    let logs = server.logs();
    assert!(
        logs.contains("canceling statement due to statement timeout"),
        "{logs}"
    );
    assert!(
        !logs.contains("no answer before the request's deadline"),
        "{logs}"
    );

    drop(locker); // the lock is released
    let mut ids = Vec::new();
    for key in keys {
        let id = created_id(&post(addr, &create_body(key, key)))
            .unwrap_or_else(|| panic!("{key}: the retry failed"));
        let again = created_id(&post(addr, &create_body(key, key)));
        assert_eq!(again.as_ref(), Some(&id), "{key}: replayed");
        ids.push(id);
    }
    let mut listed = list_ids(addr);
    listed.sort();
    let mut expected = ids.clone();
    expected.push(before);
    expected.sort();
    assert_eq!(listed, expected, "each key created exactly once");
}

#[test]
fn behind_a_held_lock_requests_get_503_and_postgresql_cancels_their_statements() {
    let Some(cluster) = pg::start() else { return };
    let name = cluster.new_database();
    behind_a_held_lock(&cluster, &name, &cluster.url(&name));
}

#[test]
fn behind_a_held_lock_through_pgbouncer_requests_get_503_and_postgresql_cancels_them() {
    let Some(cluster) = pg::start() else { return };
    let Some(bouncer) = pg::Bouncer::start(&cluster, 4) else {
        return;
    };
    let name = cluster.new_database();
    behind_a_held_lock(&cluster, &name, &bouncer.url(&name));
    let pooler = bouncer.log();
    assert!(
        !pooler.contains("unsupported startup parameter"),
        "{pooler}"
    );
}

#[test]
fn without_a_statement_timeout_a_request_still_gives_up_and_its_statement_is_cancelled() {
    let Some(cluster) = pg::start() else { return };
    let name = cluster.new_database();
    let flags = ["--db-statement-timeout", "0", "--db-pool-size", "1"];
    let server = Server::start(SERVER, &support::db_args(&cluster.url(&name), &flags));
    let id = created_id(&post(server.addr, &create_body("k", "K"))).expect("a create");
    let mut locker = cluster.session(&name);
    locker.run("BEGIN; LOCK TABLE documents IN ACCESS EXCLUSIVE MODE;");
    let started = Instant::now();
    let response = post(server.addr, &read_body(&id));
    // The request's deadline (10 s) and the second the server waits past
    // it for PostgreSQL's own answer.
    assert_busy(
        &response,
        started.elapsed(),
        Duration::from_secs(10),
        Duration::from_secs(20),
    );
    // The server sent a cancel request for the statement it gave up on.
    assert_eq!(no_lock_waiters(&cluster), "0");
    let log = cluster.log();
    assert!(
        log.contains("canceling statement due to user request"),
        "{log}"
    );
    drop(locker);
    // The abandoned connection was not handed out again: reads answer.
    assert_eq!(status(&post(server.addr, &read_body(&id))), 200);
}

#[test]
fn the_start_up_set_up_waits_for_another_replicas_set_up_past_the_statement_timeout() {
    let Some(cluster) = pg::start() else { return };
    let name = cluster.new_database();
    // Even a database whose own statement_timeout is 1 s.
    cluster
        .psql(
            "postgres",
            &format!("ALTER DATABASE {name} SET statement_timeout = '1s'"),
        )
        .unwrap();
    // Another replica's set-up holds the lock (the servers' advisory lock
    // key: "chopin-m" as a big-endian i64).
    let key = i64::from_be_bytes(*b"chopin-m");
    let mut other = cluster.session(&name);
    other.run(&format!("SELECT pg_advisory_lock({key});"));
    let url = cluster.url(&name);
    let starting = std::thread::spawn(move || {
        Server::start(
            SERVER,
            &support::db_args(&url, &["--db-statement-timeout", "1"]),
        )
    });
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        !starting.is_finished(),
        "the start did not wait for the lock"
    );
    drop(other);
    let server = starting.join().unwrap();
    let id = created_id(&post(server.addr, &create_body("after", "After")));
    assert!(id.is_some());
}
