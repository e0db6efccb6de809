//! A host of implementation runs over `chopin_mcp::implementation`, kept in
//! memory: IMPLEMENTATION.md §5's fixture (D at revision 3, version 1 r1
//! p3 approved, tasks `foundation` and `delivery` needing it), claims and
//! lifecycle calls each done as a store's transaction does them: check,
//! fold, apply, append, end the run and unlock the version when due.

use std::collections::HashMap;

use chopin_mcp::implementation::{
    Active, Applied, Claim, ClaimRequest, Claimable, Client, Command, Decision, Definition, Ended,
    Event, Evidence, GraphVersion, Life, PrState, Refusal, Report, Run, RunLog, RunState,
    StoredKey, Task, Verification, VersionState, claim, fingerprint, fold, lock, to_json, unlock,
    verified,
};
use serde_json::Value;

/// The fixture's repository.
pub const REPOSITORY: &str = "githubnext/chopin";
/// The fixture's caller.
pub const CALLER: &str = "allowed";

/// A task with two criteria.
pub fn task(id: &str, depends_on: &[&str]) -> Task {
    Task {
        id: id.into(),
        title: format!("Task {id}"),
        context: "Context.".into(),
        goal: "Goal.".into(),
        acceptance: vec!["First.".into(), "Second.".into()],
        depends_on: depends_on.iter().map(|d| (*d).into()).collect(),
    }
}

/// `foundation`, and `delivery` needing it.
pub fn fixture_tasks() -> Vec<Task> {
    vec![task("foundation", &[]), task("delivery", &["foundation"])]
}

/// A pull request of the fixture's repository.
pub fn pr(n: u32) -> String {
    format!("https://github.com/{REPOSITORY}/pull/{n}")
}

pub fn start(task: &str) -> Command {
    Command::StartTask {
        task_id: task.into(),
    }
}

pub fn block(task: &str, reason: &str) -> Command {
    Command::BlockTask {
        task_id: task.into(),
        reason: reason.into(),
    }
}

pub fn report_pr(task: &str, url: &str, state: PrState) -> Command {
    Command::ReportPr {
        task_id: task.into(),
        url: url.into(),
        state,
    }
}

pub fn complete(task: &str, summary: &str) -> Command {
    Command::CompleteTask {
        task_id: task.into(),
        summary: summary.into(),
    }
}

/// A verification with one evidence item per task named in `evidence`.
pub fn verify(passed: bool, evidence: &[&str], work: &[&str]) -> Command {
    Command::ReportVerification(Verification {
        passed,
        summary: "Reviewed.".into(),
        reviewer_method: "Read the diffs.".into(),
        evidence: evidence
            .iter()
            .map(|id| Evidence {
                task_id: (*id).into(),
                evidence: vec![format!("{id} works.")],
            })
            .collect(),
        tasks_needing_work: work.iter().map(|id| (*id).into()).collect(),
    })
}

pub fn revise(reason: &str) -> Command {
    Command::RequestRevision {
        reason: reason.into(),
    }
}

/// §5's claim A: {D, 3, 1, 1}.
pub const A: ClaimRequest = ClaimRequest {
    plan_revision: 3,
    graph_version: 1,
    graph_revision: 1,
};

/// One document of an in-memory store.
pub struct Host {
    pub plan_revision: u64,
    pub versions: Vec<GraphVersion>,
    /// Every run, oldest first, with its log.
    pub runs: Vec<(Run, Vec<Event>)>,
    /// Key → (caller, fingerprint), across the document.
    pub keys: HashMap<String, (String, String)>,
}

impl Host {
    /// §5's fixture: D at revision 3, version 1 r1 p3 approved.
    pub fn fixture() -> Host {
        Host {
            plan_revision: 3,
            versions: vec![GraphVersion {
                number: 1,
                revision: 1,
                plan_revision: 3,
                state: VersionState::Approved,
                definition: Definition {
                    tasks: fixture_tasks(),
                },
            }],
            runs: Vec::new(),
            keys: HashMap::new(),
        }
    }

    pub fn latest(&self) -> Option<&GraphVersion> {
        self.versions.last()
    }

    fn tasks_of(&self, run: &Run) -> &[Task] {
        self.versions
            .iter()
            .find(|version| version.number == run.graph_version)
            .map_or(&[], |version| &version.definition.tasks)
    }

    /// Each run's folded state.
    pub fn states(&self) -> Vec<RunState> {
        self.runs
            .iter()
            .map(|(run, log)| fold(run, self.tasks_of(run), log).expect("stored logs fold"))
            .collect()
    }

    /// The index of the active run.
    pub fn active(&self) -> Option<usize> {
        let states = self.states();
        (0..self.runs.len()).find(|&at| !states[at].phase().ended())
    }

    /// The latest run.
    pub fn run(&self) -> Run {
        self.runs.last().expect("a run").0.clone()
    }

