//! Several `chopin-mcp-server` processes (replicas) on one PostgreSQL
//! database (a throwaway server, see `support/pg.rs`): they agree on
//! reads, lists and racing creates, lose nothing they acknowledged when one
//! is SIGKILLed mid-storm, start together on an empty database, and fail
//! clearly (at start: a message and a non-zero exit; in flight: a generic
//! 500) when the database is unreachable, too new, or goes away.
#![allow(clippy::disallowed_methods)] // timing needs the clock

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use calls::{at_once, content, create_body, list_ids, post, read_body};
use chopin_mcp_server::store::SCHEMA_VERSION;
use support::{Server, status};

const SERVER: &str = "chopin-mcp-server";

fn replica(url: &str) -> Server {
    Server::on_db(SERVER, url, &[])
}

fn read(addr: SocketAddr, id: &str) -> Option<serde_json::Value> {
    content(&post(addr, &read_body(id)))
}

#[test]
fn a_document_created_through_one_replica_is_read_and_listed_through_the_others() {
    let Some(cluster) = pg::shared() else { return };
    let url = cluster.database();
    let replicas: Vec<Server> = (0..3).map(|_| replica(&url)).collect();
    let created = content(&post(
        replicas[0].addr,
        &create_body("cross-1", "Seen everywhere"),
    ))
    .expect("created");
    let id = created["id"].as_str().unwrap();
    for other in &replicas[1..] {
        let seen = read(other.addr, id).expect("read on another replica");
        assert_eq!(seen["source"], created["source"]);
        assert_eq!(seen["revision"], 0);
        assert_eq!(list_ids(other.addr), [id]);
    }
}

#[test]
fn creates_racing_one_key_through_different_replicas_make_one_document() {
    let Some(cluster) = pg::shared() else { return };
    let url = cluster.database();
    let replicas: Vec<Server> = (0..3).map(|_| replica(&url)).collect();
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    calls::race_one_key(&addrs);
}

#[test]
fn a_replica_killed_mid_storm_loses_nothing_it_acknowledged() {
    let Some(cluster) = pg::shared() else { return };
    let url = cluster.database();
    let doomed = replica(&url);
    let survivor = replica(&url);
    let (doomed_addr, survivor_addr) = (doomed.addr, survivor.addr);
    // (key, the id acknowledged, if any), for every create sent.
    type Sent = Vec<(String, Option<String>)>;
    let sent: Arc<Mutex<Sent>> = Arc::default();
    let until = Instant::now() + Duration::from_secs(20);
    let writers: Vec<_> = (0..6)
        .map(|t| {
            let sent = Arc::clone(&sent);
            std::thread::spawn(move || {
                for n in 0.. {
                    if Instant::now() > until {
                        break;
                    }
                    let key = format!("storm-{t}-{n}");
                    let response = post(doomed_addr, &create_body(&key, &key));
                    let id = content(&response).map(|c| c["id"].as_str().unwrap().to_owned());
                    let answered = id.is_some();
                    sent.lock().unwrap().push((key, id));
                    if !answered {
                        break; // the replica is gone
                    }
                }
            })
        })
        .collect();
    // Kill once a good number of creates were acknowledged.
    while sent.lock().unwrap().len() < 60 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    doomed.kill();
    for writer in writers {
        writer.join().unwrap();
    }
    let sent = sent.lock().unwrap().clone();
    let acknowledged: Vec<_> = sent.iter().filter(|(_, id)| id.is_some()).collect();
    assert!(
        acknowledged.len() >= 60,
        "only {} acknowledged",
        acknowledged.len()
    );
    eprintln!(
        "storm: {} creates sent, {} acknowledged before the SIGKILL",
        sent.len(),
        acknowledged.len()
    );
    // Every acknowledged create is there, on the other replica, at once.
    for (key, id) in &acknowledged {
        let id = id.as_ref().unwrap();
        let seen = read(survivor_addr, id).unwrap_or_else(|| panic!("{key}: {id} lost"));
        assert_eq!(seen["title"], key.as_str());
    }
    // Every create, answered or not, retried once more through the
    // survivor: one document per key, the acknowledged ones unchanged.
    for (key, id) in &sent {
        let first = content(&post(survivor_addr, &create_body(key, key)))
            .unwrap_or_else(|| panic!("{key}: the retry failed"));
        let again = content(&post(survivor_addr, &create_body(key, key))).unwrap();
        assert_eq!(first, again, "{key}");
        if let Some(id) = id {
            assert_eq!(first["id"], id.as_str(), "{key}");
        }
    }
    assert_eq!(list_ids(survivor_addr).len(), sent.len());
}

