//! Implementation runs in the store (IMPLEMENTATION.md §4): a document's
//! graph versions (drafted and approved by the operator's `graph`
//! commands), its runs and their event logs. What each operation takes and
//! answers, and what it decides, is here; each engine's
//! `implementations.rs` loads a document's rows under its lock ([`Loaded`]),
//! asks the functions below what to do (the rules of
//! `chopin_mcp::implementation`), writes that and commits. So both engines
//! decide alike, and every decision is the core's.

use chopin_mcp::implementation::{
    Active, Applied, Claim, ClaimRequest, Claimable, Client, Decision, Definition, Ended, Event,
    GraphRefusal, GraphVersion, Life, Refusal, Report, Run, RunLog, RunState, StoredKey,
    VersionState, approve, claim, draft, fold, lock, report, to_json, unlock, verified,
};

/// What `graph draft` asks to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphDraft {
    /// The document's id or canonical URL.
    pub locator: String,
    /// The plan revision the graph was drafted on (`--plan-revision`).
    pub plan_revision: u64,
    /// The latest version's revision, as read (`--graph-revision`).
    pub graph_revision: Option<u64>,
    /// The tasks (`--tasks FILE`), not yet checked.
    pub definition: Definition,
    /// `--base-branch` and `--base-commit`: the provenance of a document
    /// that has none yet.
    pub base: Option<(String, String)>,
    /// Who drafts (the operator's name, for `graph_revisions`).
    pub by: String,
}

/// How a `graph draft` or `graph approve` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphOutcome {
    /// The version as stored.
    Stored(GraphVersion),
    /// Refused by the rules (the first task concerned, where there is one).
    Refused(GraphRefusal),
    /// The document has no provenance and the draft gave none.
    NoProvenance,
    /// No such document.
    Unavailable,
}

/// A stored run, its log and who reported each event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    /// The run as claimed.
    pub run: Run,
    /// The caller that claimed it.
    pub claimer: String,
    /// Its events, in order.
    pub events: Vec<Event>,
    /// `(caller, fingerprint)` of each event, in the same order.
    pub calls: Vec<(String, String)>,
    /// When it ended (RFC 3339), if it did.
    pub ended_at: Option<String>,
    /// Whether a stored event could not be read (the log then does not
    /// fold: `invalid-lifecycle`).
    pub unreadable: bool,
}

/// A document's implementation rows, as an engine reads them under its
/// lock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Loaded {
    /// The document's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its plan's canonical source.
    pub source: String,
    /// `owner/name`.
    pub repository: String,
    /// The plan's current revision.
    pub revision: u64,
    /// When it was archived, if it is.
    pub archived_at: Option<String>,
    /// Its brief (compact JSON), when it was created (not imported).
    pub brief: Option<String>,
    /// Its base branch and commit, when it has provenance.
    pub base: Option<(String, String)>,
    /// Its graph versions, by number.
    pub versions: Vec<GraphVersion>,
    /// Its runs, oldest first.
    pub runs: Vec<StoredRun>,
}

/// What a `start_implementation` call asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimant {
    /// The document's id or canonical URL.
    pub locator: String,
    /// The revisions read.
    pub request: ClaimRequest,
    /// `owner/name`: must be the document's.
    pub repository: String,
    /// The branch the work is on.
    pub branch: String,
    /// The commit it starts from.
    pub commit: String,
    /// The new run's id.
    pub run_id: String,
    /// The caller's name as the store knows it.
    pub user: String,
    /// The claiming client.
    pub client: Client,
    /// The session (or the run's id).
    pub session: String,
    /// The host's time (RFC 3339, milliseconds).
    pub started_at: String,
}

/// How a claim ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// This call started `Run`.
    Started(Run),
    /// A run was active already: that one.
    Active(Run),
    /// Refused by the rules.
    Refused(Refusal),
    /// The caller may not write here, or named another repository.
    Forbidden,
    /// The document is archived.
    Archived,
    /// No document the caller may see.
    Unavailable,
}

/// What a lifecycle call asks to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    /// The document's id or canonical URL.
    pub locator: String,
    /// The run named.
    pub run_id: String,
    /// The event: its key and command.
    pub event: Event,
    /// The call's fingerprint (`chopin_mcp::implementation::fingerprint`).
    pub fingerprint: String,
    /// The client reporting (`name/version`).
    pub client: String,
    /// The host's time (RFC 3339, milliseconds).
    pub at: String,
    /// Runs bound to their claimer (`--bind-runs`): a call by another
    /// caller on a run is refused `run`, before its key is looked at.
    pub bound: bool,
}

/// How a lifecycle call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportOutcome {
    /// The event was recorded: the document's runs after it.
    Accepted(Loaded),
    /// The same call was recorded before: the document's runs now.
    Replayed(Loaded),
    /// Refused by the rules; nothing stored.
    Refused(Refusal),
    /// The caller may not write here.
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// What a caller's grants let it do with a repository's documents
/// (IMPLEMENTATION.md §4, read-only grants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// No grant: its documents are unavailable.
    None,
    /// A read-only grant (`--grant-read`): writes are forbidden.
    Read,
    /// A grant to read and write (`--grant`).
    Write,
}

