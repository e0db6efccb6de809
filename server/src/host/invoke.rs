//! `invoke_planner` against the store and the planner (SURFACE.md §9): a
//! slot reserved in this process, the turn recorded, the answer given
//! without waiting for the turn.

use chopin_mcp::{InvokeAnswer, InvokePlanner, PlannerDocument, PlannerRefusal};

use std::sync::Arc;

use super::{Caller, Done, Host};
use crate::labels::{InvokeResult, Written};
use crate::options::Options;
use crate::planner::{self, Planner, Slot, Turn, document_url};
use crate::store::{InvokeOutcome, NewTurn, Sqlite, Store, StoreError};

/// The planner, with `--planner-command`: started (its workers idle until
/// a turn is queued), noted in the banner.
pub(super) fn start_planner(
    options: &Options,
    store: &Store,
    notes: &mut Vec<String>,
) -> Result<Option<Arc<Planner>>, String> {
    let Some(planner_options) = &options.planner else {
        return Ok(None);
    };
    let root = planner::work_root(&options.database);
    let owner = planner::owner(&root);
    notes.push(format!(
        "planner: {} (workers {}, queue {}, timeout {} s), working directories in {}",
        planner_options.command,
        planner_options.workers,
        planner_options.queue,
        planner_options.timeout.as_secs(),
        root.display()
    ));
    let public_url = options.public_url.clone();
    let started = Planner::start(
        planner_options.clone(),
        public_url,
        root,
        owner,
        store.clone(),
    )?;
    Ok(Some(started))
}

impl Host {
    /// Notes (and logs) the turns a previous run of this server left
    /// unfinished, now marked `interrupted`: they are not run again.
    pub(super) fn note_interrupted(&mut self, interrupted: usize) {
        if interrupted > 0 {
            planner::log_interrupted(interrupted);
            self.notes.push(format!(
                "planner: {interrupted} turns left unfinished by this server's last run \
                 marked interrupted (not run again)"
            ));
        }
    }
}

impl Host {
    /// Records the turn unless the document is unavailable or archived or
    /// this process has no room, and queues it; answered once it
    /// committed.
    pub(super) async fn invoke(&self, invoke: InvokePlanner<Caller>) -> Result<Done, StoreError> {
        let Some(planner) = self.planner.as_deref() else {
            return Ok(unavailable(invoke));
        };
        let slot = planner.reserve();
        let stored = self
            .store
            .invoke(&new_turn(&invoke, planner, &slot))
            .await?;
        Ok(answer(invoke, planner, slot, stored))
    }
}

/// [`Host::invoke`] on the calling thread, for the blocking server.
pub(super) fn invoke_blocking(
    store: &Sqlite,
    planner: Option<&Planner>,
    invoke: InvokePlanner<Caller>,
) -> Result<Done, StoreError> {
    let Some(planner) = planner else {
        return Ok(unavailable(invoke));
    };
    let slot = planner.reserve();
    let stored = store.invoke(&new_turn(&invoke, planner, &slot))?;
    Ok(answer(invoke, planner, slot, stored))
}

fn new_turn(invoke: &InvokePlanner<Caller>, planner: &Planner, slot: &Option<Slot<'_>>) -> NewTurn {
    NewTurn {
        caller: invoke.caller().to_string(),
        client_name: invoke.client().name.clone(),
        client_version: invoke.client().version.clone(),
        locator: invoke.locator().to_owned(),
        instruction: invoke.instruction().to_owned(),
        checkout: invoke.checkout().map(str::to_owned),
        server: planner.owner().to_owned(),
        admitted: slot.is_some(),
    }
}

/// A server without a planner does not offer the tool; were it called,
/// it has no planner to run.
fn unavailable(invoke: InvokePlanner<Caller>) -> Done {
    let next = invoke.answer(InvokeAnswer::Refused(PlannerRefusal::PlannerUnavailable));
    (Written::Invoke(InvokeResult::Unavailable), next)
}

/// Queues a recorded turn and answers with what the store did, naming the
/// result.
fn answer(
    invoke: InvokePlanner<Caller>,
    planner: &Planner,
    slot: Option<Slot<'_>>,
    stored: InvokeOutcome,
) -> Done {
    let (result, refusal) = match stored {
        InvokeOutcome::Queued {
            turn,
            id,
            title,
            repository,
        } => {
            let url = document_url(planner.public_url(), &id);
            if let Some(slot) = slot {
                slot.queue(Turn {
                    seq: turn,
                    document: id.clone(),
                    repository,
                    caller: invoke.caller().to_string(),
                    instruction: invoke.instruction().to_owned(),
                });
            }
            let document = PlannerDocument {
                id,
                title,
                description: None,
                url,
            };
            let next = invoke.answer(InvokeAnswer::Invoked(&document));
            return (Written::Invoke(InvokeResult::Invoked), next);
        }
        InvokeOutcome::Archived => (InvokeResult::Archived, PlannerRefusal::DocumentArchived),
        InvokeOutcome::QueueFull => (InvokeResult::QueueFull, PlannerRefusal::PlannerQueueFull),
        InvokeOutcome::Forbidden => (InvokeResult::Forbidden, PlannerRefusal::RepositoryForbidden),
        InvokeOutcome::Unavailable => (
            InvokeResult::Unavailable,
            PlannerRefusal::DocumentUnavailable,
        ),
    };
    let next = invoke.answer(InvokeAnswer::Refused(refusal));
    (Written::Invoke(result), next)
}
