//! A run: the immutable record a claim creates (§1, `RUN`).

use serde::{Deserialize, Serialize};

/// The client that claimed a run, as `RUN.client` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Client {
    /// The client's name (`unknown` when it gave none).
    pub name: String,
    /// The client's version (`unknown` when it gave none).
    pub version: String,
}

/// An implementation run, immutable once claimed: `{id, user, client,
/// session, planRevision, graphVersion, graphRevision, repository, branch,
/// commit, startedAt}` (`RUN`, written in that order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Run {
    /// The run id (a ULID from the configured id source).
    pub id: String,
    /// The caller's name as the host knows it.
    pub user: String,
    /// The claiming client.
    pub client: Client,
    /// The session: a handshake-era session id's ULID, or (2026-07-28) the
    /// run's own id.
    pub session: String,
    /// The plan revision claimed.
    pub plan_revision: u64,
    /// The graph version's number.
    pub graph_version: u64,
    /// The graph version's revision.
    pub graph_revision: u64,
    /// `owner/name` of the repository the pull requests belong to.
    pub repository: String,
    /// The branch the agent works on.
    pub branch: String,
    /// The commit it starts from.
    pub commit: String,
    /// When the host recorded the claim (RFC 3339, milliseconds, UTC).
    pub started_at: String,
}
