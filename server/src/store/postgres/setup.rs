//! The set-up on PostgreSQL: under an advisory lock, the schema made or
//! migrated and the functions made ([`super::schema`]), then the samples,
//! the first token, grants and an import, in one transaction.

use tokio_postgres::types::Type;
use tokio_postgres::{Client, Transaction};

use super::{Postgres, pool_error, schema, tokens};
use crate::store::setup::{granted_callers, stored_revision};
use crate::store::{Imported, SCHEMA_VERSION, Setup, Started, StoreError, token_digest};

/// The advisory lock that serializes set-ups (schema, seed, grants,
/// import) of replicas starting at once: "chopin-m" as a big-endian i64.
const SETUP_LOCK: i64 = i64::from_be_bytes(*b"chopin-m");

impl Postgres {
    /// Sets up or checks the schema and applies `setup`, in one transaction
    /// that first takes an advisory lock: replicas starting at once take
    /// turns, and the first makes the schema. The lock is the transaction's
    /// (it ends with it, also behind a pooler in transaction mode), and the
    /// transaction has no statement timeout: waiting for another replica's
    /// set-up and a large `--import` may take long.
    pub async fn setup(&self, setup: &Setup) -> Result<Started, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let client: &mut Client = &mut client;
        let tx = client.transaction().await?;
        let (exempt, locked) = tokio::join!(
            biased;
            tx.batch_execute("SET LOCAL statement_timeout = 0"),
            tx.execute_typed("SELECT pg_advisory_xact_lock($1)", &[(&SETUP_LOCK, Type::INT8)]),
        );
        exempt?;
        locked?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS chopin_schema (
                 version bigint NOT NULL,
                 upgraded_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .await?;
        let found_version: i64 = tx
            .query_typed_one("SELECT coalesce(max(version), 0) FROM chopin_schema", &[])
            .await?
            .get(0);
        if found_version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found: found_version,
            });
        }
        let new_database = found_version == 0;
        if found_version < SCHEMA_VERSION {
            schema::migrate(&tx, found_version).await?;
        }
        if new_database {
            import(&tx, &setup.samples).await?;
        }
        for (signature, create) in schema::FUNCTIONS {
            let missing: bool = tx
                .query_typed_one(
                    "SELECT to_regprocedure($1) IS NULL",
                    &[(&signature, Type::TEXT)],
                )
                .await?
                .get(0);
            if missing {
                tx.batch_execute(create).await?;
            }
        }
        let mut first_token_stored = false;
        if let Some(first) = &setup.first_token {
            let none: bool = tx
                .query_typed_one("SELECT NOT EXISTS (SELECT 1 FROM tokens)", &[])
                .await?
                .get(0);
            if none {
                tx.execute_typed(
                    "INSERT INTO tokens (token_sha256, caller) VALUES ($1, $2)",
                    &[
                        (&token_digest(&first.token), Type::TEXT),
                        (&first.caller, Type::TEXT),
                    ],
                )
                .await?;
                set_grants(&tx, &first.caller, &first.repositories).await?;
                first_token_stored = true;
            }
        }
        replace_grants(&tx, setup).await?;
        import(&tx, &setup.import).await?;
        let tokens = tokens::token_rows(&tx).await?;
        tx.commit().await?;
        Ok(Started {
            found_version,
            new_database,
            first_token_stored,
            tokens_migrated: 0,
            tokens,
        })
    }
}

async fn set_grants(
    tx: &Transaction<'_>,
    caller: &str,
    repositories: &[String],
) -> Result<(), StoreError> {
    tx.execute_typed(
        "DELETE FROM grants WHERE caller = $1",
        &[(&caller, Type::TEXT)],
    )
    .await?;
    for repository in repositories {
        tx.execute_typed(
            "INSERT INTO grants (caller, repository) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[(&caller, Type::TEXT), (repository, Type::TEXT)],
        )
        .await?;
    }
    Ok(())
}

/// Replaces the grants of every caller [`Setup`] names: read and write
/// where `--grant` names the repository, read only where `--grant-read`
/// alone does.
async fn replace_grants(tx: &Transaction<'_>, setup: &Setup) -> Result<(), StoreError> {
    for caller in granted_callers(setup) {
        tx.execute_typed(
            "DELETE FROM grants WHERE caller = $1",
            &[(&caller, Type::TEXT)],
        )
        .await?;
    }
    let written = setup.grants.iter().map(|grant| (grant, true));
    let read = setup.read_grants.iter().map(|grant| (grant, false));
    for ((caller, repositories), may_write) in written.chain(read) {
        for repository in repositories {
            tx.execute_typed(
                "INSERT INTO grants (caller, repository, may_write) VALUES ($1, $2, $3)
                 ON CONFLICT (caller, repository)
                 DO UPDATE SET may_write = grants.may_write OR excluded.may_write",
                &[
                    (caller, Type::TEXT),
                    (repository, Type::TEXT),
                    (&may_write, Type::BOOL),
                ],
            )
            .await?;
        }
    }
    Ok(())
}

async fn import(tx: &Transaction<'_>, documents: &[Imported]) -> Result<(), StoreError> {
    for doc in documents {
        let (id, title, source) = (
            doc.id.as_bytes(),
            doc.title.as_bytes(),
            doc.source.as_bytes(),
        );
        let revision = stored_revision(doc)?;
        // What an import replaces is kept, as what a write replaces.
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
        .await?;
        tx.execute_typed(
            "INSERT INTO title_history (document_id, title)
             SELECT id, title FROM documents WHERE id = $1 AND title <> $2",
            &[(&id, Type::BYTEA), (&title, Type::BYTEA)],
        )
        .await?;
        tx.execute_typed(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            &[
                (&id, Type::BYTEA),
                (&doc.repository, Type::TEXT),
                (&title, Type::BYTEA),
                (&source, Type::BYTEA),
                (&revision, Type::INT8),
            ],
        )
        .await?;
    }
    Ok(())
}
