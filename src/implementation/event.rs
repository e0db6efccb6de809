//! The six lifecycle commands and the events they append (`EVENT`): a
//! command is what a tool asks, an event is a command accepted, stored with
//! its idempotency key.

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::Refusal;

/// A pull request's state as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrState {
    /// Open.
    Open,
    /// Merged: every task reporting the same URL is merged too.
    Merged,
    /// Closed without merging.
    Closed,
}

impl PrState {
    /// `open`, `merged` or `closed`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrState::Open => "open",
            PrState::Merged => "merged",
            PrState::Closed => "closed",
        }
    }
}

/// A task's pull request (`PR`): `{url, state}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullRequest {
    /// `https://github.com/<repository>/pull/<n>`, as reported.
    pub url: String,
    /// Its state.
    pub state: PrState,
}

/// The evidence for one task: `{taskId, evidence}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Evidence {
    /// The task.
    pub task_id: String,
    /// What shows it done (1–20 texts).
    pub evidence: Vec<String>,
}

/// A verification report (`VERIF`): `{passed, summary, reviewerMethod,
/// evidence, tasksNeedingWork}`, written in that order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Verification {
    /// Whether the run's work passed.
    pub passed: bool,
    /// What the reviewer found.
    pub summary: String,
    /// How it was reviewed.
    pub reviewer_method: String,
    /// One item per task of the graph, each task once.
    pub evidence: Vec<Evidence>,
    /// The tasks to reopen: unique, tasks of the graph, empty iff `passed`.
    pub tasks_needing_work: Vec<String>,
}

/// What a lifecycle tool asks of a run: its fields, in the tool's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `start_task {taskId}`.
    StartTask {
        /// The task.
        task_id: String,
    },
    /// `block_task {taskId, reason}`.
    BlockTask {
        /// The task.
        task_id: String,
        /// The blocker shown.
        reason: String,
    },
    /// `report_pr {taskId, url, state}`.
    ReportPr {
        /// The task.
        task_id: String,
        /// The pull request's URL.
        url: String,
        /// Its state.
        state: PrState,
    },
    /// `complete_task {taskId, summary}`.
    CompleteTask {
        /// The task.
        task_id: String,
        /// What was done.
        summary: String,
    },
    /// `report_verification {passed, summary, reviewerMethod, evidence,
    /// tasksNeedingWork}`.
    ReportVerification(Verification),
    /// `request_revision {reason}`.
    RequestRevision {
        /// Why the graph goes back for revision.
        reason: String,
    },
}

impl Command {
    /// The tool's name, which is also the event's `kind`.
    pub fn tool(&self) -> &'static str {
        match self {
            Command::StartTask { .. } => "start_task",
            Command::BlockTask { .. } => "block_task",
            Command::ReportPr { .. } => "report_pr",
            Command::CompleteTask { .. } => "complete_task",
            Command::ReportVerification(_) => "report_verification",
            Command::RequestRevision { .. } => "request_revision",
        }
    }

    /// The task the command names, for the four task commands.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Command::StartTask { task_id }
            | Command::BlockTask { task_id, .. }
            | Command::ReportPr { task_id, .. }
            | Command::CompleteTask { task_id, .. } => Some(task_id),
            Command::ReportVerification(_) | Command::RequestRevision { .. } => None,
        }
    }

    /// Writes the command's fields into `map`: in the tool's input order,
    /// or (`event_order`) in `EVENT`'s, where a verification's `summary`
    /// comes before `passed`. The two differ only there.
    pub(crate) fn write_fields<M: SerializeMap>(
        &self,
        map: &mut M,
        event_order: bool,
    ) -> Result<(), M::Error> {
        match self {
            Command::StartTask { task_id } => map.serialize_entry("taskId", task_id),
            Command::BlockTask { task_id, reason } => {
                map.serialize_entry("taskId", task_id)?;
                map.serialize_entry("reason", reason)
            }
            Command::ReportPr {
                task_id,
                url,
                state,
            } => {
                map.serialize_entry("taskId", task_id)?;
                map.serialize_entry("url", url)?;
                map.serialize_entry("state", state)
            }
            Command::CompleteTask { task_id, summary } => {
                map.serialize_entry("taskId", task_id)?;
                map.serialize_entry("summary", summary)
            }
            Command::ReportVerification(verification) => {
                if event_order {
                    map.serialize_entry("summary", &verification.summary)?;
                    map.serialize_entry("passed", &verification.passed)?;
                } else {
                    map.serialize_entry("passed", &verification.passed)?;
                    map.serialize_entry("summary", &verification.summary)?;
                }
                map.serialize_entry("reviewerMethod", &verification.reviewer_method)?;
                map.serialize_entry("evidence", &verification.evidence)?;
                map.serialize_entry("tasksNeedingWork", &verification.tasks_needing_work)
            }
            Command::RequestRevision { reason } => map.serialize_entry("reason", reason),
        }
    }
}

