//! Updates exactly once across replicas (LIFECYCLE.md §2), at the store:
//! two stores (each with its own pools, as two replicas have) on one
//! PostgreSQL database, direct and behind PgBouncer in transaction mode,
//! their updates released at once. Two updates of one document at one
//! revision with different keys: exactly one `updated`, the other a
//! `revision-conflict` naming the new revision. Racers with one key and one
//! fingerprint: one new revision, every racer `replayed` with the same
//! answer, never a revision conflict. One key on two documents: one
//! applied, the others replayed or `conflict`. An update cut off by its
//! deadline stored nothing, and retried with its key through the other
//! replica applies once.

#[path = "support/pg.rs"]
mod pg;

use std::sync::Arc;
use std::time::Duration;

use chopin_mcp::Document;
use chopin_mcp_server::store::{
    Database, Imported, Limits, Revised, Setup, Store, Update, UpdateOutcome,
};
use tokio::sync::Barrier;

/// Two replicas' stores on a fresh database holding documents `a` and
/// `b` (revision 0), `ann` granted their repository; direct, or through the
/// shared PgBouncer. `None` without PostgreSQL.
async fn replicas(through_pgbouncer: bool) -> Option<(Store, Store)> {
    let cluster = pg::shared()?;
    let name = cluster.new_database();
    let url = pg::shared_url(&name, through_pgbouncer)?;
    Some(replicas_on(&url).await)
}

fn change(id: &str, revision: u64, plan: &str, key: &str, fingerprint: &str) -> Update {
    Update {
        locator: id.to_owned(),
        revision,
        plan: plan.to_owned(),
        idempotency_key: key.to_owned(),
        fingerprint: fingerprint.to_owned(),
    }
}

