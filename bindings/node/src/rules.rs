//! The implementation rules (`chopin_mcp::implementation`) for a
//! TypeScript host: a document's implementation state as JSON (its graph
//! versions and its runs with their stored logs), folded here, and each
//! rule a function of JSON arguments to a JSON result ([`rule`]), so that a
//! host checks and folds inside its own transaction exactly as the Rust
//! hosts do. The same state is what a host answers the implementation
//! effects with (`src/answer/implementation.rs`).

use chopin_mcp::implementation::{
    Active, Applied, Claim, ClaimRequest, Claimable, Decision, Definition, Ended, Event,
    GraphVersion, Life, Refusal, Report, Run, RunLog, RunState, StoredKey, Task, claim,
    fingerprint, fold, lock, to_json, unlock, verified,
};
use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// A run and its stored log (`EVENT`s, oldest first), as a host keeps them.
/// The events are values, each read as `Event::from_json` reads a stored
/// one (a raw value cannot come through the answers' tagged enums).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoredRun {
    run: Run,
    events: Vec<Value>,
}

/// A document's implementation state: `{planRevision?, versions, runs}`,
/// both oldest first.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct State {
    plan_revision: Option<u64>,
    versions: Vec<GraphVersion>,
    runs: Vec<StoredRun>,
}

impl State {
    /// The state of its parts.
    pub(crate) fn new(
        plan_revision: Option<u64>,
        versions: Vec<GraphVersion>,
        runs: Vec<StoredRun>,
    ) -> State {
        State {
            plan_revision,
            versions,
            runs,
        }
    }
}

/// A [`State`] read and folded: every run with its events and state.
pub(crate) struct Folded {
    pub(crate) plan_revision: Option<u64>,
    pub(crate) versions: Vec<GraphVersion>,
    pub(crate) runs: Vec<(Run, Vec<Event>)>,
    pub(crate) states: Vec<RunState>,
    /// Each version number's first index in `versions` (a lookup a run, so
    /// that folding stays linear in the state however many versions).
    by_number: BTreeMap<u64, usize>,
}

impl Folded {
    /// Reads every stored event and folds every run against its version's
    /// tasks: a log that does not fold is `invalid-lifecycle`.
    pub(crate) fn of(state: State) -> Result<Folded, Refusal> {
        let mut runs = Vec::with_capacity(state.runs.len());
        for stored in state.runs {
            let events = stored
                .events
                .iter()
                .map(|value| Event::from_json(value.to_string().as_bytes()))
                .collect::<Result<Vec<_>, _>>()?;
            runs.push((stored.run, events));
        }
        let mut by_number = BTreeMap::new();
        for (at, version) in state.versions.iter().enumerate() {
            by_number.entry(version.number).or_insert(at);
        }
        let mut folded = Folded {
            plan_revision: state.plan_revision,
            versions: state.versions,
            runs,
            states: Vec::new(),
            by_number,
        };
        let mut states = Vec::with_capacity(folded.runs.len());
        for (run, events) in &folded.runs {
            states.push(fold(run, folded.tasks_of(run), events)?);
        }
        folded.states = states;
        Ok(folded)
    }

    /// The tasks of `run`'s graph version (none when the state lacks it).
    pub(crate) fn tasks_of(&self, run: &Run) -> &[Task] {
        self.by_number
            .get(&run.graph_version)
            .map_or(&[], |&at| &self.versions[at].definition.tasks)
    }

    /// The index of the active run (the first not ended).
    pub(crate) fn active(&self) -> Option<usize> {
        self.states.iter().position(|state| !state.phase().ended())
    }

    /// The active run and the ended ones, for `LIFE` and `IMPL`.
    pub(crate) fn parts(&self) -> (Option<Active<'_>>, Vec<Ended<'_>>) {
        let at = self.active();
        let active = at.map(|at| Active {
            run: &self.runs[at].0,
            state: &self.states[at],
            events: &self.runs[at].1,
        });
        let ended = (0..self.runs.len())
            .filter(|&index| Some(index) != at)
            .map(|index| Ended {
                run: &self.runs[index].0,
                state: &self.states[index],
            })
            .collect();
        (active, ended)
    }

    /// The document's `LIFE`.
    pub(crate) fn life(&self) -> Vec<u8> {
        let (active, ended) = self.parts();
        to_json(&Life {
            active,
            ended: &ended,
        })
    }
}

