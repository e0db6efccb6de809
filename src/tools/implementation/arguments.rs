//! The implementation tools' argument checks (IMPLEMENTATION.md §2.2):
//! exactly the schema's keys (the last of a duplicate wins), each of its
//! type and within its limits, strings not blank, lengths in scalar values,
//! `id` kept as sent. Each reader walks its arguments once.

use crate::implementation::{Command, Event, Evidence, PrState, Verification};
use crate::json::{self, Raw};
use crate::record::Arguments;
use crate::tools::list::is_repository;
use crate::tools::{locator, revision, text};

/// An id argument's most scalar values.
const ID: usize = 128;
/// A text argument's most scalar values.
const TEXT: usize = 5000;
/// The most evidence items, and tasks needing work.
const MAX_ITEMS: usize = 200;
/// The most evidence lines per task.
const MAX_LINES: usize = 20;
/// The most scalar values of a branch, and of a commit.
const MAX_BRANCH: usize = 255;
const MAX_COMMIT: usize = 64;

/// What `start_implementation` asks (IMPLEMENTATION.md §2.4): the claim of
/// the document's current approved graph, at the revisions the caller read,
/// for work on `branch` at `commit` of `repository`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartRequest {
    /// The document's id, as sent.
    pub id: String,
    /// The plan revision the caller read.
    pub plan_revision: u64,
    /// The graph version the caller read.
    pub graph_version: u64,
    /// That version's revision.
    pub graph_revision: u64,
    /// The repository, `owner/name`.
    pub repository: String,
    /// The branch the work is on.
    pub branch: String,
    /// The commit it starts from.
    pub commit: String,
}

/// What a lifecycle tool asks, as read: the document and run it names and
/// the event to record.
pub(crate) struct Lifecycle {
    pub id: String,
    pub run_id: String,
    pub event: Event,
}

/// `read_implementation`'s `{id}`: a locator.
pub(crate) fn read(arguments: &Arguments<'_>) -> Option<String> {
    let members = arguments.members(["id"])?;
    if members.other {
        return None;
    }
    locator(members.values[0]?)
}

/// `start_implementation`'s seven arguments.
pub(crate) fn start(raw: Raw<'_>) -> Option<StartRequest> {
    let members = json::members(
        raw,
        [
            "id",
            "planRevision",
            "graphVersion",
            "graphRevision",
            "repository",
            "branch",
            "commit",
        ],
    )?;
    if members.other {
        return None;
    }
    let [
        id,
        plan,
        version,
        graph_revision,
        repository,
        branch,
        commit,
    ] = members.values;
    let at_least_one = |raw: Option<Raw<'_>>| revision::revision(raw?.get()).filter(|n| *n >= 1);
    let repository = json::string(repository?)?;
    Some(StartRequest {
        id: text(id?, ID)?,
        plan_revision: revision::revision(plan?.get())?,
        graph_version: at_least_one(version)?,
        graph_revision: at_least_one(graph_revision)?,
        repository: is_repository(&repository).then(|| repository.into_owned())?,
        branch: text(branch?, MAX_BRANCH)?,
        commit: text(commit?, MAX_COMMIT)?,
    })
}

/// Exactly the members `keys` names, each present.
fn exactly<'a, const N: usize>(raw: Raw<'a>, keys: [&str; N]) -> Option<[Raw<'a>; N]> {
    let members = json::members(raw, keys)?;
    if members.other {
        return None;
    }
    let mut values = [Raw::new("null"); N];
    for (value, found) in values.iter_mut().zip(members.values) {
        *value = found?;
    }
    Some(values)
}