/// A stored event: a command accepted, with its idempotency key. Written
/// (and stored) as `EVENT`: `{kind, idempotencyKey, …fields}`, with no
/// `runId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The key the caller sent; unique in its document.
    pub idempotency_key: String,
    /// What was asked.
    pub command: Command,
}

impl Event {
    /// The event's compact JSON (`EVENT`), as a host stores it.
    pub fn to_json(&self) -> Vec<u8> {
        // Strings, booleans and arrays of them always serialize.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads a stored event: exactly the keys of its kind, each of its
    /// type. Anything else is [`Refusal::InvalidLifecycle`]: a log that
    /// holds it cannot be folded.
    pub fn from_json(text: &[u8]) -> Result<Event, Refusal> {
        let stored: Stored = serde_json::from_slice(text).map_err(|_| Refusal::InvalidLifecycle)?;
        stored.into_event().ok_or(Refusal::InvalidLifecycle)
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", self.command.tool())?;
        map.serialize_entry("idempotencyKey", &self.idempotency_key)?;
        self.command.write_fields(&mut map, true)?;
        map.end()
    }
}

/// `EVENT` as stored: every field optional (but never `null`), none
/// unknown.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Stored {
    kind: String,
    idempotency_key: String,
    #[serde(default, deserialize_with = "present")]
    task_id: Option<String>,
    #[serde(default, deserialize_with = "present")]
    reason: Option<String>,
    #[serde(default, deserialize_with = "present")]
    url: Option<String>,
    #[serde(default, deserialize_with = "present")]
    state: Option<PrState>,
    #[serde(default, deserialize_with = "present")]
    summary: Option<String>,
    #[serde(default, deserialize_with = "present")]
    passed: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    reviewer_method: Option<String>,
    #[serde(default, deserialize_with = "present")]
    evidence: Option<Vec<Evidence>>,
    #[serde(default, deserialize_with = "present")]
    tasks_needing_work: Option<Vec<String>>,
}

/// A member that is there: its value, never `null` (an absent member is
/// `None` by `default`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

impl Stored {
    /// The event, when the fields present are exactly its kind's.
    fn into_event(self) -> Option<Event> {
        let Stored {
            kind,
            idempotency_key,
            task_id,
            reason,
            url,
            state,
            summary,
            passed,
            reviewer_method,
            evidence,
            tasks_needing_work,
        } = self;
        let present = [
            task_id.is_some(),
            reason.is_some(),
            url.is_some(),
            state.is_some(),
            summary.is_some(),
            passed.is_some(),
            reviewer_method.is_some(),
            evidence.is_some(),
            tasks_needing_work.is_some(),
        ];
        //           task   reason url    state  summ   passed method evid   work
        let expected = match kind.as_str() {
            "start_task" => [true, false, false, false, false, false, false, false, false],
            "block_task" => [true, true, false, false, false, false, false, false, false],
            "report_pr" => [true, false, true, true, false, false, false, false, false],
            "complete_task" => [true, false, false, false, true, false, false, false, false],
            "report_verification" => [false, false, false, false, true, true, true, true, true],
            "request_revision" => [false, true, false, false, false, false, false, false, false],
            _ => return None,
        };
        if present != expected {
            return None;
        }
        let command = match kind.as_str() {
            "start_task" => Command::StartTask { task_id: task_id? },
            "block_task" => Command::BlockTask {
                task_id: task_id?,
                reason: reason?,
            },
            "report_pr" => Command::ReportPr {
                task_id: task_id?,
                url: url?,
                state: state?,
            },
            "complete_task" => Command::CompleteTask {
                task_id: task_id?,
                summary: summary?,
            },
            "report_verification" => Command::ReportVerification(Verification {
                passed: passed?,
                summary: summary?,
                reviewer_method: reviewer_method?,
                evidence: evidence?,
                tasks_needing_work: tasks_needing_work?,
            }),
            _ => Command::RequestRevision { reason: reason? },
        };
        Some(Event {
            idempotency_key,
            command,
        })
    }
}
