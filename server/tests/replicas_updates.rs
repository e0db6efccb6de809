//! Updates across `chopin-mcp-server` replicas on one PostgreSQL (a
//! throwaway server, see `support/pg.rs`), direct and through PgBouncer in
//! transaction mode (LIFECYCLE.md §2): racers at one revision through
//! different replicas make exactly one `updated`, every other answer a
//! `revision-conflict` naming the new revision; 32 racers with one key make
//! one revision and all get the same answer; a replica SIGKILLed in a storm
//! of updates loses no revision it acknowledged (each is read back, the
//! current one with `read_document`, the replaced ones from the history),
//! and every update retried with its key through another replica is
//! applied once. The assertions count answers and rows, never time.
#![allow(clippy::disallowed_methods)] // the storm runs until the kill

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use calls::{
    at_once, create_body, created_id, error_content, post, read_body, success, update_body,
};
use serde_json::{Value, json};
use support::{Server, status};

const SERVER: &str = "chopin-mcp-server";

/// A new database: its name (for psql on the cluster) and the URL the
/// replicas use, direct or through the shared PgBouncer.
fn database(through_pgbouncer: bool) -> Option<(&'static pg::Cluster, String, String)> {
    let cluster = pg::shared()?;
    let name = cluster.new_database();
    let url = pg::shared_url(&name, through_pgbouncer)?;
    Some((cluster, name, url))
}

fn replicas(url: &str, count: usize) -> Vec<Server> {
    (0..count)
        .map(|_| Server::on_db(SERVER, url, &[]))
        .collect()
}

fn create(addr: SocketAddr, key: &str) -> String {
    let response = post(addr, &create_body(key, key));
    created_id(&response).unwrap_or_else(|| panic!("not created: {response}"))
}

fn read(addr: SocketAddr, id: &str) -> Value {
    let response = post(addr, &read_body(id));
    success(&response).unwrap_or_else(|| panic!("not read: {response}"))
}

/// `bodies[n]` sent to `addrs[n % addrs.len()]`, all released at once; the
/// raw responses in the order of `bodies`.
fn spread(addrs: &[SocketAddr], bodies: &[String]) -> Vec<String> {
    at_once(bodies.len(), |n| post(addrs[n % addrs.len()], &bodies[n]))
}

fn racing_updates_apply_once(through_pgbouncer: bool) {
    let Some((_, _, url)) = database(through_pgbouncer) else {
        return;
    };
    let replicas = replicas(&url, 3);
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    let id = create(addrs[0], "raced-document");
    for revision in 0..3u64 {
        let plans: Vec<String> = (0..12)
            .map(|n| format!("# Racer {n}\n\nRound {revision}.\n"))
            .collect();
        let bodies: Vec<String> = plans
            .iter()
            .enumerate()
            .map(|(n, plan)| update_body(&id, revision, plan, &format!("race-{revision}-{n}")))
            .collect();
        let answers = spread(&addrs, &bodies);
        let mut winners = Vec::new();
        for (n, response) in answers.iter().enumerate() {
            match success(response) {
                Some(document) => {
                    assert_eq!(document["revision"], revision + 1, "{response}");
                    assert_eq!(document["source"], plans[n].as_str());
                    winners.push(n);
                }
                None => assert_eq!(
                    error_content(response),
                    Some(json!({"code": "revision-conflict", "revision": revision + 1})),
                    "round {revision}: {response}"
                ),
            }
        }
        assert_eq!(winners.len(), 1, "round {revision}: {answers:#?}");
        // Every replica reads the winner's plan.
        for addr in &addrs {
            let now = read(*addr, &id);
            assert_eq!(now["revision"], revision + 1);
            assert_eq!(now["source"], plans[winners[0]].as_str());
        }
    }
}

#[test]
fn replicas_racing_updates_at_one_revision_apply_exactly_one() {
    racing_updates_apply_once(false);
}

#[test]
fn replicas_racing_updates_through_pgbouncer_apply_exactly_one() {
    racing_updates_apply_once(true);
}

fn one_key_racers_make_one_revision(through_pgbouncer: bool) {
    let Some((cluster, name, url)) = database(through_pgbouncer) else {
        return;
    };
    let replicas = replicas(&url, 3);
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    let id = create(addrs[0], "one-key-document");
    let body = update_body(&id, 0, "# One key\n\nOnce.\n", "the-one-key");
    let answers = spread(&addrs, &vec![body; 32]);
    let first = success(&answers[0]).unwrap_or_else(|| panic!("{}", answers[0]));
    assert_eq!(first["revision"], 1, "{first}");
    for response in &answers {
        assert_eq!(success(response).as_ref(), Some(&first), "{response}");
    }
    for addr in &addrs {
        assert_eq!(read(*addr, &id)["revision"], 1);
    }
    // One revision stored: one replaced plan kept, one update recorded.
    let counts = cluster
        .psql(
            &name,
            &format!(
                "SELECT (SELECT count(*) FROM plan_history WHERE document_id = convert_to('{id}', 'UTF8')),
                        (SELECT count(*) FROM updates WHERE document_id = convert_to('{id}', 'UTF8'))"
            ),
        )
        .unwrap();
    assert_eq!(counts, "1|1");
}

#[test]
fn thirty_two_racers_with_one_key_across_replicas_make_one_revision() {
    one_key_racers_make_one_revision(false);
}

#[test]
fn thirty_two_racers_with_one_key_through_pgbouncer_make_one_revision() {
    one_key_racers_make_one_revision(true);
}

