//! Load over loopback on both engines, printed for BENCHMARKS.md; ignored by
//! default (it takes about a minute and wants a release build):
//!
//! ```sh
//! cargo test --release -p chopin-mcp-server --test store_load -- --ignored --nocapture
//! ```
//!
//! `chopin-mcp-server` on a fresh SQLite file, then on a fresh PostgreSQL
//! database (a throwaway server on this machine, `support/pg.rs`),
//! alternating, twice. Each run measures, with keep-alive connections:
//! read latency from one client alone (quiet); `read_document` throughput
//! from 8 clients; `create_document` throughput (4 KiB plans, fresh keys)
//! from 8 clients; and read latency from one client while 8 clients create
//! (a create storm).
//!
//! `store_reads_with_one_and_two_threads` (also ignored) is the SQLite
//! store in process, without HTTP: `read_into` of the read document and
//! `list_summaries` of its repository (100 summaries, as `benches/load.sh`
//! seeds it) from one thread, then from two, on the in-memory store and on
//! a file, alternating, `CHOPIN_LOAD_ROUNDS` rounds (default 3) of 2 s
//! phases; per round and phase the calls a second, the CPU time a call
//! (the whole process's, from `getrusage`) and the CPUs that makes, and
//! each store's two-thread rate against its one-thread rate: the cores'
//! scaling, without a load generator sharing them, where the two threads
//! got two CPUs (on a machine others keep busy, the kernel's autogroup
//! scheduling gives a process its share whatever its threads: then the
//! CPU time a call is the figure to compare):
//!
//! ```sh
//! cargo test --release -p chopin-mcp-server --test store_load -- --ignored --nocapture two_threads
//! ```
//!
//! `store_latency_of_create_and_update` (also ignored) measures the store
//! alone, in process: one client's `create` and `update` latency side by
//! side, on both engines (see its doc comment).
//!
//! `load_on_postgres_over_tls_and_through_pgbouncer` (also ignored) compares,
//! alternating, several rounds (`CHOPIN_LOAD_ROUNDS`, default 3), each on a
//! fresh database: PostgreSQL direct; direct with `--db-statement-timeout 0`
//! (no `BEGIN; SET LOCAL …`/`COMMIT` around a read); through PgBouncer
//! (transaction mode, 8 server connections); plaintext and `verify-full`
//! TLS on one server that admits both; and, when `CHOPIN_BASELINE_SERVER`
//! names another build of `chopin-mcp-server` (e.g. one from before the
//! statements were unnamed), that build direct. `CHOPIN_LOAD_KINDS` picks
//! some of them (`direct,before,timeout-0,pgbouncer,plaintext,tls`):
//!
//! ```sh
//! CHOPIN_BASELINE_SERVER=/path/to/old/chopin-mcp-server cargo test --release \
//!     -p chopin-mcp-server --test store_load -- --ignored --nocapture postgres_over
//! ```
#![allow(clippy::disallowed_methods)] // a load test reads the clock

#[path = "support/pg.rs"]
mod pg;

#[path = "interop/harness.rs"]
mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chopin_mcp::Document;
use chopin_mcp_server::store::{Imported, Listing, Setup, Sqlite};
use support::{Server, TOKEN, import_file, temp_path};

const CLIENTS: usize = 8;
const PHASE: Duration = Duration::from_secs(3);

/// One keep-alive HTTP/1.1 connection.
struct Client {
    addr: SocketAddr,
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).unwrap();
        Client {
            addr,
            stream,
            buf: Vec::new(),
        }
    }

    /// POSTs a body; the status.
    fn post(&mut self, body: &str) -> u16 {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {TOKEN}\r\n\
             content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
             content-length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.stream.write_all(request.as_bytes()).unwrap();
        let mut chunk = [0u8; 16384];
        let head_end = loop {
            if let Some(at) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_ascii_lowercase();
        let status = head[9..12].parse().unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .map_or(0, |v| v.trim().parse().unwrap());
        while self.buf.len() < head_end + length {
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
        self.buf.drain(..head_end + length);
        status
    }
}

/// A create with a fresh key and a plan of about 4 KiB.
fn create_body(key: &str) -> String {
    let mut plan = format!("# Plan {key}\n\n");
    while plan.len() < 4096 - 80 {
        plan.push_str(
            "Keep the reading position offline and sync it when the connection returns.\n\n",
        );
    }
    serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "create_document", "arguments": {
            "idempotencyKey": key, "repository": "githubnext/chopin", "baseBranch": "main",
            "baseCommit": "0123456789abcdef", "title": format!("Plan {key}"),
            "brief": {"goal": "Measure.", "constraints": [], "settledDecisions": [],
                      "openQuestions": [], "repositoryFindings": []},
            "plan": plan}}})
    .to_string()
}

