//! The endpoint's entry points, each as a full cycle: head → authenticate →
//! effect → serialized response.

use bytes::Bytes;
use chopin_mcp::negotiate::quality;
use chopin_mcp::{
    ArchiveAnswer, Config, CreateAnswer, CreatedDocument, Document, Endpoint, Header, InvokeAnswer,
    LifecycleAnswer, Outcome, PlannerRefusal, ReadImplementationAnswer, RenameAnswer, RequestParts,
    Response, RestoreAnswer, SequentialIds, StartAnswer, StoreImageAnswer, UpdateAnswer,
    UpdatedDocument,
};
use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};

use chopin_test_support::plans;

const READ: &[u8] = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;
const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
const TOOLS: &[u8] = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const MODERN_READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"},META}}"#;
const MODERN_TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{META}}"#;
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{META}}"#;

/// The legacy headers plus the modern standard headers for `method`.
fn modern_headers(method: &'static [u8], name: Option<&'static [u8]>) -> Vec<Header<'static>> {
    let mut headers = HEADERS.to_vec();
    headers.push(Header::new("mcp-protocol-version", b"2026-07-28"));
    headers.push(Header::new("mcp-method", method));
    if let Some(name) = name {
        headers.push(Header::new("mcp-name", name));
    }
    headers
}

const HEADERS: [Header<'static>; 4] = [
    Header {
        name: "host",
        value: b"localhost:8080",
    },
    Header {
        name: "authorization",
        value: b"Bearer allowed",
    },
    Header {
        name: "content-type",
        value: b"application/json",
    },
    Header {
        name: "accept",
        value: b"application/json, text/event-stream",
    },
];

fn document() -> Document {
    Document {
        archived_at: None,
        description: None,
        url: None,
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n\nShip when the checklist is green.\n".into(),
        revision: 4,
    }
}

fn endpoint() -> Endpoint {
    Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap()
}

/// The host side of one exchange, as thin as a real host's.
fn drive(
    mut outcome: Outcome<&'static str>,
    document: &Document,
    summaries: &[chopin_mcp::DocumentSummary],
) -> Response {
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => return response,
            Outcome::Authenticate(auth) => {
                let caller = (auth.bearer_token() == Some("allowed")).then_some("octocat");
                auth.answer(caller)
            }
            Outcome::Body(intake) => intake.finish(),
            Outcome::List(list) => list.answer(summaries),
            Outcome::Read(read) => {
                let found = (read.id() == document.id).then_some(document);
                read.answer(found)
            }
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
            Outcome::Update(update) => {
                let input = update.update();
                let updated = UpdatedDocument {
                    id: document.id.clone(),
                    title: document.title.clone(),
                    brief: None,
                    source: input.plan.clone(),
                    revision: input.revision + 1,
                    url: "/documents/f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
                };
                update.answer(UpdateAnswer::Updated(&updated))
            }
            // Not measured: the endpoints here do not offer them.
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
    }
}