/// One update sent in the storm: its document, key, revision and plan, and
/// the answer if one came.
#[derive(Clone)]
struct Sent {
    document: String,
    key: String,
    revision: u64,
    plan: String,
    answer: Option<Value>,
}

fn killed_mid_storm_loses_nothing(through_pgbouncer: bool) {
    let Some((cluster, name, url)) = database(through_pgbouncer) else {
        return;
    };
    let doomed = Server::on_db(SERVER, &url, &[]);
    let survivor = Server::on_db(SERVER, &url, &[]);
    let (doomed_addr, survivor_addr) = (doomed.addr, survivor.addr);
    // Each writer revises a document of its own, one revision after the
    // other, until the replica is gone.
    let documents: Vec<String> = (0..6)
        .map(|t| create(survivor_addr, &format!("storm-document-{t}")))
        .collect();
    let sent: Arc<Mutex<Vec<Sent>>> = Arc::default();
    let until = Instant::now() + Duration::from_secs(30);
    let writers: Vec<_> = documents
        .iter()
        .enumerate()
        .map(|(t, document)| {
            let (sent, document) = (Arc::clone(&sent), document.clone());
            std::thread::spawn(move || {
                for revision in 0.. {
                    if Instant::now() > until {
                        break;
                    }
                    let key = format!("storm-{t}-{revision}");
                    let plan = format!("# Storm {t}\n\nRevision {}.\n", revision + 1);
                    let response =
                        post(doomed_addr, &update_body(&document, revision, &plan, &key));
                    let answer = success(&response);
                    if let Some(answer) = &answer {
                        assert_eq!(answer["revision"], revision + 1, "{response}");
                    } else {
                        // Only the kill ends a writer: no answer at all.
                        assert_eq!(status(&response), 0, "not an update: {response}");
                    }
                    let answered = answer.is_some();
                    sent.lock().unwrap().push(Sent {
                        document: document.clone(),
                        key,
                        revision,
                        plan,
                        answer,
                    });
                    if !answered {
                        break;
                    }
                }
            })
        })
        .collect();
    // Kill once a good number of updates were acknowledged.
    while sent.lock().unwrap().len() < 90 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    doomed.kill();
    for writer in writers {
        writer.join().unwrap();
    }
    let sent = sent.lock().unwrap().clone();
    let acknowledged = sent.iter().filter(|s| s.answer.is_some()).count();
    assert!(acknowledged >= 90, "only {acknowledged} acknowledged");
    eprintln!(
        "storm: {} updates sent, {acknowledged} acknowledged before the SIGKILL",
        sent.len()
    );

    // Every acknowledged revision is in the store with its plan: the
    // current one as read_document gives it, the replaced ones in the
    // history, on the other replica at once.
    let current: HashMap<&str, Value> = documents
        .iter()
        .map(|id| (id.as_str(), read(survivor_addr, id)))
        .collect();
    let committed_unanswered = sent
        .iter()
        .filter(|s| {
            s.answer.is_none() && current[s.document.as_str()]["revision"] == s.revision + 1
        })
        .count();
    eprintln!(
        "storm: {committed_unanswered} of {} unanswered updates had committed",
        sent.len() - acknowledged
    );
    for update in sent.iter().filter(|s| s.answer.is_some()) {
        let made = update.revision + 1;
        let now = &current[update.document.as_str()];
        let stored = if now["revision"] == made {
            now["source"].as_str().unwrap().to_owned()
        } else {
            cluster
                .psql(
                    &name,
                    &format!(
                        "SELECT convert_from(source, 'UTF8') FROM plan_history
                          WHERE document_id = convert_to('{}', 'UTF8') AND revision = {made}",
                        update.document
                    ),
                )
                .unwrap()
        };
        assert_eq!(stored.trim_end(), update.plan.trim_end(), "{}", update.key);
    }

    // Every update, answered or not, retried with its key through the
    // survivor, twice: each is applied once. An acknowledged one replays
    // its answer; an unanswered one replays if it committed, and is
    // applied now if it did not.
    for update in &sent {
        let body = update_body(&update.document, update.revision, &update.plan, &update.key);
        let retried = post(survivor_addr, &body);
        let retried = success(&retried).unwrap_or_else(|| panic!("{}: {retried}", update.key));
        if let Some(answer) = &update.answer {
            assert_eq!(&retried, answer, "{}", update.key);
        }
        assert_eq!(retried["revision"], update.revision + 1, "{}", update.key);
        let again = post(survivor_addr, &body);
        assert_eq!(success(&again), Some(retried), "{}", update.key);
    }
    // Each document has exactly one revision per update sent to it, each
    // replaced plan kept once and each update recorded once.
    for id in &documents {
        let count = sent.iter().filter(|s| s.document == *id).count();
        assert_eq!(read(survivor_addr, id)["revision"], count, "{id}");
        let rows = cluster
            .psql(
                &name,
                &format!(
                    "SELECT (SELECT count(*) FROM plan_history WHERE document_id = convert_to('{id}', 'UTF8')),
                            (SELECT count(DISTINCT revision) FROM plan_history WHERE document_id = convert_to('{id}', 'UTF8')),
                            (SELECT count(*) FROM updates WHERE document_id = convert_to('{id}', 'UTF8'))"
                ),
            )
            .unwrap();
        assert_eq!(rows, format!("{count}|{count}|{count}"), "{id}");
    }
}

#[test]
fn a_replica_killed_mid_storm_of_updates_loses_no_acknowledged_revision() {
    killed_mid_storm_loses_nothing(false);
}

#[test]
fn a_replica_killed_mid_storm_of_updates_through_pgbouncer_loses_nothing() {
    killed_mid_storm_loses_nothing(true);
}
