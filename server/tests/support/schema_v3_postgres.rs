//! The PostgreSQL half of `schema_v3.rs`: version 3's schema, functions and
//! writes as a version 3 server (commit 7cedaf2) made and ran them.

use chopin_mcp_server::store::token_digest;
use tokio_postgres::types::{ToSql, Type};

use super::CONTENT;

// Version 3's PostgreSQL schema, step by step (`V1`, `V2`,
// `V3_IMPLEMENTATIONS`, `V3_PLANNER_AND_IMAGES` in `postgres/schema.rs`).

const POSTGRES_V1: &str = r#"
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

const POSTGRES_V2: &str = r#"
ALTER TABLE documents ADD COLUMN archived_at text, ADD COLUMN archived_by text COLLATE "C";
DROP INDEX documents_in_repository;
CREATE INDEX documents_live_in_repository ON documents (repository, title, id)
    WHERE archived_at IS NULL;
CREATE TABLE plan_history (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id bytea NOT NULL REFERENCES documents (id),
    revision    bigint NOT NULL,
    source      bytea NOT NULL,
    replaced_at timestamptz NOT NULL DEFAULT now(),
    replaced_by text COLLATE "C"
);
CREATE INDEX plan_history_of_document ON plan_history (document_id, revision);
CREATE TABLE title_history (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id bytea NOT NULL REFERENCES documents (id),
    title       bytea NOT NULL,
    replaced_at timestamptz NOT NULL DEFAULT now(),
    replaced_by text COLLATE "C"
);
CREATE INDEX title_history_of_document ON title_history (document_id, seq);
CREATE TABLE updates (
    caller          text COLLATE "C" NOT NULL,
    idempotency_key bytea NOT NULL,
    fingerprint     text NOT NULL,
    document_id     bytea NOT NULL REFERENCES documents (id),
    revision        bigint NOT NULL,
    title           bytea NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (caller, idempotency_key)
);
DROP FUNCTION IF EXISTS chopin_list_v1(text, text);
DROP FUNCTION IF EXISTS chopin_read_v1(text, bytea);
"#;

const POSTGRES_V3_IMPLEMENTATIONS: &str = r#"
ALTER TABLE documents ADD COLUMN base_branch text, ADD COLUMN base_commit text;
CREATE TABLE graph_versions (
    document_id   bytea NOT NULL REFERENCES documents (id),
    number        bigint NOT NULL CHECK (number >= 1),
    revision      bigint NOT NULL CHECK (revision >= 1),
    plan_revision bigint NOT NULL,
    state         text NOT NULL,
    tasks         text NOT NULL,
    approved_at   text,
    approved_by   text COLLATE "C",
    PRIMARY KEY (document_id, number)
);
CREATE TABLE graph_revisions (
    document_id   bytea NOT NULL REFERENCES documents (id),
    number        bigint NOT NULL,
    revision      bigint NOT NULL,
    plan_revision bigint NOT NULL,
    tasks         text NOT NULL,
    drafted_at    timestamptz NOT NULL DEFAULT now(),
    drafted_by    text COLLATE "C" NOT NULL,
    PRIMARY KEY (document_id, number, revision)
);
CREATE TABLE implementation_runs (
    run_id         text COLLATE "C" PRIMARY KEY,
    document_id    bytea NOT NULL REFERENCES documents (id),
    graph_number   bigint NOT NULL,
    graph_revision bigint NOT NULL,
    plan_revision  bigint NOT NULL,
    claimer        text COLLATE "C" NOT NULL,
    "user"         text NOT NULL,
    client_name    text NOT NULL,
    client_version text NOT NULL,
    session        text NOT NULL,
    repository     text COLLATE "C" NOT NULL,
    branch         text NOT NULL,
    "commit"       text NOT NULL,
    started_at     text COLLATE "C" NOT NULL,
    ended_at       text
);
CREATE UNIQUE INDEX implementation_runs_active ON implementation_runs (document_id)
    WHERE ended_at IS NULL;
