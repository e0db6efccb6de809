//! The create_document bench's request bodies, and the crate's own time for
//! each: `bench/create.sh` runs this, then `bench/create.mjs`, which times
//! the package's handler on the same bodies.
//!
//!   cargo run --release -p chopin-mcp-node --example create_plans -- DIR [ROUNDS]
//!
//! Writes `DIR/<n>-<name>.json` (a `tools/call create_document` body: the
//! typical 256 KiB plan, then each adversarial family of `test-support` at
//! 64 KiB, the size the dialect's bench runs them at), and appends to
//! `DIR/crate.tsv` one line per body and round: the body's file, its name,
//! and the mean time of a round's exchanges through `Endpoint::handle`, the
//! host answering `created` with the canonical plan (as
//! `benches/endpoint.rs` does), in nanoseconds. It allocates with the
//! addon's allocator (mimalloc).

// A bench times what it runs: the clock is read here, never in the endpoint.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;
use std::{env, fs, hint};

use chopin_mcp::{
    ArchiveAnswer, Config, CreateAnswer, CreatedDocument, Endpoint, Header, InvokeAnswer,
    LifecycleAnswer, Outcome, PlannerRefusal, ReadImplementationAnswer, RenameAnswer, RequestParts,
    RestoreAnswer, StartAnswer, StoreImageAnswer, UpdateAnswer,
};
use chopin_test_support::plans;

/// The addon's allocator, so that both sides of the comparison allocate
/// alike: the plans' Rust work differs by up to a third between mimalloc
/// and the system's allocator, either way depending on the plan.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn body(plan: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "create_document", "arguments": {
            "idempotencyKey": "bench-1", "repository": "githubnext/chopin", "baseBranch": "main",
            "baseCommit": "0123456789abcdef0123456789abcdef01234567", "title": "Bench plan",
            "brief": {"goal": "Measure.", "constraints": [], "settledDecisions": [], "openQuestions": [], "repositoryFindings": []},
            "plan": plan,
        }},
    }))
    .expect("a JSON body")
}

/// One exchange, answered as a thin host would.
fn cycle(endpoint: &Endpoint, body: &[u8]) -> usize {
    let length = body.len().to_string();
    let headers = [
        Header::new("authorization", b"Bearer allowed"),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
        Header::new("content-length", length.as_bytes()),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let mut outcome = endpoint.handle::<()>(&parts, body.to_vec());
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.answer(Some(())),
            Outcome::Body(intake) => intake.finish(),
            Outcome::Create(create) => {
                let input = create.document();
                let created = CreatedDocument {
                    id: "01J00000000000000000000000".into(),
                    title: input.title.clone(),
                    brief: input.brief.clone(),
                    source: input.plan.clone(),
                    revision: 0,
                    url: "/documents/01J00000000000000000000000".into(),
                };
                create.answer(CreateAnswer::Created(&created))
            }
            // The bench's endpoint offers no other tool: these never come.
            Outcome::List(list) => list.answer(&[]),
            Outcome::Read(read) => read.answer(None),
            Outcome::Update(update) => update.answer(UpdateAnswer::Unavailable),
            Outcome::Rename(rename) => rename.answer(RenameAnswer::Unavailable),
            Outcome::Archive(archive) => archive.answer(ArchiveAnswer::Unavailable),
            Outcome::Restore(restore) => restore.answer(RestoreAnswer::Unavailable),
            Outcome::InvokePlanner(invoke) => {
                invoke.answer(InvokeAnswer::Refused(PlannerRefusal::DocumentUnavailable))
            }
            Outcome::StoreImage(upload) => upload.answer(StoreImageAnswer::Unavailable),
            Outcome::ReadImplementation(read) => {
                read.answer(ReadImplementationAnswer::<()>::Unavailable)
            }
            Outcome::StartImplementation(start) => start.answer(StartAnswer::Unavailable),
            Outcome::ReportLifecycle(report) => report.answer(LifecycleAnswer::Unavailable),
        }
    };
    response.body().len()
}

fn main() {
    let mut args = env::args().skip(1);
    let dir = args.next().expect("usage: create_plans DIR [ROUNDS]");
    let rounds: usize = args
        .next()
        .map_or(15, |n| n.parse().expect("ROUNDS is a number"));
    fs::create_dir_all(&dir).expect("the output folder");
    let mut cases = vec![("typical 256 KiB".to_owned(), plans::typical(256 * 1024))];
    for (name, plan) in plans::adversarial(64 * 1024) {
        cases.push((format!("{name} 64 KiB"), plan));
    }
    let endpoint = Endpoint::new(Config::new().enable_creation()).expect("an endpoint");
    let mut table = String::new();
    for (index, (name, plan)) in cases.iter().enumerate() {
        let body = body(plan);
        let file = format!("{dir}/{index:02}-{}.json", name.replace(' ', "_"));
        fs::write(&file, &body).expect("the body file");
        // Enough exchanges per round for a few milliseconds of work.
        let once = Instant::now();
        hint::black_box(cycle(&endpoint, &body));
        let per_round = (5_000_000 / once.elapsed().as_nanos().max(1)).clamp(3, 2_000) as usize;
        for _ in 0..rounds {
            let start = Instant::now();
            for _ in 0..per_round {
                hint::black_box(cycle(&endpoint, &body));
            }
            let mean = start.elapsed().as_nanos() as f64 / per_round as f64;
            table.push_str(&format!("{file}\t{name}\t{mean:.0}\n"));
        }
    }
    let path = format!("{dir}/crate.tsv");
    let earlier = fs::read_to_string(&path).unwrap_or_default();
    fs::write(&path, earlier + &table).expect("the table");
}
