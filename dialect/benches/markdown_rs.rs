//! The dialect parser beside markdown-rs (the `markdown` crate, the test
//! oracle) on the same inputs, and the dialect's growth when an input
//! doubles. Prints a table; asserts nothing (CI machines are noisy).
//!
//! `cargo bench --bench markdown_rs`
//!
//! markdown-rs is super-linear on the adversarial families, so each of its
//! runs happens in a child process (this binary, re-invoked) that is killed
//! after 10 s: those rows say "> 10 s" instead of a ratio.

#![allow(clippy::disallowed_methods)] // a benchmark reads the clock; the crate does not

use std::hint::black_box;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chopin_dialect::SequentialIds;
use chopin_dialect::check;

use chopin_test_support::plans;

/// The dialect's constructs for markdown-rs, as the differential tests use them.
#[path = "../tests/common/oracle.rs"]
#[allow(dead_code)]
mod oracle;

/// How long markdown-rs may take on one input.
const LIMIT: Duration = Duration::from_secs(10);

/// The inputs, by name: typical plans and every adversarial family.
fn inputs(size: usize) -> Vec<(String, String)> {
    let mut all = vec![(format!("typical {}KiB", size / 1024), plans::typical(size))];
    all.extend(
        plans::adversarial(size)
            .into_iter()
            .map(|(name, plan)| (name.to_owned(), plan)),
    );
    all
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn ours(plan: &str) -> Duration {
    median(21, || {
        black_box(check(black_box(plan), &SequentialIds::new(0)));
    })
}

/// markdown-rs's time on input `index` of `inputs(size)`, in a child
/// process; `None` when it did not finish within [`LIMIT`].
fn theirs(size: usize, index: usize) -> Option<Duration> {
    let mut child = Command::new(std::env::current_exe().ok()?)
        .args(["--markdown-rs", &size.to_string(), &index.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().ok()? {
            let mut out = String::new();
            child.stdout.take()?.read_to_string(&mut out).ok()?;
            let nanos: u64 = out.trim().parse().ok().filter(|_| status.success())?;
            return Some(Duration::from_nanos(nanos));
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn child(size: usize, index: usize) {
    let (_, plan) = &inputs(size)[index];
    let options = oracle::options();
    // One run only when it is slow; the median of three otherwise.
    let first = median(1, || {
        black_box(markdown::to_mdast(plan, &options).ok());
    });
    let time = if first > Duration::from_millis(500) {
        first
    } else {
        median(3, || {
            black_box(markdown::to_mdast(plan, &options).ok());
        })
    };
    println!("{}", time.as_nanos());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, size, index] = &args[..] {
        if flag == "--markdown-rs" {
            child(size.parse().unwrap_or(0), index.parse().unwrap_or(0));
            return;
        }
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run us.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    println!(
        "| input | bytes | chopin-mcp | MB/s | markdown-rs | ratio | chopin-mcp at half size | doubling |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for size in [4 * 1024, 64 * 1024, 256 * 1024] {
        let half = inputs(size / 2);
        for (index, (name, plan)) in inputs(size).iter().enumerate() {
            if size != 64 * 1024 && index > 0 {
                continue; // adversarial families at 64 KiB only
            }
            let ours_time = ours(plan);
            let mbs = plan.len() as f64 / ours_time.as_secs_f64() / 1e6;
            let (theirs_cell, ratio) = match theirs(size, index) {
                Some(time) => (
                    format!("{time:.2?}"),
                    format!("{:.1}×", time.as_secs_f64() / ours_time.as_secs_f64()),
                ),
                None => ("> 10 s".to_owned(), "—".to_owned()),
            };
            let half_time = ours(&half[index].1);
            let doubling = ours_time.as_secs_f64() / half_time.as_secs_f64();
            println!(
                "| {name} | {} | {ours_time:.2?} | {mbs:.1} | {theirs_cell} | {ratio} | {half_time:.2?} | {doubling:.2}× |",
                plan.len()
            );
        }
    }
}
