//! The store's behaviour, one suite on every engine: SQLite in memory,
//! SQLite in a file, PostgreSQL (a throwaway server, see `support/pg.rs`),
//! and the same PostgreSQL behind Debian's PgBouncer in transaction mode
//! (4 server connections per database, no protocol-level prepared
//! statements), as hosted poolers are used. Grants (a list of an
//! ungranted repository is forbidden), byte-wise ordering, the create
//! operation's idempotency (new, replay as created, conflict, forbidden) and
//! atomicity, token digests, the versioned set-up, and reads that never
//! wait for a create. The lifecycle writes have files of their own
//! (`store_update.rs`, `store_rename.rs`, `store_archive.rs`, …).
#![allow(clippy::disallowed_methods)] // timing reads needs the clock

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::{Duration, Instant};

use chopin_mcp::Document;
use chopin_mcp_server::store::Database;
use chopin_mcp_server::store::{
    CreateOutcome, FirstToken, Imported, Listing, SCHEMA_VERSION, Setup, Store, StoreError,
    UpdateOutcome, token_digest,
};
use engines::{Engine, change, create, doc, draft, fresh, ids, seeded, update};

on_every_engine!(
    a_list_is_ordered_by_title_then_id_byte_wise,
    a_list_of_an_ungranted_repository_is_forbidden,
    the_star_grant_opens_every_repository,
    a_forbidden_read_looks_like_a_missing_one,
    grants_are_replaced_per_caller,
    an_import_replaces_a_document_with_the_same_id,
    an_import_is_all_or_nothing,
    a_create_stores_revision_zero_with_a_documents_url,
    a_retried_create_replays_the_stored_document,
    a_create_replayed_after_later_writes_answers_the_document_as_created,
    a_key_reused_for_another_request_conflicts,
    idempotency_keys_belong_to_their_caller,
    a_create_in_an_ungranted_repository_is_forbidden_and_stores_nothing,
    a_failed_create_leaves_nothing_behind,
    any_text_round_trips_byte_for_byte,
    concurrent_creates_of_one_key_make_one_document,
    tokens_are_stored_as_digests_and_generated_once,
    a_second_setup_finds_the_schema_and_keeps_the_data,
);

async fn a_list_is_ordered_by_title_then_id_byte_wise(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(ids(&store, "ann", "acme/plans").await, ["a", "c", "b"]);
    // Byte order: upper case before '_' before lower case. A linguistic
    // collation (the PostgreSQL test databases use ICU's `und` where they
    // can) would list _draft alpha beta Beta Zeta.
    let titles = ["beta", "Zeta", "alpha", "_draft", "Beta", "Éclair", "e"];
    let docs: Vec<Imported> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| doc(&format!("o{n}"), "acme/order", title))
        .collect();
    store.import(&docs).await.unwrap();
    let Listing::Listed(listed) = store.list("root", "acme/order", false).await.unwrap() else {
        panic!("root may list every repository");
    };
    let listed: Vec<String> = listed.into_iter().map(|d| d.title).collect();
    assert_eq!(
        listed,
        ["Beta", "Zeta", "_draft", "alpha", "beta", "e", "Éclair"],
        "{engine:?}"
    );
}

async fn a_list_of_an_ungranted_repository_is_forbidden(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for (caller, repository) in [("ann", "acme/secret"), ("nobody", "acme/plans")] {
        let listed = store.list(caller, repository, false).await.unwrap();
        assert_eq!(listed, Listing::Forbidden, "{caller} {repository}");
    }
    // A granted repository without documents is an empty list.
    store
        .set_grants("ann", &["acme/plans".to_owned(), "acme/empty".to_owned()])
        .await
        .unwrap();
    assert!(ids(&store, "ann", "acme/empty").await.is_empty());
    assert!(ids(&store, "root", "acme/nothing-here").await.is_empty());
}

async fn the_star_grant_opens_every_repository(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(ids(&store, "root", "acme/secret").await, ["s"]);
    assert!(store.read("root", "s").await.unwrap().is_some());
}

async fn a_forbidden_read_looks_like_a_missing_one(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(store.read("ann", "s").await.unwrap(), None);
    assert_eq!(store.read("ann", "no-such-id").await.unwrap(), None);
    let found = store.read("ann", "a").await.unwrap().unwrap();
    assert_eq!(
        (found.title.as_str(), found.source.as_str(), found.revision),
        ("Alpha", "# Alpha\n", 3)
    );
}

async fn grants_are_replaced_per_caller(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    store
        .set_grants("ann", &["acme/secret".to_owned()])
        .await
        .unwrap();
    assert!(store.read("ann", "a").await.unwrap().is_none());
    assert!(store.read("ann", "s").await.unwrap().is_some());
}

