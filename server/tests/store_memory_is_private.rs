//! Each in-memory SQLite store is a database of its own: two in one
//! process never see each other's documents or grants, and a store opened
//! after another was dropped starts empty.

use chopin_mcp_server::store::{CreateOutcome, Draft, Imported, Listing, Setup, Sqlite};

fn seeded(id: &str, caller: &str) -> Sqlite {
    let store = Sqlite::memory().unwrap();
    store
        .setup(&Setup {
            grants: vec![(caller.to_owned(), vec!["*".to_owned()])],
            import: vec![Imported {
                id: id.to_owned(),
                repository: "acme/plans".to_owned(),
                title: id.to_uppercase(),
                source: format!("# {id}\n"),
                revision: 0,
            }],
            ..Setup::default()
        })
        .unwrap();
    store
}

/// The ids `caller` lists in `acme/plans`; `None` when it has no grant there.
fn ids(store: &Sqlite, caller: &str) -> Option<Vec<String>> {
    match store.list(caller, "acme/plans", false).unwrap() {
        Listing::Listed(summaries) => Some(summaries.into_iter().map(|s| s.id).collect()),
        Listing::Forbidden => None,
    }
}

#[test]
fn two_memory_stores_never_see_each_other() {
    let first = seeded("one", "ann");
    let second = seeded("two", "bob");
    assert_eq!(ids(&first, "ann").unwrap(), ["one"]);
    assert_eq!(ids(&second, "bob").unwrap(), ["two"]);
    // Each has only its own grants.
    assert_eq!(ids(&first, "bob"), None);
    assert_eq!(ids(&second, "ann"), None);
    let draft = Draft {
        idempotency_key: "k".to_owned(),
        fingerprint: "f".to_owned(),
        repository: "acme/plans".to_owned(),
        title: "New".to_owned(),
        source: "# New\n".to_owned(),
        brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
        base: None,
    };
    let created = first.create("ann", "three", &draft).unwrap();
    assert!(matches!(created, CreateOutcome::New(_)), "{created:?}");
    // By title, byte-wise: "New" before "ONE".
    assert_eq!(ids(&first, "ann").unwrap(), ["three", "one"]);
    assert_eq!(ids(&second, "bob").unwrap(), ["two"]);
    assert!(second.read("bob", "three").unwrap().is_none());
}

#[test]
fn a_memory_store_opened_after_another_was_dropped_starts_empty() {
    let first = seeded("one", "ann");
    assert_eq!(ids(&first, "ann").unwrap(), ["one"]);
    drop(first);
    let next = Sqlite::memory().unwrap();
    let started = next
        .setup(&Setup {
            grants: vec![("ann".to_owned(), vec!["*".to_owned()])],
            ..Setup::default()
        })
        .unwrap();
    assert!(started.new_database, "{started:?}");
    assert_eq!(ids(&next, "ann").unwrap(), Vec::<String>::new());
    assert!(next.read("ann", "one").unwrap().is_none());
}
