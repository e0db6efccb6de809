//! `chopin-mcp-server` behind PgBouncer in transaction mode (Debian's
//! pgbouncer, 1.18 on bookworm: no protocol-level prepared statements; 4
//! server connections per database), as hosted poolers (Supabase's, Neon's)
//! and most self-run PgBouncers are used: each transaction may run on
//! another server connection. Creates from many clients, their replays,
//! racers on one key, reads and lists all answer, with no `prepared
//! statement … does not exist`, protocol error or store error logged;
//! replicas racing one key through the pooler make one document; replicas
//! starting at once on an empty database through it set it up once (the
//! advisory lock is the transaction's). The store behaviour suite also runs
//! through a PgBouncer: `store_behaviour.rs`, module `pgbouncer`.
#![allow(clippy::disallowed_methods)] // threads wait on each other

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::collections::HashMap;
use std::net::SocketAddr;

use calls::{at_once, content, create_body, created_id, list_ids, post, read_body};
use support::{Server, status};

const SERVER: &str = "chopin-mcp-server";

/// What must never appear in the server's stderr (warnings and errors)
/// behind a pooler.
const BROKEN: [&str; 8] = [
    "prepared statement",
    "protocol error",
    "protocol violation",
    "unsupported startup parameter",
    "store error",
    "unexpected message",
    "Connection error",
    "ERROR",
];

/// Warnings and errors only on the captured stderr.
const WARN: [(&str, &str); 1] = [("RUST_LOG", "warn")];

/// A database behind the shared PgBouncer: its URL through the pooler.
fn pooled_database() -> Option<String> {
    let cluster = pg::shared()?;
    let bouncer = pg::shared_bouncer()?;
    Some(bouncer.url(&cluster.new_database()))
}