CREATE INDEX implementation_runs_of_document ON implementation_runs (document_id, started_at);
CREATE TABLE implementation_events (
    run_id          text COLLATE "C" NOT NULL REFERENCES implementation_runs (run_id),
    seq             bigint NOT NULL,
    document_id     bytea NOT NULL REFERENCES documents (id),
    tool            text NOT NULL,
    idempotency_key text COLLATE "C" NOT NULL,
    fingerprint     text NOT NULL,
    body            text NOT NULL,
    caller          text COLLATE "C" NOT NULL,
    client          text NOT NULL,
    at              text NOT NULL,
    PRIMARY KEY (run_id, seq),
    UNIQUE (document_id, idempotency_key)
);
DROP FUNCTION IF EXISTS chopin_update_v1(text, bytea, bigint, bytea, bytea, text);
DROP FUNCTION IF EXISTS chopin_update_v2(text, bytea, bigint, bytea, bytea, text);
"#;

const POSTGRES_V3_PLANNER_AND_IMAGES: &str = r#"
CREATE TABLE planner_turns (
    seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id  bytea NOT NULL REFERENCES documents (id),
    caller       text COLLATE "C" NOT NULL,
    client_name    text NOT NULL,
    client_version text NOT NULL,
    instruction  bytea NOT NULL,
    checkout     text,
    requested_at timestamptz NOT NULL DEFAULT now(),
    server       text COLLATE "C" NOT NULL,
    state        text COLLATE "C" NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz,
    exit_status  integer,
    output       bytea
);
CREATE INDEX planner_turns_of_server ON planner_turns (server, state);
CREATE INDEX planner_turns_of_document ON planner_turns (document_id, seq);
CREATE TABLE images (
    repository  text COLLATE "C" NOT NULL,
    sha256      text COLLATE "C" NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    media_type  text NOT NULL,
    size        bigint NOT NULL CHECK (size >= 0),
    bytes       bytea NOT NULL,
    uploaded_by text COLLATE "C" NOT NULL,
    uploaded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repository, sha256)
);
CREATE TABLE document_images (
    document_id bytea NOT NULL REFERENCES documents (id),
    sha256      text COLLATE "C" NOT NULL,
    linked_by   text COLLATE "C" NOT NULL,
    linked_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, sha256)
);
CREATE INDEX document_images_by_digest ON document_images (sha256, document_id);
"#;

/// Version 3's read, list and update functions (`FUNCTIONS` in
/// `postgres/schema.rs`), made by the set-up when missing.
const POSTGRES_FUNCTIONS: [(&str, &str); 3] = [
    (
        "chopin_list_v3(text,text,boolean)",
        r#"CREATE FUNCTION chopin_list_v3(p_caller text, p_repository text, p_archived boolean)
RETURNS TABLE (id bytea, title bytea, archived_at text) LANGUAGE plpgsql STABLE AS $body$
#variable_conflict use_column
BEGIN
    RETURN QUERY SELECT d.id, d.title, d.archived_at FROM documents d
        WHERE d.repository = p_repository AND (d.archived_at IS NULL OR p_archived)
          AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = p_caller
            AND (g.repository = '*' OR g.repository = p_repository))
      UNION ALL
        SELECT NULL::bytea, NULL::bytea, NULL::text WHERE NOT EXISTS (SELECT 1 FROM grants g
          WHERE g.caller = p_caller AND (g.repository = '*' OR g.repository = p_repository));
END
$body$"#,
    ),
    (
        "chopin_read_v3(text,bytea)",
        r#"CREATE FUNCTION chopin_read_v3(p_caller text, p_id bytea)
RETURNS TABLE (id bytea, title bytea, source bytea, revision bigint, brief text,
    archived_at text)
LANGUAGE plpgsql STABLE AS $body$
#variable_conflict use_column
BEGIN
    RETURN QUERY SELECT d.id, d.title, d.source, d.revision,
            CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END, d.archived_at
        FROM documents d
        WHERE d.id = p_id AND EXISTS (SELECT 1 FROM grants g
          WHERE g.caller = p_caller AND (g.repository = '*' OR g.repository = d.repository));
END
$body$"#,
    ),
    (
        "chopin_update_v3(text,bytea,bigint,bytea,bytea,text)",
        r#"CREATE FUNCTION chopin_update_v3(p_caller text, p_id bytea, p_revision bigint,
    p_plan bytea, p_key bytea, p_fingerprint text)
