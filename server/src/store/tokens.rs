//! Bearer tokens in an existing database, for `chopin-mcp-server token`:
//! a token added for a caller (only its SHA-256 digest is stored, as for
//! the one a first start generates), a caller's tokens revoked, the stored
//! tokens listed. Documents and grants are never touched. Each engine's
//! statements are in `sqlite/tokens.rs` and `postgres/tokens.rs`.

use sha2::{Digest, Sha256};

use super::{SCHEMA_VERSION, StoreError};

/// What adding a token found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenAdded {
    /// The caller's grants to read and write (`owner/name`, or `*`), in
    /// order: what the new token may reach.
    pub grants: Vec<String>,
    /// The caller's read-only grants (`--grant-read`), in order.
    pub read_grants: Vec<String>,
}

impl TokenAdded {
    /// From the caller's `(repository, may_write)` grants, in order.
    pub(super) fn from_grants(rows: Vec<(String, bool)>) -> TokenAdded {
        let (written, read): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(_, w)| *w);
        let names = |rows: Vec<(String, bool)>| rows.into_iter().map(|(r, _)| r).collect();
        TokenAdded {
            grants: names(written),
            read_grants: names(read),
        }
    }
}

/// Refuses a database whose schema version (`found`) is not this
/// server's: none yet (never served), an older one (a server's start brings
/// it up to date), or a newer one.
pub(super) fn served(found: i64) -> Result<(), StoreError> {
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema { found });
    }
    if found < SCHEMA_VERSION {
        return Err(not_set_up(found));
    }
    Ok(())
}

/// The refusal of a database whose schema is older than this server's
/// (version 0: a server never set it up).
fn not_set_up(found: i64) -> StoreError {
    StoreError::Invalid(if found == 0 {
        "the database was never set up by a server: start chopin-mcp-server on it once".to_owned()
    } else {
        format!(
            "the database has schema version {found}, older than this server's \
             {SCHEMA_VERSION}: start chopin-mcp-server on it once to bring it up to date"
        )
    })
}

/// The SHA-256 of a bearer token, as lower-case hex: what the store keeps
/// and looks tokens up by.
pub fn token_digest(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut hex = String::with_capacity(2 * digest.len());
    push_hex(&mut hex, &digest);
    hex
}

/// Appends `bytes` as lower-case hex: by table, no allocation of its own
/// (not a `format!` per byte); every request's token and every PostgreSQL
/// query's parameters go through here.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(2 * bytes.len());
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
}
