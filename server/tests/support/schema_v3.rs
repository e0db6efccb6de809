//! A database of schema version 3, made and written the way the servers of
//! that version made and wrote one: their DDL and write statements, copied
//! unchanged from `server/src/store/{sqlite,postgres}/schema.rs`,
//! `setup.rs` and `create.rs` as they were at commit 7cedaf2 (before
//! read-only grants made version 4), run in the order their set-up, grants,
//! `--import` and creates ran them. The version 4 migration tests start
//! from it, never from rows written in the new layout. SQLite here,
//! PostgreSQL in `schema_v3_postgres.rs`.
#![allow(dead_code)]

use chopin_mcp_server::store::token_digest;

#[path = "schema_v3_postgres.rs"]
mod on_postgres;

#[allow(unused_imports)]
pub use on_postgres::{postgres, postgres_update_v3};

/// What the version 3 database holds.
pub struct Content {
    /// `(token, caller)`: stored as digests.
    pub tokens: [(&'static str, &'static str); 3],
    /// `(caller, repository)`: every one read and write in version 3.
    pub grants: [(&'static str, &'static str); 3],
    /// `(id, repository, title, source, revision)`, as `--import` wrote them.
    pub imported: [(&'static str, &'static str, &'static str, &'static str, i64); 3],
    /// A create's row, with its provenance.
    pub created: Created,
}

/// `create_document`'s row in version 3.
pub struct Created {
    pub id: &'static str,
    pub caller: &'static str,
    pub repository: &'static str,
    pub title: &'static str,
    pub source: &'static str,
    pub key: &'static str,
    pub fingerprint: &'static str,
    pub brief: &'static str,
    pub base_branch: &'static str,
    pub base_commit: &'static str,
}

/// The content both engines' version 3 databases are given. `reader` has a
/// grant like `ann`'s: the tests make it read-only with `--grant-read`
/// once the database is at version 4.
pub const CONTENT: Content = Content {
    tokens: [
        ("token-of-ann", "ann"),
        ("token-of-reader", "reader"),
        ("token-of-root", "root"),
    ],
    grants: [
        ("ann", "acme/plans"),
        ("reader", "acme/plans"),
        ("root", "*"),
    ],
    imported: [
        ("a", "acme/plans", "Alpha", "# Alpha\n", 3),
        ("b", "acme/plans", "Zeta", "# Zeta\n", 0),
        ("s", "acme/secret", "Hidden", "# Hidden\n", 7),
    ],
    created: Created {
        id: "01CREATED",
        caller: "ann",
        repository: "acme/plans",
        title: "Created in version 3",
        source: "# Created\n\nBefore read-only grants.\n",
        key: "k-create",
        fingerprint: "f-create",
        brief: r#"{"goal":"Survive the migration.","constraints":["c"],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#,
        base_branch: "main",
        base_commit: "0123456789abcdef0123456789abcdef01234567",
    },
};

/// The token of `caller` in [`CONTENT`].
pub fn token_of(caller: &str) -> &'static str {
    CONTENT
        .tokens
        .iter()
        .find(|(_, c)| *c == caller)
        .map(|(token, _)| *token)
        .unwrap()
}

// Version 3's SQLite schema, step by step (`V1`, `V2`, `V3_IMPLEMENTATIONS`,
// `V3_PLANNER_AND_IMAGES` in `sqlite/schema.rs`).

const SQLITE_V1: &str = "
CREATE TABLE IF NOT EXISTS documents (
    id              TEXT PRIMARY KEY,
    repository      TEXT NOT NULL,
    title           TEXT NOT NULL,
    source          TEXT NOT NULL,
    revision        INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_by      TEXT,
    idempotency_key TEXT,
    fingerprint     TEXT,
    brief           TEXT NOT NULL DEFAULT '{}',
    UNIQUE (created_by, idempotency_key)
);
CREATE INDEX IF NOT EXISTS documents_in_repository ON documents (repository, title, id);
CREATE TABLE IF NOT EXISTS tokens (
    token_sha256 TEXT PRIMARY KEY CHECK (length(token_sha256) = 64),
    caller       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    caller     TEXT NOT NULL,
    repository TEXT NOT NULL,
    PRIMARY KEY (caller, repository)
);
";