RETURNS TABLE (id bytea, revision bigint, archived boolean, title bytea, brief text,
    same_request boolean, earlier_id bytea, earlier_revision bigint, earlier_title bytea,
    replay_source bytea, replay_brief text, no_op boolean, locked boolean)
LANGUAGE plpgsql AS $body$
#variable_conflict use_column
BEGIN
    -- The document's lock first, as a claim takes it: the query below
    -- (a statement of its own, so a snapshot of its own) sees a run that
    -- a claim committed while this waited.
    PERFORM 1 FROM documents d WHERE d.id = p_id FOR UPDATE;
    RETURN QUERY WITH doc AS (
        SELECT d.id, d.revision, d.archived_at IS NOT NULL AS archived,
            d.source = p_plan AS same_plan,
            EXISTS (SELECT 1 FROM implementation_runs r
              WHERE r.document_id = d.id AND r.ended_at IS NULL) AS locked
        FROM documents d
        WHERE d.id = p_id AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = p_caller
          AND (g.repository = '*' OR g.repository = d.repository))
    ), earlier AS (
        SELECT u.fingerprint, u.document_id, u.revision, u.title FROM updates u
        WHERE u.caller = p_caller AND u.idempotency_key = p_key
    ), changed AS (
        UPDATE documents d SET source = p_plan, revision = p_revision + 1
        FROM doc
        WHERE d.id = doc.id AND d.revision = p_revision AND d.archived_at IS NULL
          AND doc.revision = p_revision AND NOT doc.archived AND NOT doc.locked
          AND NOT doc.same_plan
          AND NOT EXISTS (SELECT 1 FROM earlier)
        RETURNING d.title, CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END AS brief
    ), unchanged AS (
        SELECT d.title, CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END AS brief
        FROM documents d, doc
        WHERE d.id = doc.id AND doc.revision = p_revision AND NOT doc.archived
          AND doc.same_plan AND NOT doc.locked AND NOT EXISTS (SELECT 1 FROM earlier)
    ), kept AS (
        INSERT INTO plan_history (document_id, revision, source, replaced_by)
        SELECT o.id, o.revision, o.source, p_caller FROM documents o, changed
        WHERE o.id = p_id
    ), recorded AS (
        INSERT INTO updates (caller, idempotency_key, fingerprint, document_id, revision, title)
        SELECT p_caller, p_key, p_fingerprint, doc.id, p_revision + 1, changed.title
        FROM doc, changed
        UNION ALL
        SELECT p_caller, p_key, p_fingerprint, doc.id, p_revision, unchanged.title
        FROM doc, unchanged
    )
    SELECT doc.id, doc.revision, doc.archived, coalesce(changed.title, unchanged.title),
        coalesce(changed.brief, unchanged.brief),
        earlier.fingerprint = p_fingerprint, earlier.document_id, earlier.revision,
        earlier.title, replay.source, replay.brief, unchanged.title IS NOT NULL, doc.locked
    FROM (SELECT 1) AS one
    LEFT JOIN doc ON true
    LEFT JOIN changed ON true
    LEFT JOIN unchanged ON true
    LEFT JOIN earlier ON true
    LEFT JOIN LATERAL (
        SELECT CASE WHEN r.revision = earlier.revision THEN r.source
              ELSE (SELECT p.source FROM plan_history p WHERE p.document_id = r.id
                AND p.revision = earlier.revision ORDER BY p.seq DESC LIMIT 1) END AS source,
            CASE WHEN r.created_by IS NULL THEN NULL ELSE r.brief END AS brief
        FROM documents r
        WHERE r.id = earlier.document_id AND earlier.fingerprint = p_fingerprint
    ) AS replay ON true;
END
$body$"#,
    ),
];

/// Version 3's create (`INSERT` in `postgres/create.rs`).
const POSTGRES_CREATE: &str = "INSERT INTO documents (id, repository, title, source, revision,
      created_by, idempotency_key, fingerprint, brief, base_branch, base_commit)
    SELECT $1, $2, $3, $4, 0, $5, $6, $7, $8, $9, $10
    WHERE EXISTS (SELECT 1 FROM grants WHERE caller = $5
      AND (repository = '*' OR repository = $2))
    ON CONFLICT (created_by, idempotency_key) DO NOTHING
    RETURNING id";