impl Access {
    /// From the grants' `may_write` (none, false or true: the greatest of
    /// the caller's grants on `*` and on the repository).
    pub(super) fn of(may_write: Option<bool>) -> Access {
        match may_write {
            None => Access::None,
            Some(false) => Access::Read,
            Some(true) => Access::Write,
        }
    }

    /// Whether the caller may see the documents.
    pub(super) fn may_read(self) -> bool {
        self != Access::None
    }
}

/// A stored log that no longer folds (`runs check`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The document.
    pub document_id: String,
    /// The run.
    pub run_id: String,
    /// Why it does not fold.
    pub refusal: Refusal,
}

/// What an engine writes for a draft: the version (replacing the latest
/// when it has its number), and the provenance to record, if any.
pub(super) struct Drafted {
    pub(super) version: GraphVersion,
    pub(super) base: Option<(String, String)>,
}

/// `graph draft`'s decision.
pub(super) fn decide_draft(doc: &Loaded, asked: &GraphDraft) -> Result<Drafted, GraphOutcome> {
    let base = match (&doc.base, &asked.base) {
        (Some(_), _) => None,
        (None, Some(base)) => Some(base.clone()),
        (None, None) => return Err(GraphOutcome::NoProvenance),
    };
    let version = draft(
        doc.versions.last(),
        doc.revision,
        asked.plan_revision,
        asked.graph_revision,
        asked.definition.clone(),
    )
    .map_err(GraphOutcome::Refused)?;
    Ok(Drafted { version, base })
}

/// `graph approve`'s decision: the version approved (the engine marks an
/// earlier approved one superseded).
pub(super) fn decide_approve(
    doc: &Loaded,
    number: u64,
    revision: u64,
) -> Result<GraphVersion, GraphOutcome> {
    approve(doc.versions.last(), doc.revision, number, revision).map_err(|refusal| {
        GraphOutcome::Refused(GraphRefusal {
            refusal,
            task: None,
        })
    })
}

/// The tasks of the version `run` claimed.
fn tasks_of<'a>(doc: &'a Loaded, run: &Run) -> &'a [chopin_mcp::implementation::Task] {
    doc.versions
        .iter()
        .find(|version| version.number == run.graph_version)
        .map_or(&[], |version| &version.definition.tasks)
}

impl Loaded {
    /// Each run's folded state (a log that does not fold: its refusal).
    pub fn states(&self) -> Vec<Result<RunState, Refusal>> {
        self.runs
            .iter()
            .map(|stored| {
                if stored.unreadable {
                    return Err(Refusal::InvalidLifecycle);
                }
                fold(&stored.run, tasks_of(self, &stored.run), &stored.events)
            })
            .collect()
    }

    /// The index of the run not yet ended, if any.
    pub fn active(&self) -> Option<usize> {
        self.runs
            .iter()
            .position(|stored| stored.ended_at.is_none())
    }

    /// The latest version shown to agents: approved or locked.
    pub fn shown_version(&self) -> Option<&GraphVersion> {
        self.versions.last().filter(|version| {
            matches!(version.state, VersionState::Approved | VersionState::Locked)
        })
    }

    /// The document's `LIFE` (its active run with its events, its ended
    /// runs), as compact JSON; `None` if a stored log does not fold.
    pub fn life_json(&self) -> Option<Vec<u8>> {
        let states: Vec<RunState> = self.states().into_iter().collect::<Result<_, _>>().ok()?;
        let active_at = self.active();
        let active = active_at.map(|at| Active {
            run: &self.runs[at].run,
            state: &states[at],
            events: &self.runs[at].events,
        });
        let ended: Vec<Ended<'_>> = (0..self.runs.len())
            .filter(|&at| Some(at) != active_at)
            .map(|at| Ended {
                run: &self.runs[at].run,
                state: &states[at],
            })
            .collect();
        Some(to_json(&Life {
            active,
            ended: &ended,
        }))
    }
}

/// A claim's decision: what to answer, and whether to store a new run
/// (and lock its version).
pub(super) enum ClaimDecision {
    Answer(ClaimOutcome),
    Start(Run),
}

