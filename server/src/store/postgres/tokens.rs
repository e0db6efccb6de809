//! The token table on PostgreSQL, for `chopin-mcp-server token`: add,
//! revoke and list, each one transaction on a database a server has set up.

use tokio_postgres::Transaction;
use tokio_postgres::types::Type;

use super::{Postgres, pool_error};
use crate::store::tokens::served;
use crate::store::{StoreError, TokenAdded, token_digest};

impl Postgres {
    /// See [`crate::store::Store::add_token`].
    pub async fn add_token(&self, token: &str, caller: &str) -> Result<TokenAdded, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        set_up(&tx).await?;
        let digest = token_digest(token);
        tx.execute_typed(
            "INSERT INTO tokens (token_sha256, caller) VALUES ($1, $2)",
            &[(&digest, Type::TEXT), (&caller, Type::TEXT)],
        )
        .await?;
        let grants = tx
            .query_typed(
                "SELECT repository, may_write FROM grants WHERE caller = $1 ORDER BY repository",
                &[(&caller, Type::TEXT)],
            )
            .await?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        tx.commit().await?;
        Ok(TokenAdded::from_grants(grants))
    }

    /// See [`crate::store::Store::revoke_tokens`].
    pub async fn revoke_tokens(&self, caller: &str) -> Result<usize, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        set_up(&tx).await?;
        let revoked = tx
            .execute_typed(
                "DELETE FROM tokens WHERE caller = $1",
                &[(&caller, Type::TEXT)],
            )
            .await?;
        tx.commit().await?;
        Ok(usize::try_from(revoked).unwrap_or(usize::MAX))
    }

    /// See [`crate::store::Store::stored_tokens`].
    pub async fn stored_tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let tx = client.transaction().await?;
        set_up(&tx).await?;
        let tokens = token_rows(&tx).await?;
        tx.commit().await?;
        Ok(tokens)
    }
}

/// Every stored token as `(digest, caller)`, by caller.
pub(super) async fn token_rows(
    tx: &Transaction<'_>,
) -> Result<Vec<(String, String)>, tokio_postgres::Error> {
    let rows = tx
        .query_typed(
            "SELECT token_sha256, caller FROM tokens ORDER BY caller, token_sha256",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// Refuses a database whose schema is not this server's (see the SQLite
/// engine's): the version a server's set-up recorded, none when it never
/// ran here.
async fn set_up(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let recorded: bool = tx
        .query_typed_one("SELECT to_regclass('chopin_schema') IS NOT NULL", &[])
        .await?
        .get(0);
    let version: i64 = if recorded {
        tx.query_typed_one("SELECT coalesce(max(version), 0) FROM chopin_schema", &[])
            .await?
            .get(0)
    } else {
        0
    };
    served(version)
}