/// Version 3's update (`UPDATE` in `postgres/update.rs`).
const POSTGRES_UPDATE: &str = "SELECT * FROM chopin_update_v3($1, $2, $3, $4, $5, $6)";

async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// Writes [`CONTENT`] into the empty PostgreSQL database at `url` as a
/// version 3 server did: the set-up (advisory lock, `chopin_schema`, the
/// schema's steps, version 3, the functions, the tokens, the grants, the
/// import) in one transaction, then a create in another.
pub async fn postgres(url: &str) {
    let mut client = connect(url).await;
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
    for step in [
        POSTGRES_V1,
        POSTGRES_V2,
        POSTGRES_V3_IMPLEMENTATIONS,
        POSTGRES_V3_PLANNER_AND_IMAGES,
    ] {
        tx.batch_execute(step).await.unwrap();
    }
    tx.execute_typed(
        "INSERT INTO chopin_schema (version) VALUES ($1)",
        &[(&3i64, Type::INT8)],
    )
    .await
    .unwrap();
    for (_, create) in POSTGRES_FUNCTIONS {
        tx.batch_execute(create).await.unwrap();
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
            "INSERT INTO plan_history (document_id, revision, source)
             SELECT id, revision, source FROM documents
             WHERE id = $1 AND (source <> $2 OR revision <> $3)",
            &[
                (&id, Type::BYTEA),
                (&source, Type::BYTEA),
                (&revision, Type::INT8),
            ],
        )
        .await
        .unwrap();
        tx.execute_typed(
            "INSERT INTO title_history (document_id, title)
             SELECT id, title FROM documents WHERE id = $1 AND title <> $2",
            &[(&id, Type::BYTEA), (&title, Type::BYTEA)],
        )
        .await
        .unwrap();
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
    let values: [(&(dyn ToSql + Sync), Type); 10] = [
        (&id, Type::BYTEA),
        (&c.repository, Type::TEXT),
        (&title, Type::BYTEA),
        (&source, Type::BYTEA),
        (&c.caller, Type::TEXT),
        (&key, Type::BYTEA),
        (&c.fingerprint, Type::TEXT),
        (&c.brief, Type::TEXT),
        (&c.base_branch, Type::TEXT),
        (&c.base_commit, Type::TEXT),
    ];
    client.batch_execute("BEGIN").await.unwrap();
    let inserted = client
        .query_typed_opt(POSTGRES_CREATE, &values)
        .await
        .unwrap();
    assert!(inserted.is_some(), "the version 3 create inserted");
    client.batch_execute("COMMIT").await.unwrap();
}

/// An update as a version 3 server (still running, say, while others are
/// upgraded) sends it: `chopin_update_v3` in a transaction of its own. The
/// revision it made, or `None` when it applied nothing. Its row is read as
/// version 3 read it: 13 columns, the title (3) set when it applied.
pub async fn postgres_update_v3(
    url: &str,
    caller: &str,
    id: &str,
    revision: i64,
    plan: &str,
    key: &str,
) -> Option<i64> {
    let client = connect(url).await;
    let (id, plan, key) = (id.as_bytes(), plan.as_bytes(), key.as_bytes());
    let values: [(&(dyn ToSql + Sync), Type); 6] = [
        (&caller, Type::TEXT),
        (&id, Type::BYTEA),
        (&revision, Type::INT8),
        (&plan, Type::BYTEA),
        (&key, Type::BYTEA),
        (&"fingerprint-of-a-version-3-update", Type::TEXT),
    ];
    client.batch_execute("BEGIN").await.unwrap();
    let row = client
        .query_typed_one(POSTGRES_UPDATE, &values)
        .await
        .unwrap();
    client.batch_execute("COMMIT").await.unwrap();
    assert_eq!(row.len(), 13, "version 3's update answers 13 columns");
    let title: Option<Vec<u8>> = row.get(3);
    title.map(|_| revision + 1)
}
