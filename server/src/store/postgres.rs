//! The PostgreSQL engine: async on the server's tokio runtime
//! (tokio-postgres), with two pools of connections (deadpool-postgres): one
//! for reads, one for creates and the set-up. A read never waits for a
//! connection that a create holds while it waits for its commit.
//!
//! Creates run in READ COMMITTED (the default) and are serialized by the
//! unique key `(created_by, idempotency_key)` alone: `INSERT … ON CONFLICT
//! DO NOTHING` waits for a concurrent uncommitted insert of the same key; if
//! that one commits, this one inserts nothing and the following `SELECT`
//! (a fresh snapshot) sees the winner's row; if it aborts, this one inserts.
//! So replicas on many machines agree without retries, and no table is ever
//! locked against readers. A create is answered only after `COMMIT` returned
//! (with the default `synchronous_commit=on`, the commit is on disk).
//!
//! Text that users choose (id, title, source, idempotency key) is stored as
//! `bytea`: it compares byte-wise whatever the database's collation, and may
//! hold NUL, as it may on SQLite. Repositories and callers are `text
//! COLLATE "C"`.

use std::str::FromStr;
use std::time::Duration;

use chopin_mcp::{Document, DocumentSummary};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::config::SslMode;
use tokio_postgres::{Config, NoTls, Row};

use super::{
    CreateOutcome, Draft, Imported, SCHEMA_VERSION, Setup, Started, StoreError, created,
    revision_of, stored_revision, token_digest,
};

/// Connections per pool at most. PostgreSQL allows 100 by default: two
/// pools of 16 leave room for three replicas.
const POOL_SIZE: usize = 16;
/// How long a request waits for a connection, or for a new one to be made,
/// before it fails (500).
const POOL_TIMEOUT: Duration = Duration::from_secs(10);
/// The connect timeout when the URL gives none.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The advisory lock that serializes set-ups (schema, seed, grants,
/// import) of replicas starting at once: "chopin-m" as a big-endian i64.
const SETUP_LOCK: i64 = i64::from_be_bytes(*b"chopin-m");

/// Schema version 1.
const SCHEMA: &str = r#"
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

/// `list`: the summaries of repository $2 that `caller` ($1) may see; the
/// grant depends on the repository alone, so it is checked once, not per row.
const LIST: &str = "SELECT d.id, d.title FROM documents d
    WHERE d.repository = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = $2))
    ORDER BY d.title, d.id";

/// `read`: document $2 if `caller` ($1) may see it.
const READ: &str = "SELECT d.id, d.title, d.source, d.revision FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))";

/// A PostgreSQL database: a read pool and a write pool.
#[derive(Clone)]
pub struct Postgres {
    read: Pool,
    write: Pool,
}

/// Parses a `postgres://` or `postgresql://` URL (libpq's keys as far as
/// tokio-postgres knows them), refusing what this server cannot honour.
pub fn parse_url(url: &str) -> Result<Config, String> {
    let mut config = Config::from_str(url).map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
    if config.get_ssl_mode() == SslMode::Require {
        return Err(
            "sslmode=require: this server connects without TLS (use a loopback or \
                    private network, or sslmode=disable)"
                .to_owned(),
        );
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("chopin-mcp-server");
    }
    Ok(config)
}

/// Where a URL points, without its password: for messages.
fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(host, port)| match host {
            tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
            tokio_postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
        })
        .collect();
    format!(
        "{}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or("(default database)")
    )
}

fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => StoreError::Postgres(e),
        other => StoreError::Unavailable(other.to_string()),
    }
}

impl Postgres {
    /// Makes the pools and one connection, so that a wrong URL or an
    /// unreachable server is reported at start.
    pub async fn connect(url: &str) -> Result<Postgres, StoreError> {
        let config = parse_url(url).map_err(StoreError::Invalid)?;
        let place = describe(&config);
        let pool = |config: &Config| {
            let manager = Manager::from_config(
                config.clone(),
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(POOL_SIZE)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(POOL_TIMEOUT))
                .create_timeout(Some(POOL_TIMEOUT))
                .recycle_timeout(Some(POOL_TIMEOUT))
                .build()
                .map_err(|e| StoreError::Invalid(format!("cannot make a pool: {e}")))
        };
        let store = Postgres {
            read: pool(&config)?,
            write: pool(&config)?,
        };
        let first = store.write.get().await.map_err(|e| {
            StoreError::Unavailable(format!("cannot connect to {place}: {}", pool_error(e)))
        })?;
        drop(first); // back to the pool, for the set-up

        Ok(store)
    }

