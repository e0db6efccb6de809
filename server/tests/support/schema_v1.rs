//! A database of schema version 1, made and written the way the servers of
//! that version made and wrote one: their DDL and write statements, copied
//! unchanged from `server/src/store/sqlite.rs` and `postgres.rs` as they
//! were before version 2 (commit 11d9011), run in the order their set-up,
//! `--import`, grants and creates ran them. The migration tests start from
//! it, never from rows written in the new layout.
#![allow(dead_code)]

use chopin_mcp_server::store::token_digest;

/// What the version 1 database holds: every kind of row it had.
pub struct Content {
    /// `(token, caller)`: stored as digests.
    pub tokens: [(&'static str, &'static str); 2],
    /// `(caller, repository)`.
    pub grants: [(&'static str, &'static str); 2],
    /// `(id, repository, title, source, revision)`, as `--import` wrote them.
    pub imported: [(&'static str, &'static str, &'static str, &'static str, i64); 3],
    /// A create's row: its idempotency record lives in the document's row.
    pub created: Created,
}

/// `create_document`'s row in version 1.
pub struct Created {
    pub id: &'static str,
    pub caller: &'static str,
    pub repository: &'static str,
    pub title: &'static str,
    pub source: &'static str,
    pub key: &'static str,
    pub fingerprint: &'static str,
    pub brief: &'static str,
}

/// The content both engines' version 1 databases are given.
pub const CONTENT: Content = Content {
    tokens: [("token-of-ann", "ann"), ("token-of-root", "root")],
    grants: [("ann", "acme/plans"), ("root", "*")],
    imported: [
        ("a", "acme/plans", "Alpha", "# Alpha\n", 3),
        ("b", "acme/plans", "Zeta", "# Zeta\n", 0),
        ("s", "acme/secret", "Hidden", "# Hidden\n", 7),
    ],
    created: Created {
        id: "01CREATED",
        caller: "ann",
        repository: "acme/plans",
        title: "Created in version 1",
        source: "# Created\n\nBefore archives.\n",
        key: "k-create",
        fingerprint: "f-create",
        brief: r#"{"goal":"Survive the migration.","constraints":["c"],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#,
    },
};

/// Version 1's SQLite schema (`SCHEMA` in `sqlite.rs`).
const SQLITE_SCHEMA: &str = "
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

/// Writes [`CONTENT`] into a new SQLite file at `path` as a version 1
/// server did: the set-up (WAL, the schema, `user_version` 1, the token,
/// the grants, the import) in one `BEGIN IMMEDIATE` transaction, then a
/// create in another.
pub fn sqlite(path: &std::path::Path) {
    use rusqlite::{TransactionBehavior, params};
    let mut conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .unwrap();
    tx.execute_batch(SQLITE_SCHEMA).unwrap();
    tx.pragma_update(None, "user_version", 1).unwrap();
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
           created_by, idempotency_key, fingerprint, brief)
         VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8)",
        params![
            c.id,
            c.repository,
            c.title,
            c.source,
            c.caller,
            c.key,
            c.fingerprint,
            c.brief
        ],
    )
    .unwrap();
    tx.commit().unwrap();
}

/// Version 1's PostgreSQL schema (`SCHEMA` in `postgres.rs`).
const POSTGRES_SCHEMA: &str = r#"
CREATE TABLE documents (
    id              bytea PRIMARY KEY,
    repository      text COLLATE "C" NOT NULL,
    title           bytea NOT NULL,
    source          bytea NOT NULL,
    revision        bigint NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_by      text COLLATE "C",
    idempotency_key bytea,
    fingerprint     text,
    brief           text NOT NULL DEFAULT '{}',
    UNIQUE (created_by, idempotency_key)
);
CREATE INDEX documents_in_repository ON documents (repository, title, id);
CREATE TABLE tokens (
    token_sha256 text COLLATE "C" PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
    caller       text COLLATE "C" NOT NULL
);
CREATE TABLE grants (
    caller     text COLLATE "C" NOT NULL,
    repository text COLLATE "C" NOT NULL,
    PRIMARY KEY (caller, repository)
);
"#;