/// `start_implementation`'s decision after the host's checks (unavailable
/// is the engine's: no document).
pub(super) fn decide_claim(doc: &Loaded, asked: &Claimant) -> ClaimDecision {
    if asked.repository != doc.repository {
        return ClaimDecision::Answer(ClaimOutcome::Forbidden);
    }
    if doc.archived_at.is_some() {
        return ClaimDecision::Answer(ClaimOutcome::Archived);
    }
    let states = doc.states();
    let Ok(states) = states.into_iter().collect::<Result<Vec<_>, _>>() else {
        return ClaimDecision::Answer(ClaimOutcome::Refused(Refusal::InvalidLifecycle));
    };
    let latest = doc.versions.last();
    let latest_verified = latest.is_some_and(|latest| {
        verified(
            latest.number,
            doc.runs.iter().map(|stored| &stored.run).zip(&states),
        )
    });
    let document = Claimable {
        plan_revision: doc.revision,
        active: doc.active().map(|at| &doc.runs[at].run),
        latest,
        latest_verified,
    };
    match claim(document, asked.request) {
        Err(refusal) => ClaimDecision::Answer(ClaimOutcome::Refused(refusal)),
        Ok(Claim::Active(run)) => ClaimDecision::Answer(ClaimOutcome::Active(run.clone())),
        Ok(Claim::Start) => {
            if latest.map(lock).is_none_or(|locked| locked.is_err()) {
                return ClaimDecision::Answer(ClaimOutcome::Refused(Refusal::NotApproved));
            }
            ClaimDecision::Start(Run {
                id: asked.run_id.clone(),
                user: asked.user.clone(),
                client: asked.client.clone(),
                session: asked.session.clone(),
                plan_revision: asked.request.plan_revision,
                graph_version: asked.request.graph_version,
                graph_revision: asked.request.graph_revision,
                repository: asked.repository.clone(),
                branch: asked.branch.clone(),
                commit: asked.commit.clone(),
                started_at: asked.started_at.clone(),
            })
        }
    }
}

/// A lifecycle call's decision: replayed, refused, or the event to append
/// (to the run at `run`, which is `seq` events long), and whether it ends
/// the run (then the version it claimed is unlocked to `unlocked`).
pub(super) enum ReportDecision {
    Replayed,
    Refused(Refusal),
    Append {
        run: usize,
        seq: u64,
        event: Event,
        ends: Option<(u64, VersionState)>,
    },
}

/// `report`'s decision, in §1.2's order (the key first, across the
/// document).
pub(super) fn decide_report(doc: &Loaded, caller: &str, asked: &Reported) -> ReportDecision {
    let stranger = |stored: &StoredRun| stored.run.id == asked.run_id && stored.claimer != caller;
    if asked.bound && doc.runs.iter().any(stranger) {
        return ReportDecision::Refused(Refusal::Run);
    }
    let key = &asked.event.idempotency_key;
    let stored = doc.runs.iter().find_map(|stored| {
        stored
            .events
            .iter()
            .zip(&stored.calls)
            .find(|(event, _)| &event.idempotency_key == key)
            .map(|(_, (caller, fingerprint))| StoredKey {
                caller,
                fingerprint,
            })
    });
    let at = doc
        .runs
        .iter()
        .position(|stored| stored.run.id == asked.run_id);
    let decision = report(Report {
        stored,
        caller,
        fingerprint: &asked.fingerprint,
        run: at.map(|at| RunLog {
            run: &doc.runs[at].run,
            tasks: tasks_of(doc, &doc.runs[at].run),
            events: &doc.runs[at].events,
        }),
        idempotency_key: key,
        command: &asked.event.command,
    });
    match decision {
        Err(refusal) => ReportDecision::Refused(refusal),
        Ok(Decision::Replayed) => ReportDecision::Replayed,
        Ok(Decision::Append { event, applied, .. }) => {
            let Some(at) = at else {
                return ReportDecision::Refused(Refusal::Run);
            };
            let run = &doc.runs[at];
            let ends = (applied == Applied::Ended).then(|| {
                let number = run.run.graph_version;
                let state = doc
                    .versions
                    .iter()
                    .find(|version| version.number == number)
                    .map_or(VersionState::Approved, unlock);
                (number, state)
            });
            ReportDecision::Append {
                run: at,
                seq: run.events.len() as u64 + 1,
                event,
                ends,
            }
        }
    }
}

/// Every stored log of `doc` that does not fold.
pub(super) fn broken(doc: &Loaded) -> Vec<Broken> {
    doc.states()
        .into_iter()
        .zip(&doc.runs)
        .filter_map(|(state, stored)| {
            state.err().map(|refusal| Broken {
                document_id: doc.id.clone(),
                run_id: stored.run.id.clone(),
                refusal,
            })
        })
        .collect()
}

/// A version's definition as stored (`{"tasks":[…]}`).
pub(super) fn tasks_json(version: &GraphVersion) -> String {
    String::from_utf8(to_json(&version.definition)).unwrap_or_default()
}

/// A stored definition, read back.
pub(super) fn definition_of(text: &str) -> Result<Definition, super::StoreError> {
    Definition::from_json(text.as_bytes())
        .map_err(|_| super::StoreError::Invalid("a stored graph does not parse".to_owned()))
}

/// A stored version state, read back.
pub(super) fn state_of(text: &str) -> Result<VersionState, super::StoreError> {
    Ok(match text {
        "draft" => VersionState::Draft,
        "approved" => VersionState::Approved,
        "locked" => VersionState::Locked,
        "superseded" => VersionState::Superseded,
        other => {
            return Err(super::StoreError::Invalid(format!(
                "a stored graph version is in state {other:?}"
            )));
        }
    })
}

/// An event as stored.
pub(super) fn event_json(event: &Event) -> String {
    String::from_utf8(event.to_json()).unwrap_or_default()
}
