//! Every refusal the rules give, each with the code a host answers
//! (`text({"code":c}, error)`).

use std::fmt;

/// Why a rule refused: a graph draft or approval, a claim, or a lifecycle
/// report. [`code`](Refusal::code) is the string hosts answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// `task`: a task that is malformed (graph), or an unknown task id
    /// (lifecycle).
    Task,
    /// `duplicate`: two tasks with one id, or one dependency named twice.
    Duplicate,
    /// `acceptance`: not 2–8 acceptance criteria, or one blank or too long.
    Acceptance,
    /// `missing`: a dependency on an unknown task (graph), or a document
    /// without a graph (claim).
    Missing,
    /// `self`: a task that depends on itself.
    SelfDependency,
    /// `cycle`: the dependencies form a cycle.
    Cycle,
    /// `root`: no task without dependencies.
    Root,
    /// `stale-plan`: the plan revision named is not the current one.
    StalePlan,
    /// `stale-graph`: the graph revision named is not the current one.
    StaleGraph,
    /// `locked`: the latest version is locked by a run.
    Locked,
    /// `not-draft`: the version named is not the current draft.
    NotDraft,
    /// `already-verified`: the latest version passed verification.
    AlreadyVerified,
    /// `not-approved`: the latest version is not approved.
    NotApproved,
    /// `run`: the run named is not the document's active run, or the graph
    /// version named is not the latest.
    Run,
    /// `idempotency-conflict`: the key was used before for something else
    /// or by another caller.
    IdempotencyConflict,
    /// `inactive`: the run has ended and takes only `report_pr`.
    Inactive,
    /// `terminal`: the run ended with a revision request.
    Terminal,
    /// `invalid-lifecycle`: the stored log cannot be folded.
    InvalidLifecycle,
    /// `task-state`: the task's state does not allow the command.
    TaskState,
    /// `dependency`: a task it depends on is not completed.
    Dependency,
    /// `repository`: the pull request is not one of the run's repository.
    Repository,
    /// `pull-request-state`: the pull request was merged already.
    PullRequestState,
    /// `pull-request`: no pull request (or a closed one, or another one).
    PullRequest,
    /// `verification`: the verification report is inconsistent.
    Verification,
}

impl Refusal {
    /// The code hosts answer, e.g. `"stale-graph"`.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Task => "task",
            Refusal::Duplicate => "duplicate",
            Refusal::Acceptance => "acceptance",
            Refusal::Missing => "missing",
            Refusal::SelfDependency => "self",
            Refusal::Cycle => "cycle",
            Refusal::Root => "root",
            Refusal::StalePlan => "stale-plan",
            Refusal::StaleGraph => "stale-graph",
            Refusal::Locked => "locked",
            Refusal::NotDraft => "not-draft",
            Refusal::AlreadyVerified => "already-verified",
            Refusal::NotApproved => "not-approved",
            Refusal::Run => "run",
            Refusal::IdempotencyConflict => "idempotency-conflict",
            Refusal::Inactive => "inactive",
            Refusal::Terminal => "terminal",
            Refusal::InvalidLifecycle => "invalid-lifecycle",
            Refusal::TaskState => "task-state",
            Refusal::Dependency => "dependency",
            Refusal::Repository => "repository",
            Refusal::PullRequestState => "pull-request-state",
            Refusal::PullRequest => "pull-request",
            Refusal::Verification => "verification",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl std::error::Error for Refusal {}
