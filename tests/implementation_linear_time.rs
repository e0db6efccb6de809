//! Folding a run's log is linear in the log: each family of stored logs
//! (200 tasks, IMPLEMENTATION.md §4's cap) is folded at three lengths, each
//! double the last, and the fold's own work counter (an event, a
//! dependency, a task or a list item looked at) must grow by at most a
//! constant factor close to 2 per doubling of the log's bytes. No
//! wall-clock assertions (the 1 ms budget is `benches/implementation.rs`'s).

mod common;

use chopin_mcp::implementation::{Client, Command, Event, PrState, Run, Task, fold};
use chopin_test_support::linear;
use common::implementation::{
    REPOSITORY, block, complete, fixture_tasks, pr, report_pr, start, task, verify,
};

const TASKS: usize = 200;

fn run() -> Run {
    Run {
        id: "R".into(),
        user: "u".into(),
        client: Client {
            name: "n".into(),
            version: "v".into(),
        },
        session: "s".into(),
        plan_revision: 3,
        graph_version: 1,
        graph_revision: 1,
        repository: REPOSITORY.into(),
        branch: "b".into(),
        commit: "c".into(),
        started_at: "t".into(),
    }
}

fn id(i: usize) -> String {
    format!("t{i}")
}

/// 200 roots.
fn roots() -> Vec<Task> {
    (0..TASKS).map(|i| task(&id(i), &[])).collect()
}

/// 199 roots and a last task needing all of them.
fn fan_in() -> Vec<Task> {
    let ids: Vec<String> = (0..TASKS - 1).map(id).collect();
    let needs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut tasks: Vec<Task> = ids.iter().map(|i| task(i, &[])).collect();
    tasks.push(task(&id(TASKS - 1), &needs));
    tasks
}

/// A stored log, one event's JSON a line.
struct Log {
    lines: String,
    count: usize,
}

impl Log {
    fn new() -> Log {
        Log {
            lines: String::new(),
            count: 0,
        }
    }

    fn push(&mut self, command: Command) {
        let event = Event {
            idempotency_key: format!("key-{}", self.count),
            command,
        };
        self.lines
            .push_str(std::str::from_utf8(&event.to_json()).unwrap());
        self.lines.push('\n');
        self.count += 1;
    }

    /// Every task in `range` started, given a pull request and completed.
    fn complete_all(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            self.push(start(&id(i)));
            self.push(report_pr(&id(i), &pr(i as u32 + 1), PrState::Open));
            self.push(complete(&id(i), "Done."));
        }
    }
}

/// 2,000, 4,000 and 8,000 events.
const SIZES: [usize; 3] = [2_000, 4_000, 8_000];

fn assert_linear(
    family: &str,
    sizes: [usize; 3],
    tasks: fn() -> Vec<Task>,
    make: impl Fn(&mut Log, usize),
) {
    let run = run();
    linear::assert_linear(
        family,
        sizes,
        |n| {
            let mut log = Log::new();
            make(&mut log, n);
            log.lines
        },
        |lines| {
            let events: Vec<Event> = lines
                .lines()
                .map(|line| Event::from_json(line.as_bytes()).unwrap())
                .collect();
            let state = fold(&run, &tasks(), &events).unwrap_or_else(|r| panic!("{family}: {r}"));
            assert!(state.steps() >= events.len() as u64);
            state.steps()
        },
    );
}

#[test]
fn starting_and_blocking_is_linear() {
    assert_linear("start/block churn", SIZES, roots, |log, n| {
        while log.count < n {
            let i = log.count % TASKS;
            log.push(start(&id(i)));
            log.push(block(&id(i), "Waiting."));
        }
    });
}

#[test]
fn dependency_checks_are_linear() {
    // Completing the 199 first is a fixed prefix of 597 cheap events: at
    // these lengths the restarts, 200 steps each, dominate.
    let sizes = [4_000, 8_000, 16_000];
    assert_linear(
        "a task needing 199 others, restarted",
        sizes,
        fan_in,
        |log, n| {
            log.complete_all(0..TASKS - 1);
            while log.count < n {
                log.push(start(&id(TASKS - 1)));
                log.push(block(&id(TASKS - 1), "Again."));
            }
        },
    );
}

#[test]
fn verifications_are_linear() {
    let all: Vec<String> = (0..TASKS).map(id).collect();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    assert_linear(
        "failed verifications, one task reworked",
        SIZES,
        roots,
        |log, n| {
            log.complete_all(0..TASKS);
            while log.count < n {
                log.push(verify(false, &all, &["t7"]));
                log.push(complete("t7", "Again."));
            }
        },
    );
}

#[test]
fn merges_of_one_url_over_many_tasks_are_linear() {
    assert_linear("one URL merged from every task", SIZES, roots, |log, n| {
        for i in 0..TASKS {
            log.push(start(&id(i)));
        }
        while log.count < n {
            let i = log.count % TASKS;
            log.push(report_pr(&id(i), &pr(1), PrState::Merged));
        }
    });
}

#[test]
fn the_fixture_graph_folds_a_long_log_too() {
    // A sanity floor: the two-task fixture, 10,000 restarts.
    let mut log = Log::new();
    log.push(start("foundation"));
    while log.count < 10_000 {
        log.push(block("foundation", "r"));
        log.push(start("foundation"));
    }
    let events: Vec<Event> = log
        .lines
        .lines()
        .map(|line| Event::from_json(line.as_bytes()).unwrap())
        .collect();
    let state = fold(&run(), &fixture_tasks(), &events).unwrap();
    assert!(state.steps() < 3 * events.len() as u64);
}