const SQLITE_V2: &str = "
ALTER TABLE documents ADD COLUMN archived_at TEXT;
ALTER TABLE documents ADD COLUMN archived_by TEXT;
DROP INDEX documents_in_repository;
CREATE INDEX documents_by_repository ON documents (repository, archived_at, title, id);
CREATE TABLE plan_history (
    seq         INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    revision    INTEGER NOT NULL,
    source      TEXT NOT NULL,
    replaced_at TEXT NOT NULL,
    replaced_by TEXT
);
CREATE INDEX plan_history_of_document ON plan_history (document_id, revision);
CREATE TABLE title_history (
    seq         INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    title       TEXT NOT NULL,
    replaced_at TEXT NOT NULL,
    replaced_by TEXT
);
CREATE INDEX title_history_of_document ON title_history (document_id, seq);
CREATE TABLE updates (
    caller          TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    document_id     TEXT NOT NULL REFERENCES documents (id),
    revision        INTEGER NOT NULL,
    title           TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (caller, idempotency_key)
);
";

const SQLITE_V3_IMPLEMENTATIONS: &str = r#"
ALTER TABLE documents ADD COLUMN base_branch TEXT;
ALTER TABLE documents ADD COLUMN base_commit TEXT;
CREATE TABLE graph_versions (
    document_id   TEXT NOT NULL REFERENCES documents (id),
    number        INTEGER NOT NULL CHECK (number >= 1),
    revision      INTEGER NOT NULL CHECK (revision >= 1),
    plan_revision INTEGER NOT NULL,
    state         TEXT NOT NULL,
    tasks         TEXT NOT NULL,
    approved_at   TEXT,
    approved_by   TEXT,
    PRIMARY KEY (document_id, number)
);
CREATE TABLE graph_revisions (
    document_id   TEXT NOT NULL REFERENCES documents (id),
    number        INTEGER NOT NULL,
    revision      INTEGER NOT NULL,
    plan_revision INTEGER NOT NULL,
    tasks         TEXT NOT NULL,
    drafted_at    TEXT NOT NULL,
    drafted_by    TEXT NOT NULL,
    PRIMARY KEY (document_id, number, revision)
);
CREATE TABLE implementation_runs (
    run_id         TEXT PRIMARY KEY,
    document_id    TEXT NOT NULL REFERENCES documents (id),
    graph_number   INTEGER NOT NULL,
    graph_revision INTEGER NOT NULL,
    plan_revision  INTEGER NOT NULL,
    claimer        TEXT NOT NULL,
    "user"         TEXT NOT NULL,
    client_name    TEXT NOT NULL,
    client_version TEXT NOT NULL,
    session        TEXT NOT NULL,
    repository     TEXT NOT NULL,
    branch         TEXT NOT NULL,
    "commit"       TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    ended_at       TEXT
);
CREATE UNIQUE INDEX implementation_runs_active ON implementation_runs (document_id)
    WHERE ended_at IS NULL;
CREATE INDEX implementation_runs_of_document ON implementation_runs (document_id, started_at);
CREATE TABLE implementation_events (
    run_id          TEXT NOT NULL REFERENCES implementation_runs (run_id),
    seq             INTEGER NOT NULL,
    document_id     TEXT NOT NULL REFERENCES documents (id),
    tool            TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    body            TEXT NOT NULL,
    caller          TEXT NOT NULL,
    client          TEXT NOT NULL,
    at              TEXT NOT NULL,
    PRIMARY KEY (run_id, seq),
    UNIQUE (document_id, idempotency_key)
);
"#;