/// Every refusal's code, for reading a host's `{kind:"refused", code}`.
const REFUSALS: [Refusal; 24] = [
    Refusal::Task,
    Refusal::Duplicate,
    Refusal::Acceptance,
    Refusal::Missing,
    Refusal::SelfDependency,
    Refusal::Cycle,
    Refusal::Root,
    Refusal::StalePlan,
    Refusal::StaleGraph,
    Refusal::Locked,
    Refusal::NotDraft,
    Refusal::AlreadyVerified,
    Refusal::NotApproved,
    Refusal::Run,
    Refusal::IdempotencyConflict,
    Refusal::Inactive,
    Refusal::Terminal,
    Refusal::InvalidLifecycle,
    Refusal::TaskState,
    Refusal::Dependency,
    Refusal::Repository,
    Refusal::PullRequestState,
    Refusal::PullRequest,
    Refusal::Verification,
];

/// The refusal whose code is `code`.
pub(crate) fn refusal_of(code: &str) -> Option<Refusal> {
    REFUSALS.into_iter().find(|refusal| refusal.code() == code)
}

/// Why a rule's arguments are not what it takes (a `TypeError` in
/// JavaScript).
pub struct BadArguments(pub String);

fn parse<T: DeserializeOwned>(what: &str, value: &RawValue) -> Result<T, BadArguments> {
    serde_json::from_str(value.get()).map_err(|error| BadArguments(format!("{what}: {error}")))
}

fn refused(refusal: Refusal) -> Value {
    json!({ "kind": "refused", "code": refusal.code() })
}

/// A lifecycle call as `report` takes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Call {
    caller: String,
    run_id: String,
    event: Box<RawValue>,
    stored: Option<Stored>,
}

/// A key's earlier use, as the host stored it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    caller: String,
    fingerprint: String,
}

/// A claim's revisions (other fields, as in `implementations.start`'s
/// input, are left).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Revisions {
    plan_revision: u64,
    graph_version: u64,
    graph_revision: u64,
}

/// Runs rule `name` on `input`, a JSON array of its arguments; its result
/// as JSON. The rules: `checkGraph(definition)`, `fingerprint(runId,
/// event)`, `fold(run, tasks, events)`, `claim(state, revisions)`,
/// `report(state, call)`, `lock(version)`, `unlock(version)`,
/// `life(state)`.
pub fn rule(name: &str, input: &str) -> Result<String, BadArguments> {
    let args: Vec<Box<RawValue>> =
        serde_json::from_str(input).map_err(|error| BadArguments(format!("{name}: {error}")))?;
    let arg = |at: usize| -> Result<&RawValue, BadArguments> {
        args.get(at)
            .map(AsRef::as_ref)
            .ok_or_else(|| BadArguments(format!("{name}: argument {} is missing", at + 1)))
    };
    let result = match name {
        "checkGraph" => match Definition::from_json(arg(0)?.get().as_bytes()) {
            Err(refusal) => json!({ "code": refusal.code() }),
            Ok(definition) => match definition.check() {
                Ok(()) => Value::Null,
                Err(refusal) => match refusal.task {
                    Some(task) => json!({ "code": refusal.refusal.code(), "task": task }),
                    None => json!({ "code": refusal.refusal.code() }),
                },
            },
        },
        "fingerprint" => {
            let run_id: String = parse("fingerprint: runId", arg(0)?)?;
            let event = Event::from_json(arg(1)?.get().as_bytes())
                .map_err(|_| BadArguments("fingerprint: event is not an EVENT".into()))?;
            Value::String(fingerprint(&run_id, &event))
        }
        "fold" => {
            let run: Run = parse("fold: run", arg(0)?)?;
            let tasks: Vec<Task> = parse("fold: tasks", arg(1)?)?;
            let events: Vec<Box<RawValue>> = parse("fold: events", arg(2)?)?;
            let events: Result<Vec<Event>, Refusal> = events
                .iter()
                .map(|raw| Event::from_json(raw.get().as_bytes()))
                .collect();
            match events.and_then(|events| {
                fold(&run, &tasks, &events).map(|state| {
                    let progress: Value =
                        serde_json::from_slice(&to_json(&state.progress(Some(&events))))
                            .unwrap_or_default();
                    json!({ "kind": "folded", "phase": state.phase().as_str(), "progress": progress })
                })
            }) {
                Ok(value) => value,
                Err(refusal) => refused(refusal),
            }
        }
        "claim" => {
            let state: State = parse("claim: state", arg(0)?)?;
            let revisions: Revisions = parse("claim: revisions", arg(1)?)?;
            match Folded::of(state) {
                Ok(folded) => claim_of(&folded, &revisions)?,
                Err(refusal) => refused(refusal),
            }
        }
        "report" => {
            let state: State = parse("report: state", arg(0)?)?;
            let call: Call = parse("report: call", arg(1)?)?;
            let event = Event::from_json(call.event.get().as_bytes())
                .map_err(|_| BadArguments("report: call.event is not an EVENT".into()))?;
            match Folded::of(state) {
                Ok(folded) => report_of(&folded, &call, &event),
                Err(refusal) => refused(refusal),
            }
        }
        "lock" => {
            let version: GraphVersion = parse("lock: version", arg(0)?)?;
            match lock(&version) {
                Ok(state) => json!({ "kind": "locked", "state": state.as_str() }),
                Err(refusal) => refused(refusal),
            }
        }
        "unlock" => {
            let version: GraphVersion = parse("unlock: version", arg(0)?)?;
            json!({ "kind": "unlocked", "state": unlock(&version).as_str() })
        }
        "life" => {
            let state: State = parse("life: state", arg(0)?)?;
            match Folded::of(state) {
                Ok(folded) => serde_json::from_slice(&folded.life()).unwrap_or_default(),
                Err(refusal) => refused(refusal),
            }
        }
        _ => return Err(BadArguments(format!("no rule {name}"))),
    };
    Ok(result.to_string())
}