async fn an_import_replaces_a_document_with_the_same_id(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut changed = doc("a", "acme/plans", "Renamed");
    changed.revision = 7;
    store.import(&[changed]).await.unwrap();
    let read = store.read("ann", "a").await.unwrap().unwrap();
    assert_eq!((read.title.as_str(), read.revision), ("Renamed", 7));
}

async fn an_import_is_all_or_nothing(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut bad = doc("x", "acme/plans", "X");
    bad.revision = u64::MAX;
    let failed = store.import(&[doc("y", "acme/plans", "Y"), bad]).await;
    assert!(failed.is_err());
    assert!(store.read("root", "y").await.unwrap().is_none());
}

async fn a_create_stores_revision_zero_with_a_documents_url(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let outcome = create(&store, "ann", "01NEW", &draft("k1", "f1", "acme/plans")).await;
    let CreateOutcome::New(created) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(created.url, "/documents/01NEW");
    assert_eq!(created.document.revision, 0);
    // The read gives the document with the brief it was created with.
    let brief = serde_json::from_str(&created.brief).unwrap();
    assert_eq!(
        store.read("ann", "01NEW").await.unwrap(),
        Some(Document {
            brief: Some(brief),
            url: Some(created.url.clone()),
            ..created.document
        })
    );
    // An imported document has none.
    let imported = store.read("ann", "a").await.unwrap().unwrap();
    assert_eq!(imported.brief, None);
}

async fn a_retried_create_replays_the_stored_document(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = create(&store, "ann", "01FIRST", &draft("k1", "f1", "acme/plans")).await;
    let again = create(&store, "ann", "01SECOND", &draft("k1", "f1", "acme/plans")).await;
    let (CreateOutcome::New(first), CreateOutcome::Replayed(again)) = (first, again) else {
        panic!("not new then replayed");
    };
    // Byte-identical: document, brief text and url.
    assert_eq!(first, again);
    assert!(store.read("ann", "01SECOND").await.unwrap().is_none());
}