const SQLITE_V3_PLANNER_AND_IMAGES: &str = "
CREATE TABLE planner_turns (
    seq          INTEGER PRIMARY KEY,
    document_id  TEXT NOT NULL REFERENCES documents (id),
    caller       TEXT NOT NULL,
    client_name    TEXT NOT NULL,
    client_version TEXT NOT NULL,
    instruction  TEXT NOT NULL,
    checkout     TEXT,
    requested_at TEXT NOT NULL,
    server       TEXT NOT NULL,
    state        TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    exit_status  INTEGER,
    output       TEXT
);
CREATE INDEX planner_turns_of_server ON planner_turns (server, state);
CREATE INDEX planner_turns_of_document ON planner_turns (document_id, seq);
CREATE TABLE images (
    repository  TEXT NOT NULL,
    sha256      TEXT NOT NULL CHECK (length(sha256) = 64),
    media_type  TEXT NOT NULL,
    size        INTEGER NOT NULL CHECK (size >= 0),
    bytes       BLOB NOT NULL,
    uploaded_by TEXT NOT NULL,
    uploaded_at TEXT NOT NULL,
    PRIMARY KEY (repository, sha256)
);
CREATE TABLE document_images (
    document_id TEXT NOT NULL REFERENCES documents (id),
    sha256      TEXT NOT NULL,
    linked_by   TEXT NOT NULL,
    linked_at   TEXT NOT NULL,
    PRIMARY KEY (document_id, sha256)
);
CREATE INDEX document_images_by_digest ON document_images (sha256, document_id);
";

/// `now!()` of `sqlite.rs`: the time a row is written, as SQL.
macro_rules! now {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    };
}

/// Writes [`CONTENT`] into a new SQLite file at `path` as a version 3
/// server did: the set-up (WAL, the schema's steps, `user_version` 3, the
/// tokens, the grants, the import) in one `BEGIN IMMEDIATE` transaction,
/// then a create in another.
pub fn sqlite(path: &std::path::Path) {
    use rusqlite::{TransactionBehavior, params};
    let mut conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    for step in [
        SQLITE_V1,
        SQLITE_V2,
        SQLITE_V3_IMPLEMENTATIONS,
        SQLITE_V3_PLANNER_AND_IMAGES,
    ] {
        tx.execute_batch(step).unwrap();
    }
    tx.pragma_update(None, "user_version", 3).unwrap();
    for (token, caller) in CONTENT.tokens {
        tx.execute(
            "INSERT INTO tokens (token_sha256, caller) VALUES (?1, ?2)",
            params![token_digest(token), caller],
        )
        .unwrap();
    }
    for (caller, repository) in CONTENT.grants {
        tx.execute("DELETE FROM grants WHERE caller = ?1", [caller])
            .unwrap();
        tx.execute(
            "INSERT OR IGNORE INTO grants (caller, repository) VALUES (?1, ?2)",
            params![caller, repository],
        )
        .unwrap();
    }
    for (id, repository, title, source, revision) in CONTENT.imported {
        tx.execute(
            concat!(
                "INSERT INTO plan_history (document_id, revision, source, replaced_at)
                 SELECT id, revision, source, ",
                now!(),
                " FROM documents WHERE id = ?1 AND (source <> ?2 OR revision <> ?3)"
            ),
            params![id, source, revision],
        )
        .unwrap();
        tx.execute(
            concat!(
                "INSERT INTO title_history (document_id, title, replaced_at)
                 SELECT id, title, ",
                now!(),
                " FROM documents WHERE id = ?1 AND title <> ?2"
            ),
            params![id, title],
        )
        .unwrap();
        tx.execute(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            params![id, repository, title, source, revision],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    let c = &CONTENT.created;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    tx.execute(
        "INSERT INTO documents (id, repository, title, source, revision,
           created_by, idempotency_key, fingerprint, brief, base_branch, base_commit)
         VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            c.id,
            c.repository,
            c.title,
            c.source,
            c.caller,
            c.key,
            c.fingerprint,
            c.brief,
            c.base_branch,
            c.base_commit
        ],
    )
    .unwrap();
    tx.commit().unwrap();
}