    /// Sets up or checks the schema and applies `setup`, in one transaction
    /// that first takes an advisory lock: replicas starting at once take
    /// turns, and the first makes the schema.
    pub async fn setup(&self, setup: &Setup) -> Result<Started, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SETUP_LOCK])
            .await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS chopin_schema (
                 version bigint NOT NULL,
                 upgraded_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .await?;
        let found_version: i64 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM chopin_schema", &[])
            .await?
            .get(0);
        if found_version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found: found_version,
            });
        }
        let new_database = found_version == 0;
        if new_database {
            tx.batch_execute(SCHEMA).await?;
            tx.execute(
                "INSERT INTO chopin_schema (version) VALUES ($1)",
                &[&SCHEMA_VERSION],
            )
            .await?;
            import(&tx, &setup.samples).await?;
        }
        let mut first_token_stored = false;
        if let Some(first) = &setup.first_token {
            let none: bool = tx
                .query_one("SELECT NOT EXISTS (SELECT 1 FROM tokens)", &[])
                .await?
                .get(0);
            if none {
                tx.execute(
                    "INSERT INTO tokens (token_sha256, caller) VALUES ($1, $2)",
                    &[&token_digest(&first.token), &first.caller],
                )
                .await?;
                set_grants(&tx, &first.caller, &first.repositories).await?;
                first_token_stored = true;
            }
        }
        for (caller, repositories) in &setup.grants {
            set_grants(&tx, caller, repositories).await?;
        }
        import(&tx, &setup.import).await?;
        let tokens = tx
            .query(
                "SELECT token_sha256, caller FROM tokens ORDER BY caller, token_sha256",
                &[],
            )
            .await?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        tx.commit().await?;
        Ok(Started {
            found_version,
            new_database,
            first_token_stored,
            tokens_migrated: 0,
            tokens,
        })
    }

    /// See [`super::Store::list`].
    pub async fn list(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Vec<DocumentSummary>, StoreError> {
        let client = self.read.get().await.map_err(pool_error)?;
        let statement = client.prepare_cached(LIST).await?;
        let rows = client.query(&statement, &[&caller, &repository]).await?;
        rows.iter()
            .map(|row| {
                Ok(DocumentSummary {
                    id: text(row, 0)?,
                    title: text(row, 1)?,
                })
            })
            .collect()
    }

    /// See [`super::Store::read`].
    pub async fn read(&self, caller: &str, id: &str) -> Result<Option<Document>, StoreError> {
        let client = self.read.get().await.map_err(pool_error)?;
        let statement = client.prepare_cached(READ).await?;
        let row = client
            .query_opt(&statement, &[&caller, &id.as_bytes()])
            .await?;
        row.map(|row| document_row(&row)).transpose()
    }

    /// See [`super::Store::ready`]: one trivial query on the read pool.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let client = self.read.get().await.map_err(pool_error)?;
        client.query_one("SELECT count(*) FROM tokens", &[]).await?;
        Ok(())
    }

    /// See [`super::Store::create`].
    pub async fn create(
        &self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let granted = client
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM grants WHERE caller = $1
                   AND (repository = '*' OR repository = $2))",
            )
            .await?;
        let insert = client
            .prepare_cached(
                "INSERT INTO documents (id, repository, title, source, revision,
                   created_by, idempotency_key, fingerprint, brief)
                 VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8)
                 ON CONFLICT (created_by, idempotency_key) DO NOTHING
                 RETURNING id",
            )
            .await?;
        let earlier = client
            .prepare_cached(
                "SELECT d.id, d.title, d.source, d.revision, d.fingerprint, d.brief
                 FROM documents d WHERE d.created_by = $1 AND d.idempotency_key = $2",
            )
            .await?;
        // A dropped transaction (an early return, an error) rolls back.
        let tx = client.transaction().await?;
        let allowed: bool = tx
            .query_one(&granted, &[&caller, &draft.repository])
            .await?
            .get(0);
        if !allowed {
            return Ok(CreateOutcome::Forbidden);
        }
        let key = draft.idempotency_key.as_bytes();
        let inserted = tx
            .query_opt(
                &insert,
                &[
                    &id.as_bytes(),
                    &draft.repository,
                    &draft.title.as_bytes(),
                    &draft.source.as_bytes(),
                    &caller,
                    &key,
                    &draft.fingerprint,
                    &draft.brief,
                ],
            )
            .await?;
        if inserted.is_some() {
            tx.commit().await?;
            let document = Document {
                id: id.to_owned(),
                title: draft.title.clone(),
                source: draft.source.clone(),
                revision: 0,
            };
            return Ok(CreateOutcome::New(created(document, draft.brief.clone())));
        }
        // The key is taken by a committed row (ON CONFLICT waited for it).
        let row = tx
            .query_opt(&earlier, &[&caller, &key])
            .await?
            .ok_or_else(|| {
                StoreError::Invalid("a conflicting creation is not visible".to_owned())
            })?;
        tx.commit().await?;
        let fingerprint: Option<String> = row.get(4);
        if fingerprint.as_deref() != Some(draft.fingerprint.as_str()) {
            return Ok(CreateOutcome::Conflict);
        }
        let brief: String = row.get(5);
        Ok(CreateOutcome::Replayed(created(document_row(&row)?, brief)))
    }
}

async fn set_grants(
    tx: &deadpool_postgres::Transaction<'_>,
    caller: &str,
    repositories: &[String],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM grants WHERE caller = $1", &[&caller])
        .await?;
    for repository in repositories {
        tx.execute(
            "INSERT INTO grants (caller, repository) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&caller, repository],
        )
        .await?;
    }
    Ok(())
}

async fn import(
    tx: &deadpool_postgres::Transaction<'_>,
    documents: &[Imported],
) -> Result<(), StoreError> {
    for doc in documents {
        tx.execute(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            &[
                &doc.id.as_bytes(),
                &doc.repository,
                &doc.title.as_bytes(),
                &doc.source.as_bytes(),
                &stored_revision(doc)?,
            ],
        )
        .await?;
    }
    Ok(())
}

/// A `bytea` column written from a Rust string, as that string.
fn text(row: &Row, column: usize) -> Result<String, StoreError> {
    let bytes: Vec<u8> = row.try_get(column)?;
    String::from_utf8(bytes)
        .map_err(|_| StoreError::Invalid(format!("stored column {column} is not UTF-8")))
}

fn document_row(row: &Row) -> Result<Document, StoreError> {
    Ok(Document {
        id: text(row, 0)?,
        title: text(row, 1)?,
        source: text(row, 2)?,
        revision: revision_of(row.try_get(3)?),
    })
}