/// `clients` threads repeating `body(n)` until the phase ends; the count.
fn hammer(
    addr: SocketAddr,
    clients: usize,
    stop: &Arc<AtomicBool>,
    body: impl Fn(usize, usize) -> String + Send + Sync + 'static,
) -> Vec<std::thread::JoinHandle<usize>> {
    let body = Arc::new(body);
    (0..clients)
        .map(|t| {
            let (stop, body) = (Arc::clone(stop), Arc::clone(&body));
            std::thread::spawn(move || {
                let mut client = Client::new(addr);
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    assert_eq!(client.post(&body(t, n)), 200);
                    n += 1;
                }
                n
            })
        })
        .collect()
}

/// Reads from one client for a phase; sorted latencies.
fn read_latencies(addr: SocketAddr) -> Vec<Duration> {
    let mut client = Client::new(addr);
    let body = support::read_body();
    let mut latencies = Vec::new();
    let until = Instant::now() + PHASE;
    while Instant::now() < until {
        let started = Instant::now();
        assert_eq!(client.post(&body), 200);
        latencies.push(started.elapsed());
    }
    latencies.sort();
    latencies
}

fn quantile(sorted: &[Duration], q: f64) -> u128 {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[at].as_micros()
}

#[derive(Debug, Default, Clone, Copy)]
struct Numbers {
    quiet_p50: u128,
    quiet_p99: u128,
    reads_per_s: f64,
    creates_per_s: f64,
    storm_p50: u128,
    storm_p99: u128,
    storm_creates_per_s: f64,
}

fn measure(engine: &str, round: usize, db: &str) -> Numbers {
    measure_with(engine, "chopin-mcp-server", round, db, &[])
}

/// [`measure`] of the server `binary` (a name or a path) with `extra` flags.
fn measure_with(engine: &str, binary: &str, round: usize, db: &str, extra: &[&str]) -> Numbers {
    let import = import_file();
    let mut flags = vec!["--import", import.to_str().unwrap()];
    flags.extend_from_slice(extra);
    let server = Server::on_db(binary, db, &flags);
    let addr = server.addr;
    let keys = Arc::new(AtomicUsize::new(0));
    let next_key = move |prefix: &'static str| {
        let keys = Arc::clone(&keys);
        move |_t: usize, _n: usize| {
            create_body(&format!(
                "{prefix}-{}",
                keys.fetch_add(1, Ordering::Relaxed)
            ))
        }
    };
    // Warm up both paths.
    let mut warm = Client::new(addr);
    for n in 0..200 {
        assert_eq!(warm.post(&support::read_body()), 200);
        if n % 20 == 0 {
            assert_eq!(warm.post(&create_body(&format!("warm-{n}"))), 200);
        }
    }
    let quiet = read_latencies(addr);

    let stop = Arc::new(AtomicBool::new(false));
    let readers = hammer(addr, CLIENTS, &stop, |_, _| support::read_body());
    std::thread::sleep(PHASE);
    stop.store(true, Ordering::Relaxed);
    let reads: usize = readers.into_iter().map(|t| t.join().unwrap()).sum();

    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let creators = hammer(addr, CLIENTS, &stop, next_key("load"));
    std::thread::sleep(PHASE);
    stop.store(true, Ordering::Relaxed);
    let creates: usize = creators.into_iter().map(|t| t.join().unwrap()).sum();
    let create_time = started.elapsed().as_secs_f64();

    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let storm = hammer(addr, CLIENTS, &stop, next_key("storm"));
    std::thread::sleep(Duration::from_millis(200));
    let stormy = read_latencies(addr);
    stop.store(true, Ordering::Relaxed);
    let storm_creates: usize = storm.into_iter().map(|t| t.join().unwrap()).sum();
    let storm_time = started.elapsed().as_secs_f64();

    let numbers = Numbers {
        quiet_p50: quantile(&quiet, 0.5),
        quiet_p99: quantile(&quiet, 0.99),
        reads_per_s: reads as f64 / PHASE.as_secs_f64(),
        creates_per_s: creates as f64 / create_time,
        storm_p50: quantile(&stormy, 0.5),
        storm_p99: quantile(&stormy, 0.99),
        storm_creates_per_s: storm_creates as f64 / storm_time,
    };
    println!(
        "| {round} | {engine} | {:.0} | {:.0} | {} µs | {} µs | {} µs | {} µs | {:.0} |",
        numbers.reads_per_s,
        numbers.creates_per_s,
        numbers.quiet_p50,
        numbers.quiet_p99,
        numbers.storm_p50,
        numbers.storm_p99,
        numbers.storm_creates_per_s,
    );
    numbers
}

