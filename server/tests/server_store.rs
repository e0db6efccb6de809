//! The servers' SQLite store: grants, ordering, and the create
//! operation's idempotency (replay, conflict, forbidden) and atomicity.

use std::path::PathBuf;

use chopin_mcp_server::store::{CreateOutcome, Draft, Imported, Store};

fn doc(id: &str, repository: &str, title: &str) -> Imported {
    Imported {
        id: id.to_owned(),
        repository: repository.to_owned(),
        title: title.to_owned(),
        source: format!("# {title}\n"),
        revision: 3,
    }
}

fn draft(key: &str, fingerprint: &str, repository: &str) -> Draft {
    Draft {
        idempotency_key: key.to_owned(),
        fingerprint: fingerprint.to_owned(),
        repository: repository.to_owned(),
        title: "Draft".to_owned(),
        source: "# Draft\n".to_owned(),
        brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
    }
}

fn seeded() -> Store {
    let mut store = Store::memory().unwrap();
    store
        .import(&[
            doc("b", "acme/plans", "Zeta"),
            doc("c", "acme/plans", "Alpha"),
            doc("a", "acme/plans", "Alpha"),
            doc("s", "acme/secret", "Hidden"),
        ])
        .unwrap();
    store.set_grants("ann", &["acme/plans".to_owned()]).unwrap();
    store.set_grants("root", &["*".to_owned()]).unwrap();
    store
}

