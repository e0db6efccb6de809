//! A SQLite store that has listed closes every file when dropped: the list
//! statement each connection keeps (prepared through SQLite's C interface,
//! not rusqlite's cache) is finalized before its connection closes. A
//! connection with a statement left open cannot close, and rusqlite's drop
//! ignores that failure, keeping the database's files open for the life of
//! the process. One test in this file, so no other test's files are counted.

use chopin_mcp_server::store::{Imported, Listing, Setup, Sqlite};

/// The descriptors this process has open on the database's files.
fn open_on(path: &std::path::Path) -> usize {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| {
            target
                .file_name()
                .is_some_and(|file| file.to_string_lossy().starts_with(&name))
        })
        .count()
}

#[test]
fn a_store_that_listed_closes_its_files_when_dropped() {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("closes-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let store = Sqlite::open(&path).unwrap();
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
    // Every reader lists (more threads than readers reach them all) and the
    // statements stay prepared.
    std::thread::scope(|scope| {
        for _ in 0..16 {
            scope.spawn(|| {
                for _ in 0..50 {
                    let Listing::Listed(summaries) = store.list_summaries("all", "o/r").unwrap()
                    else {
                        panic!("all is granted every repository");
                    };
                    assert_eq!(summaries.borrowed().len(), 1);
                }
            });
        }
    });
    assert!(open_on(&path) > 0, "the store has its files open");
    drop(store);
    assert_eq!(
        open_on(&path),
        0,
        "files left open after the store was dropped"
    );
}