fn cycles(c: &mut Criterion) {
    let endpoint = endpoint();
    let document = document();
    let summaries: Vec<_> = (0..100)
        .map(|i| chopin_mcp::DocumentSummary {
            archived_at: None,
            description: None,
            id: format!("01J{i:023}"),
            title: format!("Plan number {i}"),
        })
        .collect();
    let parts = RequestParts::new("POST", "/mcp", &HEADERS);
    let mut group = c.benchmark_group("cycle");
    for (name, body) in [
        ("read_document", READ),
        ("list_documents_100", LIST),
        ("tools_list", TOOLS),
        ("initialize", INITIALIZE),
    ] {
        let body = Bytes::from_static(body);
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let outcome = endpoint.handle(black_box(&parts), body.clone());
                black_box(drive(outcome, &document, &summaries))
            })
        });
    }
    // The modern twins: same host work, modern head, `_meta` and framing.
    for (name, method, tool, body) in [
        (
            "modern_read_document",
            &b"tools/call"[..],
            Some(&b"read_document"[..]),
            MODERN_READ,
        ),
        ("modern_tools_list", b"tools/list", None, MODERN_TOOLS),
        ("modern_server_discover", b"server/discover", None, DISCOVER),
    ] {
        let headers = modern_headers(method, tool);
        let parts = RequestParts::new("POST", "/mcp", &headers);
        let body = Bytes::from(body.replace("META", META));
        let reply = drive(endpoint.handle(&parts, body.clone()), &document, &summaries);
        assert_eq!(reply.status(), 200, "{name}");
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let outcome = endpoint.handle(black_box(&parts), body.clone());
                black_box(drive(outcome, &document, &summaries))
            })
        });
    }
    // A read of a document of real size: the reply is reserved once for
    // both copies of the source.
    let large = Document {
        source: plans::typical(64 * 1024),
        ..document.clone()
    };
    let body = Bytes::from_static(READ);
    group.throughput(Throughput::Bytes(large.source.len() as u64));
    group.bench_function("read_document_64KiB", |b| {
        b.iter(|| {
            let outcome = endpoint.handle(black_box(&parts), body.clone());
            black_box(drive(outcome, &large, &summaries))
        })
    });
    let batch: Vec<u8> = {
        let mut out = b"[".to_vec();
        for i in 0..10 {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(READ);
        }
        out.push(b']');
        out
    };
    let batch = Bytes::from(batch);
    group.throughput(Throughput::Bytes(batch.len() as u64));
    group.bench_function("batch_10_reads", |b| {
        b.iter(|| {
            black_box(drive(
                endpoint.handle(&parts, batch.clone()),
                &document,
                &summaries,
            ))
        })
    });
    group.finish();
}

/// A create_document call of `plan`.
fn create_body(plan: &str) -> Bytes {
    let body = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "create_document", "arguments": {
            "idempotencyKey": "bench-1", "repository": "githubnext/chopin", "baseBranch": "main",
            "baseCommit": "0123456789abcdef0123456789abcdef01234567", "title": "Bench plan",
            "brief": {"goal": "Measure.", "constraints": [], "settledDecisions": [], "openQuestions": [], "repositoryFindings": []},
            "plan": plan,
        }},
    }))
    .unwrap();
    Bytes::from(body)
}

/// An update_document call of `plan`.
fn update_body(plan: &str) -> Bytes {
    let body = serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "update_document", "arguments": {
            "id": "f401c8d6-3717-4f1d-8473-cfdd0af894e4", "revision": 4, "plan": plan,
            "idempotencyKey": "bench-1",
        }},
    }))
    .unwrap();
    Bytes::from(body)
}

