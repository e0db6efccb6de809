//! Schema version 3's tables made in place from version 2
//! (IMPLEMENTATION.md §4 "Tables"): a version 2 SQLite file (the additions
//! of versions 3 and 4 taken out of a set-up file, its documents, history
//! and idempotency records written as a version 2 server would) is brought
//! to the current version at start with everything in it, and its
//! documents then take graphs and runs; the next start finds the current
//! version and changes nothing. (Version 3 as its servers made it, brought
//! to 4: `store_schema_v3_migration.rs`.)

#[path = "support/pg.rs"]
mod pg;

#[path = "support/engines.rs"]
mod engines;

#[path = "support/implementation.rs"]
mod implementation;

use chopin_mcp_server::store::{
    ClaimOutcome, Database, SCHEMA_VERSION, Setup, Store, UpdateOutcome,
};
use engines::{change, doc, read, temp_db};
use implementation::{CALLER, DOC};

/// Takes the tables and columns of versions 3 and 4 (`grants.may_write`)
/// out of a set-up file: what a version 2 server left.
fn as_version_2(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "DROP TABLE planner_turns;
         DROP TABLE document_images;
         DROP TABLE images;
         DROP TABLE implementation_events;
         DROP TABLE implementation_runs;
         DROP TABLE graph_revisions;
         DROP TABLE graph_versions;
         ALTER TABLE documents DROP COLUMN base_branch;
         ALTER TABLE documents DROP COLUMN base_commit;
         ALTER TABLE grants DROP COLUMN may_write;
         PRAGMA user_version = 2;",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_sqlite_file_is_migrated_in_place_and_keeps_its_documents() {
    let path = temp_db("v2-to-v3");
    let database = Database::File(path.clone());
    {
        let store = Store::open(&database).await.unwrap();
        store
            .setup(&Setup {
                import: vec![doc("a", "acme/plans", "Alpha")],
                grants: vec![(CALLER.to_owned(), vec!["acme/plans".to_owned()])],
                ..Setup::default()
            })
            .await
            .unwrap();
        // Revision 3 → 4 (kept in plan_history, the key in updates).
        let updated = store
            .update(CALLER, &change(DOC, 3, "# Four\n", "u1", "f1"))
            .await
            .unwrap();
        assert!(matches!(updated, UpdateOutcome::Updated(_)), "{updated:?}");
    }
    as_version_2(&path);

    let store = Store::open(&database).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_eq!(started.found_version, 2);
    assert!(!started.new_database);
    let kept = read(&store, CALLER, DOC).await;
    assert_eq!((kept.revision, kept.source.as_str()), (4, "# Four\n"));
    let replayed = store
        .update(CALLER, &change(DOC, 3, "# Four\n", "u1", "f1"))
        .await
        .unwrap();
    assert!(
        matches!(replayed, UpdateOutcome::Replayed(_)),
        "{replayed:?}"
    );

    // Version 3's tables work on the migrated document.
    let drafted = store
        .graph_draft(&implementation::graph(implementation::tasks(), 4, None))
        .await
        .unwrap();
    assert!(matches!(
        drafted,
        chopin_mcp_server::store::GraphOutcome::Stored(_)
    ));
    store.graph_approve(DOC, 1, 1, "operator").await.unwrap();
    let mut claimant = implementation::claim_a("R1");
    claimant.request.plan_revision = 4;
    assert!(matches!(
        store.claim(CALLER, &claimant).await.unwrap(),
        ClaimOutcome::Started(_)
    ));
    drop(store);

    let again = Store::open(&database).await.unwrap();
    let started = again.setup(&Setup::default()).await.unwrap();
    assert_eq!(started.found_version, SCHEMA_VERSION);
    let rows = again.implementation_rows(DOC).await.unwrap().unwrap();
    assert_eq!(rows.runs.len(), 1, "the run survives a restart");
}
