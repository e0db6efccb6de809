//! The fuzz body of `fuzz/fuzz_targets/fold.rs`, kept in the crate so every
//! build type-checks it and `tests/implementation_fuzz_seeds.rs` replays the
//! committed seeds through it. It panics only when an invariant of the
//! rules is broken.
//!
//! Not part of the public API.

use super::{
    Active, Client, Command, Ended, Event, Evidence, Life, PrState, Refusal, Run, RunState, Task,
    Verification, fold, to_json,
};

/// Folds a random stored log. The first byte picks the shape: odd, the
/// rest is lines of stored JSON (each read with [`Event::from_json`], which
/// refuses anything but an event with `invalid-lifecycle`); even, a graph
/// of up to 8 tasks (dependencies from the bytes: unknown, repeated and
/// circular ones too) and a log of commands built from the bytes. Either
/// way the fold never panics, answers a state or `invalid-lifecycle`, and
/// folds exactly when the keys are unique and each event, applied in turn,
/// is accepted; its state
/// is the one applied in turn; its work stays linear; its projections are
/// JSON; each event reads back as it was written.
pub fn fold_log(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (tasks, events) = if mode & 1 == 1 {
        let mut events = Vec::new();
        for line in rest.split(|&byte| byte == b'\n') {
            match Event::from_json(line) {
                Ok(event) => events.push(event),
                Err(refusal) => assert_eq!(refusal, Refusal::InvalidLifecycle),
            }
        }
        (fixture(), events)
    } else {
        let mut bytes = Bytes(rest);
        let tasks = graph(&mut bytes);
        let mut events = Vec::new();
        while !bytes.0.is_empty() && events.len() < 512 {
            let key = bytes.next();
            let command = command(&mut bytes, &tasks);
            events.push(Event {
                idempotency_key: format!("k{key}"),
                command,
            });
        }
        (tasks, events)
    };
    check(&tasks, &events);
}

fn check(tasks: &[Task], events: &[Event]) {
    let run = run();
    let mut state = RunState::new(tasks, &run.repository);
    let mut keys: Vec<&str> = events.iter().map(|e| e.idempotency_key.as_str()).collect();
    keys.sort_unstable();
    let unique = keys.windows(2).all(|pair| pair[0] != pair[1]);
    let each = unique && events.iter().all(|event| state.apply(event).is_ok());
    let most = (events.len() as u64 + 1) * (3 * tasks.len() as u64 + 64);
    match fold(&run, tasks, events) {
        Ok(folded) => {
            assert!(each, "folded a log an event of which is refused");
            assert!(folded == state, "the fold and the events in turn differ");
            assert!(folded.steps() <= most, "the fold's work is not linear");
            let life = if folded.phase().ended() {
                to_json(&Life {
                    active: None,
                    ended: &[Ended {
                        run: &run,
                        state: &folded,
                    }],
                })
            } else {
                to_json(&Life {
                    active: Some(Active {
                        run: &run,
                        state: &folded,
                        events,
                    }),
                    ended: &[],
                })
            };
            assert!(serde_json::from_slice::<serde_json::Value>(&life).is_ok());
        }
        Err(refusal) => {
            assert!(!each, "refused a log whose events are each accepted");
            assert_eq!(refusal, Refusal::InvalidLifecycle);
        }
    }
    for event in events {
        assert!(Event::from_json(&event.to_json()).as_ref() == Ok(event));
    }
}

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }
}

fn id(i: u8) -> String {
    format!("t{}", i % 9)
}

fn task(id: String, depends_on: Vec<String>) -> Task {
    Task {
        id,
        title: "T".into(),
        context: "C".into(),
        goal: "G".into(),
        acceptance: vec!["A".into(), "B".into()],
        depends_on,
    }
}

fn fixture() -> Vec<Task> {
    vec![
        task("foundation".into(), Vec::new()),
        task("delivery".into(), vec!["foundation".into()]),
    ]
}

/// Up to 8 tasks; each dependency byte names any of `t0`–`t8` (`t8` is
/// never a task), so unknown, repeated and circular dependencies occur.
fn graph(bytes: &mut Bytes<'_>) -> Vec<Task> {
    let count = 1 + bytes.next() % 8;
    (0..count)
        .map(|i| {
            let needs = bytes.next() % 4;
            let depends_on = (0..needs)
                .map(|_| bytes.next())
                .filter(|&d| d % 2 == 0 || d % 9 < i)
                .map(id)
                .collect();
            task(id(i), depends_on)
        })
        .collect()
}

fn command(bytes: &mut Bytes<'_>, tasks: &[Task]) -> Command {
    let kind = bytes.next();
    let task_id = id(bytes.next());
    let urls = [
        "https://github.com/githubnext/chopin/pull/1",
        "https://github.com/githubnext/chopin/pull/2",
        "https://github.com/githubnext/chopin/pull/2/",
        "https://github.com/githubnext/chopin/pull/0",
        "https://github.com/elsewhere/other/pull/1",
    ];
    match kind % 7 {
        0 | 1 => Command::StartTask { task_id },
        2 => Command::BlockTask {
            task_id,
            reason: "r".into(),
        },
        3 => {
            let which = bytes.next();
            Command::ReportPr {
                task_id,
                url: urls[usize::from(which) % urls.len()].into(),
                state: [PrState::Open, PrState::Merged, PrState::Closed]
                    [usize::from(which / 8) % 3],
            }
        }
        4 => Command::CompleteTask {
            task_id,
            summary: "s".into(),
        },
        5 => {
            let shape = bytes.next();
            let mut evidence: Vec<String> = tasks.iter().map(|task| task.id.clone()).collect();
            if shape & 1 == 1 {
                evidence.rotate_left(1);
            }
            if shape & 2 == 2 {
                evidence.pop();
            }
            if shape & 4 == 4 {
                evidence.push(task_id.clone());
            }
            let work: Vec<String> = (0..(shape >> 3) % 3).map(|_| id(bytes.next())).collect();
            Command::ReportVerification(Verification {
                passed: if shape & 64 == 64 {
                    !work.is_empty()
                } else {
                    work.is_empty()
                },
                summary: "s".into(),
                reviewer_method: "m".into(),
                evidence: evidence
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

fn run() -> Run {
    Run {
        id: "R".into(),
        user: "u".into(),
        client: Client {
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
