//! Schema version 4 made in place from version 3 at start (LIFECYCLE.md
//! §6, IMPLEMENTATION.md §4 "Read-only grants"), on a SQLite file and on
//! PostgreSQL (direct and behind PgBouncer in transaction mode): the
//! version 3 database is made and written as version 3 servers did
//! (`support/schema_v3.rs`), then opened by this store. Every document,
//! token, grant and create idempotency record is still there; every grant
//! it held reads and writes, until a start names its caller with
//! `--grant-read`, which then only reads. On PostgreSQL version 3's update
//! function is left as it was, so a version 3 replica still running keeps
//! updating; replicas starting at once migrate the database once, the
//! others waiting and finding version 4; a migrated database has the
//! layout of a new one (on PostgreSQL, plus that function).

#[path = "support/pg.rs"]
mod pg;

#[path = "support/engines.rs"]
mod engines;

#[path = "support/schema_v3.rs"]
mod schema_v3;

use std::sync::Arc;

use chopin_mcp::Brief;
use chopin_mcp_server::store::{
    CreateOutcome, Database, Draft, Listing, RenameOutcome, SCHEMA_VERSION, Setup, Sqlite, Started,
    Store, UpdateOutcome, token_digest,
};
use engines::{change, ids, read, temp_db, update};
use schema_v3::CONTENT;

/// The set-up of a start with `--grant-read reader=acme/plans`.
fn reader_read_only() -> Setup {
    Setup {
        read_grants: vec![("reader".to_owned(), vec!["acme/plans".to_owned()])],
        ..Setup::default()
    }
}

/// The start that migrated the database found version 3, made nothing new,
/// and read the version 3 tokens.
fn assert_migrated_at_start(started: &Started) {
    assert_eq!(started.found_version, 3, "{started:?}");
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

/// A create by the version 3 creation's caller with its key and `fingerprint`.
fn v3_create(fingerprint: &str) -> Draft {
    let c = &CONTENT.created;
    Draft {
        idempotency_key: c.key.to_owned(),
        fingerprint: fingerprint.to_owned(),
        repository: c.repository.to_owned(),
        title: c.title.to_owned(),
        source: c.source.to_owned(),
        brief: c.brief.to_owned(),
        base: Some((c.base_branch.to_owned(), c.base_commit.to_owned())),
    }
}

/// Everything the version 3 database held answers as it did.
async fn assert_everything_is_there(store: &Store) {
    assert_eq!(
        ids(store, "ann", "acme/plans").await,
        ["a", "01CREATED", "b"]
    );
    assert_eq!(
        store.list("ann", "acme/secret", false).await.unwrap(),
        Listing::Forbidden
    );
    assert_eq!(store.read("ann", "s").await.unwrap(), None);
    for (id, _, title, source, revision) in CONTENT.imported {
        let document = read(store, "root", id).await;
        assert_eq!(
            (document.title.as_str(), document.source.as_str()),
            (title, source)
        );
        assert_eq!(document.revision, revision as u64);
    }
    let c = &CONTENT.created;
    let created = read(store, "ann", c.id).await;
    let brief: Brief = serde_json::from_str(c.brief).unwrap();
    assert_eq!(created.brief, Some(brief));
    assert_eq!((created.title.as_str(), created.revision), (c.title, 0));
    // The creation's idempotency record: a replay, and a conflict.
    assert!(matches!(
        store
            .create(c.caller, "01RETRY", &v3_create(c.fingerprint))
            .await,
        Ok(CreateOutcome::Replayed(_))
    ));
    assert_eq!(
        store
            .create(c.caller, "01OTHER", &v3_create("another"))
            .await
            .unwrap(),
        CreateOutcome::Conflict
    );
}

/// Every grant version 3 made reads and writes: `ann` and `reader` update
/// and rename in `acme/plans`, `root` anywhere.
async fn assert_every_grant_writes(store: &Store) {
    for (caller, revision, key) in [("ann", 3, "ann-1"), ("reader", 4, "reader-1")] {
        let plan = format!("# Alpha\n\nBy {caller}.\n");
        let outcome = update(store, caller, &change("a", revision, &plan, key, key)).await;
        assert!(
            matches!(&outcome, UpdateOutcome::Updated(r) if r.document.revision == revision + 1),
            "{caller}: {outcome:?}"
        );
    }
    let renamed = store.rename("root", "s", "Hidden still").await.unwrap();
    assert!(
        matches!(renamed, RenameOutcome::Renamed { .. }),
        "{renamed:?}"
    );
}

/// After a start with [`reader_read_only`]: `reader` reads `acme/plans`
/// and is forbidden each write there; `ann` still writes.
async fn assert_reader_only_reads(store: &Store) {
    assert_eq!(
        ids(store, "reader", "acme/plans").await,
        ["a", "01CREATED", "b"]
    );
    let revision = read(store, "reader", "a").await.revision;
    let refused = update(
        store,
        "reader",
        &change("a", revision, "# No\n", "r2", "r2"),
    )
    .await;
    assert_eq!(refused, UpdateOutcome::Forbidden);
    assert_eq!(
        store.rename("reader", "a", "No").await.unwrap(),
        RenameOutcome::Forbidden
    );
    assert_eq!(read(store, "root", "a").await.revision, revision);
    let written = update(store, "ann", &change("a", revision, "# Ann\n", "a2", "a2")).await;
    assert!(matches!(written, UpdateOutcome::Updated(_)), "{written:?}");
}

fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap()
}