/// `changes[n]` sent through replica `n % 2`, all released at once; the
/// answers in the order of `changes`.
async fn at_once(replicas: &(Store, Store), changes: Vec<Update>) -> Vec<UpdateOutcome> {
    let barrier = Arc::new(Barrier::new(changes.len()));
    let tasks: Vec<_> = changes
        .into_iter()
        .enumerate()
        .map(|(n, change)| {
            let store = if n % 2 == 0 {
                replicas.0.clone()
            } else {
                replicas.1.clone()
            };
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                store.update("ann", &change).await.unwrap()
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    outcomes
}

async fn read(store: &Store, id: &str) -> Document {
    store.read("ann", id).await.unwrap().unwrap()
}

fn applied(outcomes: &[UpdateOutcome]) -> Vec<&Revised> {
    outcomes
        .iter()
        .filter_map(|o| match o {
            UpdateOutcome::Updated(r) => Some(r),
            _ => None,
        })
        .collect()
}

async fn two_keys_at_one_revision_apply_one(through_pgbouncer: bool) {
    let Some(replicas) = replicas(through_pgbouncer).await else {
        return;
    };
    // Round after round, each at the revision the last one made.
    for revision in 0..12 {
        let changes = (0..2)
            .map(|n| {
                let key = format!("r{revision}-{n}");
                change("a", revision, &format!("# {key}\n"), &key, &key)
            })
            .collect();
        let outcomes = at_once(&replicas, changes).await;
        let made = applied(&outcomes);
        assert_eq!(made.len(), 1, "{outcomes:?}");
        assert!(
            outcomes.contains(&UpdateOutcome::RevisionConflict {
                current: revision + 1
            }),
            "{outcomes:?}"
        );
        // Both replicas read the winner's plan.
        assert_eq!(read(&replicas.0, "a").await, made[0].document);
        assert_eq!(read(&replicas.1, "a").await, made[0].document);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_updating_at_one_revision_apply_exactly_one() {
    two_keys_at_one_revision_apply_one(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_updating_at_one_revision_through_pgbouncer_apply_exactly_one() {
    two_keys_at_one_revision_apply_one(true).await;
}

async fn one_key_racers_all_replay(through_pgbouncer: bool) {
    let Some(replicas) = replicas(through_pgbouncer).await else {
        return;
    };
    for revision in 0..4 {
        let key = format!("race-{revision}");
        let racer = change("a", revision, &format!("# {key}\n"), &key, &key);
        let outcomes = at_once(&replicas, vec![racer; 32]).await;
        let made = applied(&outcomes);
        assert_eq!(made.len(), 1, "{outcomes:?}");
        for outcome in &outcomes {
            match outcome {
                UpdateOutcome::Updated(r) | UpdateOutcome::Replayed(r) => assert_eq!(r, made[0]),
                other => panic!("a racer of one key answered {other:?}"),
            }
        }
        assert_eq!(read(&replicas.1, "a").await.revision, revision + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racers_with_one_key_on_two_replicas_make_one_revision_and_all_replay() {
    one_key_racers_all_replay(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racers_with_one_key_through_pgbouncer_make_one_revision_and_all_replay() {
    one_key_racers_all_replay(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_key_on_two_documents_across_replicas_applies_once() {
    let Some(replicas) = replicas(false).await else {
        return;
    };
    let changes = (0..16)
        .map(|n| {
            let id = if n % 4 < 2 { "a" } else { "b" };
            change(id, 0, &format!("# {id}\n"), "shared", id)
        })
        .collect();
    let outcomes = at_once(&replicas, changes).await;
    let made = applied(&outcomes);
    assert_eq!(made.len(), 1, "{outcomes:?}");
    let winner = made[0].clone();
    let mut same = 0;
    for outcome in &outcomes {
        match outcome {
            UpdateOutcome::Updated(r) | UpdateOutcome::Replayed(r) => {
                assert_eq!(*r, winner);
                same += 1;
            }
            UpdateOutcome::Conflict => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(same, 8, "{outcomes:?}");
    let loser = if winner.document.id == "a" { "b" } else { "a" };
    assert_eq!(read(&replicas.0, loser).await.revision, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_update_cut_off_by_its_deadline_stored_nothing_and_its_retry_applies_once() {
    let Some(cluster) = pg::shared() else { return };
    let name = cluster.new_database();
    let url = cluster.url(&name);
    let (_, other) = replicas_on(&url).await;
    let hasty = Store::open_with(
        &Database::Postgres(url),
        Limits {
            statement_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
    )
    .await
    .unwrap();
    // Another transaction holds document a's row: the update waits for it
    // past its deadline, and PostgreSQL cancels it.
    let mut holder = cluster.session(&name);
    holder.run("BEGIN; SELECT 1 FROM documents WHERE id = 'a'::bytea FOR UPDATE;");
    let first = change("a", 0, "# Once\n", "k", "f");
    let cut = hasty.update("ann", &first).await;
    assert!(matches!(&cut, Err(e) if e.is_busy()), "{cut:?}");
    drop(holder);
    assert_eq!(read(&other, "a").await.revision, 0);
    // Retried through the other replica: applied once, then replayed.
    let UpdateOutcome::Updated(made) = other.update("ann", &first).await.unwrap() else {
        panic!("not updated");
    };
    assert_eq!(made.document.revision, 1);
    assert_eq!(
        hasty.update("ann", &first).await.unwrap(),
        UpdateOutcome::Replayed(made)
    );
    assert_eq!(read(&other, "a").await.revision, 1);
}

/// [`replicas`] on the database at `url`.
async fn replicas_on(url: &str) -> (Store, Store) {
    let database = Database::Postgres(url.to_owned());
    let first = Store::open(&database).await.unwrap();
    let import = ["a", "b"].map(|id| Imported {
        id: id.to_owned(),
        repository: "acme/plans".to_owned(),
        title: id.to_uppercase(),
        source: format!("# {id}\n"),
        revision: 0,
    });
    first
        .setup(&Setup {
            grants: vec![("ann".to_owned(), vec!["acme/plans".to_owned()])],
            import: import.to_vec(),
            ..Setup::default()
        })
        .await
        .unwrap();
    let second = Store::open(&database).await.unwrap();
    (first, second)
}
