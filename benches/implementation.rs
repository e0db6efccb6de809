//! The implementation rules (`chopin_mcp::implementation`) at the size
//! IMPLEMENTATION.md §4 caps a graph at: 200 tasks, and a log of about
//! 2,000 events. Every lifecycle call folds its run's log inside the
//! host's transaction, so the fold's budget is 1 ms (the median here).

use std::hint::black_box;

use chopin_mcp::implementation::{
    Active, Client, Command, Definition, Event, Evidence, Life, PrState, Run, Task, Verification,
    fold, to_json,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const TASKS: usize = 200;
const EVENTS: usize = 2_000;

fn id(i: usize) -> String {
    format!("task-{i:03}")
}

/// 200 tasks, each needing up to three earlier ones.
fn tasks() -> Vec<Task> {
    (0..TASKS)
        .map(|i| Task {
            id: id(i),
            title: format!("Implement part {i}"),
            context: "The surrounding code and why it changes. ".repeat(4),
            goal: "What is true once the task is done.".into(),
            acceptance: vec![
                "Its tests pass.".into(),
                "The docs say what changed.".into(),
            ],
            depends_on: [i / 2, i / 3, i / 5]
                .into_iter()
                .filter(|&d| d < i)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(id)
                .collect(),
        })
        .collect()
}

fn run() -> Run {
    Run {
        id: "01K2XQ7Z0000000000000000R1".into(),
        user: "allowed".into(),
        client: Client {
            name: "Codex".into(),
            version: "1.2.3".into(),
        },
        session: "01K2XQ7Z0000000000000000S1".into(),
        plan_revision: 3,
        graph_version: 1,
        graph_revision: 1,
        repository: "githubnext/chopin".into(),
        branch: "tq/017".into(),
        commit: "deadbeef".into(),
        started_at: "2026-12-05T16:00:00.000Z".into(),
    }
}

fn url(n: usize) -> String {
    format!("https://github.com/githubnext/chopin/pull/{}", n + 1)
}

/// A realistic log of `EVENTS` events that folds: every task started,
/// blocked and resumed, given a pull request and completed in order; then
/// failed verifications reopening a tenth of the tasks, reworked, until
/// the log is long enough; then a passing one and every merge.
fn log() -> Vec<Event> {
    let mut events = Vec::new();
    fn push(events: &mut Vec<Event>, command: Command) {
        let idempotency_key = format!("key-{:05}", events.len());
        events.push(Event {
            idempotency_key,
            command,
        });
    }
    let all: Vec<String> = (0..TASKS).map(id).collect();
    let verification = |work: Vec<String>| {
        Command::ReportVerification(Verification {
            passed: work.is_empty(),
            summary: "Reviewed every pull request against its criteria.".into(),
            reviewer_method: "Read the diffs; ran the suite.".into(),
            evidence: all
                .iter()
                .map(|task_id| Evidence {
                    task_id: task_id.clone(),
                    evidence: vec!["Tests cover it.".into()],
                })
                .collect(),
            tasks_needing_work: work,
        })
    };
    for i in 0..TASKS {
        let task_id = id(i);
        push(
            &mut events,
            Command::StartTask {
                task_id: task_id.clone(),
            },
        );
        push(
            &mut events,
            Command::BlockTask {
                task_id: task_id.clone(),
                reason: "Waiting on review.".into(),
            },
        );
        push(
            &mut events,
            Command::StartTask {
                task_id: task_id.clone(),
            },
        );
        push(
            &mut events,
            Command::ReportPr {
                task_id: task_id.clone(),
                url: url(i),
                state: PrState::Open,
            },
        );
        push(
            &mut events,
            Command::CompleteTask {
                task_id,
                summary: "Implemented and tested.".into(),
            },
        );
    }
    let mut round = 0;
    // Each round is a verification and 2 events for each of 20 tasks;
    // the end is a passing verification and 200 merges.
    while events.len() + 1 + 2 * (TASKS / 10) + 1 + TASKS <= EVENTS {
        let reworked: Vec<usize> = (0..TASKS).filter(|i| i % 10 == round % 10).collect();
        push(
            &mut events,
            verification(reworked.iter().map(|&i| id(i)).collect()),
        );
        for &i in &reworked {
            push(
                &mut events,
                Command::ReportPr {
                    task_id: id(i),
                    url: url(i),
                    state: PrState::Open,
                },
            );
            push(
                &mut events,
                Command::CompleteTask {
                    task_id: id(i),
                    summary: "Reworked.".into(),
                },
            );
        }
        round += 1;
    }
    // Pull requests reported again on completed tasks, to 2,000 exactly.
    let mut i = 0;
    while events.len() + 1 + TASKS < EVENTS {
        push(
            &mut events,
            Command::ReportPr {
                task_id: id(i),
                url: url(i),
                state: PrState::Open,
            },
        );
        i += 1;
    }
    push(&mut events, verification(Vec::new()));
    for i in 0..TASKS {
        push(
            &mut events,
            Command::ReportPr {
                task_id: id(i),
                url: url(i),
                state: PrState::Merged,
            },
        );
    }
    events
}

fn implementation(c: &mut Criterion) {
    let tasks = tasks();
    let run = run();
    let events = log();
    let stored: Vec<Vec<u8>> = events.iter().map(Event::to_json).collect();
    let bytes: usize = stored.iter().map(Vec::len).sum();
    assert_eq!(events.len(), EVENTS);
    let state = fold(&run, &tasks, &events).expect("the log folds");
    assert!(state.phase().passed());
    let mut group = c.benchmark_group("implementation");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function(format!("fold_{TASKS}_tasks_{}_events", events.len()), |b| {
        b.iter(|| fold(black_box(&run), black_box(&tasks), black_box(&events)))
    });
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("read_stored_log_and_fold", |b| {
        b.iter(|| {
            let events: Vec<Event> = stored
                .iter()
                .map(|json| Event::from_json(json).expect("stored events read"))
                .collect();
            fold(&run, &tasks, &events)
        })
    });
    let active = fold(&run, &tasks, &events[..events.len() - TASKS - 1]).expect("folds");
    group.bench_function("life_with_events", |b| {
        b.iter(|| {
            to_json(&Life {
                active: Some(Active {
                    run: &run,
                    state: &active,
                    events: &events,
                }),
                ended: &[],
            })
        })
    });
    let definition = Definition {
        tasks: tasks.clone(),
    };
    group.throughput(Throughput::Elements(TASKS as u64));
    group.bench_function("check_200_tasks", |b| {
        b.iter(|| black_box(&definition).check())
    });
    group.finish();
}

criterion_group!(benches, implementation);
criterion_main!(benches);
