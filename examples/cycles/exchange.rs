//! The exchanges `examples/cycles` runs, and a host for them as thin as a
//! real host's: shared with `tests/allocations_per_cycle.rs`, which counts
//! the endpoint's allocations in the same exchanges.

use chopin_mcp::{Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts};

/// A `read_document` of [`document`].
pub const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;
/// A `list_documents` answered with [`summaries`].
pub const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
/// `tools/list`.
pub const TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
/// A 2025-03-26 `initialize`.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

/// The token the host accepts (as `octocat`).
pub const ALLOWED: &[u8] = b"Bearer allowed";

/// A client's headers, with this `authorization` value.
pub fn headers(authorization: &[u8]) -> [Header<'_>; 4] {
    [
        Header::new("host", b"localhost:8080"),
        Header::new("authorization", authorization),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
    ]
}

/// The document a read finds.
pub fn document() -> Document {
    Document {
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n\nShip when the checklist is green.\n".into(),
        revision: 4,
    }
}

/// The 100 summaries a list answers.
pub fn summaries() -> Vec<DocumentSummary> {
    (0..100)
        .map(|i| DocumentSummary {
            id: format!("01J{i:023}"),
            title: format!("Plan number {i}"),
        })
        .collect()
}

/// Wraps each call into the endpoint (a counter turned on around it).
pub trait Around {
    /// Runs `call`.
    fn around<T>(&mut self, call: impl FnOnce() -> T) -> T;
}

/// Calls straight through.
pub struct Plain;

impl Around for Plain {
    fn around<T>(&mut self, call: impl FnOnce() -> T) -> T {
        call()
    }
}

/// One exchange through `Endpoint::handle`, every call into the endpoint
/// (and the response's drop) run through `around`: the response's status
/// and body length, or the effect no exchange here should yield.
pub fn exchange(
    endpoint: &Endpoint,
    parts: &RequestParts<'_>,
    body: &'static str,
    (document, summaries): (&Document, &[DocumentSummary]),
    around: &mut impl Around,
) -> Result<(u16, usize), String> {
    let mut outcome: Outcome<&str> = around.around(|| endpoint.handle(parts, body));
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => {
                let answer = (response.status(), response.body().len());
                around.around(|| drop(response));
                return Ok(answer);
            }
            Outcome::Authenticate(auth) => {
                let caller = (auth.authorization() == Some(ALLOWED)).then_some("octocat");
                around.around(|| auth.answer(caller))
            }
            Outcome::List(list) => around.around(|| list.answer(summaries)),
            Outcome::Read(read) => {
                let found = (read.id() == document.id).then_some(document);
                around.around(|| read.answer(found))
            }
            other => return Err(format!("unexpected effect: {other:?}")),
        };
    }
}