/// A fresh database file in the target directory, removed first.
fn temp_db(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("{name}-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

#[test]
fn a_list_is_ordered_by_title_then_id() {
    let store = seeded();
    let ids: Vec<String> = store
        .list("ann", "acme/plans")
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(ids, ["a", "c", "b"]);
}

#[test]
fn a_list_of_an_ungranted_repository_is_empty() {
    let store = seeded();
    assert!(store.list("ann", "acme/secret").unwrap().is_empty());
    assert!(store.list("nobody", "acme/plans").unwrap().is_empty());
}

#[test]
fn the_star_grant_opens_every_repository() {
    let store = seeded();
    assert_eq!(store.list("root", "acme/secret").unwrap().len(), 1);
    assert!(store.read("root", "s").unwrap().is_some());
}

#[test]
fn a_forbidden_read_looks_like_a_missing_one() {
    let store = seeded();
    assert_eq!(store.read("ann", "s").unwrap(), None);
    assert_eq!(store.read("ann", "no-such-id").unwrap(), None);
    let found = store.read("ann", "a").unwrap().unwrap();
    assert_eq!(
        (found.title.as_str(), found.source.as_str(), found.revision),
        ("Alpha", "# Alpha\n", 3)
    );
}

#[test]
fn grants_are_replaced_per_caller() {
    let mut store = seeded();
    store
        .set_grants("ann", &["acme/secret".to_owned()])
        .unwrap();
    assert!(store.read("ann", "a").unwrap().is_none());
    assert!(store.read("ann", "s").unwrap().is_some());
}

#[test]
fn an_import_replaces_a_document_with_the_same_id() {
    let mut store = seeded();
    let mut changed = doc("a", "acme/plans", "Renamed");
    changed.revision = 7;
    store.import(&[changed]).unwrap();
    let read = store.read("ann", "a").unwrap().unwrap();
    assert_eq!((read.title.as_str(), read.revision), ("Renamed", 7));
}

#[test]
fn a_create_stores_revision_zero_with_a_documents_url() {
    let mut store = seeded();
    let outcome = store
        .create("ann", "01NEW", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    let CreateOutcome::New(created) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(created.url, "/documents/01NEW");
    assert_eq!(created.document.revision, 0);
    assert_eq!(store.read("ann", "01NEW").unwrap(), Some(created.document));
}

#[test]
fn a_retried_create_replays_the_stored_document() {
    let mut store = seeded();
    let first = store
        .create("ann", "01FIRST", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    let again = store
        .create("ann", "01SECOND", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    let (CreateOutcome::New(first), CreateOutcome::Replayed(again)) = (first, again) else {
        panic!("not new then replayed");
    };
    assert_eq!(first, again);
    assert!(store.read("ann", "01SECOND").unwrap().is_none());
}

#[test]
fn a_key_reused_for_another_request_conflicts() {
    let mut store = seeded();
    store
        .create("ann", "01FIRST", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    let reused = store
        .create("ann", "01SECOND", &draft("k1", "f2", "acme/plans"))
        .unwrap();
    assert_eq!(reused, CreateOutcome::Conflict);
    assert!(store.read("ann", "01SECOND").unwrap().is_none());
}

#[test]
fn idempotency_keys_belong_to_their_caller() {
    let mut store = seeded();
    store
        .create("ann", "01ANN", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    let other = store
        .create("root", "01ROOT", &draft("k1", "f2", "acme/plans"))
        .unwrap();
    assert!(matches!(other, CreateOutcome::New(_)), "{other:?}");
}

#[test]
fn a_create_in_an_ungranted_repository_is_forbidden_and_stores_nothing() {
    let mut store = seeded();
    let outcome = store
        .create("ann", "01NOPE", &draft("k1", "f1", "acme/secret"))
        .unwrap();
    assert_eq!(outcome, CreateOutcome::Forbidden);
    assert!(store.read("root", "01NOPE").unwrap().is_none());
    // The key was not used up by the refusal.
    let granted = store
        .create("ann", "01YES", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    assert!(matches!(granted, CreateOutcome::New(_)), "{granted:?}");
}

#[test]
fn a_failed_create_leaves_nothing_behind() {
    let mut store = seeded();
    // The id is taken: the insert fails inside the transaction.
    let failed = store.create("ann", "a", &draft("k1", "f1", "acme/plans"));
    assert!(failed.is_err());
    assert_eq!(store.read("ann", "a").unwrap().unwrap().title, "Alpha");
    let retried = store
        .create("ann", "01NEW", &draft("k1", "f1", "acme/plans"))
        .unwrap();
    assert!(matches!(retried, CreateOutcome::New(_)), "{retried:?}");
}

#[test]
fn an_import_is_all_or_nothing() {
    let mut store = seeded();
    let mut bad = doc("x", "acme/plans", "X");
    bad.revision = u64::MAX;
    assert!(store.import(&[doc("y", "acme/plans", "Y"), bad]).is_err());
    assert!(store.read("root", "y").unwrap().is_none());
}

#[test]
fn a_created_document_is_in_the_file_for_the_next_connection() {
    let path = temp_db("durable");
    {
        let mut store = Store::open(&path).unwrap();
        store.set_grants("ann", &["acme/plans".to_owned()]).unwrap();
        store
            .create("ann", "01KEEP", &draft("k", "f", "acme/plans"))
            .unwrap();
    }
    let reopened = Store::open(&path).unwrap();
    assert!(reopened.read("ann", "01KEEP").unwrap().is_some());
}

#[test]
fn two_connections_racing_one_key_create_one_document() {
    let path = temp_db("race");
    Store::open(&path)
        .unwrap()
        .set_grants("ann", &["*".to_owned()])
        .unwrap();
    let racers: Vec<_> = (0..4)
        .map(|n| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                store
                    .create("ann", &format!("01RACE{n}"), &draft("k", "f", "acme/plans"))
                    .unwrap()
            })
        })
        .collect();
    let outcomes: Vec<CreateOutcome> = racers.into_iter().map(|t| t.join().unwrap()).collect();
    let new = outcomes
        .iter()
        .filter(|o| matches!(o, CreateOutcome::New(_)))
        .count();
    assert_eq!(new, 1, "{outcomes:?}");
    let store = Store::open(&path).unwrap();
    assert_eq!(store.list("ann", "acme/plans").unwrap().len(), 1);
}