#[test]
fn replicas_starting_at_once_on_an_empty_database_all_start() {
    let Some(cluster) = pg::shared() else { return };
    let url = cluster.database();
    let replicas = at_once(4, |_| Server::start(SERVER, &["--db", &url]));
    let banners: Vec<String> = replicas.iter().map(|r| r.banner.join("\n")).collect();
    let new = banners
        .iter()
        .filter(|b| b.contains("new database"))
        .count();
    let generated: Vec<&String> = banners
        .iter()
        .filter(|b| b.contains("client configuration"))
        .collect();
    assert_eq!((new, generated.len()), (1, 1), "{banners:#?}");
    let token = generated[0]
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap();
    // The generated token works on every replica, and is nowhere stored
    // in plain text.
    for replica in &replicas {
        let list = replica.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#,
            Some(token),
        );
        assert!(list.contains("Keep the reading position offline"), "{list}");
    }
    let name = pg::database_name(&url);
    let plain = cluster
        .psql(
            name,
            &format!("SELECT count(*) FROM tokens WHERE token_sha256 = '{token}'"),
        )
        .unwrap();
    assert_eq!(plain, "0");
    let versions = cluster
        .psql(name, "SELECT version FROM chopin_schema")
        .unwrap();
    assert_eq!(versions, SCHEMA_VERSION.to_string());
}

#[test]
fn an_unreachable_or_newer_database_stops_the_start_with_a_reason() {
    let Some(cluster) = pg::shared() else { return };
    // Nothing listens on a port just released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (code, stderr) = support::run(
        SERVER,
        &["--db", &format!("postgres://postgres@127.0.0.1:{port}/x")],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "cannot open the database: PostgreSQL unavailable: cannot connect to 127.0.0.1:{port}/x"
        )),
        "{stderr}"
    );
    // A database that does not exist.
    let (code, stderr) = support::run(SERVER, &["--db", &cluster.url("no_such_database")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no_such_database"), "{stderr}");
    // A schema from a newer server: refused, and left as it was.
    let url = cluster.database();
    drop(replica(&url));
    let name = pg::database_name(&url);
    let newer = SCHEMA_VERSION + 1;
    cluster
        .psql(
            name,
            &format!("INSERT INTO chopin_schema (version) VALUES ({newer})"),
        )
        .unwrap();
    let (code, stderr) = support::run(SERVER, &["--db", &url]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "schema version {newer}, newer than this server's {SCHEMA_VERSION}"
        )),
        "{stderr}"
    );
    let versions = cluster
        .psql(name, "SELECT version FROM chopin_schema ORDER BY version")
        .unwrap();
    assert_eq!(versions, format!("{SCHEMA_VERSION}\n{newer}"));
}

#[test]
fn a_database_that_goes_away_gives_500s_not_a_crash() {
    let Some(mut cluster) = pg::start() else {
        return;
    };
    let url = cluster.database();
    let server = replica(&url);
    let created = content(&post(server.addr, &create_body("gone-1", "Before"))).expect("created");
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(read(server.addr, &id).is_some());
    cluster.stop();
    for body in [read_body(&id), create_body("gone-2", "After")] {
        let started = Instant::now();
        let response = post(server.addr, &body);
        assert_eq!(status(&response), 500, "{response}");
        assert!(
            response.ends_with("\r\n\r\ninternal server error"),
            "{response}"
        );
        assert!(started.elapsed() < Duration::from_secs(15));
    }
    // Still serving what needs no database.
    let ping = post(
        server.addr,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_eq!(status(&ping), 200, "{ping}");
}
