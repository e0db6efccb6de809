//! The endpoint's own heap allocations per exchange, counted by a global
//! allocator around the endpoint's calls only (never the host's work): a
//! read is answered with one allocation, the response's body; a list of 100
//! summaries with at most two. A change that allocates more on these paths
//! fails here, whatever the machine's speed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use chopin_mcp::{
    Config, Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts, SequentialIds,
};

/// Counts the allocations (and growing reallocations) this thread makes
/// while its counter is on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn tally() {
    // `try_with`: the allocator runs during thread teardown too.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|count| count.set(count.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        tally();
        // SAFETY: the caller's contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        tally();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        tally();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with this thread's allocations counted, and adds them to `total`.
fn counted<T>(total: &mut usize, f: impl FnOnce() -> T) -> T {
    COUNT.with(|count| count.set(0));
    COUNTING.with(|on| on.set(true));
    let value = f();
    COUNTING.with(|on| on.set(false));
    *total += COUNT.with(Cell::get);
    value
}

/// A client's headers, with `authorization: Bearer allowed`.
fn headers() -> Vec<Header<'static>> {
    vec![
        Header::new("host", b"localhost:8080"),
        Header::new("authorization", b"Bearer allowed"),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
    ]
}

/// One exchange through `Endpoint::handle`, the host's answers prepared
/// before: the endpoint's allocations, and the response's status.
fn allocations(headers: &[Header<'_>], body: &'static str) -> (usize, u16) {
    let endpoint = Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap();
    let document = Document {
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n\nShip when the checklist is green.\n".into(),
        revision: 4,
    };
    let summaries: Vec<DocumentSummary> = (0..100)
        .map(|i| DocumentSummary {
            id: format!("01J{i:023}"),
            title: format!("Plan number {i}"),
        })
        .collect();
    let parts = RequestParts::new("POST", "/mcp", headers);
    // A first exchange, uncounted: whatever is made once per thread or
    // process (none should be) is not a request's cost.
    let _ = drive(&endpoint, &parts, body, &document, &summaries, &mut 0);
    let mut total = 0;
    let status = drive(&endpoint, &parts, body, &document, &summaries, &mut total);
    (total, status)
}

fn drive(
    endpoint: &Endpoint,
    parts: &RequestParts<'_>,
    body: &'static str,
    document: &Document,
    summaries: &[DocumentSummary],
    total: &mut usize,
) -> u16 {
    let mut outcome: Outcome<&str> = counted(total, || endpoint.handle(parts, body));
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => {
                let status = response.status();
                // Dropping the response frees; it allocates nothing.
                counted(total, || drop(response));
                return status;
            }
            Outcome::Authenticate(auth) => {
                let caller = (auth.bearer_token() == Some("allowed")).then_some("octocat");
                counted(total, || auth.answer(caller))
            }
            Outcome::List(list) => counted(total, || list.answer(summaries)),
            Outcome::Read(read) => counted(total, || read.answer(Some(document))),
            other => panic!("no such effect in these exchanges: {other:?}"),
        };
    }
}

const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
const TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

/// `headers` with another `authorization` value.
fn with_authorization(value: &'static [u8]) -> Vec<Header<'static>> {
    let mut headers = headers();
    headers[1] = Header::new("authorization", value);
    headers
}

#[test]
fn a_read_allocates_only_its_response_body() {
    assert_eq!(allocations(&headers(), READ), (1, 200));
}

#[test]
fn a_list_of_100_summaries_allocates_at_most_twice() {
    let (count, status) = allocations(&headers(), LIST);
    assert_eq!(status, 200);
    assert!(count <= 2, "{count} allocations");
}

#[test]
fn tools_list_allocates_at_most_twice() {
    // The kept `authorization` buffer, grown once to the list's exact size.
    let (count, status) = allocations(&headers(), TOOLS);
    assert_eq!(status, 200);
    assert!(count <= 2, "{count} allocations");
}

#[test]
fn initialize_allocates_only_its_response_body() {
    assert_eq!(allocations(&headers(), INITIALIZE), (1, 200));
}

#[test]
fn a_refused_token_allocates_only_the_kept_credentials() {
    // The 401's body is static; the one allocation is the copy of the
    // `authorization` value the authenticate effect hands the host.
    assert_eq!(
        allocations(&with_authorization(b"Bearer wrong"), READ),
        (1, 401)
    );
    assert_eq!(allocations(&headers()[..1], READ), (0, 401));
}
