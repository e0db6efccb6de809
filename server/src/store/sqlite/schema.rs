//! The SQLite schema, made version by version: a new database goes through
//! the same steps as one written by an earlier server, so the two always
//! have the same layout (`server/tests/store_schema_migration.rs` compares
//! them).

use rusqlite::{Transaction, params};

use crate::store::{SCHEMA_VERSION, StoreError, token_digest};

/// Version 1: documents (with their creation's idempotency record), token
/// digests, grants. `IF NOT EXISTS`: a database from before version 1 has
/// these tables already (tokens in plain text, replaced first).
const V1: &str = "
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

/// Version 2, from version 1 (nothing is copied: columns are added, an
/// index replaced and tables made):
/// - `archived_at` (RFC 3339, as the host gave it) and `archived_by`: a
///   document archived, and by whom; NULL when live;
/// - the list's index leads with the repository and `archived_at`, so a
///   list of live documents (`archived_at IS NULL`) stays one seek of a
///   covering index, in title and id order;
/// - `plan_history`: every replaced plan (its revision and source), when and
///   by whom it was replaced (`replaced_by` NULL: by an `--import`);
/// - `title_history`: every replaced title, likewise;
/// - `updates`: the idempotency record of each applied update (caller and
///   key, the request's fingerprint, the revision it made and the title
///   then), kept as long as the document.
const V2: &str = "
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

/// Version 3, from version 2 (IMPLEMENTATION.md §4; columns added, tables
/// made, nothing copied):
/// - `base_branch`, `base_commit`: a document's provenance (NULL until a
///   `graph draft` records it);
/// - `graph_versions`: each graph version as it stands (one row a number);
/// - `graph_revisions`: every drafted revision, append-only;
/// - `implementation_runs`: each claim; at most one not ended a document
///   (the partial unique index);
/// - `implementation_events`: each run's log, a key once a document.
const V3_IMPLEMENTATIONS: &str = r#"
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

/// Version 3's other tables: `planner_turns`, each instruction posted to a document's planner (SURFACE.md §9): who asked
/// and with which client (its `clientInfo` name and version), what, the checkout named (recorded, never used), when, the server that
/// holds it, its state (`queued`, `running`, `exited`, `timed-out`,
/// `failed`, `interrupted`), when it started and ended, its exit status and
/// the first 64 KiB of its output. The index finds a server's unfinished
/// turns at start.
///
/// And `images`, one copy of each image per repository and digest, with its
/// type, size, uploader and time; `document_images`, the documents each was
/// uploaded to (the link a reader's access goes through).
const V3_PLANNER_AND_IMAGES: &str = "
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

/// Version 4, from version 3 (IMPLEMENTATION.md §4 "Read-only grants"; a
/// column added, nothing copied): `grants.may_write`, 0 for a read-only
/// grant (`--grant-read`), 1 for read and write, which every grant made
/// before is. A version 3 server still running on the file reads and
/// writes as it did: it knows no read-only grant.
const V4_READ_GRANTS: &str = "
ALTER TABLE grants ADD COLUMN may_write INTEGER NOT NULL DEFAULT 1;
";

/// Brings a database of schema `found` (0: none, or the plain-token layout
/// from before version 1) to [`SCHEMA_VERSION`], inside the set-up's
/// transaction; how many plain tokens were replaced by digests.
pub(super) fn migrate(tx: &Transaction<'_>, found: i64) -> Result<usize, StoreError> {
    let mut tokens_migrated = 0;
    if found < 1 {
        tokens_migrated = migrate_plain_tokens(tx)?;
        tx.execute_batch(V1)?;
    }
    if found < 2 {
        tx.execute_batch(V2)?;
    }
    if found < 3 {
        tx.execute_batch(V3_IMPLEMENTATIONS)?;
        tx.execute_batch(V3_PLANNER_AND_IMAGES)?;
    }
    if found < 4 {
        tx.execute_batch(V4_READ_GRANTS)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    Ok(tokens_migrated)
}

/// Replaces a pre-version-1 `tokens (token, caller)` table, if there is
/// one, by digests; returns how many tokens it held.
fn migrate_plain_tokens(tx: &Transaction<'_>) -> Result<usize, StoreError> {
    let plain: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('tokens') WHERE name = 'token')",
        [],
        |row| row.get(0),
    )?;
    if !plain {
        return Ok(0);
    }
    let tokens = {
        let mut statement = tx.prepare("SELECT token, caller FROM tokens")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    tx.execute_batch("DROP TABLE tokens")?;
    tx.execute_batch(V1)?;
    for (token, caller) in &tokens {
        tx.execute(
            "INSERT OR REPLACE INTO tokens (token_sha256, caller) VALUES (?1, ?2)",
            params![token_digest(token), caller],
        )?;
    }
    Ok(tokens.len())
}
