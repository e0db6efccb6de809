//! The store's planner turns (SURFACE.md §9), on every engine (`support/
//! engines.rs`): a turn recorded for a document the caller may see, by id
//! or URL, with what it carries; nothing recorded for an unseen, archived
//! or unadmitted one, refused in that order; a turn's start and end; the
//! turns a server left unfinished marked `interrupted`, only that server's;
//! and a database of schema version 2 given the table in place.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::SystemTime;

use chopin_mcp_server::store::{InvokeOutcome, NewTurn, Setup, Sqlite, Store, TurnEnd};
use engines::{Engine, seeded, temp_db};

on_every_engine!(
    a_turn_is_recorded_for_a_document_the_caller_may_see,
    nothing_is_recorded_for_an_unseen_archived_or_unadmitted_document,
    only_the_servers_own_unfinished_turns_are_interrupted,
    an_ended_turn_is_not_interrupted,
    an_instruction_may_hold_any_character,
);

fn turn(caller: &str, locator: &str, server: &str, admitted: bool) -> NewTurn {
    NewTurn {
        caller: caller.to_owned(),
        client_name: "planner-test".to_owned(),
        client_version: "2".to_owned(),
        locator: locator.to_owned(),
        instruction: "  Plan this.\n".to_owned(),
        checkout: Some("/tmp/score".to_owned()),
        server: server.to_owned(),
        admitted,
    }
}

async fn a_turn_is_recorded_for_a_document_the_caller_may_see(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = store.invoke(&turn("ann", "b", "one", true)).await.unwrap();
    let InvokeOutcome::Queued {
        turn: first_turn,
        id,
        title,
        repository,
    } = first
    else {
        panic!("not queued: {first:?}");
    };
    assert_eq!(
        (id.as_str(), title.as_str(), repository.as_str()),
        ("b", "Zeta", "acme/plans")
    );
    // By its URL, relative or absolute: the same document, a new turn.
    for locator in ["/documents/b", "https://chopin.test/documents/b"] {
        match store
            .invoke(&turn("ann", locator, "one", true))
            .await
            .unwrap()
        {
            InvokeOutcome::Queued { turn, id, .. } => {
                assert!(turn > first_turn);
                assert_eq!(id, "b");
            }
            other => panic!("{locator}: {other:?}"),
        }
    }
    assert_eq!(store.interrupt_turns("one").await.unwrap(), 3);
}

async fn nothing_is_recorded_for_an_unseen_archived_or_unadmitted_document(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    store.archive("ann", "c", SystemTime::now()).await.unwrap();
    for (caller, locator, admitted, expected) in [
        ("ann", "s", true, InvokeOutcome::Unavailable),
        ("ann", "missing", true, InvokeOutcome::Unavailable),
        ("nobody", "a", true, InvokeOutcome::Unavailable),
        // An unseen document is unavailable before the queue is full.
        ("ann", "s", false, InvokeOutcome::Unavailable),
        ("ann", "c", true, InvokeOutcome::Archived),
        ("ann", "c", false, InvokeOutcome::Archived),
        ("ann", "a", false, InvokeOutcome::QueueFull),
    ] {
        let outcome = store
            .invoke(&turn(caller, locator, "one", admitted))
            .await
            .unwrap();
        assert_eq!(outcome, expected, "{caller} {locator} {admitted}");
    }
    assert_eq!(store.interrupt_turns("one").await.unwrap(), 0);
}

async fn only_the_servers_own_unfinished_turns_are_interrupted(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for server in ["one", "one", "two"] {
        let queued = store
            .invoke(&turn("root", "a", server, true))
            .await
            .unwrap();
        assert!(matches!(queued, InvokeOutcome::Queued { .. }), "{queued:?}");
    }
    assert_eq!(store.interrupt_turns("one").await.unwrap(), 2);
    // Marked once: the next start finds none left.
    assert_eq!(store.interrupt_turns("one").await.unwrap(), 0);
    assert_eq!(store.interrupt_turns("two").await.unwrap(), 1);
}

async fn an_ended_turn_is_not_interrupted(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut turns = Vec::new();
    for _ in 0..3 {
        match store.invoke(&turn("root", "a", "one", true)).await.unwrap() {
            InvokeOutcome::Queued { turn, .. } => turns.push(turn),
            other => panic!("{other:?}"),
        }
    }
    // One ended, one running, one still queued.
    store.start_turn(turns[0]).await.unwrap();
    let end = TurnEnd {
        state: "exited",
        exit_status: Some(3),
        output: b"said \0 something \xff".to_vec(),
    };
    store.finish_turn(turns[0], &end).await.unwrap();
    store.start_turn(turns[1]).await.unwrap();
    assert_eq!(store.interrupt_turns("one").await.unwrap(), 2);
}

