//! Properties of the fold and the transitions over random event sequences
//! (a deterministic generator, so a failure reproduces): folding never
//! panics; a log folds exactly when its keys are unique and each event,
//! applied in turn, is accepted; every accepted transition's log re-folds to the state it
//! promised; a refused one changes nothing; an ended run never comes back;
//! what is stored reads back, and every projection is JSON.

mod common;

use chopin_mcp::implementation::{
    Active, Command, Decision, Ended, Event, Evidence, Life, Phase, PrState, Report, Run, RunLog,
    RunState, Task, TaskState, Verification, fingerprint, fold, report, to_json,
};
use common::implementation::{pr, task};

/// xorshift64*: small, deterministic, good enough to pick cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A random DAG of 1–6 tasks: each may depend on earlier ones.
fn graph(rng: &mut Rng) -> Vec<Task> {
    let n = 1 + rng.below(6);
    let ids: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    (0..n)
        .map(|i| {
            let depends: Vec<&str> = (0..i)
                .filter(|_| rng.chance(30))
                .map(|j| ids[j].as_str())
                .collect();
            task(&ids[i], &depends)
        })
        .collect()
}

fn run() -> Run {
    Run {
        id: "R".into(),
        user: "u".into(),
        client: chopin_mcp::implementation::Client {
            name: "n".into(),
            version: "v".into(),
        },
        session: "s".into(),
        plan_revision: 1,
        graph_version: 1,
        graph_revision: 1,
        repository: "githubnext/chopin".into(),
        branch: "b".into(),
        commit: "c".into(),
        started_at: "t".into(),
    }
}

fn command(rng: &mut Rng, tasks: &[Task]) -> Command {
    let mut ids: Vec<String> = tasks.iter().map(|task| task.id.clone()).collect();
    let task_id = if rng.chance(5) {
        "ghost".to_owned()
    } else {
        rng.pick(&ids).clone()
    };
    let urls = [
        pr(1),
        pr(2),
        pr(3),
        format!("{}/", pr(1)),
        "https://github.com/elsewhere/other/pull/9".to_owned(),
    ];
    match rng.below(100) {
        0..=24 => Command::StartTask { task_id },
        25..=34 => Command::BlockTask {
            task_id,
            reason: "r".into(),
        },
        35..=59 => Command::ReportPr {
            task_id,
            url: rng.pick(&urls).clone(),
            state: *rng.pick(&[
                PrState::Open,
                PrState::Open,
                PrState::Merged,
                PrState::Closed,
            ]),
        },
        60..=84 => Command::CompleteTask {
            task_id,
            summary: "s".into(),
        },
        85..=97 => {
            // Mostly well formed: every task once, in some order.
            for i in (1..ids.len()).rev() {
                ids.swap(i, rng.below(i + 1));
            }
            if rng.chance(15) {
                let drop = rng.below(ids.len());
                ids.remove(drop);
            }
            if rng.chance(10) {
                ids.push("t0".into());
            }
            let work: Vec<String> = tasks
                .iter()
                .filter(|_| rng.chance(25))
                .map(|task| task.id.clone())
                .collect();
            let passed = if rng.chance(90) {
                work.is_empty()
            } else {
                rng.chance(50)
            };
            Command::ReportVerification(Verification {
                passed,
                summary: "s".into(),
                reviewer_method: "m".into(),
                evidence: ids
                    .into_iter()
                    .map(|task_id| Evidence {
                        task_id,
                        evidence: vec!["e".into()],
                    })
                    .collect(),
                tasks_needing_work: work,
            })
        }
        _ => Command::RequestRevision { reason: "r".into() },
    }
}

fn key(rng: &mut Rng, step: usize) -> String {
    if rng.chance(3) && step > 0 {
        format!("k{}", rng.below(step))
    } else {
        format!("k{step}")
    }
}

fn assert_projections_are_json(run: &Run, state: &RunState, log: &[Event]) {
    let view = if state.phase().ended() {
        to_json(&Life {
            active: None,
            ended: &[Ended { run, state }],
        })
    } else {
        to_json(&Life {
            active: Some(Active {
                run,
                state,
                events: log,
            }),
            ended: &[],
        })
    };
    serde_json::from_slice::<serde_json::Value>(&view).expect("a projection is JSON");
}

