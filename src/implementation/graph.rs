//! A graph version and its definition (§1), and the checks a definition
//! passes before it is stored (§4's `graph draft`), each in linear time.

use serde::{Deserialize, Serialize};

use super::text::not_blank_within;
use super::{Map, Refusal};

/// The most tasks a definition holds.
pub const MAX_TASKS: usize = 200;
/// The most scalar values of a task id.
pub const MAX_TASK_ID: usize = 128;
/// The most scalar values of a task title.
pub const MAX_TITLE: usize = 120;
/// The most scalar values of every other text (context, goal, criteria).
pub const MAX_TEXT: usize = 5000;
/// The fewest acceptance criteria of a task.
pub const MIN_ACCEPTANCE: usize = 2;
/// The most acceptance criteria of a task.
pub const MAX_ACCEPTANCE: usize = 8;

/// One task of a graph: `{id, title, context, goal, acceptance,
/// dependsOn}`, written in that order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Task {
    /// Unique in its graph; 1–128 scalar values, not blank.
    pub id: String,
    /// 1–120 scalar values, not blank.
    pub title: String,
    /// Up to 5000 scalar values, not blank.
    pub context: String,
    /// Up to 5000 scalar values, not blank.
    pub goal: String,
    /// 2–8 criteria, each up to 5000 scalar values, not blank.
    pub acceptance: Vec<String>,
    /// Ids of other tasks of the graph, each once.
    pub depends_on: Vec<String>,
}

/// A graph's definition: `{"tasks":[…]}`, the file `graph draft` reads.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// The tasks, in the order given.
    pub tasks: Vec<Task>,
}

impl Definition {
    /// Reads `{"tasks":[…]}` (exact keys, every field present); a text that
    /// is not that shape is refused as [`Refusal::Task`]. The tasks are not
    /// checked: [`check`](Definition::check) does that.
    pub fn from_json(text: &[u8]) -> Result<Definition, Refusal> {
        serde_json::from_slice(text).map_err(|_| Refusal::Task)
    }

    /// The checks of §4 in their order, each over every task: `task` (more
    /// than 200 tasks, or a text blank or too long), `duplicate` (an id
    /// twice, or a dependency named twice by one task), `acceptance` (not
    /// 2–8 criteria, or one blank or over 5000), `missing` (a dependency on
    /// no task), `self`, `cycle`, `root` (no task without dependencies).
    /// Linear in the definition's size: ids are looked up in one map, the
    /// cycle found by Kahn's algorithm.
    pub fn check(&self) -> Result<(), GraphRefusal> {
        self.check_steps().0
    }

    /// [`check`](Definition::check) and the units of work it took (a task
    /// or a dependency looked at, a pass each), for the linear-time tests.
    #[doc(hidden)]
    pub fn check_steps(&self) -> (Result<(), GraphRefusal>, u64) {
        let mut steps = 0;
        let verdict = self.check_counting(&mut steps);
        (verdict, steps)
    }

    fn check_counting(&self, steps: &mut u64) -> Result<(), GraphRefusal> {
        let tasks = &self.tasks;
        if tasks.len() > MAX_TASKS {
            return Err(GraphRefusal::at(Refusal::Task, MAX_TASKS));
        }
        // Each pass below looks at every task once and at most every
        // dependency once.
        let edges: usize = tasks.iter().map(|task| task.depends_on.len()).sum();
        *steps += (tasks.len() + edges) as u64;
        first(tasks, Refusal::Task, |task| !well_formed(task))?;
        let mut index: Map<&str, usize> = Map::default();
        for (at, task) in tasks.iter().enumerate() {
            if index.insert(task.id.as_str(), at).is_some() {
                return Err(GraphRefusal::at(Refusal::Duplicate, at));
            }
        }
        // A dependency named twice by one task: one map for all, each name
        // holding the last task that named it (no clearing between tasks).
        *steps += (tasks.len() + edges) as u64;
        let mut named: Map<&str, usize> = Map::default();
        for (at, task) in tasks.iter().enumerate() {
            for dependency in &task.depends_on {
                if named.insert(dependency.as_str(), at) == Some(at) {
                    return Err(GraphRefusal::at(Refusal::Duplicate, at));
                }
            }
        }
        *steps += tasks.len() as u64;
        first(tasks, Refusal::Acceptance, |task| {
            !acceptable(&task.acceptance)
        })?;
        *steps += (tasks.len() + edges) as u64;
        first(tasks, Refusal::Missing, |task| {
            task.depends_on
                .iter()
                .any(|dependency| !index.contains_key(dependency.as_str()))
        })?;
        *steps += (tasks.len() + edges) as u64;
        first(tasks, Refusal::SelfDependency, |task| {
            task.depends_on.contains(&task.id)
        })?;
        if let Some(at) = cycle(tasks, &index, steps) {
            return Err(GraphRefusal::at(Refusal::Cycle, at));
        }
        *steps += tasks.len() as u64;
        if !tasks.iter().any(|task| task.depends_on.is_empty()) {
            return Err(GraphRefusal {
                refusal: Refusal::Root,
                task: None,
            });
        }
        Ok(())
    }
}

