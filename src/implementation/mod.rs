//! The rules of implementation runs (IMPLEMENTATION.md §1): a plan's task
//! graph, its versions, a run's event log and what it folds to, each
//! transition and its refusal, the claim, the replay fingerprint and the
//! projections the tools answer. Plain functions over plain data: no I/O,
//! no clock, no randomness. Every host (the reference server, the Node
//! package, any other) calls them inside its own transaction, so that all
//! hosts refuse alike.
//!
//! A lifecycle call, inside the host's transaction (the document row
//! locked), is [`report`]: the key's stored use, the run `runId` names with
//! its graph and log, and the command in; [`Decision::Replayed`] or the
//! event to append out (or a [`Refusal`]).
//!
//! ```
//! use chopin_mcp::implementation::{
//!     fingerprint, report, Command, Decision, Definition, Event, Life, Active, Report,
//!     Run, RunLog, Client, to_json,
//! };
//!
//! let definition = Definition::from_json(br#"{"tasks":[
//!   {"id":"foundation","title":"Foundation","context":"c","goal":"g",
//!    "acceptance":["a","b"],"dependsOn":[]}]}"#).unwrap();
//! definition.check().unwrap();
//! let run = Run {
//!     id: "01K2XQ7Z0000000000000000R1".into(), user: "allowed".into(),
//!     client: Client { name: "Codex".into(), version: "1.2.3".into() },
//!     session: "01K2XQ7Z0000000000000000S1".into(), plan_revision: 3,
//!     graph_version: 1, graph_revision: 1, repository: "githubnext/chopin".into(),
//!     branch: "tq/017".into(), commit: "deadbeef".into(),
//!     started_at: "2026-12-05T00:00:00.000Z".into(),
//! };
//! let stored: Vec<Event> = Vec::new(); // the run's log, read under the lock
//! let command = Command::StartTask { task_id: "foundation".into() };
//! let event = Event { idempotency_key: "k1".into(), command: command.clone() };
//! let print = fingerprint(&run.id, &event);
//! let decision = report(Report {
//!     stored: None, // the key's earlier use in the document, if any
//!     caller: "allowed",
//!     fingerprint: &print,
//!     run: Some(RunLog { run: &run, tasks: &definition.tasks, events: &stored }),
//!     idempotency_key: "k1",
//!     command: &command,
//! }).unwrap();
//! let Decision::Append { event, state, .. } = decision else { unreachable!() };
//! // The host appends `event.to_json()` with the key, caller and fingerprint,
//! // then answers the document's LIFE.
//! let log = vec![event];
//! let life = Life { active: Some(Active { run: &run, state: &state, events: &log }), ended: &[] };
//! assert!(String::from_utf8(to_json(&life)).unwrap().starts_with(
//!     r#"{"execution":{"state":"active"},"activity":{"tasks":[{"id":"foundation","state":"in_progress"}]"#));
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

mod claim;
mod event;
mod fingerprint;
mod fold;
mod graph;
mod project;
mod refusal;
mod run;
mod state;
mod text;
mod version;

pub use claim::{Claim, ClaimRequest, Claimable, claim};
pub use event::{Command, Event, Evidence, PrState, PullRequest, Verification};
pub use fingerprint::fingerprint;
pub use fold::{Decision, KeyUse, Report, RunLog, StoredKey, check_key, fold, report};
pub use graph::{
    Definition, GraphRefusal, GraphVersion, MAX_ACCEPTANCE, MAX_TASK_ID, MAX_TASKS, MAX_TEXT,
    MAX_TITLE, MIN_ACCEPTANCE, Task, VersionState,
};
pub use project::{
    Active, Claimed, DocumentHead, Ended, History, Implementation, Life, MAX_HISTORY, Progress,
    RepositoryHead, to_json,
};
pub use refusal::Refusal;
pub use run::{Client, Run};
pub use state::{Applied, Phase, RunState, TaskProgress, TaskState};
pub use version::{approve, draft, lock, unlock};

/// A map with a fixed hasher: no OS randomness in the core, and the same
/// iteration everywhere (no map is iterated into an answer).
type Map<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;
