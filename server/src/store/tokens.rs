//! Bearer tokens in an existing database, for `chopin-mcp-server token`:
//! a token added for a caller (only its SHA-256 digest is stored, as for
//! the one a first start generates), a caller's tokens revoked, the stored
//! tokens listed. Documents and grants are never touched. Each engine's
//! statements are in `sqlite/tokens.rs` and `postgres/tokens.rs`.

use super::{SCHEMA_VERSION, Store, StoreError};

/// What adding a token found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenAdded {
    /// The caller's grants (`owner/name`, or `*`), in order: what the new
    /// token may reach.
    pub grants: Vec<String>,
}

/// The refusal of a database whose schema is older than this server's
/// (version 0: a server never set it up).
pub(crate) fn not_set_up(found: i64) -> StoreError {
    StoreError::Invalid(if found == 0 {
        "the database was never set up by a server: start chopin-mcp-server on it once".to_owned()
    } else {
        format!(
            "the database has schema version {found}, older than this server's \
             {SCHEMA_VERSION}: start chopin-mcp-server on it once to bring it up to date"
        )
    })
}

impl Store {
    /// Stores `token`'s digest for `caller`, in a database a server has set
    /// up, and says what the caller may reach. A running server reads its
    /// tokens when it starts.
    pub async fn add_token(&self, token: &str, caller: &str) -> Result<TokenAdded, StoreError> {
        match self {
            Store::Sqlite(store) => store.add_token(token, caller),
            Store::Postgres(store) => store.add_token(token, caller).await,
        }
    }

    /// Removes every stored token of `caller`; how many there were.
    pub async fn revoke_tokens(&self, caller: &str) -> Result<usize, StoreError> {
        match self {
            Store::Sqlite(store) => store.revoke_tokens(caller),
            Store::Postgres(store) => store.revoke_tokens(caller).await,
        }
    }

    /// `(digest, caller)` of every stored token, by caller then digest.
    pub async fn stored_tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        match self {
            Store::Sqlite(store) => store.stored_tokens(),
            Store::Postgres(store) => store.stored_tokens().await,
        }
    }
}
