//! A run's folded state and the transition table of §1.2: the one place
//! that decides what an event does to a run, used alike by the fold (over
//! stored events) and by a host checking a new command.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::event::{Command, Event, PrState, PullRequest, Verification};
use super::graph::Task;
use super::text::is_pull_request_of;
use super::{Map, Refusal};

/// A task's state in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Not started.
    Queued,
    /// Being worked on.
    InProgress,
    /// Waiting on its blocker.
    Blocked,
    /// Done, with a pull request and a summary.
    Completed,
}

impl TaskState {
    /// `queued`, `in_progress`, `blocked` or `completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::InProgress => "in_progress",
            TaskState::Blocked => "blocked",
            TaskState::Completed => "completed",
        }
    }
}

/// A run's phase (§1.2): derived from its log, never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Taking reports.
    Active,
    /// Ended by `request_revision` (terminal).
    RevisionRequested,
    /// Ended by a passing verification; some pull request is not merged.
    Implemented,
    /// Ended by a passing verification, every distinct pull request merged.
    Delivered,
}

impl Phase {
    /// Whether the run has ended.
    pub fn ended(self) -> bool {
        self != Phase::Active
    }

    /// Whether the run passed verification (`implemented` or `delivered`):
    /// its version is never claimable again.
    pub fn passed(self) -> bool {
        matches!(self, Phase::Implemented | Phase::Delivered)
    }

    /// `active`, `revision_requested`, `implemented` or `delivered`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Active => "active",
            Phase::RevisionRequested => "revision_requested",
            Phase::Implemented => "implemented",
            Phase::Delivered => "delivered",
        }
    }
}

/// One task's progress. Its pull request is read through
/// [`RunState::pull_request`], which applies merges reported on other tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskProgress {
    id: String,
    state: TaskState,
    blocker: Option<String>,
    summary: Option<String>,
    pull_request: Option<PullRequest>,
}

impl TaskProgress {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its state.
    pub fn state(&self) -> TaskState {
        self.state
    }

    /// The reason it is blocked, while it is.
    pub fn blocker(&self) -> Option<&str> {
        self.blocker.as_deref()
    }

    /// What completing it did, while it is completed.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }
}

/// How a run ended, if it did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ending {
    Not,
    Revision(String),
    Passed,
}

/// What an accepted event did to its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Applied {
    /// The run goes on (or had ended before and stays ended).
    Recorded,
    /// This event ended the run: the host records the end and unlocks the
    /// graph version (`locked` → `approved`).
    Ended,
}

/// A run's state folded from its log: each task's progress, the latest
/// verification, the phase. Built by [`fold`](super::fold), advanced by
/// [`apply`](RunState::apply).
#[derive(Debug, Clone)]
pub struct RunState {
    tasks: Vec<TaskProgress>,
    depends: Vec<Vec<usize>>,
    index: Map<String, usize>,
    repository: String,
    verification: Option<Verification>,
    ending: Ending,
    /// URLs reported merged: texts callers choose, so in an ordered set
    /// (no hash a caller could make collide).
    merged: BTreeSet<String>,
    steps: u64,
}

impl PartialEq for RunState {
    /// Equal when everything a projection shows and every rule reads is
    /// equal (the work counter aside).
    fn eq(&self, other: &RunState) -> bool {
        self.tasks == other.tasks
            && self.depends == other.depends
            && self.repository == other.repository
            && self.verification == other.verification
            && self.ending == other.ending
            && self.merged == other.merged
    }
}

impl RunState {
    /// A new run's state: every task queued. `tasks` is the run's graph (a
    /// checked definition: an unknown dependency is ignored), `repository`
    /// the run's.
    pub fn new(tasks: &[Task], repository: &str) -> RunState {
        let mut index = Map::default();
        for (at, task) in tasks.iter().enumerate() {
            index.entry(task.id.clone()).or_insert(at);
        }
        let depends = tasks
            .iter()
            .map(|task| {
                task.depends_on
                    .iter()
                    .filter_map(|dependency| index.get(dependency).copied())
                    .collect()
            })
            .collect();
        RunState {
            tasks: tasks
                .iter()
                .map(|task| TaskProgress {
                    id: task.id.clone(),
                    state: TaskState::Queued,
                    blocker: None,
                    summary: None,
                    pull_request: None,
                })
                .collect(),
            depends,
            index,
            repository: repository.to_owned(),
            verification: None,
            ending: Ending::Not,
            merged: BTreeSet::new(),
            steps: 0,
        }
    }

    /// Every task's progress, in the graph's order.
    pub fn tasks(&self) -> &[TaskProgress] {
        &self.tasks
    }