/// A lifecycle tool's arguments: `id`, `runId`, the tool's own fields in
/// schema order and `idempotencyKey`, exactly. `None` for a tool that is not
/// a lifecycle tool, or arguments that fail its schema.
pub(crate) fn lifecycle(tool: &str, raw: Raw<'_>) -> Option<Lifecycle> {
    let (id, run_id, key, command) = match tool {
        "start_task" => {
            let [id, run, task, key] = exactly(raw, ["id", "runId", "taskId", "idempotencyKey"])?;
            let task_id = text(task, ID)?;
            (id, run, key, Command::StartTask { task_id })
        }
        "block_task" => {
            let keys = ["id", "runId", "taskId", "reason", "idempotencyKey"];
            let [id, run, task, reason, key] = exactly(raw, keys)?;
            let command = Command::BlockTask {
                task_id: text(task, ID)?,
                reason: text(reason, TEXT)?,
            };
            (id, run, key, command)
        }
        "report_pr" => {
            let keys = ["id", "runId", "taskId", "url", "state", "idempotencyKey"];
            let [id, run, task, url, state, key] = exactly(raw, keys)?;
            let command = Command::ReportPr {
                task_id: text(task, ID)?,
                url: locator(url)?,
                state: pr_state(state)?,
            };
            (id, run, key, command)
        }
        "complete_task" => {
            let keys = ["id", "runId", "taskId", "summary", "idempotencyKey"];
            let [id, run, task, summary, key] = exactly(raw, keys)?;
            let command = Command::CompleteTask {
                task_id: text(task, ID)?,
                summary: text(summary, TEXT)?,
            };
            (id, run, key, command)
        }
        "report_verification" => {
            let keys = [
                "id",
                "runId",
                "passed",
                "summary",
                "reviewerMethod",
                "evidence",
                "tasksNeedingWork",
                "idempotencyKey",
            ];
            let [id, run, passed, summary, method, evidence_raw, work, key] = exactly(raw, keys)?;
            let command = Command::ReportVerification(Verification {
                passed: boolean(passed)?,
                summary: text(summary, TEXT)?,
                reviewer_method: text(method, TEXT)?,
                evidence: evidence(evidence_raw)?,
                tasks_needing_work: list(work, 0, MAX_ITEMS, |raw| text(raw, ID))?,
            });
            (id, run, key, command)
        }
        "request_revision" => {
            let [id, run, reason, key] = exactly(raw, ["id", "runId", "reason", "idempotencyKey"])?;
            let reason = text(reason, TEXT)?;
            (id, run, key, Command::RequestRevision { reason })
        }
        _ => return None,
    };
    Some(Lifecycle {
        id: text(id, ID)?,
        run_id: text(run_id, ID)?,
        event: Event {
            idempotency_key: text(key, ID)?,
            command,
        },
    })
}

/// `open`, `merged` or `closed`, exactly.
fn pr_state(raw: Raw<'_>) -> Option<PrState> {
    match &*json::string(raw)? {
        "open" => Some(PrState::Open),
        "merged" => Some(PrState::Merged),
        "closed" => Some(PrState::Closed),
        _ => None,
    }
}

fn boolean(raw: Raw<'_>) -> Option<bool> {
    match raw.get() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// An array of `least`–`most` items, each read by `item`. Stops reading at
/// the first item past `most`.
fn list<T>(
    raw: Raw<'_>,
    least: usize,
    most: usize,
    item: impl Fn(Raw<'_>) -> Option<T>,
) -> Option<Vec<T>> {
    let mut items = Vec::new();
    for element in json::elements(raw)? {
        if items.len() == most {
            return None;
        }
        items.push(item(element)?);
    }
    (items.len() >= least).then_some(items)
}

/// `evidence`: 1–200 items, each exactly `{taskId, evidence}` with 1–20
/// lines.
fn evidence(raw: Raw<'_>) -> Option<Vec<Evidence>> {
    list(raw, 1, MAX_ITEMS, |item| {
        let members = json::members(item, ["taskId", "evidence"])?;
        if members.other {
            return None;
        }
        let [task, lines] = members.values;
        Some(Evidence {
            task_id: text(task?, ID)?,
            evidence: list(lines?, 1, MAX_LINES, |line| text(line, TEXT))?,
        })
    })
}
