//! Heap allocations per exchange, counted by a global allocator. Counts are
//! deterministic (unlike timings), so they are asserted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::Bytes;
use chopin_mcp::negotiate::quality;
use chopin_mcp::{Config, Document, Endpoint, Header, Outcome, RequestParts, SequentialIds};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

const HEADERS: [Header<'static>; 4] = [
    Header {
        name: "host",
        value: b"localhost",
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

#[test]
fn a_read_document_cycle_allocates_at_most_eight_times() {
    let endpoint = Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap();
    let document = Document {
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        source: "# Release readiness\n".into(),
        revision: 4,
    };
    let body = Bytes::from_static(
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#,
    );
    let parts = RequestParts::new("POST", "/mcp", &HEADERS);
    let mut status = 0;
    let count = allocations(|| {
        let mut outcome: Outcome<&str> = endpoint.handle(&parts, body.clone());
        let response = loop {
            outcome = match outcome {
                Outcome::Respond(response) => break response,
                Outcome::Authenticate(auth) => auth.answer(Some("octocat")),
                Outcome::Read(read) => read.answer(Some(&document)),
                other => panic!("unexpected {other:?}"),
            }
        };
        status = response.status();
    });
    assert_eq!(status, 200);
    println!("read_document cycle: {count} allocations");
    assert!(count <= 8, "{count} allocations");
}

/// Runs one read_document cycle and counts its allocations.
fn read_cycle(headers: &[Header<'_>], body: &'static [u8]) -> usize {
    let endpoint = Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap();
    let document = Document {
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        source: "# Release readiness\n".into(),
        revision: 4,
    };
    let body = Bytes::from_static(body);
    let parts = RequestParts::new("POST", "/mcp", headers);
    let mut status = 0;
    let count = allocations(|| {
        let mut outcome: Outcome<&str> = endpoint.handle(&parts, body.clone());
        let response = loop {
            outcome = match outcome {
                Outcome::Respond(response) => break response,
                Outcome::Authenticate(auth) => auth.answer(Some("octocat")),
                Outcome::Read(read) => read.answer(Some(&document)),
                other => panic!("unexpected {other:?}"),
            }
        };
        status = response.status();
    });
    assert_eq!(status, 200);
    count
}

/// MODERN.md: the standard-header checks and the modern framing allocate
/// nothing beyond what the legacy cycle does (the kept header values share
/// the one copy legacy makes of `authorization`; the reply buffer is sized
/// for the framing). Known excess, pinned here: reading `params` a second
/// time for `_meta` costs one allocation, serde_json's stack for skipping
/// the nested `clientCapabilities` object inside the raw `_meta` value.
/// (Legacy 5, modern 6 when written.)
#[test]
fn a_modern_read_document_cycle_allocates_no_more_than_its_legacy_twin() {
    let legacy = read_cycle(
        &HEADERS,
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#,
    );
    let mut modern = HEADERS.to_vec();
    modern.extend([
        Header::new("mcp-protocol-version", b"2026-07-28"),
        Header::new("mcp-method", b"tools/call"),
        Header::new("mcp-name", b"=?base64?cmVhZF9kb2N1bWVudA==?="),
    ]);
    let modern = read_cycle(
        &modern,
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    println!("read_document cycle: legacy {legacy}, modern {modern} allocations");
    assert!(
        modern <= legacy + 1,
        "modern {modern} > legacy {legacy} + 1"
    );
}

#[test]
fn accept_negotiation_does_not_allocate() {
    let header: &[u8] = b"application/json;q=0.9, text/event-stream;q=0.5, */*;q=0.1";
    let mut q = 0;
    let count = allocations(|| q = quality(Some([header]), "text", "event-stream"));
    assert_eq!(q, 500);
    assert_eq!(count, 0);
}

/// A cycle from an allowed browser origin: the grant echoes the configured
/// value (a reference count), so it costs nothing per request beyond the
/// first, which makes the configured origin's `Bytes` shareable.
#[test]
fn the_cors_grant_costs_no_allocation_per_request() {
    let endpoint = Endpoint::new(
        Config::new()
            .allow_origin("https://app.example")
            .id_source(SequentialIds::new(0)),
    )
    .unwrap();
    let document = Document {
        id: "doc".into(),
        title: "Title".into(),
        source: "# Title\n".into(),
        revision: 1,
    };
    let body = Bytes::from_static(
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"doc"}}}"#,
    );
    let mut headers = HEADERS.to_vec();
    let plain_parts = RequestParts::new("POST", "/mcp", &HEADERS);
    headers.push(Header::new("origin", b"https://app.example"));
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let cycle = |request: &RequestParts<'_>| {
        let mut outcome: Outcome<&str> = endpoint.handle(request, body.clone());
        loop {
            outcome = match outcome {
                Outcome::Respond(response) => break response,
                Outcome::Authenticate(auth) => auth.answer(Some("octocat")),
                Outcome::Read(read) => read.answer(Some(&document)),
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    let first = allocations(|| {
        let response = cycle(&parts);
        assert_eq!(
            response.header("access-control-allow-origin"),
            Some(&b"https://app.example"[..])
        );
    });
    let next = allocations(|| drop(cycle(&parts)));
    let plain = allocations(|| drop(cycle(&plain_parts)));
    println!("read_document cycle with Origin: {first} allocations, then {next}; without: {plain}");
    assert!(
        first <= plain + 1,
        "{first} allocations, {plain} without Origin"
    );
    assert_eq!(next, plain);
}