/// Benches `body` as `name`, after checking that it is answered as the
/// bench means: with the plan's issues (`issues`), or by the host with a
/// document (a write, not the issues path: the plan must be clean).
fn bench_write(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    endpoint: &Endpoint,
    name: &str,
    body: &Bytes,
    issues: bool,
) {
    let parts = RequestParts::new("POST", "/mcp", &HEADERS);
    let document = document();
    let reply = drive(endpoint.handle(&parts, body.clone()), &document, &[]);
    let text = std::str::from_utf8(reply.body()).unwrap();
    assert_eq!(
        text.contains(r#""structuredContent":{"issues":"#),
        issues,
        "{name}: {}",
        &text[..text.len().min(400)]
    );
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function(name, |b| {
        b.iter(|| black_box(drive(endpoint.handle(&parts, body.clone()), &document, &[])))
    });
}

fn create(c: &mut Criterion) {
    let endpoint = Endpoint::new(
        Config::new()
            .enable_creation()
            .id_source(SequentialIds::new(0)),
    )
    .unwrap();
    let mut group = c.benchmark_group("cycle");
    for (name, size) in [
        ("create_document_4KiB", 4 * 1024),
        ("create_document_64KiB", 64 * 1024),
    ] {
        let body = create_body(&plans::typical(size));
        bench_write(&mut group, &endpoint, name, &body, false);
    }
    group.finish();
}

/// A plan of about `size` bytes that stays within the dialect's limits
/// once its ids are minted: the typical 64 KiB plan (every component), then
/// prose. (The typical plan of 256 KiB itself is over the limits: see
/// `write_256KiB_typical` below.)
fn clean_plan(size: usize) -> String {
    let mut plan = plans::typical(64 * 1024);
    while plan.len() + 80 < size {
        plan.push_str("Prose with *emphasis*, `code` and a [link](https://example.com/a).\n\n");
    }
    plan
}

/// An update of a 256 KiB plan beside its creation, in one run
/// (LIFECYCLE.md's performance bar: the update costs no more than 1.05×
/// the create; the dialect dominates both). `write_256KiB`: a plan as large
/// as the limits let a clean one be, carried out by the host;
/// `write_256KiB_typical`: the typical 256 KiB plan, which the minted ids
/// take over the limit, so both answer its issues after all the dialect's
/// work and the host is not asked.
fn update(c: &mut Criterion) {
    let endpoint = Endpoint::new(
        Config::new()
            .enable_creation()
            .enable_lifecycle()
            .id_source(SequentialIds::new(0)),
    )
    .unwrap();
    let clean = clean_plan(240 * 1024);
    let canonical = chopin_mcp::dialect::check(&clean, &SequentialIds::new(0)).canonical;
    println!(
        "write_256KiB: a plan of {} bytes, {} once canonical",
        clean.len(),
        canonical.len()
    );
    let mut group = c.benchmark_group("write_256KiB");
    bench_write(
        &mut group,
        &endpoint,
        "create_document",
        &create_body(&clean),
        false,
    );
    bench_write(
        &mut group,
        &endpoint,
        "update_document",
        &update_body(&clean),
        false,
    );
    group.finish();
    let typical = plans::typical(256 * 1024);
    let mut group = c.benchmark_group("write_256KiB_typical");
    bench_write(
        &mut group,
        &endpoint,
        "create_document",
        &create_body(&typical),
        true,
    );
    bench_write(
        &mut group,
        &endpoint,
        "update_document",
        &update_body(&typical),
        true,
    );
    group.finish();
}

fn intake(c: &mut Criterion) {
    let endpoint = endpoint();
    let parts = RequestParts::new("POST", "/mcp", &HEADERS);
    // A 64 KiB ping whose params carry padding, pushed in 1 KiB chunks.
    let head = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":""#;
    let tail = br#""}}"#;
    let mut body = head.to_vec();
    body.resize(65_536 - tail.len(), b'x');
    body.extend_from_slice(tail);
    let mut group = c.benchmark_group("intake");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("64KiB_in_1KiB_chunks", |b| {
        b.iter(|| {
            let Outcome::Authenticate(auth) = endpoint.begin::<&str>(&parts) else {
                unreachable!()
            };
            let Outcome::Body(mut intake) = auth.answer(Some("octocat")) else {
                unreachable!()
            };
            for chunk in body.chunks(1024) {
                intake = intake.push(black_box(chunk)).unwrap();
            }
            black_box(drive(intake.finish(), &document(), &[]))
        })
    });
    group.finish();
}

fn accept(c: &mut Criterion) {
    let mut group = c.benchmark_group("accept");
    let typical: &[u8] = b"application/json, text/event-stream";
    let long: Vec<u8> = (0..200)
        .map(|i| format!("application/x-type-{i};q=0.{:03}, ", i % 1000))
        .collect::<String>()
        .into_bytes()
        .into_iter()
        .chain(b"text/event-stream;q=0.5".iter().copied())
        .collect();
    for (name, header) in [("typical", typical), ("long", &long[..])] {
        group.throughput(Throughput::Bytes(header.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("event_stream", name),
            header,
            |b, header| b.iter(|| quality(Some([black_box(header)]), "text", "event-stream")),
        );
    }
    group.finish();
}

criterion_group!(benches, cycles, create, update, intake, accept);
criterion_main!(benches);
