//! The PostgreSQL schema, made version by version inside the set-up's
//! transaction (under its advisory lock): a new database goes through the
//! same steps as one written by an earlier server, so the two always have
//! the same layout (`server/tests/store_schema_migration.rs` compares them).

use tokio_postgres::Transaction;
use tokio_postgres::types::Type;

use crate::store::{SCHEMA_VERSION, StoreError};

/// Version 1: documents (with their creation's idempotency record), token
/// digests, grants.
const V1: &str = r#"
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

/// Version 2, from version 1 (nothing is copied or rewritten: columns
/// without a default are added, an index replaced, tables made):
/// - `archived_at` (RFC 3339, as the host gave it) and `archived_by`: a
///   document archived, and by whom; NULL when live;
/// - the list's index holds the live documents only;
/// - `plan_history`: every replaced plan (its revision and source), when and
///   by whom it was replaced (`replaced_by` NULL: by an `--import`);
/// - `title_history`: every replaced title, likewise;
/// - `updates`: the idempotency record of each applied update (caller and
///   key, the request's fingerprint, the revision it made and the title
///   then), kept as long as the document;
/// - the version 1 read and list functions are dropped: a version 1 server
///   still running (it should have been stopped) then fails its reads
///   instead of showing archived documents.
const V2: &str = r#"
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

/// Version 3, from version 2 (IMPLEMENTATION.md §4; columns added, tables
/// made, nothing copied): a document's provenance (`base_branch`,
/// `base_commit`), its graph versions as they stand and every drafted
/// revision, its implementation runs (at most one not ended: the partial
/// unique index) and their events (a key once a document). The earlier
/// update functions are dropped: their successor answers `document-locked`.
const V3_IMPLEMENTATIONS: &str = r#"
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

/// Version 3's other tables: `planner_turns`, each
/// instruction posted to a document's planner (SURFACE.md §9): who asked
/// and with which client (its `clientInfo` name and version), what (`bytea`: an instruction may hold U+0000), the checkout named
/// (recorded, never used), when, the server that holds it, its state
/// (`queued`, `running`, `exited`, `timed-out`, `failed`, `interrupted`),
/// when it started and ended, its exit status and the first 64 KiB of its
/// output. The index finds a server's unfinished turns at start.
///
/// And `images`, one copy of each image per repository and digest, with its
/// type, size, uploader and time; `document_images`, the documents each was
/// uploaded to (the link a reader's access goes through).
const V3_PLANNER_AND_IMAGES: &str = r#"
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

/// Version 4, from version 3 (IMPLEMENTATION.md §4 "Read-only grants"; a
/// column added, nothing copied): `grants.may_write`, false for a read-only
/// grant (`--grant-read`), true for read and write, which every grant made
/// before is.
///
/// Unlike versions 2 and 3, nothing is dropped: the update that answers
/// `forbidden` is a new function, `chopin_update_v4` (see [`FUNCTIONS`]),
/// and version 3's `chopin_update_v3` stays as it was, so replicas can be
/// upgraded one by one. A version 3 replica still running keeps its updates
/// (the function it calls is unchanged); it knows no read-only grant, in
/// this as in its other writes, so `--grant-read` holds once the last one
/// is stopped (a later version may drop `chopin_update_v3`).
/// A version 4 replica never calls `chopin_update_v3`. Redefining that name
/// instead would break either side: PostgreSQL cannot change a function's
/// columns in place, and the set-up makes a function only when its name is
/// missing, so a version 4 replica would find version 3's and call it.
const V4_READ_GRANTS: &str = r#"
ALTER TABLE grants ADD COLUMN may_write boolean NOT NULL DEFAULT true;
"#;

