//! The fold of a run's log, the idempotency check before the table, and
//! [`report`]: the whole of §1.2 for one lifecycle call, in its order.

use super::Refusal;
use super::event::{Command, Event};
use super::graph::Task;
use super::run::Run;
use super::state::{Applied, RunState};

/// Folds a run's stored log (oldest first) into its state: each event
/// replayed through [`RunState::apply`] from every task queued. A log that
/// does not fold (a key used twice, an event the table refuses) is
/// [`Refusal::InvalidLifecycle`]. Linear in the log, but for sorting its
/// keys once.
pub fn fold(run: &Run, tasks: &[Task], events: &[Event]) -> Result<RunState, Refusal> {
    let mut state = RunState::new(tasks, &run.repository);
    let mut keys: Vec<&str> = events
        .iter()
        .map(|event| event.idempotency_key.as_str())
        .collect();
    keys.sort_unstable();
    if keys.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err(Refusal::InvalidLifecycle);
    }
    state.count(keys.len() as u64);
    let mut verification = None;
    for event in events {
        if state.apply_keeping(event, false).is_err() {
            return Err(Refusal::InvalidLifecycle);
        }
        if let Command::ReportVerification(reported) = &event.command {
            verification = Some(reported);
        }
    }
    // Copied once: a log of many failed verifications copies only the last.
    if verification.is_some() {
        state.set_verification(verification);
    }
    Ok(state)
}

/// A key's earlier use in the document, as the host stored it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredKey<'a> {
    /// Who used it.
    pub caller: &'a str,
    /// The [`fingerprint`](super::fingerprint) stored with it.
    pub fingerprint: &'a str,
}

/// What the idempotency key allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum KeyUse {
    /// Not used in the document before: go on.
    Fresh,
    /// The same caller sent the same call before: answer the current
    /// projection, append nothing.
    Replayed,
}

/// The check before the table: a key already used anywhere in the document
/// is replayed when the stored caller and fingerprint both equal these,
/// else [`Refusal::IdempotencyConflict`] (another caller's use included).
pub fn check_key(
    stored: Option<StoredKey<'_>>,
    caller: &str,
    fingerprint: &str,
) -> Result<KeyUse, Refusal> {
    match stored {
        None => Ok(KeyUse::Fresh),
        Some(stored) if stored.caller == caller && stored.fingerprint == fingerprint => {
            Ok(KeyUse::Replayed)
        }
        Some(_) => Err(Refusal::IdempotencyConflict),
    }
}

/// The run a lifecycle call names, as the host found it in the document:
/// the run, its graph version's tasks, and its stored log.
#[derive(Debug, Clone, Copy)]
pub struct RunLog<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its graph version's tasks.
    pub tasks: &'a [Task],
    /// Its events, oldest first.
    pub events: &'a [Event],
}

/// One lifecycle call, as the host has it inside its transaction (after the
/// grant and any claimer check).
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The key's earlier use in the document, if any.
    pub stored: Option<StoredKey<'a>>,
    /// The caller.
    pub caller: &'a str,
    /// The call's [`fingerprint`](super::fingerprint).
    pub fingerprint: &'a str,
    /// The run `runId` names in this document, if any.
    pub run: Option<RunLog<'a>>,
    /// The call's idempotency key.
    pub idempotency_key: &'a str,
    /// What it asks.
    pub command: &'a Command,
}

/// What a lifecycle call does.
#[derive(Debug, Clone)]
#[must_use]
pub enum Decision {
    /// The same call was accepted before: answer the current projection.
    Replayed,
    /// Append `event` to the run's log. `state` is the run's state after
    /// it (what the log with the event folds to); when `applied` is
    /// [`Applied::Ended`] the host also ends the run and unlocks its
    /// version.
    Append {
        /// The event to store.
        event: Event,
        /// The run's state with the event.
        state: Box<RunState>,
        /// Whether it ended the run.
        applied: Applied,
    },
}

/// Decides one lifecycle call in §1.2's order: the key (`replayed` or
/// `idempotency-conflict`); the run (`run` when `runId` names none of the
/// document's runs); its log (`invalid-lifecycle`); an ended run's rules
/// (`inactive`, `terminal`, a passed run's `report_pr`); then the table.
pub fn report(call: Report<'_>) -> Result<Decision, Refusal> {
    if check_key(call.stored, call.caller, call.fingerprint)? == KeyUse::Replayed {
        return Ok(Decision::Replayed);
    }
    let log = call.run.ok_or(Refusal::Run)?;
    let mut state = fold(log.run, log.tasks, log.events)?;
    // The host's store had the key (its unique index); the run's log holds
    // it all the same: never append it twice.
    if log
        .events
        .iter()
        .any(|event| event.idempotency_key == call.idempotency_key)
    {
        return Err(Refusal::IdempotencyConflict);
    }
    let event = Event {
        idempotency_key: call.idempotency_key.to_owned(),
        command: call.command.clone(),
    };
    let applied = state.apply(&event)?;
    Ok(Decision::Append {
        event,
        state: Box::new(state),
        applied,
    })
}