/// `claim(state, revisions)`: `{kind:"start"}`, `{kind:"active", run}` or
/// `{kind:"refused", code}`.
fn claim_of(folded: &Folded, revisions: &Revisions) -> Result<Value, BadArguments> {
    let plan_revision = folded
        .plan_revision
        .ok_or_else(|| BadArguments("claim: state.planRevision is missing".into()))?;
    let latest = folded.versions.last();
    let latest_verified = latest.is_some_and(|latest| {
        verified(
            latest.number,
            folded.runs.iter().map(|(run, _)| run).zip(&folded.states),
        )
    });
    let document = Claimable {
        plan_revision,
        active: folded.active().map(|at| &folded.runs[at].0),
        latest,
        latest_verified,
    };
    let request = ClaimRequest {
        plan_revision: revisions.plan_revision,
        graph_version: revisions.graph_version,
        graph_revision: revisions.graph_revision,
    };
    Ok(match claim(document, request) {
        Ok(Claim::Start) => json!({ "kind": "start" }),
        Ok(Claim::Active(run)) => json!({ "kind": "active", "run": run }),
        Err(refusal) => refused(refusal),
    })
}

/// `report(state, call)`: `{kind:"replayed"}`, `{kind:"append", event,
/// fingerprint, ended}` or `{kind:"refused", code}`.
fn report_of(folded: &Folded, call: &Call, event: &Event) -> Value {
    let print = fingerprint(&call.run_id, event);
    let at = folded
        .runs
        .iter()
        .position(|(run, _)| run.id == call.run_id);
    let decision = chopin_mcp::implementation::report(Report {
        stored: call.stored.as_ref().map(|stored| StoredKey {
            caller: &stored.caller,
            fingerprint: &stored.fingerprint,
        }),
        caller: &call.caller,
        fingerprint: &print,
        run: at.map(|at| RunLog {
            run: &folded.runs[at].0,
            tasks: folded.tasks_of(&folded.runs[at].0),
            events: &folded.runs[at].1,
        }),
        idempotency_key: &event.idempotency_key,
        command: &event.command,
    });
    match decision {
        Ok(Decision::Replayed) => json!({ "kind": "replayed" }),
        Ok(Decision::Append { event, applied, .. }) => {
            let stored: Value = serde_json::from_slice(&event.to_json()).unwrap_or_default();
            json!({
                "kind": "append",
                "event": stored,
                "fingerprint": print,
                "ended": applied == Applied::Ended,
            })
        }
        Err(refusal) => refused(refusal),
    }
}