/// Brings a database of schema `found` (0: none) to [`SCHEMA_VERSION`],
/// recording the version reached in `chopin_schema`.
pub(super) async fn migrate(tx: &Transaction<'_>, found: i64) -> Result<(), StoreError> {
    if found < 1 {
        tx.batch_execute(V1).await?;
    }
    if found < 2 {
        tx.batch_execute(V2).await?;
    }
    if found < 3 {
        tx.batch_execute(V3_IMPLEMENTATIONS).await?;
        tx.batch_execute(V3_PLANNER_AND_IMAGES).await?;
    }
    if found < 4 {
        tx.batch_execute(V4_READ_GRANTS).await?;
    }
    tx.execute_typed(
        "INSERT INTO chopin_schema (version) VALUES ($1)",
        &[(&SCHEMA_VERSION, Type::INT8)],
    )
    .await?;
    Ok(())
}

/// The read, list and update statements, as PL/pgSQL functions that the
/// set-up makes when missing (their names carry their version: a change of
/// meaning is a new name). A function's plan is cached inside the server
/// process that runs it, so a read is planned once per server connection,
/// not once per request, without any named statement on the protocol
/// (which a pooler in transaction mode would hand to another connection).
///
/// `list`: the live documents of repository `p_repository` (with
/// `p_archived`, the archived ones too, each with its `archived_at`) when
/// `p_caller` has a grant for it (the grant depends on the repository alone, so it is
/// checked once, not per row), else one row of NULLs: forbidden. `read`:
/// document `p_id` if `p_caller` may see it, archived or not (SURFACE.md
/// §3), with its brief (the one it was created with; none for an imported
/// document, whose `brief` column holds the schema's default) and its
/// `archived_at`.
///
/// `update` (LIFECYCLE.md §2, see `update.rs` for how racers agree): one
/// statement, so one snapshot, taken before any wait. One row: the document
/// `p_caller` may see (id, revision, archived, whether `p_caller` may write
/// it: nothing is written without; NULLs without one); the update made, if
/// it was (its title and brief; NULLs without); and the
/// caller's earlier update under `p_key` (whether its fingerprint is this
/// one, its document, revision and title; with the same fingerprint, the
/// plan of that revision, the current one or the latest kept, and the
/// brief); and whether the plan equals the stored one (a no-op, SURFACE.md
/// §5: nothing stored but the key, at the current revision). The revision
/// is compared and set by the `UPDATE`, which waits for
/// a racing write of the row and then sees its revision. The replaced plan
/// is copied into `plan_history` from the table (the snapshot's row, at
/// revision `p_revision`), not through `doc`: a value read from the table
/// stays as stored (compressed, in TOAST), one carried through a CTE is
/// decompressed and compressed again (milliseconds for a 256 KiB plan).
pub(super) const FUNCTIONS: [(&str, &str); 3] = [
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
        "chopin_update_v4(text,bytea,bigint,bytea,bytea,text)",
        r#"CREATE FUNCTION chopin_update_v4(p_caller text, p_id bytea, p_revision bigint,
    p_plan bytea, p_key bytea, p_fingerprint text)
RETURNS TABLE (id bytea, revision bigint, archived boolean, title bytea, brief text,
    same_request boolean, earlier_id bytea, earlier_revision bigint, earlier_title bytea,
    replay_source bytea, replay_brief text, no_op boolean, locked boolean, writable boolean)
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
              WHERE r.document_id = d.id AND r.ended_at IS NULL) AS locked,
            EXISTS (SELECT 1 FROM grants w WHERE w.caller = p_caller AND w.may_write
              AND (w.repository = '*' OR w.repository = d.repository)) AS writable
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
          AND doc.writable AND NOT doc.same_plan
          AND NOT EXISTS (SELECT 1 FROM earlier)
        RETURNING d.title, CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END AS brief
    ), unchanged AS (
        SELECT d.title, CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END AS brief
        FROM documents d, doc
        WHERE d.id = doc.id AND doc.revision = p_revision AND NOT doc.archived
          AND doc.same_plan AND NOT doc.locked AND doc.writable
          AND NOT EXISTS (SELECT 1 FROM earlier)
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
        earlier.title, replay.source, replay.brief, unchanged.title IS NOT NULL, doc.locked,
        doc.writable
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