fn invariants(state: &RunState) {
    if state.phase().passed() {
        assert!(
            state
                .tasks()
                .iter()
                .all(|t| t.state() == TaskState::Completed)
        );
    }
    if state.phase() == Phase::Delivered {
        for at in 0..state.tasks().len() {
            assert_eq!(state.pull_request(at).unwrap().state, PrState::Merged);
        }
    }
    for task in state.tasks() {
        assert_eq!(task.blocker().is_some(), task.state() == TaskState::Blocked);
        assert_eq!(
            task.summary().is_some(),
            task.state() == TaskState::Completed
        );
    }
}

#[test]
fn accepted_transitions_refold_to_the_state_they_promised() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let run = run();
    let mut accepted = 0;
    let mut reached = std::collections::HashSet::new();
    for _ in 0..400 {
        let tasks = graph(&mut rng);
        let mut log: Vec<Event> = Vec::new();
        let mut state = fold(&run, &tasks, &log).unwrap();
        for step in 0..48 {
            let event = Event {
                idempotency_key: key(&mut rng, step),
                command: command(&mut rng, &tasks),
            };
            if log
                .iter()
                .any(|e| e.idempotency_key == event.idempotency_key)
            {
                // The host answers a used key itself; a log holding one
                // twice never folds.
                let mut twice = log.clone();
                twice.push(event);
                assert!(fold(&run, &tasks, &twice).is_err());
                continue;
            }
            let before = state.clone();
            let was_ended = state.phase().ended();
            match state.apply(&event) {
                Ok(_) => {
                    accepted += 1;
                    log.push(event);
                    let refolded = fold(&run, &tasks, &log).expect("an accepted log folds");
                    assert_eq!(refolded, state);
                    invariants(&state);
                    reached.insert(state.phase());
                    if was_ended {
                        assert!(state.phase().ended(), "an ended run stays ended");
                    }
                }
                Err(_) => assert_eq!(state, before, "a refusal changes nothing"),
            }
            assert_projections_are_json(&run, &state, &log);
        }
    }
    assert!(
        accepted > 2_000,
        "only {accepted} accepted: the generator is too wild"
    );
    assert_eq!(reached.len(), 4, "phases reached: {reached:?}");
}

#[test]
fn report_appends_what_the_fold_of_the_longer_log_gives() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let run = run();
    for _ in 0..300 {
        let tasks = graph(&mut rng);
        let mut log: Vec<Event> = Vec::new();
        for step in 0..32 {
            let command = command(&mut rng, &tasks);
            let key = format!("k{step}");
            let print = fingerprint(
                &run.id,
                &Event {
                    idempotency_key: key.clone(),
                    command: command.clone(),
                },
            );
            let decision = report(Report {
                stored: None,
                caller: "u",
                fingerprint: &print,
                run: Some(RunLog {
                    run: &run,
                    tasks: &tasks,
                    events: &log,
                }),
                idempotency_key: &key,
                command: &command,
            });
            if let Ok(Decision::Append { event, state, .. }) = decision {
                assert_eq!(event.command, command);
                log.push(event);
                assert_eq!(fold(&run, &tasks, &log).unwrap(), *state);
            }
        }
    }
}

#[test]
fn any_log_folds_exactly_when_its_keys_are_unique_and_each_event_is_accepted_in_turn() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let run = run();
    let mut folded = 0;
    for _ in 0..3_000 {
        let tasks = graph(&mut rng);
        let length = rng.below(12);
        let log: Vec<Event> = (0..length)
            .map(|step| Event {
                idempotency_key: key(&mut rng, step),
                command: command(&mut rng, &tasks),
            })
            .collect();
        let mut state = RunState::new(&tasks, &run.repository);
        let mut keys: Vec<&str> = log.iter().map(|e| e.idempotency_key.as_str()).collect();
        keys.sort_unstable();
        let unique = keys.windows(2).all(|pair| pair[0] != pair[1]);
        let each = unique && log.iter().all(|event| state.apply(event).is_ok());
        match fold(&run, &tasks, &log) {
            Ok(result) => {
                folded += 1;
                assert!(each);
                assert_eq!(result, state);
            }
            Err(refusal) => {
                assert!(!each);
                assert_eq!(refusal.code(), "invalid-lifecycle");
            }
        }
        // What is stored reads back as it was.
        for event in &log {
            assert_eq!(Event::from_json(&event.to_json()).as_ref(), Ok(event));
        }
    }
    assert!(folded > 300, "only {folded} logs folded");
}
