//! A large tool result is written into a reply reserved for it once, not
//! grown a doubling at a time: a list of many documents, or one large
//! document, costs at most one allocation more than a small one. Counted by
//! a global allocator (reallocations included), so deterministic.

use bytes::Bytes;
use chopin_mcp::{
    Config, Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts, SequentialIds,
};

#[path = "common/counting.rs"]
mod counting;

use counting::allocations;

const HEADERS: [Header<'static>; 3] = [
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

const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
const READ: &[u8] = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"plan-1"}}}"#;

/// The allocations of one exchange answered with `summaries` (a list) or
/// `document` (a read), and the reply's length.
fn exchange(
    body: &'static [u8],
    summaries: &[DocumentSummary],
    document: &Document,
) -> (usize, usize) {
    let endpoint = Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap();
    let parts = RequestParts::new("POST", "/mcp", &HEADERS);
    let body = Bytes::from_static(body);
    let mut length = 0;
    let count = allocations(|| {
        let mut outcome: Outcome<&str> = endpoint.handle(&parts, body.clone());
        let response = loop {
            outcome = match outcome {
                Outcome::Respond(response) => break response,
                Outcome::Authenticate(auth) => auth.answer(Some("octocat")),
                Outcome::List(list) => list.answer(summaries),
                Outcome::Read(read) => read.answer(Some(document)),
                other => panic!("unexpected {other:?}"),
            }
        };
        assert_eq!(response.status(), 200);
        length = response.body().len();
    });
    (count, length)
}

fn summaries(count: usize) -> Vec<DocumentSummary> {
    (0..count)
        .map(|i| DocumentSummary {
            id: format!("01J{i:023}"),
            title: format!("Plan number {i}, with a \"quoted\" word"),
        })
        .collect()
}

/// A document of about `source_bytes` of real plan text (the dialect's
/// fixtures, repeated): headings, lists, tables, code, quotes, newlines.
fn document(source_bytes: usize) -> Document {
    let plan = concat!(
        include_str!("fixtures/dialect/plan_full.md"),
        include_str!("fixtures/dialect/plan_tricky.md"),
    );
    let short = "# Release readiness\n";
    Document {
        id: "plan-1".into(),
        title: "Release readiness".into(),
        source: match source_bytes {
            0 => short.to_string(),
            _ => plan.repeat(source_bytes / plan.len() + 1),
        },
        revision: 4,
    }
}

#[test]
fn a_list_of_five_hundred_documents_allocates_at_most_once_more_than_a_list_of_one() {
    let small = exchange(LIST, &summaries(1), &document(0));
    let large = exchange(LIST, &summaries(500), &document(0));
    assert!(large.1 > 40_000, "the reply is {} bytes", large.1);
    println!("list of 1: {} allocations; of 500: {}", small.0, large.0);
    assert!(
        large.0 <= small.0 + 1,
        "one summary: {} allocations; 500: {}",
        small.0,
        large.0
    );
}

#[test]
fn a_256_kib_document_allocates_at_most_once_more_than_a_short_one() {
    let small = exchange(READ, &[], &document(0));
    let large = exchange(READ, &[], &document(256 * 1024));
    assert!(large.1 > 512 * 1024, "the reply is {} bytes", large.1);
    println!("short read: {} allocations; 256 KiB: {}", small.0, large.0);
    assert!(
        large.0 <= small.0 + 1,
        "short document: {} allocations; 256 KiB: {}",
        small.0,
        large.0
    );
}
