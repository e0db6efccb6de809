//! `chopin-mcp-server`'s workers: one single-threaded runtime per CPU, each
//! kept on a CPU of its own when there is exactly one CPU per worker
//! (`src/affinity.rs`); `--workers N` sets the count and `--no-pin` leaves
//! placement to the scheduler. Threads the runtimes start for blocking work
//! (SQLite creates) and the thread holding event streams run on every CPU.
//! Read from `/proc`, so Linux only.
#![cfg(target_os = "linux")]

#[path = "interop/harness.rs"]
mod support;

use std::collections::BTreeSet;

use support::{Server, draft};

const SERVER: &str = "chopin-mcp-server";

/// The CPUs of a `Cpus_allowed_list` value such as `0-2,5`.
fn cpu_list(text: &str) -> BTreeSet<usize> {
    let mut cpus = BTreeSet::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (low, high) = part.split_once('-').unwrap_or((part, part));
        cpus.extend(low.parse::<usize>().unwrap()..=high.parse::<usize>().unwrap());
    }
    cpus
}

fn allowed(status: &str) -> BTreeSet<usize> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .expect("a Cpus_allowed_list line");
    cpu_list(line)
}

/// The CPUs this test may run on: what a server it starts inherits.
fn our_cpus() -> BTreeSet<usize> {
    allowed(&std::fs::read_to_string("/proc/self/status").unwrap())
}

/// Each thread of `pid`: its name and the CPUs it may run on.
fn threads(pid: u32) -> Vec<(String, BTreeSet<usize>)> {
    support::thread_statuses(pid)
        .into_iter()
        .map(|(name, status)| (name, allowed(&status)))
        .collect()
}

/// The workers' threads: the main thread (worker 0) and `worker-N`. The
/// main thread is told by its id, not its name: a thread just started
/// carries its parent's name until it sets its own (the streams thread and
/// the log writer may still be doing so when the banner is out).
fn workers(pid: u32) -> Vec<(String, BTreeSet<usize>)> {
    let main = format!("Pid:\t{pid}");
    support::thread_statuses(pid)
        .into_iter()
        .filter(|(name, status)| name.starts_with("worker-") || status.lines().any(|l| l == main))
        .map(|(name, status)| (name, allowed(&status)))
        .collect()
}

fn start(extra: &[&str]) -> Server {
    Server::seeded_with(SERVER, extra)
}

#[test]
fn one_worker_per_cpu_each_kept_on_a_cpu_of_its_own() {
    let cpus = our_cpus();
    let count = cpus.len().to_string();
    // `--workers` as many as the CPUs: a CPU quota, which would lower the
    // default count below the mask's, cannot change what is checked.
    let server = start(&["--workers", &count]);
    let workers = workers(server.pid());
    assert_eq!(workers.len(), cpus.len(), "{workers:?}");
    let mut kept = BTreeSet::new();
    for (name, allowed) in &workers {
        assert_eq!(allowed.len(), 1, "{name} may run on {allowed:?}");
        kept.extend(allowed);
    }
    assert_eq!(kept, cpus, "every CPU gets one worker: {workers:?}");
    let line = server.banner_line("workers: ").expect("a workers line");
    assert!(line.contains("each kept on one CPU"), "{line}");
}

#[test]
fn no_pin_leaves_every_worker_on_every_cpu() {
    let cpus = our_cpus();
    let count = cpus.len().to_string();
    let server = start(&["--workers", &count, "--no-pin"]);
    let workers = workers(server.pid());
    assert_eq!(workers.len(), cpus.len(), "{workers:?}");
    for (name, allowed) in &workers {
        assert_eq!(*allowed, cpus, "{name}");
    }
    assert_eq!(
        server.banner_line("workers: ").as_deref(),
        Some(count.as_str())
    );
}

#[test]
fn workers_that_do_not_match_the_cpus_are_not_pinned() {
    let cpus = our_cpus();
    let more = cpus.len() + 1;
    let server = start(&["--workers", &more.to_string()]);
    let workers = workers(server.pid());
    assert_eq!(workers.len(), more, "{workers:?}");
    for (name, allowed) in &workers {
        assert_eq!(*allowed, cpus, "{name}");
    }
}

#[test]
fn creates_run_on_every_cpu_not_on_a_pinned_worker() {
    let cpus = our_cpus();
    let server = start(&["--workers", &cpus.len().to_string()]);
    let plan = "# Plan\n\nDo it.\n";
    // One create per worker: connections are handed out in turn.
    for n in 0..cpus.len() {
        let arguments = draft(&format!("w-{n}"), "Workers", plan).to_string();
        let response = server.call("create_document", &arguments);
        assert!(response.contains(r#""url":"/documents/"#), "{response}");
    }
    let pid = server.pid();
    let main = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    let blocking: Vec<_> = threads(pid)
        .into_iter()
        .filter(|(name, _)| name.starts_with("tokio-"))
        .collect();
    assert!(
        !blocking.is_empty(),
        "no blocking thread: {:?}",
        threads(pid)
    );
    for (name, allowed) in &blocking {
        assert_eq!(*allowed, cpus, "{name} (main thread {main:?})");
    }
}

#[test]
fn the_streams_thread_runs_on_every_cpu_beside_pinned_workers() {
    let cpus = our_cpus();
    let server = start(&["--workers", &cpus.len().to_string()]);
    let streams: Vec<_> = threads(server.pid())
        .into_iter()
        .filter(|(name, _)| name == "streams")
        .collect();
    assert_eq!(streams.len(), 1, "{:?}", threads(server.pid()));
    assert_eq!(streams[0].1, cpus);
}

#[test]
fn a_bad_worker_count_is_refused() {
    for count in ["0", "many", "-1", "1025"] {
        let (code, stderr) = support::run(SERVER, &["--memory", "--workers", count]);
        assert_eq!(code, Some(2), "{count}: {stderr}");
        assert!(stderr.contains("--workers"), "{count}: {stderr}");
    }
}
