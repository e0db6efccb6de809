//! The claim (§2.4 StartImplementation): the checks after the host's own
//! (`unavailable`, `forbidden`, `archived`), in their order.

use super::Refusal;
use super::graph::{GraphVersion, VersionState};
use super::run::Run;
use super::state::RunState;

/// What a claim names: `{planRevision, graphVersion, graphRevision}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimRequest {
    /// The plan revision the agent read.
    pub plan_revision: u64,
    /// The graph version's number it read.
    pub graph_version: u64,
    /// That version's revision.
    pub graph_revision: u64,
}

/// The document as the host read it under its lock.
#[derive(Debug, Clone, Copy)]
pub struct Claimable<'a> {
    /// The plan's current revision.
    pub plan_revision: u64,
    /// The document's active run, if one is.
    pub active: Option<&'a Run>,
    /// The document's latest graph version (the highest number), if any.
    pub latest: Option<&'a GraphVersion>,
    /// Whether a run on the latest version passed verification
    /// ([`verified`]).
    pub latest_verified: bool,
}

/// A claim's answer when nothing refused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Claim<'a> {
    /// A run is active already, whatever the revisions named: answer
    /// `{"state":"active","run":…}`, change nothing.
    Active(&'a Run),
    /// Start a run: the host mints its id and time, stores it, locks the
    /// latest version ([`lock`](super::lock)), and answers
    /// `{"state":"started","run":…}`.
    Start,
}

/// The claim's checks in §2.4's order: active(run); `already-verified`;
/// `stale-plan` (the plan moved on); `missing` (no graph); `stale-graph`
/// (another revision of the latest version); `not-approved`; `stale-plan`
/// (the version was drafted on another plan revision); `run` (the version
/// named is not the latest); started.
pub fn claim<'a>(document: Claimable<'a>, request: ClaimRequest) -> Result<Claim<'a>, Refusal> {
    if let Some(run) = document.active {
        return Ok(Claim::Active(run));
    }
    if document.latest.is_some() && document.latest_verified {
        return Err(Refusal::AlreadyVerified);
    }
    if request.plan_revision != document.plan_revision {
        return Err(Refusal::StalePlan);
    }
    let latest = document.latest.ok_or(Refusal::Missing)?;
    if latest.revision != request.graph_revision {
        return Err(Refusal::StaleGraph);
    }
    if latest.state != VersionState::Approved {
        return Err(Refusal::NotApproved);
    }
    if latest.plan_revision != request.plan_revision {
        return Err(Refusal::StalePlan);
    }
    if latest.number != request.graph_version {
        return Err(Refusal::Run);
    }
    Ok(Claim::Start)
}

/// Whether a run on graph version `number` passed verification, among a
/// document's runs and their folded states: what
/// [`Claimable::latest_verified`] asks of the latest version. A version
/// that passed is never claimable again; one whose run requested a
/// revision is.
pub fn verified<'a>(number: u64, runs: impl IntoIterator<Item = (&'a Run, &'a RunState)>) -> bool {
    runs.into_iter()
        .any(|(run, state)| run.graph_version == number && state.phase().passed())
}
