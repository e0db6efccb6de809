//! The projections of §2.3 (`PROGRESS`, `HIST`, `LIFE`, `IMPL`, and the
//! claim's answer), each a borrowed view that serializes as compact JSON
//! in its schema's order, optional members left out when absent.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

use super::event::Event;
use super::graph::GraphVersion;
use super::run::Run;
use super::state::{Phase, RunState};

/// The most ended runs a `history` shows (the latest, oldest first).
pub const MAX_HISTORY: usize = 20;

/// The compact JSON of a projection (or of any value here).
pub fn to_json(value: &impl Serialize) -> Vec<u8> {
    // The views hold strings, numbers, booleans and arrays of them.
    serde_json::to_vec(value).unwrap_or_default()
}

/// `PROGRESS`: `{tasks, events?, verification?}`; see
/// [`RunState::progress`].
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    state: &'a RunState,
    events: Option<&'a [Event]>,
}

impl RunState {
    /// The run's `PROGRESS`: with its log as `events` (an active run's
    /// `activity`), or without (a `history` entry).
    pub fn progress<'a>(&'a self, events: Option<&'a [Event]>) -> Progress<'a> {
        Progress {
            state: self,
            events,
        }
    }
}

impl Serialize for Progress<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("tasks", &Tasks(self.state))?;
        if let Some(events) = self.events {
            map.serialize_entry("events", events)?;
        }
        if let Some(verification) = self.state.verification() {
            map.serialize_entry("verification", verification)?;
        }
        map.end()
    }
}

struct Tasks<'a>(&'a RunState);

impl Serialize for Tasks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let state = self.0;
        let mut seq = serializer.serialize_seq(Some(state.tasks().len()))?;
        for (at, task) in state.tasks().iter().enumerate() {
            seq.serialize_element(&TaskView {
                id: task.id(),
                state: task.state().as_str(),
                blocker: task.blocker(),
                summary: task.summary(),
                pull_request: state.pull_request(at),
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskView<'a> {
    id: &'a str,
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocker: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pull_request: Option<super::event::PullRequest>,
}

/// The document's active run: the run, its state and its log.
#[derive(Debug, Clone, Copy)]
pub struct Active<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its folded state.
    pub state: &'a RunState,
    /// Its log, oldest first.
    pub events: &'a [Event],
}

/// An ended run: the run and its folded state. `HIST`:
/// `{run, progress (no events), outcome:{kind, reason?}}`.
#[derive(Debug, Clone, Copy)]
pub struct Ended<'a> {
    /// The run.
    pub run: &'a Run,
    /// Its folded state (an ended phase).
    pub state: &'a RunState,
}

impl Serialize for Ended<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("run", self.run)?;
        map.serialize_entry("progress", &self.state.progress(None))?;
        map.serialize_entry(
            "outcome",
            &Outcome {
                kind: self.state.phase(),
                reason: self.state.revision_reason(),
            },
        )?;
        map.end()
    }
}

#[derive(Serialize)]
struct Outcome<'a> {
    kind: Phase,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// `history`: the latest [`MAX_HISTORY`] of `ended` (given oldest first),
/// oldest first.
#[derive(Debug, Clone, Copy)]
pub struct History<'a>(pub &'a [Ended<'a>]);

impl Serialize for History<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let shown = &self.0[self.0.len().saturating_sub(MAX_HISTORY)..];
        shown.serialize(serializer)
    }
}

/// `LIFE`: `{execution:{state}, activity?, history}`, what every lifecycle
/// call answers (accepted or replayed).
#[derive(Debug, Clone, Copy)]
pub struct Life<'a> {
    /// The active run, if any (after the call).
    pub active: Option<Active<'a>>,
    /// The document's ended runs, oldest first (the latest 20 suffice).
    pub ended: &'a [Ended<'a>],
}

impl Serialize for Life<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("execution", &Execution::of(self.active, false))?;
        if let Some(active) = self.active {
            map.serialize_entry("activity", &active.state.progress(Some(active.events)))?;
        }
        map.serialize_entry("history", &History(self.ended))?;
        map.end()
    }
}

/// `{state: idle|active, run?}`: only `IMPL` shows the run.
#[derive(Serialize)]
struct Execution<'a> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<&'a Run>,
}

impl<'a> Execution<'a> {
    fn of(active: Option<Active<'a>>, with_run: bool) -> Execution<'a> {
        Execution {
            state: if active.is_some() { "active" } else { "idle" },
            run: active.filter(|_| with_run).map(|active| active.run),
        }
    }
}

/// `IMPL.document`: `{id, title, brief?, source, revision, archivedAt?}`.
/// `brief` is any value serializing as the document's brief.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentHead<'a, B> {
    /// The document id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Its brief, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brief: Option<&'a B>,
    /// The plan's source.
    pub source: &'a str,
    /// The plan's revision.
    pub revision: u64,
    /// When it was archived, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<&'a str>,
}

// Borrows only: copied whatever `B` is (a derive would ask `B: Copy`).
impl<B> Clone for DocumentHead<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for DocumentHead<'_, B> {}

/// `IMPL.repository`: the document's creation provenance.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepositoryHead<'a> {
    /// `owner/name`.
    pub name: &'a str,
    /// The base branch.
    pub base_branch: &'a str,
    /// The base commit.
    pub base_commit: &'a str,
}

/// `IMPL`: `{document, repository, graph, execution:{state, run?},
/// activity?, history}`, `read_implementation`'s answer.
#[derive(Debug)]
pub struct Implementation<'a, B> {
    /// The document.
    pub document: DocumentHead<'a, B>,
    /// Its provenance.
    pub repository: RepositoryHead<'a>,
    /// The latest version (approved or locked).
    pub graph: &'a GraphVersion,
    /// The active run, if any.
    pub active: Option<Active<'a>>,
    /// The document's ended runs, oldest first (the latest 20 suffice).
    pub ended: &'a [Ended<'a>],
}

impl<B> Clone for Implementation<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Implementation<'_, B> {}

impl<B: Serialize> Serialize for Implementation<'_, B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("document", &self.document)?;
        map.serialize_entry("repository", &self.repository)?;
        map.serialize_entry("graph", self.graph)?;
        map.serialize_entry("execution", &Execution::of(self.active, true))?;
        if let Some(active) = self.active {
            map.serialize_entry("activity", &active.state.progress(Some(active.events)))?;
        }
        map.serialize_entry("history", &History(self.ended))?;
        map.end()
    }
}

/// `start_implementation`'s answer: `{"state":"started"|"active","run":…}`.
#[derive(Debug, Clone, Copy)]
pub struct Claimed<'a> {
    /// Whether this call started the run (else it was active already).
    pub started: bool,
    /// The run.
    pub run: &'a Run,
}

impl Serialize for Claimed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("state", if self.started { "started" } else { "active" })?;
        map.serialize_entry("run", self.run)?;
        map.end()
    }
}
