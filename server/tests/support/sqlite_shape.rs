//! The two SQLite stores, in memory and on a file, seeded alike, for the
//! tests of their shape (who waits for whom); and a deadline that turns a
//! wait that never ends into a failure. Nothing here is timed: every wait
//! ends at once when the store behaves, the deadline only ends a test that
//! would otherwise hang.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use chopin_mcp_server::store::{Draft, Imported, Listing, Setup, Sqlite};

/// How long a test waits for what must happen at once before failing.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The repository every seeded document is in.
pub const REPOSITORY: &str = "acme/plans";

/// A SQLite store in memory and one on a fresh file (named for the test
/// file, `prefix`), each holding document `a` ("Alpha") of [`REPOSITORY`],
/// every repository granted to `all`.
pub fn stores(prefix: &str) -> Vec<(&'static str, Arc<Sqlite>)> {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let stores = [
        ("memory", Sqlite::memory().unwrap()),
        ("file", Sqlite::open(&path).unwrap()),
    ];
    stores
        .into_iter()
        .map(|(kind, store)| {
            store
                .setup(&Setup {
                    grants: vec![("all".to_owned(), vec!["*".to_owned()])],
                    import: vec![Imported {
                        id: "a".to_owned(),
                        repository: REPOSITORY.to_owned(),
                        title: "Alpha".to_owned(),
                        source: "# Alpha\n".to_owned(),
                        revision: 0,
                    }],
                    ..Setup::default()
                })
                .unwrap();
            (kind, Arc::new(store))
        })
        .collect()
}

/// A create of a document titled "Beta" in [`REPOSITORY`] under `key`.
pub fn draft(key: &str) -> Draft {
    Draft {
        idempotency_key: key.to_owned(),
        fingerprint: format!("fingerprint of {key}"),
        repository: REPOSITORY.to_owned(),
        title: "Beta".to_owned(),
        source: "# Beta\n".to_owned(),
        brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
        base: None,
    }
}

/// The ids of [`REPOSITORY`] as `all` lists them.
pub fn listed(store: &Sqlite) -> Vec<String> {
    match store.list("all", REPOSITORY, false).unwrap() {
        Listing::Listed(summaries) => summaries.into_iter().map(|summary| summary.id).collect(),
        Listing::Forbidden => panic!("`all` has a grant for {REPOSITORY}"),
    }
}

/// Waits for `what` to arrive on `channel`, failing at the deadline.
pub fn within<T>(channel: &mpsc::Receiver<T>, what: &str) -> T {
    channel
        .recv_timeout(DEADLINE)
        .unwrap_or_else(|e| panic!("{what}: nothing after {DEADLINE:?} ({e})"))
}

/// `job` on `store` on a thread of its own, its answer waited for until the
/// deadline (a job that never ends fails the test instead of hanging it).
pub fn on_another_thread<T: Send + 'static>(
    store: &Arc<Sqlite>,
    what: &str,
    job: impl FnOnce(&Sqlite) -> T + Send + 'static,
) -> T {
    let (answer, answered) = mpsc::channel();
    let store = Arc::clone(store);
    std::thread::spawn(move || {
        let _ = answer.send(job(&store));
    });
    within(&answered, what)
}