    /// The progress of the task `id`.
    pub fn task(&self, id: &str) -> Option<&TaskProgress> {
        self.index.get(id).map(|&at| &self.tasks[at])
    }

    /// A task's pull request (by its index in [`tasks`](RunState::tasks)),
    /// `merged` when any task reported its URL merged.
    pub fn pull_request(&self, at: usize) -> Option<PullRequest> {
        let reported = self.tasks.get(at)?.pull_request.as_ref()?;
        Some(PullRequest {
            url: reported.url.clone(),
            state: self.effective(reported),
        })
    }

    fn effective(&self, reported: &PullRequest) -> PrState {
        if self.merged.contains(&reported.url) {
            PrState::Merged
        } else {
            reported.state
        }
    }

    /// Adds `steps` units of work done for this state outside
    /// [`apply`](RunState::apply) (the fold's key check).
    pub(crate) fn count(&mut self, steps: u64) {
        self.steps += steps;
    }

    /// Sets the latest verification (the fold's, once, at its end).
    pub(crate) fn set_verification(&mut self, verification: Option<&Verification>) {
        self.verification = verification.cloned();
    }

    /// The latest verification reported.
    pub fn verification(&self) -> Option<&Verification> {
        self.verification.as_ref()
    }

    /// The run's phase.
    pub fn phase(&self) -> Phase {
        match self.ending {
            Ending::Not => Phase::Active,
            Ending::Revision(_) => Phase::RevisionRequested,
            Ending::Passed => {
                let merged = self.tasks.iter().all(|task| {
                    task.pull_request
                        .as_ref()
                        .is_none_or(|pr| self.effective(pr) == PrState::Merged)
                });
                if merged {
                    Phase::Delivered
                } else {
                    Phase::Implemented
                }
            }
        }
    }

    /// The reason given with `request_revision`, once the run ended so.
    pub fn revision_reason(&self) -> Option<&str> {
        match &self.ending {
            Ending::Revision(reason) => Some(reason),
            _ => None,
        }
    }

    /// The units of work folding and applying took so far (loop turns: one
    /// an event, one a dependency, task or list item it looks at), for the
    /// linear-time tests.
    #[doc(hidden)]
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Applies `event` when §1.2 allows it: the ended-run rules first, then
    /// the table's refusals in their order. On a refusal nothing changes.
    /// The key is not looked at: a host checks it against the whole
    /// document first ([`check_key`](super::check_key); its store keeps
    /// keys unique per document), and [`fold`](super::fold) refuses a log
    /// that holds one twice.
    pub fn apply(&mut self, event: &Event) -> Result<Applied, Refusal> {
        self.apply_keeping(event, true)
    }

    /// [`apply`](RunState::apply); without `keep_verification` an accepted
    /// verification is not copied into the state (the fold copies the
    /// last one once, at its end).
    pub(crate) fn apply_keeping(
        &mut self,
        event: &Event,
        keep_verification: bool,
    ) -> Result<Applied, Refusal> {
        self.steps += 1;
        match &self.ending {
            Ending::Not => self.apply_active(&event.command, keep_verification),
            Ending::Revision(_) => Err(match event.command {
                Command::ReportPr { .. } => Refusal::Terminal,
                _ => Refusal::Inactive,
            }),
            Ending::Passed => self.apply_passed(&event.command),
        }
    }

    fn find(&self, task_id: &str) -> Result<usize, Refusal> {
        self.index.get(task_id).copied().ok_or(Refusal::Task)
    }

