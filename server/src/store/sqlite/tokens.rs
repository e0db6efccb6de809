//! The token table on SQLite, for `chopin-mcp-server token`: add and
//! revoke, each one `BEGIN IMMEDIATE` transaction (a running server's own
//! writes wait their turn, as another process's would), and list, on a
//! database a server has set up.

use rusqlite::{Transaction, TransactionBehavior, params};

use super::{OnRuntime, Sqlite};
use crate::store::tokens::served;
use crate::store::{StoreError, TokenAdded, token_digest};

impl Sqlite {
    /// See [`crate::store::Store::add_token`].
    pub fn add_token(&self, token: &str, caller: &str) -> Result<TokenAdded, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        set_up(&tx)?;
        tx.execute(
            "INSERT INTO tokens (token_sha256, caller) VALUES (?1, ?2)",
            params![token_digest(token), caller],
        )?;
        let grants = {
            let mut statement = tx.prepare(
                "SELECT repository, may_write FROM grants WHERE caller = ?1 ORDER BY repository",
            )?;
            let rows = statement.query_map([caller], |row| Ok((row.get(0)?, row.get(1)?)))?;
            rows.collect::<Result<Vec<(String, bool)>, _>>()?
        };
        tx.commit()?;
        Ok(TokenAdded::from_grants(grants))
    }

    /// See [`crate::store::Store::revoke_tokens`].
    pub fn revoke_tokens(&self, caller: &str) -> Result<usize, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        set_up(&tx)?;
        let revoked = tx.execute("DELETE FROM tokens WHERE caller = ?1", [caller])?;
        tx.commit()?;
        Ok(revoked)
    }

    /// See [`crate::store::Store::stored_tokens`].
    pub fn stored_tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction()?;
        set_up(&tx)?;
        let tokens = token_rows(&tx)?;
        tx.commit()?;
        Ok(tokens)
    }
}

/// Every stored token as `(digest, caller)`, by caller.
pub(super) fn token_rows(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut statement =
        conn.prepare("SELECT token_sha256, caller FROM tokens ORDER BY caller, token_sha256")?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}

/// Refuses a database whose schema is not this server's: none yet (never
/// served), an older one (a server's start brings it up to date), or a
/// newer one.
fn set_up(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    served(version)
}

impl OnRuntime<'_> {
    /// See [`Sqlite::add_token`]: inline.
    pub(in crate::store) async fn add_token(
        self,
        token: &str,
        caller: &str,
    ) -> Result<TokenAdded, StoreError> {
        self.0.add_token(token, caller)
    }

    /// See [`Sqlite::revoke_tokens`]: inline.
    pub(in crate::store) async fn revoke_tokens(self, caller: &str) -> Result<usize, StoreError> {
        self.0.revoke_tokens(caller)
    }

    /// See [`Sqlite::stored_tokens`]: inline.
    pub(in crate::store) async fn stored_tokens(self) -> Result<Vec<(String, String)>, StoreError> {
        self.0.stored_tokens()
    }
}