/// Version 1's read and list functions (`FUNCTIONS` in `postgres.rs`).
const POSTGRES_FUNCTIONS: [&str; 2] = [
    r#"CREATE FUNCTION chopin_list_v1(p_caller text, p_repository text)
RETURNS TABLE (id bytea, title bytea) LANGUAGE plpgsql STABLE AS $body$
#variable_conflict use_column
BEGIN
    RETURN QUERY SELECT d.id, d.title FROM documents d
        WHERE d.repository = p_repository AND EXISTS (SELECT 1 FROM grants g
          WHERE g.caller = p_caller AND (g.repository = '*' OR g.repository = p_repository))
        ORDER BY d.title, d.id;
END
$body$"#,
    r#"CREATE FUNCTION chopin_read_v1(p_caller text, p_id bytea)
RETURNS TABLE (id bytea, title bytea, source bytea, revision bigint)
LANGUAGE plpgsql STABLE AS $body$
#variable_conflict use_column
BEGIN
    RETURN QUERY SELECT d.id, d.title, d.source, d.revision FROM documents d
        WHERE d.id = p_id AND EXISTS (SELECT 1 FROM grants g
          WHERE g.caller = p_caller AND (g.repository = '*' OR g.repository = d.repository));
END
$body$"#,
];

/// Version 1's create (`INSERT` in `postgres.rs`).
const POSTGRES_CREATE: &str = "INSERT INTO documents (id, repository, title, source, revision,
      created_by, idempotency_key, fingerprint, brief)
    SELECT $1, $2, $3, $4, 0, $5, $6, $7, $8
    WHERE EXISTS (SELECT 1 FROM grants WHERE caller = $5
      AND (repository = '*' OR repository = $2))
    ON CONFLICT (created_by, idempotency_key) DO NOTHING
    RETURNING id";

/// Writes [`CONTENT`] into the empty PostgreSQL database at `url` as a
/// version 1 server did: the set-up (advisory lock, `chopin_schema`, the
/// schema, version 1, the functions, the token, the grants, the import) in
/// one transaction, then a create in another.
pub async fn postgres(url: &str) {
    use tokio_postgres::types::{ToSql, Type};
    let (mut client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let tx = client.transaction().await.unwrap();
    tx.batch_execute("SET LOCAL statement_timeout = 0")
        .await
        .unwrap();
    let lock = i64::from_be_bytes(*b"chopin-m");
    tx.execute_typed("SELECT pg_advisory_xact_lock($1)", &[(&lock, Type::INT8)])
        .await
        .unwrap();
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS chopin_schema (
             version bigint NOT NULL,
             upgraded_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await
    .unwrap();
    tx.batch_execute(POSTGRES_SCHEMA).await.unwrap();
    tx.execute_typed(
        "INSERT INTO chopin_schema (version) VALUES ($1)",
        &[(&1i64, Type::INT8)],
    )
    .await
    .unwrap();
    for function in POSTGRES_FUNCTIONS {
        tx.batch_execute(function).await.unwrap();
    }
    for (token, caller) in CONTENT.tokens {
        tx.execute_typed(
            "INSERT INTO tokens (token_sha256, caller) VALUES ($1, $2)",
            &[(&token_digest(token), Type::TEXT), (&caller, Type::TEXT)],
        )
        .await
        .unwrap();
    }
    for (caller, repository) in CONTENT.grants {
        tx.execute_typed(
            "DELETE FROM grants WHERE caller = $1",
            &[(&caller, Type::TEXT)],
        )
        .await
        .unwrap();
        tx.execute_typed(
            "INSERT INTO grants (caller, repository) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[(&caller, Type::TEXT), (&repository, Type::TEXT)],
        )
        .await
        .unwrap();
    }
    for (id, repository, title, source, revision) in CONTENT.imported {
        let (id, title, source) = (id.as_bytes(), title.as_bytes(), source.as_bytes());
        tx.execute_typed(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            &[
                (&id, Type::BYTEA),
                (&repository, Type::TEXT),
                (&title, Type::BYTEA),
                (&source, Type::BYTEA),
                (&revision, Type::INT8),
            ],
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    let c = &CONTENT.created;
    let (id, title, source, key) = (
        c.id.as_bytes(),
        c.title.as_bytes(),
        c.source.as_bytes(),
        c.key.as_bytes(),
    );
    let values: [(&(dyn ToSql + Sync), Type); 8] = [
        (&id, Type::BYTEA),
        (&c.repository, Type::TEXT),
        (&title, Type::BYTEA),
        (&source, Type::BYTEA),
        (&c.caller, Type::TEXT),
        (&key, Type::BYTEA),
        (&c.fingerprint, Type::TEXT),
        (&c.brief, Type::TEXT),
    ];
    client.batch_execute("BEGIN").await.unwrap();
    let inserted = client
        .query_typed_opt(POSTGRES_CREATE, &values)
        .await
        .unwrap();
    assert!(inserted.is_some(), "the version 1 create inserted");
    client.batch_execute("COMMIT").await.unwrap();
}