/// `bodies` sent from `clients` threads at once (released together); the
/// raw responses in the order of `bodies`.
fn from_clients(addr: SocketAddr, clients: usize, bodies: &[String]) -> Vec<String> {
    let mut answers: Vec<(usize, String)> = at_once(clients, |t| {
        (t..bodies.len())
            .step_by(clients)
            .map(|n| (n, post(addr, &bodies[n])))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    answers.sort_by_key(|(n, _)| *n);
    answers.into_iter().map(|(_, response)| response).collect()
}

fn assert_clean(logs: &str) {
    for broken in BROKEN {
        assert!(
            !logs.contains(broken),
            "{broken:?} in the server's stderr:\n{logs}"
        );
    }
}

#[test]
fn creates_replays_racers_reads_and_lists_all_work_through_pgbouncer() {
    let Some(url) = pooled_database() else { return };
    let server = Server::start_capturing(SERVER, &support::db_args(&url, &[]), &WARN);
    let addr = server.addr;

    // 50 creates from 8 clients.
    let keys: Vec<String> = (0..50).map(|n| format!("pooled-{n}")).collect();
    let creates: Vec<String> = keys.iter().map(|k| create_body(k, k)).collect();
    let first = from_clients(addr, 8, &creates);
    let ids: Vec<String> = first
        .iter()
        .map(|r| created_id(r).unwrap_or_else(|| panic!("a create failed: {r}")))
        .collect();

    // Their replays, from 8 clients: the same ids.
    let again = from_clients(addr, 8, &creates);
    for ((key, id), response) in keys.iter().zip(&ids).zip(&again) {
        assert_eq!(created_id(response).as_ref(), Some(id), "{key}: {response}");
    }

    // 16 racers on one new key: one document, every racer answered with it.
    let racing = vec![create_body("raced", "Raced"); 16];
    let raced = from_clients(addr, 16, &racing);
    let answers: Vec<serde_json::Value> = raced
        .iter()
        .map(|r| content(r).unwrap_or_else(|| panic!("a racer failed: {r}")))
        .collect();
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");

    // Reads of each from 8 clients, and the list.
    let reads: Vec<String> = ids.iter().map(|id| read_body(id)).collect();
    for (response, key) in from_clients(addr, 8, &reads).iter().zip(&keys) {
        let read = content(response).unwrap_or_else(|| panic!("a read failed: {response}"));
        assert_eq!(read["title"], key.as_str());
    }
    let listed = list_ids(addr);
    assert_eq!(listed.len(), 51, "{listed:?}");

    assert_clean(&server.logs());
    let pooler = pg::shared_bouncer().unwrap().log();
    assert!(!pooler.contains("prepared statement"), "{pooler}");
    assert!(
        !pooler.contains("unsupported startup parameter"),
        "{pooler}"
    );
}

#[test]
fn replicas_racing_one_key_through_pgbouncer_make_one_document() {
    let Some(url) = pooled_database() else { return };
    let replicas: Vec<Server> = (0..3)
        .map(|_| Server::start_capturing(SERVER, &support::db_args(&url, &[]), &WARN))
        .collect();
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    calls::race_one_key(&addrs);
    for replica in &replicas {
        assert_clean(&replica.logs());
    }
}

#[test]
fn replicas_starting_at_once_through_pgbouncer_set_the_database_up_once() {
    let Some(url) = pooled_database() else { return };
    let replicas = at_once(4, |_| {
        Server::start_capturing(SERVER, &["--db", &url], &WARN)
    });
    let banners: Vec<String> = replicas.iter().map(|r| r.banner.join("\n")).collect();
    let new = banners
        .iter()
        .filter(|b| b.contains("new database"))
        .count();
    assert_eq!(new, 1, "{banners:#?}");
    let token = banners
        .iter()
        .find_map(|b| b.lines().find_map(|line| line.strip_prefix("token: ")))
        .and_then(|rest| rest.split(' ').next())
        .expect("one replica generated the token")
        .to_owned();
    let mut listed = HashMap::new();
    for replica in &replicas {
        let list = replica.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#,
            Some(&token),
        );
        assert_eq!(status(&list), 200, "{list}");
        listed.insert(
            replica.addr,
            list.contains("Keep the reading position offline"),
        );
        assert_clean(&replica.logs());
    }
    assert!(listed.values().all(|seen| *seen), "{listed:?}");
}

#[test]
fn a_pooler_that_drops_the_connection_mid_transaction_gives_a_5xx_and_the_retry_creates_once() {
    let Some(cluster) = pg::start() else { return };
    let Some(mut bouncer) = pg::Bouncer::start(&cluster, 4) else {
        return;
    };
    let name = cluster.new_database();
    let server = Server::start(SERVER, &support::db_args(&bouncer.url(&name), &[]));
    let addr = server.addr;
    assert!(created_id(&post(addr, &create_body("first", "First"))).is_some());
    // The create waits for a lock inside its transaction when the pooler
    // goes away.
    let mut locker = cluster.session(&name);
    locker.run("BEGIN; LOCK TABLE documents IN ACCESS EXCLUSIVE MODE;");
    let create = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        (post(addr, &create_body("cut", "Cut")), started.elapsed())
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    bouncer.stop();
    let (response, elapsed) = create.join().unwrap();
    let code = status(&response);
    assert!((500..600).contains(&code), "{response}");
    assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    drop(locker);
    // The create was not answered as created. Its transaction was sent
    // whole, so PostgreSQL may have committed it once the lock was gone
    // (the answer was lost with the pooler): retried with its key through
    // another replica, it is there exactly once.
    let direct = Server::start(SERVER, &support::db_args(&cluster.url(&name), &[]));
    let retried = created_id(&post(direct.addr, &create_body("cut", "Cut")));
    assert!(retried.is_some(), "the retry failed");
    let stored = cluster
        .psql(
            &name,
            "SELECT count(*) FROM documents WHERE idempotency_key = 'cut'::bytea",
        )
        .unwrap();
    assert_eq!(stored, "1");
    // And the server whose pooler went away still serves.
    let tools = post(addr, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(status(&tools), 200, "{tools}");
}
