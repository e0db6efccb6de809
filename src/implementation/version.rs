//! The graph version transitions of §1.1 as pure functions: each takes the
//! document's latest version and returns the version to store.

use super::Refusal;
use super::graph::{Definition, GraphRefusal, GraphVersion, VersionState};

/// `graph draft`: the definition `definition` on plan revision
/// `plan_revision`, editing the latest draft (`graph_revision` must name
/// its revision) or starting a new version after the latest approved one
/// (`graph_revision`, if given, must name that one's). Refusals in §4's
/// order: `stale-plan` (`plan_revision` is not the plan's current
/// `document_revision`), `stale-graph`, `locked` (a run holds the latest
/// version), then the definition's checks. The version returned replaces
/// the latest (an edit: same number, revision + 1) or is inserted (a new
/// number, revision 1); the approved one stays.
pub fn draft(
    latest: Option<&GraphVersion>,
    document_revision: u64,
    plan_revision: u64,
    graph_revision: Option<u64>,
    definition: Definition,
) -> Result<GraphVersion, GraphRefusal> {
    let refuse = |refusal| GraphRefusal {
        refusal,
        task: None,
    };
    if plan_revision != document_revision {
        return Err(refuse(Refusal::StalePlan));
    }
    let (number, revision) = match latest {
        None if graph_revision.is_none() => (1, 1),
        None => return Err(refuse(Refusal::StaleGraph)),
        Some(latest) => {
            let editing = latest.state == VersionState::Draft;
            let current = graph_revision.is_none_or(|given| given == latest.revision);
            if !current || (editing && graph_revision.is_none()) {
                return Err(refuse(Refusal::StaleGraph));
            }
            if latest.state == VersionState::Locked {
                return Err(refuse(Refusal::Locked));
            }
            if editing {
                (latest.number, latest.revision + 1)
            } else {
                (latest.number + 1, 1)
            }
        }
    };
    definition.check()?;
    Ok(GraphVersion {
        number,
        revision,
        plan_revision,
        state: VersionState::Draft,
        definition,
    })
}

/// `graph approve --version N --revision R`: the latest version must be a
/// draft at exactly (N, R) (`not-draft`), drafted on the plan's current
/// revision (`stale-plan`). The host stores it approved and marks the
/// earlier approved version `superseded`.
pub fn approve(
    latest: Option<&GraphVersion>,
    document_revision: u64,
    number: u64,
    revision: u64,
) -> Result<GraphVersion, Refusal> {
    let draft = latest
        .filter(|latest| {
            latest.state == VersionState::Draft
                && latest.number == number
                && latest.revision == revision
        })
        .ok_or(Refusal::NotDraft)?;
    if draft.plan_revision != document_revision {
        return Err(Refusal::StalePlan);
    }
    Ok(GraphVersion {
        state: VersionState::Approved,
        ..draft.clone()
    })
}

/// A claim locks the latest approved version; any other state is
/// `not-approved`.
pub fn lock(version: &GraphVersion) -> Result<VersionState, Refusal> {
    match version.state {
        VersionState::Approved => Ok(VersionState::Locked),
        _ => Err(Refusal::NotApproved),
    }
}

/// A run's end (`request_revision`, a passing `report_verification`)
/// unlocks its version: `locked` → `approved`; any other state stays.
pub fn unlock(version: &GraphVersion) -> VersionState {
    match version.state {
        VersionState::Locked => VersionState::Approved,
        state => state,
    }
}
