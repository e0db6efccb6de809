//! The store suites' engines: SQLite in memory, SQLite in a file,
//! PostgreSQL (a throwaway server, `support/pg.rs`, which the test file
//! includes as `pg` beside this) and the same PostgreSQL behind PgBouncer
//! in transaction mode; a fresh store of each, the seed most cases start
//! from, and [`on_every_engine!`], which makes each case a test per engine.
#![allow(dead_code)]

use std::path::PathBuf;

use chopin_mcp::{Brief, Document};
use chopin_mcp_server::store::{
    CreateOutcome, Database, Draft, Imported, Listing, Setup, Store, Update, UpdateOutcome,
};

/// Each behaviour as a test per engine: `sqlite_memory::NAME`,
/// `sqlite_file::NAME`, `postgres::NAME`, `pgbouncer::NAME`.
#[allow(unused_macros)]
macro_rules! on_every_engine {
    ($($name:ident),* $(,)?) => {
        mod sqlite_memory {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Engine::Memory).await }
            )*
        }
        mod sqlite_file {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Engine::File).await }
            )*
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Engine::Postgres).await }
            )*
        }
        mod pgbouncer {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Engine::Pgbouncer).await }
            )*
        }
    };
}

/// Where a suite's case runs.
#[derive(Debug, Clone, Copy)]
pub enum Engine {
    Memory,
    File,
    Postgres,
    Pgbouncer,
}

/// A fresh, set-up store of `engine` and where it lives; `None` when
/// PostgreSQL is not installed (the test then says it skipped).
pub async fn fresh(engine: Engine) -> Option<(Store, Database)> {
    let database = match engine {
        Engine::Memory => Database::Memory,
        Engine::File => Database::File(temp_db("behaviour")),
        Engine::Postgres => Database::Postgres(super::pg::shared()?.database()),
        Engine::Pgbouncer => {
            let cluster = super::pg::shared()?;
            let bouncer = super::pg::shared_bouncer()?;
            Database::Postgres(bouncer.url(&cluster.new_database()))
        }
    };
    let store = Store::open(&database).await.unwrap();
    let started = store.setup(&Setup::default()).await.unwrap();
    assert!(
        started.new_database && started.found_version == 0,
        "{started:?}"
    );
    Some((store, database))
}

/// A fresh database file in the target directory.
pub fn temp_db(name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}-{n}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// An imported document at revision 3, its source `# TITLE`.
pub fn doc(id: &str, repository: &str, title: &str) -> Imported {
    Imported {
        id: id.to_owned(),
        repository: repository.to_owned(),
        title: title.to_owned(),
        source: format!("# {title}\n"),
        revision: 3,
    }
}

/// A create of a `Draft` with a brief, by idempotency key and fingerprint.
pub fn draft(key: &str, fingerprint: &str, repository: &str) -> Draft {
    Draft {
        idempotency_key: key.to_owned(),
        fingerprint: fingerprint.to_owned(),
        repository: repository.to_owned(),
        title: "Draft".to_owned(),
        source: "# Draft\n".to_owned(),
        brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
        base: None,
    }
}

/// A create the store must answer (whatever its outcome), not fail.
pub async fn create(store: &Store, caller: &str, id: &str, draft: &Draft) -> CreateOutcome {
    store.create(caller, id, draft).await.unwrap()
}

/// [`fresh`], with `a`, `b` and `c` in `acme/plans` (titles Alpha, Zeta,
/// Alpha), `s` in `acme/secret`; `ann` granted `acme/plans`, `root` every
/// repository.
pub async fn seeded(engine: Engine) -> Option<(Store, Database)> {
    let (store, database) = fresh(engine).await?;
    store
        .import(&[
            doc("b", "acme/plans", "Zeta"),
            doc("c", "acme/plans", "Alpha"),
            doc("a", "acme/plans", "Alpha"),
            doc("s", "acme/secret", "Hidden"),
        ])
        .await
        .unwrap();
    store
        .set_grants("ann", &["acme/plans".to_owned()])
        .await
        .unwrap();
    store.set_grants("root", &["*".to_owned()]).await.unwrap();
    Some((store, database))
}

/// The ids `caller` lists in `repository`, which must answer (not be
/// forbidden).
pub async fn ids(store: &Store, caller: &str, repository: &str) -> Vec<String> {
    match store.list(caller, repository, false).await.unwrap() {
        Listing::Listed(documents) => documents.into_iter().map(|d| d.id).collect(),
        Listing::Forbidden => panic!("{caller} may not list {repository}"),
    }
}

/// An update of the document `locator` names at `revision`, by key and
/// fingerprint.
pub fn change(locator: &str, revision: u64, plan: &str, key: &str, fingerprint: &str) -> Update {
    Update {
        locator: locator.to_owned(),
        revision,
        plan: plan.to_owned(),
        idempotency_key: key.to_owned(),
        fingerprint: fingerprint.to_owned(),
    }
}

/// An update the store must answer (whatever its outcome), not fail.
pub async fn update(store: &Store, caller: &str, update: &Update) -> UpdateOutcome {
    store.update(caller, update).await.unwrap()
}

/// The live document `id` as `caller` reads it; it must be there.
pub async fn read(store: &Store, caller: &str, id: &str) -> Document {
    store
        .read(caller, id)
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("{caller} cannot read {id}"))
}

/// The brief [`draft`] creates with, as a document holds it.
pub fn draft_brief() -> Brief {
    serde_json::from_str(&draft("k", "f", "r").brief).unwrap()
}
