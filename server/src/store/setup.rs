//! The set-up a server runs at start, on either engine: the schema's
//! version, what it writes after the schema (samples, the first token,
//! grants, an import) and what it found. Each engine's transaction is its
//! `setup.rs`, its tables its `schema.rs`.

use super::{Store, StoreError};

/// The grant that opens every repository.
pub const ALL_REPOSITORIES: &str = "*";

/// The schema this server writes and reads, made at start in place from
/// an earlier one. 1: token digests (SQLite databases without a version are
/// the earlier plain-token layout). 2: archives, the plan and title
/// history, update idempotency records. 3: graph versions, implementation
/// runs and their events (IMPLEMENTATION.md §4), the planner's turns,
/// images and their links to documents. 4: read-only grants
/// (`grants.may_write`; on PostgreSQL the update function
/// `chopin_update_v4`, version 3's left for its replicas still running).
pub const SCHEMA_VERSION: i64 = 4;

/// A document as imported with `--import` (a JSON array of these).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    pub id: String,
    pub repository: String,
    pub title: String,
    pub source: String,
    pub revision: u64,
}

/// A token to store when the database holds none, with the grants of its
/// caller. Only its digest is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstToken {
    pub token: String,
    pub caller: String,
    pub repositories: Vec<String>,
}

/// What a server writes at start, in the set-up transaction (after the
/// schema), in this order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setup {
    /// Inserted when the database is new (its schema made by this set-up).
    pub samples: Vec<Imported>,
    /// Stored when the database holds no token.
    pub first_token: Option<FirstToken>,
    /// `(caller, repositories)` to read and write in (`--grant`).
    pub grants: Vec<(String, Vec<String>)>,
    /// `(caller, repositories)` to read only (`--grant-read`,
    /// IMPLEMENTATION.md §4). Each caller named here or in
    /// [`grants`](Self::grants) has its grants replaced by what the two
    /// name together: a repository named by both is read and write.
    pub read_grants: Vec<(String, Vec<String>)>,
    /// Inserted or replaced, all or none.
    pub import: Vec<Imported>,
}

/// What the set-up found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The schema version found: 0 when there was none.
    pub found_version: i64,
    /// Whether this set-up made the schema (and inserted the samples).
    pub new_database: bool,
    /// Whether [`Setup::first_token`] was stored: print it now, it is never
    /// shown again.
    pub first_token_stored: bool,
    /// Plain tokens of an earlier layout replaced by their digests.
    pub tokens_migrated: usize,
    /// `(digest, caller)` of every stored token.
    pub tokens: Vec<(String, String)>,
}

impl Store {
    /// Replaces `caller`'s grants with `repositories` (`owner/name`, or `*`).
    pub async fn set_grants(
        &self,
        caller: &str,
        repositories: &[String],
    ) -> Result<(), StoreError> {
        let setup = Setup {
            grants: vec![(caller.to_owned(), repositories.to_vec())],
            ..Setup::default()
        };
        self.setup(&setup).await.map(drop)
    }

    /// Inserts or replaces these documents, all or none.
    pub async fn import(&self, documents: &[Imported]) -> Result<(), StoreError> {
        let setup = Setup {
            import: documents.to_vec(),
            ..Setup::default()
        };
        self.setup(&setup).await.map(drop)
    }
}

/// The callers whose grants a set-up replaces, each once, in the order
/// first named ([`Setup::grants`], then [`Setup::read_grants`]).
pub(super) fn granted_callers(setup: &Setup) -> Vec<&str> {
    let mut callers: Vec<&str> = Vec::new();
    for (caller, _) in setup.grants.iter().chain(&setup.read_grants) {
        if !callers.contains(&caller.as_str()) {
            callers.push(caller);
        }
    }
    callers
}

/// An imported document's revision as the engines store it (a signed
/// 64-bit integer).
pub(super) fn stored_revision(doc: &Imported) -> Result<i64, StoreError> {
    i64::try_from(doc.revision).map_err(|_| {
        StoreError::Invalid(format!(
            "document {}: revision {} is out of range",
            doc.id, doc.revision
        ))
    })
}
