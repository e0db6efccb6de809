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
use std::hash::{BuildHasherDefault, Hasher};

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

pub use claim::{Claim, ClaimRequest, Claimable, claim, verified};
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

/// A map keyed by a graph's task ids (at most 200, chosen by the operator
/// who drafts the graph), with a fixed, fast hasher: no OS randomness in
/// the core. Texts callers choose (keys, URLs) are never hashed: they go
/// in ordered sets, so no caller can make them collide.
type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// The Fx hash (rustc's): a rotate, an xor and a multiply a word.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut word = [0; 8];
        let rest = chunks.remainder();
        word[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