    /// `start_implementation`: the run and whether this call started it.
    pub fn claim(&mut self, request: ClaimRequest) -> Result<(bool, Run), Refusal> {
        let states = self.states();
        let active = self.active().map(|at| &self.runs[at].0);
        let latest = self.versions.last();
        let latest_verified = latest.is_some_and(|latest| {
            verified(
                latest.number,
                self.runs.iter().map(|(run, _)| run).zip(&states),
            )
        });
        let document = Claimable {
            plan_revision: self.plan_revision,
            active,
            latest,
            latest_verified,
        };
        match claim(document, request)? {
            Claim::Active(run) => Ok((false, run.clone())),
            Claim::Start => {
                let latest = self.versions.last_mut().expect("a version");
                latest.state = lock(latest).expect("approved");
                let run = Run {
                    id: format!("01K2XQ7Z00000000000000RUN{}", self.runs.len() + 1),
                    user: CALLER.into(),
                    client: Client {
                        name: "Codex".into(),
                        version: "1.2.3".into(),
                    },
                    session: "01K2XQ7Z0000000000000SESS1".into(),
                    plan_revision: request.plan_revision,
                    graph_version: request.graph_version,
                    graph_revision: request.graph_revision,
                    repository: REPOSITORY.into(),
                    branch: "tq/017".into(),
                    commit: "deadbeef".into(),
                    started_at: "2026-12-05T16:00:00.000Z".into(),
                };
                self.runs.push((run.clone(), Vec::new()));
                Ok((true, run))
            }
        }
    }

    /// A lifecycle call by `caller` on `run_id`: the document's `LIFE`
    /// after it, or the refusal (nothing stored).
    pub fn call(
        &mut self,
        caller: &str,
        run_id: &str,
        key: &str,
        command: Command,
    ) -> Result<Value, Refusal> {
        let event = Event {
            idempotency_key: key.into(),
            command: command.clone(),
        };
        let print = fingerprint(run_id, &event);
        let at = self.runs.iter().position(|(run, _)| run.id == run_id);
        let decision = {
            let stored = self.keys.get(key).map(|(caller, fingerprint)| StoredKey {
                caller,
                fingerprint,
            });
            let run = at.map(|at| RunLog {
                run: &self.runs[at].0,
                tasks: self.tasks_of(&self.runs[at].0),
                events: &self.runs[at].1,
            });
            chopin_mcp::implementation::report(Report {
                stored,
                caller,
                fingerprint: &print,
                run,
                idempotency_key: key,
                command: &command,
            })?
        };
        if let Decision::Append {
            event,
            state,
            applied,
        } = decision
        {
            let at = at.expect("an appended event has its run");
            let refolded = {
                let (run, log) = &self.runs[at];
                let mut log = log.clone();
                log.push(event.clone());
                fold(run, self.tasks_of(run), &log).expect("the new log folds")
            };
            assert_eq!(refolded, *state, "the log folds to the state promised");
            self.runs[at].1.push(event);
            self.keys.insert(key.into(), (caller.into(), print));
            if applied == Applied::Ended {
                let number = self.runs[at].0.graph_version;
                let version = self
                    .versions
                    .iter_mut()
                    .find(|version| version.number == number)
                    .expect("its version");
                version.state = unlock(version);
            }
        }
        Ok(self.life())
    }

    /// A call by the fixture's caller on the latest run.
    pub fn on_run(&mut self, key: &str, command: Command) -> Result<Value, Refusal> {
        let run = self.run().id;
        self.call(CALLER, &run, key, command)
    }

    /// The document's `LIFE`, parsed.
    pub fn life(&self) -> Value {
        serde_json::from_slice(&self.life_json()).expect("LIFE is JSON")
    }

    /// The document's `LIFE` as written.
    pub fn life_json(&self) -> Vec<u8> {
        let states = self.states();
        let active_at = self.active();
        let active = active_at.map(|at| Active {
            run: &self.runs[at].0,
            state: &states[at],
            events: &self.runs[at].1,
        });
        let ended: Vec<Ended<'_>> = (0..self.runs.len())
            .filter(|&at| Some(at) != active_at)
            .map(|at| Ended {
                run: &self.runs[at].0,
                state: &states[at],
            })
            .collect();
        to_json(&Life {
            active,
            ended: &ended,
        })
    }

    /// Adds a version (as `graph draft` then `graph approve` would leave it).
    pub fn add_version(&mut self, state: VersionState) {
        let number = self.versions.len() as u64 + 1;
        if state == VersionState::Approved {
            for version in &mut self.versions {
                if version.state == VersionState::Approved {
                    version.state = VersionState::Superseded;
                }
            }
        }
        self.versions.push(GraphVersion {
            number,
            revision: 1,
            plan_revision: self.plan_revision,
            state,
            definition: Definition {
                tasks: fixture_tasks(),
            },
        });
    }
}

/// The states of `life`'s active tasks, in order.
pub fn task_states(life: &Value) -> Vec<String> {
    life["activity"]["tasks"]
        .as_array()
        .expect("an active run")
        .iter()
        .map(|task| task["state"].as_str().unwrap_or_default().to_owned())
        .collect()
}