/// `(caller, repository, may_write)` of a SQLite file's grants.
fn sqlite_grants(path: &std::path::Path) -> Vec<(String, String, bool)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut statement = conn
        .prepare("SELECT caller, repository, may_write FROM grants ORDER BY caller")
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `(caller, repository, true)` for every grant version 3 made.
fn all_read_and_write() -> Vec<(String, String, bool)> {
    CONTENT
        .grants
        .iter()
        .map(|(caller, repository)| ((*caller).to_owned(), (*repository).to_owned(), true))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_sqlite_file_is_brought_to_version_4_in_place_and_grants_read_only_after() {
    let path = temp_db("v3-to-v4");
    schema_v3::sqlite(&path);
    assert_eq!(user_version(&path), 3);
    let store = Store::open(&Database::File(path.clone())).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_migrated_at_start(&started);
    assert_eq!((SCHEMA_VERSION, user_version(&path)), (4, 4));
    assert_eq!(sqlite_grants(&path), all_read_and_write());
    assert_everything_is_there(&store).await;
    assert_every_grant_writes(&store).await;
    // The next start finds version 4, and makes `reader` read-only.
    let again = store.setup(&reader_read_only()).await.unwrap();
    assert_eq!(again.found_version, SCHEMA_VERSION);
    let reader = ("reader".to_owned(), "acme/plans".to_owned(), false);
    assert!(sqlite_grants(&path).contains(&reader));
    assert_reader_only_reads(&store).await;
}

/// A version 3 PostgreSQL database (written directly, as a version 3
/// server did): its name and URL, direct or through the shared PgBouncer.
async fn postgres_v3(through_pgbouncer: bool) -> Option<(String, String)> {
    let cluster = pg::shared()?;
    let name = cluster.new_database();
    schema_v3::postgres(&cluster.url(&name)).await;
    let url = pg::shared_url(&name, through_pgbouncer)?;
    Some((name, url))
}

fn postgres_grants(cluster: &pg::Cluster, name: &str) -> String {
    cluster
        .psql(
            name,
            "SELECT caller, repository, may_write FROM grants ORDER BY caller",
        )
        .unwrap()
}

async fn postgres_is_brought_to_version_4(through_pgbouncer: bool) {
    let Some((name, url)) = postgres_v3(through_pgbouncer).await else {
        return;
    };
    let cluster = pg::shared().unwrap();
    let store = Store::open(&Database::Postgres(url)).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert_migrated_at_start(&started);
    let versions = cluster
        .psql(&name, "SELECT version FROM chopin_schema ORDER BY version")
        .unwrap();
    assert_eq!(versions, "3\n4");
    assert_eq!(
        postgres_grants(cluster, &name),
        "ann|acme/plans|t\nreader|acme/plans|t\nroot|*|t"
    );
    assert_everything_is_there(&store).await;
    assert_every_grant_writes(&store).await;
    // A version 3 replica still running updates as it did, through the
    // function it knows (left as it was), beside the version 4 store.
    let direct = cluster.url(&name);
    let made = schema_v3::postgres_update_v3(&direct, "ann", "b", 0, "# Zeta\n\nv3.\n", "v3").await;
    assert_eq!(made, Some(1));
    assert_eq!(read(&store, "ann", "b").await.source, "# Zeta\n\nv3.\n");
    // A start with `--grant-read` makes `reader` read-only.
    store.setup(&reader_read_only()).await.unwrap();
    assert_eq!(
        postgres_grants(cluster, &name),
        "ann|acme/plans|t\nreader|acme/plans|f\nroot|*|t"
    );
    assert_reader_only_reads(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_postgres_database_is_brought_to_version_4_in_place() {
    postgres_is_brought_to_version_4(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_postgres_database_is_brought_to_version_4_through_pgbouncer() {
    postgres_is_brought_to_version_4(true).await;
}

async fn postgres_replicas_migrate_once(through_pgbouncer: bool) {
    let Some((_, url)) = postgres_v3(through_pgbouncer).await else {
        return;
    };
    let count = 4;
    let barrier = Arc::new(tokio::sync::Barrier::new(count));
    let starts: Vec<_> = (0..count)
        .map(|_| {
            let (url, barrier) = (url.clone(), Arc::clone(&barrier));
            tokio::spawn(async move {
                let store = Store::open(&Database::Postgres(url)).await.unwrap();
                barrier.wait().await;
                store.setup(&reader_read_only()).await.unwrap()
            })
        })
        .collect();
    let mut started = Vec::new();
    for start in starts {
        started.push(start.await.unwrap());
    }
    let migrating: Vec<&Started> = started.iter().filter(|s| s.found_version == 3).collect();
    assert_eq!(migrating.len(), 1, "{started:#?}");
    assert_migrated_at_start(migrating[0]);
    assert!(
        started
            .iter()
            .filter(|s| s.found_version != 3)
            .all(|s| s.found_version == SCHEMA_VERSION && !s.new_database),
        "{started:#?}"
    );
    let store = Store::open(&Database::Postgres(url)).await.unwrap();
    assert_everything_is_there(&store).await;
    assert_reader_only_reads(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_starting_at_once_on_a_version_3_postgres_database_migrate_it_once() {
    postgres_replicas_migrate_once(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_starting_at_once_through_pgbouncer_on_version_3_migrate_it_once() {
    postgres_replicas_migrate_once(true).await;
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
/// functions (but `chopin_update_v3`), as the catalog describes them.
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
              WHERE p.pronamespace = 'public'::regnamespace
                AND p.proname <> 'chopin_update_v3' ORDER BY 1;",
        )
        .unwrap()
}

/// The update functions a PostgreSQL database holds.
fn update_functions(cluster: &pg::Cluster, name: &str) -> String {
    cluster
        .psql(
            name,
            "SELECT proname FROM pg_proc WHERE proname LIKE 'chopin_update_%' ORDER BY 1",
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_brought_from_version_3_has_the_layout_of_a_new_one() {
    let old = temp_db("v3-layout-old");
    schema_v3::sqlite(&old);
    Sqlite::open(&old)
        .unwrap()
        .setup(&Setup::default())
        .unwrap();
    let new = temp_db("v4-layout-new");
    Sqlite::open(&new)
        .unwrap()
        .setup(&Setup::default())
        .unwrap();
    let layout = sqlite_layout(&new);
    let grants = layout.iter().find(|(_, name, _)| name == "grants");
    assert!(
        grants.is_some_and(|(_, _, sql)| sql.as_deref().unwrap_or("").contains("may_write")),
        "{layout:?}"
    );
    assert_eq!(sqlite_layout(&old), layout);

    let Some((old, url)) = postgres_v3(false).await else {
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
    assert!(layout.contains("may_write"), "{layout}");
    assert_eq!(postgres_layout(cluster, &old), layout);
    // Version 3's update function is kept for its replicas still running;
    // a new database never had it.
    assert_eq!(update_functions(cluster, &new), "chopin_update_v4");
    assert_eq!(
        update_functions(cluster, &old),
        "chopin_update_v3\nchopin_update_v4"
    );
}