async fn an_instruction_may_hold_any_character(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut holding = turn("root", "a", "one", true);
    holding.instruction = "nul \0, emoji 😀, \u{2028}".to_owned();
    let outcome = store.invoke(&holding).await.unwrap();
    assert!(
        matches!(outcome, InvokeOutcome::Queued { .. }),
        "{outcome:?}"
    );
}

/// The turns table as SQLite keeps it, by turn: state, caller (`via` the
/// client's name and version), instruction, checkout, exit status, output.
type Row = (
    String,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
);

fn rows(path: &std::path::Path) -> Vec<Row> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT state, caller || ' via ' || client_name || ' ' || client_version,
                    instruction, checkout, exit_status, output
               FROM planner_turns ORDER BY seq",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A set-up that imports document `a` and lets `ann` see everything.
fn with_a() -> Setup {
    Setup {
        import: vec![engines::doc("a", "acme/plans", "Alpha")],
        grants: vec![("ann".to_owned(), vec!["*".to_owned()])],
        ..Setup::default()
    }
}

#[test]
fn a_sqlite_row_keeps_what_was_asked_and_how_the_turn_ended() {
    let path = temp_db("planner-rows");
    let store = Sqlite::open(&path).unwrap();
    store.setup(&with_a()).unwrap();
    let InvokeOutcome::Queued { turn: seq, .. } =
        store.invoke(&turn("ann", "a", "one", true)).unwrap()
    else {
        panic!("not queued");
    };
    assert_eq!(
        rows(&path),
        [(
            "queued".to_owned(),
            "ann via planner-test 2".to_owned(),
            "  Plan this.\n".to_owned(),
            Some("/tmp/score".to_owned()),
            None,
            None
        )]
    );
    store.start_turn(seq).unwrap();
    assert_eq!(rows(&path)[0].0, "running");
    let end = TurnEnd {
        state: "timed-out",
        exit_status: None,
        output: b"partial".to_vec(),
    };
    store.finish_turn(seq, &end).unwrap();
    let row = &rows(&path)[0];
    assert_eq!(
        (row.0.as_str(), row.4, row.5.as_deref()),
        ("timed-out", None, Some("partial"))
    );
}

#[test]
fn a_version_2_sqlite_file_gains_the_turns_table_in_place() {
    // A version 2 file: today's layout without the version 3 tables (and
    // version 4's column).
    let old = temp_db("planner-v2");
    {
        Sqlite::open(&old).unwrap().setup(&with_a()).unwrap();
    }
    {
        let conn = rusqlite::Connection::open(&old).unwrap();
        // Version 3's other additions (images, implementation runs) go too.
        conn.execute_batch(
            "DROP TABLE planner_turns; DROP TABLE document_images; DROP TABLE images;
             DROP TABLE implementation_events;
             DROP TABLE implementation_runs; DROP TABLE graph_revisions;
             DROP TABLE graph_versions; ALTER TABLE documents DROP COLUMN base_branch;
             ALTER TABLE documents DROP COLUMN base_commit;
             ALTER TABLE grants DROP COLUMN may_write; PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let store = Sqlite::open(&old).unwrap();
    let started = store.setup(&Setup::default()).unwrap();
    assert_eq!(started.found_version, 2);
    let outcome = store.invoke(&turn("ann", "a", "one", true)).unwrap();
    assert!(
        matches!(outcome, InvokeOutcome::Queued { .. }),
        "{outcome:?}"
    );
    // The same layout as a new file.
    let new = temp_db("planner-v3");
    Sqlite::open(&new)
        .unwrap()
        .setup(&Setup::default())
        .unwrap();
    assert_eq!(layout(&old), layout(&new));
}

/// Every table and index of a SQLite file, as its SQL.
fn layout(path: &std::path::Path) -> Vec<(String, Option<String>)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare("SELECT name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_postgres_database_gains_the_turns_table_in_place() {
    let Some(cluster) = pg::shared() else {
        return;
    };
    let name = cluster.new_database();
    let url = cluster.url(&name);
    let database = chopin_mcp_server::store::Database::Postgres(url);
    Store::open(&database)
        .await
        .unwrap()
        .setup(&Setup::default())
        .await
        .unwrap();
    cluster
        .psql(
            &name,
            "DROP TABLE planner_turns, document_images, images; DROP TABLE implementation_events;
             DROP TABLE implementation_runs; DROP TABLE graph_revisions;
             DROP TABLE graph_versions;
             ALTER TABLE documents DROP COLUMN base_branch, DROP COLUMN base_commit;
             ALTER TABLE grants DROP COLUMN may_write;
             DELETE FROM chopin_schema WHERE version > 2;
             INSERT INTO chopin_schema (version) VALUES (2);",
        )
        .unwrap();
    let store = Store::open(&database).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_eq!(started.found_version, 2);
    let tables = cluster
        .psql(
            &name,
            "SELECT count(*) FROM pg_tables WHERE tablename = 'planner_turns'",
        )
        .unwrap();
    assert_eq!(tables, "1");
}