    fn apply_active(&mut self, command: &Command, keep: bool) -> Result<Applied, Refusal> {
        match command {
            Command::StartTask { task_id } => {
                let at = self.find(task_id)?;
                if !matches!(self.tasks[at].state, TaskState::Queued | TaskState::Blocked) {
                    return Err(Refusal::TaskState);
                }
                self.steps += self.depends[at].len() as u64;
                if self.depends[at]
                    .iter()
                    .any(|&dependency| self.tasks[dependency].state != TaskState::Completed)
                {
                    return Err(Refusal::Dependency);
                }
                let task = &mut self.tasks[at];
                task.state = TaskState::InProgress;
                task.blocker = None;
            }
            Command::BlockTask { task_id, reason } => {
                let at = self.find(task_id)?;
                let task = &mut self.tasks[at];
                if !matches!(task.state, TaskState::InProgress | TaskState::Queued) {
                    return Err(Refusal::TaskState);
                }
                task.state = TaskState::Blocked;
                task.blocker = Some(reason.clone());
            }
            Command::ReportPr {
                task_id,
                url,
                state,
            } => {
                let at = self.find(task_id)?;
                if self.tasks[at].state == TaskState::Queued {
                    return Err(Refusal::TaskState);
                }
                self.record_pull_request(at, url, *state)?;
            }
            Command::CompleteTask { task_id, summary } => {
                let at = self.find(task_id)?;
                let task = &mut self.tasks[at];
                if task.state != TaskState::InProgress {
                    return Err(Refusal::TaskState);
                }
                if task.pull_request.is_none() {
                    return Err(Refusal::PullRequest);
                }
                task.state = TaskState::Completed;
                task.summary = Some(summary.clone());
            }
            Command::ReportVerification(verification) => {
                let reopen = self.check_verification(verification)?;
                for at in 0..self.tasks.len() {
                    self.steps += 1;
                    let task = &self.tasks[at];
                    if task.state != TaskState::Completed {
                        return Err(Refusal::TaskState);
                    }
                    let Some(pr) = &task.pull_request else {
                        return Err(Refusal::PullRequest);
                    };
                    if self.effective(pr) == PrState::Closed {
                        return Err(Refusal::PullRequest);
                    }
                    if !is_pull_request_of(&pr.url, &self.repository) {
                        return Err(Refusal::Repository);
                    }
                }
                for at in reopen {
                    let task = &mut self.tasks[at];
                    task.state = TaskState::InProgress;
                    task.summary = None;
                }
                if keep {
                    self.verification = Some(verification.clone());
                }
                if verification.passed {
                    self.ending = Ending::Passed;
                    return Ok(Applied::Ended);
                }
            }
            Command::RequestRevision { reason } => {
                self.ending = Ending::Revision(reason.clone());
                return Ok(Applied::Ended);
            }
        }
        Ok(Applied::Recorded)
    }

    /// A passed run takes `report_pr` for a completed task's own pull
    /// request only: `pull-request`, then `repository`, then
    /// `pull-request-state`.
    fn apply_passed(&mut self, command: &Command) -> Result<Applied, Refusal> {
        let Command::ReportPr {
            task_id,
            url,
            state,
        } = command
        else {
            return Err(Refusal::Inactive);
        };
        let at = self
            .index
            .get(task_id.as_str())
            .copied()
            .filter(|&at| {
                let task = &self.tasks[at];
                task.state == TaskState::Completed
                    && task.pull_request.as_ref().is_some_and(|pr| pr.url == *url)
            })
            .ok_or(Refusal::PullRequest)?;
        self.record_pull_request(at, url, *state)?;
        Ok(Applied::Recorded)
    }

    /// `repository`, then `pull-request-state`; then the task's pull
    /// request is `{url, state}`, and a merge marks the URL merged for
    /// every task.
    fn record_pull_request(&mut self, at: usize, url: &str, state: PrState) -> Result<(), Refusal> {
        if !is_pull_request_of(url, &self.repository) {
            return Err(Refusal::Repository);
        }
        let merged = self.merged.contains(url);
        if merged && state != PrState::Merged {
            return Err(Refusal::PullRequestState);
        }
        if state == PrState::Merged && !merged {
            self.merged.insert(url.to_owned());
        }
        self.tasks[at].pull_request = Some(PullRequest {
            url: url.to_owned(),
            state,
        });
        Ok(())
    }

    /// `verification`: the evidence names every task exactly once; the
    /// tasks needing work are unique tasks of the graph, none iff passed.
    /// The tasks to reopen, by index.
    fn check_verification(&mut self, verification: &Verification) -> Result<Vec<usize>, Refusal> {
        let mut covered = vec![false; self.tasks.len()];
        self.steps += (self.tasks.len()
            + verification.evidence.len()
            + verification.tasks_needing_work.len()) as u64;
        for item in &verification.evidence {
            let at = self
                .index
                .get(item.task_id.as_str())
                .copied()
                .ok_or(Refusal::Verification)?;
            if std::mem::replace(&mut covered[at], true) {
                return Err(Refusal::Verification);
            }
        }
        if verification.evidence.len() != self.tasks.len() {
            return Err(Refusal::Verification);
        }
        if verification.passed != verification.tasks_needing_work.is_empty() {
            return Err(Refusal::Verification);
        }
        let mut reopen = Vec::with_capacity(verification.tasks_needing_work.len());
        for id in &verification.tasks_needing_work {
            let at = self
                .index
                .get(id.as_str())
                .copied()
                .ok_or(Refusal::Verification)?;
            // `covered` is all true here: clear each as it is named.
            if !std::mem::replace(&mut covered[at], false) {
                return Err(Refusal::Verification);
            }
            reopen.push(at);
        }
        Ok(reopen)
    }
}
