//! Schema version 4 made in place from version 1 at start (LIFECYCLE.md
//! §6), on a SQLite file and on PostgreSQL (direct and behind PgBouncer in
//! transaction mode): the version 1 database is made and written as version
//! 1 servers did (`support/schema_v1.rs`), then opened by this store. Every
//! document, token, grant and create idempotency record is still there and
//! works; the lifecycle writes work on them; replicas (processes) starting
//! at once migrate it once, the others waiting and finding version 4; a
//! migrated database has exactly the layout of a new one; a newer schema is
//! still refused and left alone.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

#[path = "support/schema_v1.rs"]
mod schema_v1;

use std::sync::{Arc, Barrier};
use std::time::SystemTime;

use chopin_mcp::{Brief, Document};
use chopin_mcp_server::store::{
    CreateOutcome, Created, Database, Draft, Listing, SCHEMA_VERSION, Setup, Sqlite, Started,
    Store, StoreError, UpdateOutcome, token_digest,
};
use engines::{change, ids, read, temp_db, update};
use schema_v1::CONTENT;

/// The version 1 creation's brief, as a document holds it.
fn v1_brief() -> Brief {
    serde_json::from_str(CONTENT.created.brief).unwrap()
}

/// A create by the version 1 creation's caller with its key and `fingerprint`.
fn v1_create(fingerprint: &str) -> Draft {
    let c = &CONTENT.created;
    Draft {
        idempotency_key: c.key.to_owned(),
        fingerprint: fingerprint.to_owned(),
        repository: c.repository.to_owned(),
        title: c.title.to_owned(),
        source: c.source.to_owned(),
        brief: c.brief.to_owned(),
        base: None,
    }
}

/// The start that migrated the database found version 1, made nothing new,
/// and read the version 1 tokens.
fn assert_migrated_at_start(started: &Started) {
    assert_eq!(started.found_version, 1, "{started:?}");
    assert!(!started.new_database, "{started:?}");
    assert!(!started.first_token_stored, "{started:?}");
    let mut tokens: Vec<(String, String)> = CONTENT
        .tokens
        .iter()
        .map(|(token, caller)| (token_digest(token), (*caller).to_owned()))
        .collect();
    tokens.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    assert_eq!(started.tokens, tokens);
}

