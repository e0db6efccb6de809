//! The rules of implementation runs (IMPLEMENTATION.md §1): a plan's task
//! graph, its versions, a run's event log and what it folds to, each
//! transition and its refusal, the claim, the replay fingerprint and the
//! projections the tools answer. Plain functions over plain data: no I/O,
//! no clock, no randomness. Every host (the reference server, the Node
//! package, any other) calls them inside its own transaction, so that all
//! hosts refuse alike.
//!
//! The model, each rule in its order and a host's transaction are the
//! repository's `docs/implementation.md`, included below (its example
//! compiles as a doc test).
//!
#![doc = include_str!("../../docs/implementation.md")]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

mod claim;
mod event;
mod fingerprint;
mod fold;
#[doc(hidden)]
pub mod fuzz;
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