/// A definition's refusal, with the index of the first task it concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphRefusal {
    /// What is wrong.
    pub refusal: Refusal,
    /// The index (in the definition) of the first task found wrong; `None`
    /// for `root`.
    pub task: Option<usize>,
}

impl GraphRefusal {
    fn at(refusal: Refusal, task: usize) -> GraphRefusal {
        GraphRefusal {
            refusal,
            task: Some(task),
        }
    }
}

impl From<GraphRefusal> for Refusal {
    fn from(refusal: GraphRefusal) -> Refusal {
        refusal.refusal
    }
}

fn first(
    tasks: &[Task],
    refusal: Refusal,
    wrong: impl Fn(&Task) -> bool,
) -> Result<(), GraphRefusal> {
    match tasks.iter().position(wrong) {
        Some(at) => Err(GraphRefusal::at(refusal, at)),
        None => Ok(()),
    }
}

fn well_formed(task: &Task) -> bool {
    not_blank_within(&task.id, MAX_TASK_ID)
        && not_blank_within(&task.title, MAX_TITLE)
        && not_blank_within(&task.context, MAX_TEXT)
        && not_blank_within(&task.goal, MAX_TEXT)
}

fn acceptable(acceptance: &[String]) -> bool {
    (MIN_ACCEPTANCE..=MAX_ACCEPTANCE).contains(&acceptance.len())
        && acceptance
            .iter()
            .all(|criterion| not_blank_within(criterion, MAX_TEXT))
}

/// The first task (in definition order) left on a cycle, or through one,
/// by Kahn's algorithm: every dependency known and unique, each edge
/// visited once.
fn cycle(tasks: &[Task], index: &Map<&str, usize>, steps: &mut u64) -> Option<usize> {
    let mut waiting: Vec<usize> = tasks.iter().map(|task| task.depends_on.len()).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (at, task) in tasks.iter().enumerate() {
        *steps += 1 + task.depends_on.len() as u64;
        for dependency in &task.depends_on {
            if let Some(&from) = index.get(dependency.as_str()) {
                dependents[from].push(at);
            }
        }
    }
    let mut ready: Vec<usize> = (0..tasks.len()).filter(|&at| waiting[at] == 0).collect();
    let mut done = 0;
    while let Some(at) = ready.pop() {
        done += 1;
        *steps += 1 + dependents[at].len() as u64;
        for &next in &dependents[at] {
            waiting[next] -= 1;
            if waiting[next] == 0 {
                ready.push(next);
            }
        }
    }
    (done < tasks.len())
        .then(|| waiting.iter().position(|&left| left > 0))
        .flatten()
}

/// A version's state (§1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionState {
    /// Being edited; not claimable.
    Draft,
    /// Approved by a person; the latest approved one is claimable.
    Approved,
    /// Claimed by the active run.
    Locked,
    /// A later version was approved.
    Superseded,
}

impl VersionState {
    /// `draft`, `approved`, `locked` or `superseded`.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionState::Draft => "draft",
            VersionState::Approved => "approved",
            VersionState::Locked => "locked",
            VersionState::Superseded => "superseded",
        }
    }
}

/// A graph version: `{number, revision, planRevision, state, definition}`
/// (`VERSION`, written in that order). (number, revision, planRevision) is
/// the exact graph reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphVersion {
    /// Counts the document's versions, from 1.
    pub number: u64,
    /// Counts a draft's edits, from 1.
    pub revision: u64,
    /// The plan revision the version was drafted (or last edited) on.
    pub plan_revision: u64,
    /// Where it stands.
    pub state: VersionState,
    /// Its tasks.
    pub definition: Definition,
}
