//! Read-only grants in the store (IMPLEMENTATION.md §4 "Read-only
//! grants"), on every engine (`support/engines.rs`): how the set-up stores
//! `--grant-read` beside `--grant` (a repository named by both, or by a
//! read-only `*` and a read-write grant, is read and write; the next start
//! replaces what a caller had, in either direction), and where a read-only
//! caller's `forbidden` comes in each write's order: right after
//! `unavailable`, before the update's replay and `archived`, the claim's
//! active run and the lifecycle call's `run`. A caller without a grant is
//! answered `unavailable` by the same writes.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

#[path = "support/implementation.rs"]
mod implementation;

use std::time::SystemTime;

use chopin_mcp_server::store::{
    ArchiveOutcome, ClaimOutcome, CreateOutcome, Listing, RenameOutcome, ReportOutcome,
    RestoreOutcome, Setup, Store, UpdateOutcome,
};
use engines::{Engine, change, create, draft, read, seeded, update};
use implementation::{CALLER, DOC, approved, call, claim, claim_a, start};

on_every_engine!(
    a_read_only_caller_is_forbidden_each_write_right_after_unavailable,
    grants_named_by_both_flags_are_read_and_write_and_a_start_replaces_them,
);

/// Stores the grants of one server start.
async fn start_with(store: &Store, grants: &[(&str, &str)], read_grants: &[(&str, &str)]) {
    let listed = |pairs: &[(&str, &str)]| -> Vec<(String, Vec<String>)> {
        pairs
            .iter()
            .map(|(caller, repositories)| {
                let repositories = repositories.split(',').map(str::to_owned).collect();
                ((*caller).to_owned(), repositories)
            })
            .collect()
    };
    let setup = Setup {
        grants: listed(grants),
        read_grants: listed(read_grants),
        ..Setup::default()
    };
    store.setup(&setup).await.unwrap();
}

/// Whether `caller` may write document `a` (a rename to its own title
/// changes nothing) and read document `s` (in `acme/secret`).
async fn may(store: &Store, caller: &str) -> (RenameOutcome, bool) {
    let renamed = store.rename(caller, DOC, "Alpha").await.unwrap();
    let reads_secret = store.read(caller, "s").await.unwrap().is_some();
    (renamed, reads_secret)
}

fn renamed() -> RenameOutcome {
    RenameOutcome::Renamed {
        id: DOC.to_owned(),
        title: "Alpha".to_owned(),
    }
}