#[test]
#[ignore = "a load test: run it with --release --ignored --nocapture"]
fn load_on_both_engines() {
    let Some(cluster) = pg::shared() else { return };
    println!(
        "| round | engine | reads/s ({CLIENTS} clients) | creates/s ({CLIENTS} clients, 4 KiB) \
         | read p50 quiet | read p99 quiet | read p50 in a create storm \
         | read p99 in a create storm | creates/s during the storm |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut runs = Vec::new();
    for round in 1..=2 {
        let file = temp_path("load", "db");
        let sqlite = measure("sqlite", round, file.to_str().unwrap());
        let postgres = measure("postgres", round, &cluster.database());
        runs.push((sqlite, postgres));
    }
    for (n, (s, p)) in runs.iter().enumerate() {
        println!(
            "round {}: postgres/sqlite reads/s {:.2}, creates/s {:.2}; \
             storm/quiet read p99: sqlite {:.2}, postgres {:.2}",
            n + 1,
            p.reads_per_s / s.reads_per_s,
            p.creates_per_s / s.creates_per_s,
            s.storm_p99 as f64 / s.quiet_p99 as f64,
            p.storm_p99 as f64 / p.quiet_p99 as f64,
        );
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[test]
#[ignore = "a load test: run it with --release --ignored --nocapture"]
fn load_on_postgres_over_tls_and_through_pgbouncer() {
    let Some(plain) = pg::shared() else { return };
    let Some(tls) = pg::start_with(pg::Settings {
        tls: true,
        plaintext_too: true,
        ..pg::Settings::default()
    }) else {
        return;
    };
    let Some(bouncer) = pg::Bouncer::start(plain, 8) else {
        return;
    };
    let baseline = std::env::var("CHOPIN_BASELINE_SERVER").ok();
    // A comma-separated subset of the kinds below, to compare fewer.
    let only = std::env::var("CHOPIN_LOAD_KINDS").ok();
    let rounds: usize = std::env::var("CHOPIN_LOAD_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let ca = tls.ca().display().to_string();
    let verify_full = format!("sslmode=verify-full&sslrootcert={ca}");
    println!(
        "| round | engine | reads/s ({CLIENTS} clients) | creates/s ({CLIENTS} clients, 4 KiB) \
         | read p50 quiet | read p99 quiet | read p50 in a create storm \
         | read p99 in a create storm | creates/s during the storm |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    const SERVER: &str = "chopin-mcp-server";
    let mut runs: Vec<Vec<(&str, Numbers)>> = Vec::new();
    for round in 1..=rounds {
        let mut kinds: Vec<&str> = match &only {
            Some(only) => only.split(',').collect(),
            None => vec!["direct", "timeout-0", "pgbouncer", "plaintext", "tls"],
        };
        if baseline.is_some() && only.is_none() {
            kinds.insert(1, "before");
        }
        if round % 2 == 0 {
            kinds.reverse();
        }
        let mut row = Vec::new();
        for kind in kinds {
            let numbers = match kind {
                "direct" => measure_with(kind, SERVER, round, &plain.database(), &[]),
                "timeout-0" => measure_with(
                    kind,
                    SERVER,
                    round,
                    &plain.database(),
                    &["--db-statement-timeout", "0"],
                ),
                "before" => measure_with(
                    kind,
                    baseline.as_deref().unwrap(),
                    round,
                    &plain.database(),
                    &[],
                ),
                "pgbouncer" => measure_with(
                    kind,
                    SERVER,
                    round,
                    &bouncer.url(&plain.new_database()),
                    &[],
                ),
                "plaintext" => measure_with(
                    kind,
                    SERVER,
                    round,
                    &tls.tls_url(pg::SERVER_NAME, &tls.new_database(), "sslmode=disable"),
                    &[],
                ),
                "tls" => measure_with(
                    kind,
                    SERVER,
                    round,
                    &tls.tls_url(pg::SERVER_NAME, &tls.new_database(), &verify_full),
                    &[],
                ),
                other => panic!("no kind {other:?}"),
            };
            row.push((kind, numbers));
        }
        runs.push(row);
    }
    let of =
        |row: &[(&str, Numbers)], kind: &str| row.iter().find(|(k, _)| *k == kind).map(|(_, n)| *n);
    let mut ratios: Vec<(&str, Vec<f64>, Vec<f64>)> = Vec::new();
    let mut pairs = vec![
        ("tls / plaintext", "tls", "plaintext"),
        ("pgbouncer / direct", "pgbouncer", "direct"),
        ("direct / timeout-0", "direct", "timeout-0"),
    ];
    if baseline.is_some() {
        pairs.push(("direct / before", "direct", "before"));
        pairs.push(("timeout-0 / before", "timeout-0", "before"));
    }
    for (name, top, bottom) in pairs {
        let mut reads = Vec::new();
        let mut creates = Vec::new();
        for (n, row) in runs.iter().enumerate() {
            let (Some(t), Some(b)) = (of(row, top), of(row, bottom)) else {
                continue;
            };
            let (r, c) = (
                t.reads_per_s / b.reads_per_s,
                t.creates_per_s / b.creates_per_s,
            );
            println!("round {}: {name}: reads/s {r:.2}, creates/s {c:.2}", n + 1);
            reads.push(r);
            creates.push(c);
        }
        ratios.push((name, reads, creates));
    }
    for (name, reads, creates) in ratios {
        if reads.is_empty() {
            continue;
        }
        println!(
            "median {name}: reads/s {:.2}, creates/s {:.2}",
            median(reads),
            median(creates)
        );
    }
    for kind in [
        "direct",
        "before",
        "timeout-0",
        "pgbouncer",
        "plaintext",
        "tls",
    ] {
        let reads: Vec<f64> = runs
            .iter()
            .filter_map(|r| of(r, kind))
            .map(|n| n.reads_per_s)
            .collect();
        if reads.is_empty() {
            continue;
        }
        let creates: Vec<f64> = runs
            .iter()
            .filter_map(|r| of(r, kind))
            .map(|n| n.creates_per_s)
            .collect();
        let quiet: Vec<f64> = runs
            .iter()
            .filter_map(|r| of(r, kind))
            .map(|n| n.quiet_p50 as f64)
            .collect();
        println!(
            "median {kind}: reads/s {:.0}, creates/s {:.0}, quiet read p50 {:.0} µs",
            median(reads),
            median(creates),
            median(quiet)
        );
    }
}

/// The load bench's import: the read document and 99 more in its
/// repository.
fn load_bench_documents() -> Vec<Imported> {
    let repository = "githubnext/chopin";
    let mut documents = vec![Imported {
        id: support::DOC_ID.to_owned(),
        repository: repository.to_owned(),
        title: support::DOC_TITLE.to_owned(),
        source: "# Release readiness\n".to_owned(),
        revision: 4,
    }];
    documents.extend((1..=99).map(|i| Imported {
        id: format!("00000000-0000-4000-8000-{i:012}"),
        repository: repository.to_owned(),
        title: format!("Plan {i:03}"),
        source: format!("# Plan {i:03}\n\nA summary-sized plan.\n"),
        revision: 0,
    }));
    documents
}

/// The CPU time this process has used, every thread, user and system.
fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()), 0);
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// `threads` threads repeating `job` for `phase`: calls per second, and
/// the CPU time per call (µs) the process used meanwhile.
fn calls_per_second(threads: usize, phase: Duration, job: &(dyn Fn() + Sync)) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let calls = AtomicUsize::new(0);
    let cpu = process_cpu();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    job();
                    n += 1;
                }
                calls.fetch_add(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(phase);
        stop.store(true, Ordering::Relaxed);
    });
    let calls = calls.into_inner() as f64;
    let cpu = (process_cpu() - cpu).as_secs_f64();
    (calls / started.elapsed().as_secs_f64(), cpu * 1e6 / calls)
}