/// Everything the version 1 database held answers as it did, and the
/// lifecycle writes work on it.
async fn assert_everything_is_there(store: &Store) {
    // Grants and documents.
    assert_eq!(
        ids(store, "ann", "acme/plans").await,
        ["a", "01CREATED", "b"]
    );
    assert_eq!(
        store.list("ann", "acme/secret", false).await.unwrap(),
        Listing::Forbidden
    );
    for (id, _, title, source, revision) in CONTENT.imported {
        let expected = Document {
            archived_at: None,
            description: None,
            url: Some(format!("/documents/{id}")),
            id: id.to_owned(),
            title: title.to_owned(),
            brief: None,
            source: source.to_owned(),
            revision: revision as u64,
        };
        assert_eq!(read(store, "root", id).await, expected);
    }
    assert_eq!(store.read("ann", "s").await.unwrap(), None);
    let c = &CONTENT.created;
    let as_created = Document {
        archived_at: None,
        description: None,
        url: Some(format!("/documents/{}", c.id)),
        id: c.id.to_owned(),
        title: c.title.to_owned(),
        brief: None,
        source: c.source.to_owned(),
        revision: 0,
    };
    assert_eq!(
        read(store, "ann", c.id).await,
        Document {
            brief: Some(v1_brief()),
            ..as_created.clone()
        }
    );
    // The creation's idempotency record: a replay, and a conflict.
    let replayed = Created {
        document: as_created,
        brief: c.brief.to_owned(),
        url: format!("/documents/{}", c.id),
    };
    assert_eq!(
        store
            .create(c.caller, "01RETRY", &v1_create(c.fingerprint))
            .await
            .unwrap(),
        CreateOutcome::Replayed(replayed.clone())
    );
    assert_eq!(
        store
            .create(c.caller, "01OTHER", &v1_create("another"))
            .await
            .unwrap(),
        CreateOutcome::Conflict
    );
    // The new writes on the old documents.
    let UpdateOutcome::Updated(revised) =
        update(store, "ann", &change(c.id, 0, "# Revised\n", "u1", "u1")).await
    else {
        panic!("not updated");
    };
    assert_eq!(revised.document.brief, Some(v1_brief()));
    assert_eq!(revised.document.revision, 1);
    store.rename("ann", "a", "Renamed").await.unwrap();
    store
        .archive("ann", "b", SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    assert_eq!(ids(store, "ann", "acme/plans").await, ["01CREATED", "a"]);
    // The creation replays as created still.
    assert_eq!(
        store
            .create(c.caller, "01AGAIN", &v1_create(c.fingerprint))
            .await
            .unwrap(),
        CreateOutcome::Replayed(replayed)
    );
}

fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_sqlite_file_is_migrated_in_place_with_everything_in_it() {
    let path = temp_db("migrate");
    schema_v1::sqlite(&path);
    assert_eq!(user_version(&path), 1);
    let store = Store::open(&Database::File(path.clone())).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_migrated_at_start(&started);
    assert_eq!(user_version(&path), SCHEMA_VERSION);
    assert_everything_is_there(&store).await;
    // The next start finds the current version and changes nothing.
    let again = store.setup(&Setup::default()).await.unwrap();
    assert_eq!(again.found_version, SCHEMA_VERSION);
}

/// A version 1 PostgreSQL database (written directly, as a version 1
/// server did) and its URL, direct or through the shared PgBouncer.
async fn postgres_v1(through_pgbouncer: bool) -> Option<(String, String)> {
    let cluster = pg::shared()?;
    let name = cluster.new_database();
    schema_v1::postgres(&cluster.url(&name)).await;
    let url = pg::shared_url(&name, through_pgbouncer)?;
    Some((name, url))
}

async fn postgres_is_migrated_in_place(through_pgbouncer: bool) {
    let Some((name, url)) = postgres_v1(through_pgbouncer).await else {
        return;
    };
    let cluster = pg::shared().unwrap();
    let store = Store::open(&Database::Postgres(url)).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_migrated_at_start(&started);
    let versions = cluster
        .psql(&name, "SELECT version FROM chopin_schema ORDER BY version")
        .unwrap();
    assert_eq!(versions, format!("1\n{SCHEMA_VERSION}"));
    // Version 1's functions are gone (a version 1 server still running
    // fails its reads instead of showing archived documents).
    let old = cluster
        .psql(
            &name,
            "SELECT count(*) FROM pg_proc WHERE proname IN ('chopin_read_v1', 'chopin_list_v1')",
        )
        .unwrap();
    assert_eq!(old, "0");
    assert_everything_is_there(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_postgres_database_is_migrated_in_place_with_everything_in_it() {
    postgres_is_migrated_in_place(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_postgres_database_is_migrated_in_place_through_pgbouncer() {
    postgres_is_migrated_in_place(true).await;
}

/// `count` replicas' stores starting at once on `url`: what each set-up
/// found.
async fn starting_at_once(url: &str, count: usize) -> Vec<Started> {
    let barrier = Arc::new(tokio::sync::Barrier::new(count));
    let starts: Vec<_> = (0..count)
        .map(|_| {
            let (url, barrier) = (url.to_owned(), Arc::clone(&barrier));
            tokio::spawn(async move {
                let store = Store::open(&Database::Postgres(url)).await.unwrap();
                barrier.wait().await;
                store.setup(&Setup::default()).await.unwrap()
            })
        })
        .collect();
    let mut started = Vec::new();
    for start in starts {
        started.push(start.await.unwrap());
    }
    started
}

async fn postgres_replicas_migrate_once(through_pgbouncer: bool) {
    let Some((_, url)) = postgres_v1(through_pgbouncer).await else {
        return;
    };
    let started = starting_at_once(&url, 4).await;
    let migrating: Vec<&Started> = started.iter().filter(|s| s.found_version == 1).collect();
    assert_eq!(migrating.len(), 1, "{started:#?}");
    assert_migrated_at_start(migrating[0]);
    assert!(
        started
            .iter()
            .filter(|s| s.found_version != 1)
            .all(|s| s.found_version == SCHEMA_VERSION && !s.new_database),
        "{started:#?}"
    );
    let store = Store::open(&Database::Postgres(url)).await.unwrap();
    assert_everything_is_there(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_starting_at_once_on_a_version_1_postgres_database_migrate_it_once() {
    postgres_replicas_migrate_once(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_starting_at_once_through_pgbouncer_migrate_it_once() {
    postgres_replicas_migrate_once(true).await;
}

#[test]
fn processes_starting_at_once_on_a_version_1_sqlite_file_migrate_it_once() {
    let path = temp_db("migrate-at-once");
    schema_v1::sqlite(&path);
    let barrier = Arc::new(Barrier::new(3));
    let starts: Vec<_> = (0..3)
        .map(|_| {
            let (path, barrier) = (path.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                // A store of its own per thread: connections of their own,
                // as separate processes have.
                let store = Sqlite::open(&path).unwrap();
                barrier.wait();
                store.setup(&Setup::default()).unwrap()
            })
        })
        .collect();
    let started: Vec<Started> = starts.into_iter().map(|t| t.join().unwrap()).collect();
    let found: Vec<i64> = started.iter().map(|s| s.found_version).collect();
    assert_eq!(found.iter().filter(|v| **v == 1).count(), 1, "{found:?}");
    assert_eq!(
        found.iter().filter(|v| **v == SCHEMA_VERSION).count(),
        2,
        "{found:?}"
    );
    assert_eq!(user_version(&path), SCHEMA_VERSION);
}

/// The SQLite file's schema: every table and index, as its SQL.
fn sqlite_layout(path: &std::path::Path) -> Vec<(String, String, Option<String>)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The PostgreSQL database's schema: columns, constraints, indexes and
/// functions, as the catalog describes them.
fn postgres_layout(cluster: &pg::Cluster, name: &str) -> String {
    cluster
        .psql(
            name,
            "SELECT table_name, column_name, data_type, is_nullable, column_default,
                    collation_name, is_identity
               FROM information_schema.columns WHERE table_schema = 'public'
              ORDER BY table_name, ordinal_position;
             SELECT conrelid::regclass, conname, pg_get_constraintdef(oid)
               FROM pg_constraint WHERE connamespace = 'public'::regnamespace
              ORDER BY 1, 2;
             SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
              ORDER BY indexname;
             SELECT p.oid::regprocedure, p.prosrc FROM pg_proc p
              WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1;",
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migrated_database_has_the_layout_of_a_new_one() {
    let old = temp_db("layout-old");
    schema_v1::sqlite(&old);
    Sqlite::open(&old)
        .unwrap()
        .setup(&Setup::default())
        .unwrap();
    let new = temp_db("layout-new");
    Sqlite::open(&new)
        .unwrap()
        .setup(&Setup::default())
        .unwrap();
    let layout = sqlite_layout(&new);
    assert!(
        layout.iter().any(|(_, name, _)| name == "plan_history"),
        "{layout:?}"
    );
    assert_eq!(sqlite_layout(&old), layout);

    let Some((old, url)) = postgres_v1(false).await else {
        return;
    };
    Store::open(&Database::Postgres(url))
        .await
        .unwrap()
        .setup(&Setup::default())
        .await
        .unwrap();
    let cluster = pg::shared().unwrap();
    let new = cluster.new_database();
    Store::open(&Database::Postgres(cluster.url(&new)))
        .await
        .unwrap()
        .setup(&Setup::default())
        .await
        .unwrap();
    let layout = postgres_layout(cluster, &new);
    assert!(layout.contains("chopin_list_v3"), "{layout}");
    assert_eq!(postgres_layout(cluster, &old), layout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_schema_is_refused_and_left_alone() {
    let path = temp_db("newer");
    schema_v1::sqlite(&path);
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let refused = Sqlite::open(&path).unwrap().setup(&Setup::default());
    assert!(
        matches!(refused, Err(StoreError::NewerSchema { found }) if found == SCHEMA_VERSION + 1),
        "{refused:?}"
    );
    assert_eq!(user_version(&path), SCHEMA_VERSION + 1);

    let Some((name, url)) = postgres_v1(false).await else {
        return;
    };
    let cluster = pg::shared().unwrap();
    cluster
        .psql(
            &name,
            &format!(
                "INSERT INTO chopin_schema (version) VALUES ({})",
                SCHEMA_VERSION + 1
            ),
        )
        .unwrap();
    let refused = Store::open(&Database::Postgres(url))
        .await
        .unwrap()
        .setup(&Setup::default())
        .await;
    assert!(
        matches!(refused, Err(StoreError::NewerSchema { found }) if found == SCHEMA_VERSION + 1),
        "{refused:?}"
    );
    let tables = cluster
        .psql(
            &name,
            "SELECT count(*) FROM pg_tables WHERE tablename = 'plan_history'",
        )
        .unwrap();
    assert_eq!(tables, "0");
}