async fn a_create_replayed_after_later_writes_answers_the_document_as_created(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let CreateOutcome::New(first) =
        create(&store, "ann", "01FIRST", &draft("k1", "f1", "acme/plans")).await
    else {
        panic!("not new");
    };
    for (revision, plan) in [(0, "# One\n"), (1, "# Two\n")] {
        let key = format!("u{revision}");
        let revised = update(
            &store,
            "ann",
            &change("01FIRST", revision, plan, &key, &key),
        )
        .await;
        assert!(matches!(revised, UpdateOutcome::Updated(_)), "{revised:?}");
    }
    for title in ["Renamed", "Renamed again"] {
        store.rename("ann", "01FIRST", title).await.unwrap();
    }
    // Revision 0, its first title and plan, whatever happened since; also
    // when archived.
    let again = create(&store, "ann", "01SECOND", &draft("k1", "f1", "acme/plans")).await;
    assert_eq!(again, CreateOutcome::Replayed(first.clone()));
    store
        .archive("ann", "01FIRST", std::time::SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    let archived = create(&store, "ann", "01THIRD", &draft("k1", "f1", "acme/plans")).await;
    assert_eq!(archived, CreateOutcome::Replayed(first));
}

async fn a_key_reused_for_another_request_conflicts(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    create(&store, "ann", "01FIRST", &draft("k1", "f1", "acme/plans")).await;
    let reused = create(&store, "ann", "01SECOND", &draft("k1", "f2", "acme/plans")).await;
    assert_eq!(reused, CreateOutcome::Conflict);
    assert!(store.read("ann", "01SECOND").await.unwrap().is_none());
}

async fn idempotency_keys_belong_to_their_caller(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    create(&store, "ann", "01ANN", &draft("k1", "f1", "acme/plans")).await;
    let other = create(&store, "root", "01ROOT", &draft("k1", "f2", "acme/plans")).await;
    assert!(matches!(other, CreateOutcome::New(_)), "{other:?}");
}

async fn a_create_in_an_ungranted_repository_is_forbidden_and_stores_nothing(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let outcome = create(&store, "ann", "01NOPE", &draft("k1", "f1", "acme/secret")).await;
    assert_eq!(outcome, CreateOutcome::Forbidden);
    assert!(store.read("root", "01NOPE").await.unwrap().is_none());
    // The key was not used up by the refusal.
    let granted = create(&store, "ann", "01YES", &draft("k1", "f1", "acme/plans")).await;
    assert!(matches!(granted, CreateOutcome::New(_)), "{granted:?}");
}

async fn a_failed_create_leaves_nothing_behind(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    // The id is taken: the insert fails inside the transaction.
    let failed = store
        .create("ann", "a", &draft("k1", "f1", "acme/plans"))
        .await;
    assert!(failed.is_err(), "{failed:?}");
    assert_eq!(
        store.read("ann", "a").await.unwrap().unwrap().title,
        "Alpha"
    );
    let retried = create(&store, "ann", "01NEW", &draft("k1", "f1", "acme/plans")).await;
    assert!(matches!(retried, CreateOutcome::New(_)), "{retried:?}");
}

async fn any_text_round_trips_byte_for_byte(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut odd = draft("k\0é", "f", "acme/plans");
    odd.title = "NUL \0 and 🎹 and \u{FFFD}".to_owned();
    odd.source = "# \0\r\n\ttext \u{202e}".to_owned();
    odd.brief = r#"{"goal":"\u0000 é","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned();
    let CreateOutcome::New(first) = store.create("ann", "01ODD", &odd).await.unwrap() else {
        panic!("not new");
    };
    let read = store.read("ann", "01ODD").await.unwrap().unwrap();
    assert_eq!(
        (read.title.as_str(), read.source.as_str()),
        (odd.title.as_str(), odd.source.as_str())
    );
    let again = store.create("ann", "01ODD2", &odd).await.unwrap();
    assert_eq!(again, CreateOutcome::Replayed(first));
}

async fn concurrent_creates_of_one_key_make_one_document(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let racers: Vec<_> = (0..24)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create(
                        "ann",
                        &format!("01RACE{n:02}"),
                        &draft("k", "f", "acme/race"),
                    )
                    .await
            })
        })
        .collect();
    store
        .set_grants("ann", &["acme/plans".to_owned(), "acme/race".to_owned()])
        .await
        .unwrap();
    let mut outcomes = Vec::new();
    for racer in racers {
        outcomes.push(racer.await.unwrap().unwrap());
    }
    // Racers that ran before the grant are forbidden; every other one
    // answers with the one stored document.
    let documents: Vec<_> = outcomes
        .iter()
        .filter_map(|o| match o {
            CreateOutcome::New(c) | CreateOutcome::Replayed(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    let new = outcomes
        .iter()
        .filter(|o| matches!(o, CreateOutcome::New(_)))
        .count();
    assert!(new <= 1, "{outcomes:?}");
    assert!(documents.windows(2).all(|w| w[0] == w[1]), "{outcomes:?}");
    assert_eq!(ids(&store, "ann", "acme/race").await.len(), new);
    // And with the grant in place from the start, all of them at once.
    let racers: Vec<_> = (0..24)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create(
                        "ann",
                        &format!("01TWO{n:02}"),
                        &draft("k2", "f", "acme/plans"),
                    )
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for racer in racers {
        outcomes.push(racer.await.unwrap());
    }
    let new: Vec<_> = outcomes
        .iter()
        .filter_map(|o| match o {
            CreateOutcome::New(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(new.len(), 1, "{outcomes:?}");
    for outcome in &outcomes {
        match outcome {
            CreateOutcome::New(c) | CreateOutcome::Replayed(c) => assert_eq!(c, &new[0]),
            other => panic!("{other:?}"),
        }
    }
    let listed = ids(&store, "ann", "acme/plans").await;
    assert_eq!(
        listed.iter().filter(|id| id.starts_with("01TWO")).count(),
        1
    );
}

async fn tokens_are_stored_as_digests_and_generated_once(engine: Engine) {
    let Some((store, _)) = fresh(engine).await else {
        return;
    };
    let first = |token: &str| Setup {
        first_token: Some(FirstToken {
            token: token.to_owned(),
            caller: "local".to_owned(),
            repositories: vec!["*".to_owned()],
        }),
        ..Setup::default()
    };
    let started = store.setup(&first("secret-one")).await.unwrap();
    assert!(started.first_token_stored);
    assert_eq!(
        started.tokens,
        [(token_digest("secret-one"), "local".to_owned())]
    );
    assert_eq!(
        token_digest("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // A token exists: a second one is not stored.
    let again = store.setup(&first("secret-two")).await.unwrap();
    assert!(!again.first_token_stored);
    assert_eq!(again.tokens, started.tokens);
    // Its caller got the grants.
    store.import(&[doc("d", "x/y", "T")]).await.unwrap();
    assert!(store.read("local", "d").await.unwrap().is_some());
}

async fn a_second_setup_finds_the_schema_and_keeps_the_data(engine: Engine) {
    let Some((store, database)) = seeded(engine).await else {
        return;
    };
    let samples = Setup {
        samples: vec![doc("sample", "acme/plans", "Sample")],
        ..Setup::default()
    };
    let started = store.setup(&samples).await.unwrap();
    assert_eq!(started.found_version, SCHEMA_VERSION);
    assert!(!started.new_database);
    // Samples go into new databases only.
    assert!(store.read("root", "sample").await.unwrap().is_none());
    if !matches!(engine, Engine::Memory) {
        // Another process (a replica) opening the same database.
        let other = Store::open(&database).await.unwrap();
        let started = other.setup(&samples).await.unwrap();
        assert!(!started.new_database);
        assert_eq!(ids(&other, "ann", "acme/plans").await, ["a", "c", "b"]);
    }
}

/// `count` creates of one key by `ann`, each in a task of its own.
fn creates_of_one_key(
    store: &Store,
    count: usize,
) -> Vec<tokio::task::JoinHandle<Result<CreateOutcome, StoreError>>> {
    (0..count)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .create(
                        "ann",
                        &format!("01STUCK{n:02}"),
                        &draft("k", "f", "acme/plans"),
                    )
                    .await
            })
        })
        .collect()
}

/// While `stuck` creates wait for another writer, reads and lists answer,
/// each within `limit`, and no create finishes.
async fn reads_answer_beside(
    store: &Store,
    stuck: &[tokio::task::JoinHandle<Result<CreateOutcome, StoreError>>],
    limit: Duration,
) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    for _ in 0..20 {
        let started = Instant::now();
        assert!(store.read("ann", "a").await.unwrap().is_some());
        assert_eq!(ids(store, "ann", "acme/plans").await, ["a", "c", "b"]);
        assert!(started.elapsed() < limit, "{:?}", started.elapsed());
    }
    assert!(stuck.iter().all(|task| !task.is_finished()));
}

/// Once the other writer gave way, exactly one of the creates made the
/// document and the others replayed it.
async fn one_created(stuck: Vec<tokio::task::JoinHandle<Result<CreateOutcome, StoreError>>>) {
    let mut new = 0;
    for task in stuck {
        match task.await.unwrap().unwrap() {
            CreateOutcome::New(_) => new += 1,
            CreateOutcome::Replayed(_) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(new, 1);
}

/// Reads on a store whose every create is stuck behind another writer's
/// uncommitted insert of the same key answer at once (item 4: no read
/// waits for a connection held by a create).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_reads_do_not_wait_behind_stuck_creates() {
    let Some((store, Database::Postgres(url))) = seeded(Engine::Postgres).await else {
        return;
    };
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client.batch_execute("BEGIN").await.unwrap();
    client
        .execute(
            "INSERT INTO documents (id, repository, title, source, created_by,
               idempotency_key, fingerprint, brief)
             VALUES ('blocker'::bytea, 'acme/plans', 'B'::bytea, 'B'::bytea, 'ann',
               'k'::bytea, 'f', '{}')",
            &[],
        )
        .await
        .unwrap();
    // More creates than the write pool has connections: all of them wait.
    let stuck = creates_of_one_key(&store, 40);
    reads_answer_beside(&store, &stuck, Duration::from_secs(2)).await;
    client.batch_execute("ROLLBACK").await.unwrap();
    one_created(stuck).await;
}

/// The same on a SQLite file: another connection (another replica's
/// create) holds the write lock; creates wait for it, reads do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_reads_do_not_wait_behind_stuck_creates() {
    let Some((store, Database::File(path))) = seeded(Engine::File).await else {
        panic!("a file store");
    };
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let stuck = creates_of_one_key(&store, 4);
    reads_answer_beside(&store, &stuck, Duration::from_secs(1)).await;
    blocker.execute_batch("ROLLBACK").unwrap();
    one_created(stuck).await;
}

/// A database that lost its read and list functions (as one from before
/// them did) gets them at the next start, and keeps its data.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_database_from_before_the_read_functions_gets_them_at_start() {
    let Some((store, Database::Postgres(url))) = seeded(Engine::Postgres).await else {
        return;
    };
    assert!(store.read("ann", "a").await.unwrap().is_some());
    let cluster = pg::shared().unwrap();
    cluster
        .psql(
            pg::database_name(&url),
            "DROP FUNCTION chopin_read_v3(text, bytea); \
             DROP FUNCTION chopin_list_v3(text, text, boolean)",
        )
        .unwrap();
    assert!(
        store.read("ann", "a").await.is_err(),
        "the functions are gone"
    );
    let restarted = Store::open(&Database::Postgres(url)).await.unwrap();
    let started = restarted.setup(&Setup::default()).await.unwrap();
    assert!(!started.new_database);
    assert_eq!(ids(&restarted, "ann", "acme/plans").await, ["a", "c", "b"]);
    assert!(restarted.read("ann", "a").await.unwrap().is_some());
}