async fn a_read_only_caller_is_forbidden_each_write_right_after_unavailable(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    approved(&store).await;
    let run = match claim(&store, "R1").await {
        ClaimOutcome::Started(run) => run,
        other => panic!("not started: {other:?}"),
    };
    // The writer's update under key u1, which the reader's key u1 must not
    // replay; and document b archived.
    let u1 = change("b", 3, "# Zeta\n\nRevised.\n", "u1", "f1");
    assert!(matches!(
        update(&store, CALLER, &u1).await,
        UpdateOutcome::Updated(_)
    ));
    let now = SystemTime::now();
    assert!(matches!(
        store.archive(CALLER, "b", now).await.unwrap(),
        ArchiveOutcome::Archived { .. }
    ));
    start_with(&store, &[], &[("reader", "acme/plans")]).await;

    // Reads answer as the writer's.
    assert_eq!(
        read(&store, "reader", DOC).await,
        read(&store, CALLER, DOC).await
    );
    assert!(matches!(
        store.list("reader", "acme/plans", true).await.unwrap(),
        Listing::Listed(documents) if documents.len() == 3
    ));
    assert!(
        store
            .read_implementation("reader", DOC)
            .await
            .unwrap()
            .is_some()
    );

    // Updates: forbidden before the replay, archived and the revision.
    for asked in [
        change(DOC, 3, "# Alpha\n\nRevised.\n", "r1", "g1"),
        change(DOC, 9, "# Alpha\n\nRevised.\n", "r2", "g2"),
        change("b", 4, "# Zeta\n\nAgain.\n", "r3", "g3"),
        u1.clone(),
    ] {
        assert_eq!(
            update(&store, "reader", &asked).await,
            UpdateOutcome::Forbidden
        );
    }
    assert_eq!(
        store.rename("reader", DOC, "Beta").await.unwrap(),
        RenameOutcome::Forbidden
    );
    assert_eq!(
        store.rename("reader", "b", "Beta").await.unwrap(),
        RenameOutcome::Forbidden
    );
    assert_eq!(
        store.archive("reader", DOC, now).await.unwrap(),
        ArchiveOutcome::Forbidden
    );
    assert_eq!(
        store.restore("reader", "b").await.unwrap(),
        RestoreOutcome::Forbidden
    );
    assert_eq!(
        create(&store, "reader", "new", &draft("k1", "f1", "acme/plans")).await,
        CreateOutcome::Forbidden
    );
    // The claim: forbidden before the active run.
    assert_eq!(
        store.claim("reader", &claim_a("R2")).await.unwrap(),
        ClaimOutcome::Forbidden
    );
    // Lifecycle calls: forbidden before the run is looked at.
    for run_id in [run.id.as_str(), "nope"] {
        let asked = call(run_id, "k1", start("foundation"));
        assert_eq!(
            store.report("reader", &asked).await.unwrap(),
            ReportOutcome::Forbidden
        );
    }

    // A document of a repository the reader has no grant on is unavailable.
    assert_eq!(
        update(
            &store,
            "reader",
            &change("s", 3, "# Hidden\n\nNo.\n", "r4", "g4")
        )
        .await,
        UpdateOutcome::Unavailable
    );
    assert_eq!(
        store.archive("reader", "s", now).await.unwrap(),
        ArchiveOutcome::Unavailable
    );

    // Nothing changed.
    let a = read(&store, CALLER, DOC).await;
    assert_eq!((a.title.as_str(), a.revision), ("Alpha", 3));
    let b = store.read(CALLER, "b").await.unwrap().unwrap();
    assert_eq!(b.revision, 4);
    assert!(b.archived_at.is_some());
    let rows = store.implementation_rows(DOC).await.unwrap().unwrap();
    assert_eq!(rows.runs.len(), 1);
    assert!(rows.runs[0].events.is_empty());
}

async fn grants_named_by_both_flags_are_read_and_write_and_a_start_replaces_them(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    // Both flags on one repository, in either order of the lists.
    start_with(&store, &[("x", "acme/plans")], &[("x", "acme/plans")]).await;
    assert_eq!(may(&store, "x").await, (renamed(), false));
    // A read-only `*` beside a read-write grant: each repository as its
    // strongest grant says.
    start_with(&store, &[("x", "acme/plans")], &[("x", "*")]).await;
    assert_eq!(may(&store, "x").await, (renamed(), true));
    assert_eq!(
        update(
            &store,
            "x",
            &change("s", 3, "# Hidden\n\nNo.\n", "k1", "f1")
        )
        .await,
        UpdateOutcome::Forbidden
    );
    // The next start replaces them: read only now, and `*` gone.
    start_with(&store, &[], &[("x", "acme/plans")]).await;
    assert_eq!(may(&store, "x").await, (RenameOutcome::Forbidden, false));
    // And back to read and write.
    start_with(&store, &[("x", "acme/plans")], &[]).await;
    assert_eq!(may(&store, "x").await, (renamed(), false));
    // Two `--grant`s for one caller: both repositories.
    start_with(&store, &[("x", "acme/plans"), ("x", "acme/secret")], &[]).await;
    assert_eq!(may(&store, "x").await, (renamed(), true));
    assert!(matches!(
        store.rename("x", "s", "Hidden").await.unwrap(),
        RenameOutcome::Renamed { .. }
    ));
    // A caller the start does not name keeps its grants.
    assert_eq!(may(&store, CALLER).await, (renamed(), false));
}