#[test]
#[ignore = "a load test: run it with --release --ignored --nocapture"]
fn store_reads_with_one_and_two_threads() {
    const PHASE: Duration = Duration::from_secs(2);
    let rounds: usize = std::env::var("CHOPIN_LOAD_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    // As the servers start: SQLite's allocation statistics off (with them
    // on, every allocation takes one process-wide mutex).
    chopin_mcp_server::sqlite::configure();
    let file = temp_path("threads", "db");
    let stores = [
        ("memory", Sqlite::memory().unwrap()),
        ("file", Sqlite::open(&file).unwrap()),
    ];
    for (_, store) in &stores {
        store
            .setup(&Setup {
                grants: vec![("octocat".to_owned(), vec!["*".to_owned()])],
                import: load_bench_documents(),
                ..Setup::default()
            })
            .unwrap();
    }
    let read = |store: &Sqlite| {
        thread_local! {
            static DOCUMENT: std::cell::RefCell<Document> = const { std::cell::RefCell::new(Document { archived_at: None, description: None, url: None,
                id: String::new(),
                title: String::new(),
                brief: None,
                source: String::new(),
                revision: 0,
            }) };
        }
        DOCUMENT.with_borrow_mut(|document| {
            assert!(
                store
                    .read_into("octocat", support::DOC_ID, document)
                    .unwrap()
            );
        });
    };
    let list = |store: &Sqlite| {
        let Listing::Listed(summaries) = store
            .list_summaries("octocat", "githubnext/chopin")
            .unwrap()
        else {
            panic!("octocat has a grant for githubnext/chopin");
        };
        assert_eq!(summaries.borrowed().len(), 100);
    };
    println!(
        "load: {} CPUs, {rounds} rounds of {PHASE:?} phases",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "| round | store | call | 1 thread /s | CPU µs a call | CPUs | 2 threads /s | CPU µs a call | CPUs | 2 / 1 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios: Vec<(&str, &str, Vec<f64>)> = Vec::new();
    for round in 1..=rounds {
        let mut order: Vec<_> = stores.iter().collect();
        if round % 2 == 0 {
            order.reverse();
        }
        for (kind, store) in order {
            for (call, job) in [
                ("read", &read as &(dyn Fn(&Sqlite) + Sync)),
                ("list", &list),
            ] {
                let (one, one_cpu) = calls_per_second(1, PHASE, &|| job(store));
                let (two, two_cpu) = calls_per_second(2, PHASE, &|| job(store));
                println!(
                    "| {round} | {kind} | {call} | {one:.0} | {one_cpu:.2} | {:.2} | {two:.0} | {two_cpu:.2} | {:.2} | {:.2} |",
                    one * one_cpu / 1e6,
                    two * two_cpu / 1e6,
                    two / one
                );
                match ratios.iter_mut().find(|(k, c, _)| k == kind && *c == call) {
                    Some((_, _, values)) => values.push(two / one),
                    None => ratios.push((kind, call, vec![two / one])),
                }
            }
        }
    }
    for (kind, call, values) in ratios {
        let worst = values.iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "median {kind} {call}: 2 threads / 1 thread {:.2} (worst {worst:.2})",
            median(values)
        );
    }
}

/// A plan of about `size` bytes, for the store's own latency.
fn plan_of(size: usize, label: &str) -> String {
    let mut plan = format!("# Plan {label}\n\n");
    while plan.len() < size {
        plan.push_str(
            "Keep the reading position offline and sync it when the connection returns.\n\n",
        );
    }
    plan
}

/// Sorted latencies of `count` creates and as many updates from one
/// client, alternating (a create with a fresh key, then an update of one
/// document to its next revision), with plans of `size` bytes.
async fn create_and_update_latencies(
    store: &chopin_mcp_server::store::Store,
    size: usize,
    count: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    use chopin_mcp_server::store::{CreateOutcome, Draft, Imported, Update, UpdateOutcome};
    store
        .import(&[Imported {
            id: "revised".to_owned(),
            repository: "githubnext/chopin".to_owned(),
            title: "Revised".to_owned(),
            source: plan_of(size, "revised"),
            revision: 0,
        }])
        .await
        .unwrap();
    let brief = r#"{"goal":"Measure.","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#;
    let (mut creates, mut updates) = (Vec::new(), Vec::new());
    // A few of each first, unmeasured. Update `n` revises the document
    // from revision `n`.
    for n in 0..count + 20 {
        let key = format!("{size}-{n}");
        let draft = Draft {
            idempotency_key: key.clone(),
            fingerprint: key.clone(),
            repository: "githubnext/chopin".to_owned(),
            title: format!("Plan {key}"),
            source: plan_of(size, &key),
            brief: brief.to_owned(),
            base: None,
        };
        let started = Instant::now();
        let outcome = store.create(TOKEN_CALLER, &key, &draft).await.unwrap();
        let took = started.elapsed();
        assert!(matches!(outcome, CreateOutcome::New(_)), "{outcome:?}");
        let change = Update {
            locator: "revised".to_owned(),
            revision: n as u64,
            plan: plan_of(size, &key),
            idempotency_key: key.clone(),
            fingerprint: key,
        };
        let started = Instant::now();
        let outcome = store.update(TOKEN_CALLER, &change).await.unwrap();
        let took_update = started.elapsed();
        assert!(matches!(outcome, UpdateOutcome::Updated(_)), "{outcome:?}");
        if n >= 20 {
            creates.push(took);
            updates.push(took_update);
        }
    }
    creates.sort();
    updates.sort();
    (creates, updates)
}

/// The caller the store measurement writes as.
const TOKEN_CALLER: &str = "bench";

/// The store's own latency (no HTTP, no endpoint), in process, from one
/// client: `create` and `update` (LIFECYCLE.md: "an update is one round
/// trip, as a create is; on SQLite it takes the writer once"), on a fresh
/// SQLite file and a fresh PostgreSQL database, alternating, with 4 KiB and
/// 256 KiB plans; `CHOPIN_LOAD_ROUNDS` rounds (default 3), 300 of each per
/// engine and round (100 with 256 KiB plans). Prints p50/p99 per round and the medians
/// of the rounds' p50s and of their update/create ratios.
///
/// ```sh
/// cargo test --release -p chopin-mcp-server --test store_load -- --ignored --nocapture store_latency
/// ```
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load test: run it with --release --ignored --nocapture"]
async fn store_latency_of_create_and_update() {
    use chopin_mcp_server::store::{Database, Setup, Store};
    let Some(cluster) = pg::shared() else { return };
    let rounds: usize = std::env::var("CHOPIN_LOAD_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    println!(
        "| round | engine | plan | create p50 | create p99 | update p50 | update p99 | update/create p50 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    // Per (engine, plan size): each round's (create p50, update p50).
    type Runs = Vec<(f64, f64)>;
    let mut medians: Vec<((&str, usize), Runs)> = Vec::new();
    for round in 1..=rounds {
        let mut engines = ["sqlite", "postgres"];
        if round % 2 == 0 {
            engines.reverse();
        }
        for engine in engines {
            for size in [4 * 1024, 256 * 1024] {
                let database = match engine {
                    "sqlite" => Database::File(temp_path("store-latency", "db")),
                    _ => Database::Postgres(cluster.database()),
                };
                let store = Store::open(&database).await.unwrap();
                store
                    .setup(&Setup {
                        grants: vec![(TOKEN_CALLER.to_owned(), vec!["*".to_owned()])],
                        ..Setup::default()
                    })
                    .await
                    .unwrap();
                let count = if size > 4096 { 100 } else { 300 };
                let (creates, updates) = create_and_update_latencies(&store, size, count).await;
                let (c50, u50) = (quantile(&creates, 0.5), quantile(&updates, 0.5));
                println!(
                    "| {round} | {engine} | {} KiB | {c50} µs | {} µs | {u50} µs | {} µs | {:.2} |",
                    size / 1024,
                    quantile(&creates, 0.99),
                    quantile(&updates, 0.99),
                    u50 as f64 / c50 as f64
                );
                let key = (engine, size);
                let at = match medians.iter().position(|(k, _)| *k == key) {
                    Some(at) => at,
                    None => {
                        medians.push((key, Vec::new()));
                        medians.len() - 1
                    }
                };
                medians[at].1.push((c50 as f64, u50 as f64));
            }
        }
    }
    for ((engine, size), runs) in medians {
        println!(
            "median {engine} {} KiB: create p50 {:.0} µs, update p50 {:.0} µs, update/create {:.2}",
            size / 1024,
            median(runs.iter().map(|r| r.0).collect()),
            median(runs.iter().map(|r| r.1).collect()),
            median(runs.iter().map(|r| r.1 / r.0).collect()),
        );
    }
}
