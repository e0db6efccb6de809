//! An in-memory SQLite store keeps everything in memory: set up, written,
//! read and listed from several threads at once, it holds no file open
//! (its files, WAL and WAL index are the in-memory VFS's). One test in this
//! file, so no other test's files are counted.

use chopin_mcp_server::store::{CreateOutcome, Draft, Imported, Listing, Setup, Sqlite};

/// What this process's descriptors point at (files, sockets, pipes).
fn open_descriptors() -> Vec<std::path::PathBuf> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .collect()
}

#[test]
fn a_memory_store_holds_no_file_open() {
    let before = open_descriptors();
    let store = Sqlite::memory().unwrap();
    store
        .setup(&Setup {
            grants: vec![("all".to_owned(), vec!["*".to_owned()])],
            import: vec![Imported {
                id: "a".to_owned(),
                repository: "o/r".to_owned(),
                title: "A".to_owned(),
                source: "# A\n".to_owned(),
                revision: 0,
            }],
            ..Setup::default()
        })
        .unwrap();
    let draft = Draft {
        idempotency_key: "k".to_owned(),
        fingerprint: "f".to_owned(),
        repository: "o/r".to_owned(),
        title: "B".to_owned(),
        source: "# B\n".to_owned(),
        brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
        base: None,
    };
    let created = store.create("all", "b", &draft).unwrap();
    assert!(matches!(created, CreateOutcome::New(_)), "{created:?}");
    // Every reader connection reads (more threads than readers).
    std::thread::scope(|scope| {
        for _ in 0..16 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let Listing::Listed(summaries) = store.list_summaries("all", "o/r").unwrap()
                    else {
                        panic!("`all` has a grant for o/r");
                    };
                    assert_eq!(summaries.borrowed().len(), 2);
                    assert!(store.read("all", "a").unwrap().is_some());
                }
            });
        }
    });
    assert_eq!(
        open_descriptors(),
        before,
        "descriptors opened by the store"
    );
}
