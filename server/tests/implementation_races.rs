//! Racing replicas on one database (IMPLEMENTATION.md §4 "Exactly once,
//! nothing lost"), on every engine: several store handles (separate
//! connections, as separate servers would hold; one handle for SQLite in
//! memory) claim one document at once — exactly one run starts, every
//! other claimer is answered `active` with the winner's run — and report
//! one key at once — one event is stored, every racer is answered
//! accepted or replayed.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

#[path = "support/implementation.rs"]
mod implementation;

use chopin_mcp_server::store::{ClaimOutcome, Database, ReportOutcome, Store};
use engines::{Engine, seeded};
use implementation::{CALLER, DOC, approved, call, claim, claim_a, start};

on_every_engine!(
    racing_claims_start_one_run_and_the_rest_answer_it_active,
    racing_calls_with_one_key_store_one_event,
);

/// How many racers.
const RACERS: usize = 8;

/// A handle per racer: each its own connections, on the same database.
async fn handles(store: &Store, database: &Database) -> Vec<Store> {
    let mut handles = Vec::new();
    for _ in 0..RACERS {
        handles.push(match database {
            Database::Memory => store.clone(),
            other => Store::open(other).await.unwrap(),
        });
    }
    handles
}

async fn racing_claims_start_one_run_and_the_rest_answer_it_active(engine: Engine) {
    let Some((store, database)) = seeded(engine).await else {
        return;
    };
    approved(&store).await;
    let racers = handles(&store, &database).await;
    let tasks: Vec<_> = racers
        .into_iter()
        .enumerate()
        .map(|(n, racer)| {
            tokio::spawn(async move {
                racer
                    .claim(CALLER, &claim_a(&format!("R{n}")))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut started = Vec::new();
    let mut active = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            ClaimOutcome::Started(run) => started.push(run.id),
            ClaimOutcome::Active(run) => active.push(run.id),
            other => panic!("neither started nor active: {other:?}"),
        }
    }
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(active.len(), RACERS - 1);
    assert!(active.iter().all(|id| *id == started[0]), "{active:?}");
    let rows = store.implementation_rows(DOC).await.unwrap().unwrap();
    assert_eq!(rows.runs.len(), 1);
    assert_eq!(rows.runs[0].run.id, started[0]);
}

async fn racing_calls_with_one_key_store_one_event(engine: Engine) {
    let Some((store, database)) = seeded(engine).await else {
        return;
    };
    approved(&store).await;
    assert!(matches!(
        claim(&store, "R1").await,
        ClaimOutcome::Started(_)
    ));
    let racers = handles(&store, &database).await;
    let tasks: Vec<_> = racers
        .into_iter()
        .map(|racer| {
            tokio::spawn(async move {
                racer
                    .report(CALLER, &call("R1", "one-key", start("foundation")))
                    .await
                    .unwrap()
            })
        })
        .collect();
    let (mut accepted, mut replayed) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            ReportOutcome::Accepted(_) => accepted += 1,
            ReportOutcome::Replayed(_) => replayed += 1,
            other => panic!("neither accepted nor replayed: {other:?}"),
        }
    }
    assert_eq!((accepted, replayed), (1, RACERS - 1));
    let rows = store.implementation_rows(DOC).await.unwrap().unwrap();
    assert_eq!(rows.runs[0].events.len(), 1);
}
