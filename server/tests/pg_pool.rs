//! Bounded pools (`--db-pool-size`): on a PostgreSQL with `max_connections
//! = 20` (17 for a non-superuser role, as on managed providers), two
//! replicas with `--db-pool-size 4` both start, and a burst of 72 requests
//! (reads and creates, all at once) gets no 5xx: a request that finds its
//! pool busy waits its turn. Neither replica ever holds more than 2 × 4
//! connections (sampled from `pg_stat_activity` throughout the burst).
#![allow(clippy::disallowed_methods)] // the sampler runs until the burst ends

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};

use calls::{create_body, created_id, post, read_body};
use support::{DOC_ID, Server, import_file, status};

const SERVER: &str = "chopin-mcp-server";
const POOL_SIZE: usize = 4;
const BURST: usize = 72;

#[test]
fn a_burst_on_two_replicas_with_bounded_pools_waits_its_turn_and_gets_no_5xx() {
    let Some(cluster) = pg::start_with(pg::Settings {
        max_connections: Some(20),
        ..pg::Settings::default()
    }) else {
        return;
    };
    // A non-superuser owner, as a provider hands out: the 3 reserved slots
    // are not its to use.
    cluster.psql("postgres", "CREATE ROLE app LOGIN").unwrap();
    let name = cluster.new_database();
    cluster
        .psql("postgres", &format!("ALTER DATABASE {name} OWNER TO app"))
        .unwrap();
    let url = |replica: &str| {
        format!(
            "postgres://app@127.0.0.1:{}/{name}?application_name={replica}",
            cluster.port
        )
    };
    let import = import_file();
    let size = POOL_SIZE.to_string();
    let replicas: Vec<Server> = ["replica-a", "replica-b"]
        .iter()
        .map(|replica| {
            let url = url(replica);
            let flags = [
                "--import",
                import.to_str().unwrap(),
                "--db-pool-size",
                &size,
            ];
            Server::start(SERVER, &support::db_args(&url, &flags))
        })
        .collect();
    let summary = replicas[0]
        .banner
        .iter()
        .find(|line| line.starts_with("PostgreSQL at"))
        .expect("the PostgreSQL line of the banner");
    assert!(
        summary.contains("pools of 4 connections for reads and 4 for creates")
            && summary.contains("at most 8 connections"),
        "{summary}"
    );

    // Sample every replica's connections while the burst runs.
    let done = AtomicBool::new(false);
    let most: Mutex<HashMap<String, usize>> = Mutex::default();
    let query = "SELECT application_name, count(*) FROM pg_stat_activity \
                 WHERE application_name LIKE 'replica-%' GROUP BY 1";
    let barrier = Barrier::new(BURST);
    let (answers, samples) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut samples = 0;
            while !done.load(Ordering::Relaxed) || samples == 0 {
                let output = cluster
                    .psql("postgres", query)
                    .expect("sample pg_stat_activity");
                for line in output.lines() {
                    if let Some((replica, count)) = line.split_once('|') {
                        let count: usize = count.trim().parse().unwrap_or(0);
                        let mut most = most.lock().unwrap();
                        let seen = most.entry(replica.to_owned()).or_default();
                        *seen = (*seen).max(count);
                    }
                }
                samples += 1;
            }
            samples
        });
        let burst: Vec<_> = (0..BURST)
            .map(|n| {
                let addr = replicas[n % 2].addr;
                let barrier = &barrier;
                scope.spawn(move || {
                    let body = if n % 2 == 0 {
                        read_body(DOC_ID)
                    } else {
                        create_body(&format!("burst-{n}"), &format!("Burst {n}"))
                    };
                    barrier.wait();
                    (n, post(addr, &body))
                })
            })
            .collect();
        let answers: Vec<(usize, String)> = burst.into_iter().map(|t| t.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        (answers, sampler.join().unwrap())
    });

    let failed: Vec<&(usize, String)> = answers.iter().filter(|(_, r)| status(r) != 200).collect();
    assert!(
        failed.is_empty(),
        "{} of {BURST} failed, e.g. {:?}",
        failed.len(),
        failed.first()
    );
    for (n, response) in &answers {
        if n % 2 == 1 {
            assert!(created_id(response).is_some(), "{response}");
        }
    }
    let most = most.into_inner().unwrap();
    eprintln!("most connections per replica over {samples} samples: {most:?}");
    for (replica, count) in &most {
        assert!(
            *count <= 2 * POOL_SIZE,
            "{replica} held {count} connections"
        );
    }
    assert!(!most.is_empty(), "no sample saw the replicas' connections");
}
