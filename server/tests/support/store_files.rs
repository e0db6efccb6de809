//! SQLite files for the store tests: one fresh file per test, and a store
//! on it with everything granted to `all`.

use std::path::PathBuf;

use chopin_mcp_server::store::{Imported, Setup, Sqlite};

/// A database file of its own for test `name` (`prefix` names the test
/// file), none of its files left from an earlier run.
pub fn fresh_file(prefix: &str, name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{name}-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// A store on a fresh file (see [`fresh_file`]) holding `import`, every
/// repository granted to `all`.
pub fn file_store(prefix: &str, name: &str, import: Vec<Imported>) -> (Sqlite, PathBuf) {
    let path = fresh_file(prefix, name);
    let store = Sqlite::open(&path).unwrap();
    store
        .setup(&Setup {
            grants: vec![("all".to_owned(), vec!["*".to_owned()])],
            import,
            ..Setup::default()
        })
        .unwrap();
    (store, path)
}
