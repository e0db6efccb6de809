//! Runs one kind of exchange through `Endpoint::handle` many times, for an
//! instruction counter (`benches/instructions.sh` runs it under callgrind):
//!
//! ```sh
//! cargo run --release --example cycles -- read 1000
//! ```
//!
//! Kinds: `read` (a `read_document` answered with a small plan), `read-long`
//! (the same read answered with a plan of about 4 KiB of markdown), `list` (100
//! summaries), `tools` (`tools/list`), `initialize`, `refused` (a token the
//! host refuses: 401). Each run makes one exchange first, then the number
//! asked for; the counter takes the difference of two runs, so what a
//! process costs to start and the first exchange's one-time work cancel out.

use std::process::ExitCode;

use chopin_mcp::{
    Config, Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts, SequentialIds,
};

/// A `read_document` of [`document`].
const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;
/// A `list_documents` answered with [`summaries`].
const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
/// `tools/list`.
const TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
/// A 2025-03-26 `initialize`.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

/// The token the host accepts (as `octocat`).
const ALLOWED: &[u8] = b"Bearer allowed";

/// A client's headers, with this `authorization` value.
fn headers(authorization: &[u8]) -> [Header<'_>; 4] {
    [
        Header::new("host", b"localhost:8080"),
        Header::new("authorization", authorization),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
    ]
}

/// The document a read finds.
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

/// [`document`] with a long plan: about 4 KiB of markdown, a newline every
/// line and quotes now and then, as real plans are.
fn long_document() -> Document {
    let mut source = String::from("# Release readiness\n\n");
    for step in 0..48 {
        source.push_str(&format!(
            "- Step {step}: run `cargo test` and check the \"{step}\" report.\n  Owner: the release team.\n"
        ));
    }
    Document {
        source,
        ..document()
    }
}

/// The 100 summaries a list answers.
fn summaries() -> Vec<DocumentSummary> {
    (0..100)
        .map(|i| DocumentSummary {
            archived_at: None,
            description: None,
            id: format!("01J{i:023}"),
            title: format!("Plan number {i}"),
        })
        .collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, count) = match args.as_slice() {
        [kind, count] => match count.parse::<u64>() {
            Ok(count) => (kind.as_str(), count),
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    let (authorization, body) = match kind {
        "read" | "read-long" => (ALLOWED, READ),
        "list" => (ALLOWED, LIST),
        "tools" => (ALLOWED, TOOLS),
        "initialize" => (ALLOWED, INITIALIZE),
        "refused" => (&b"Bearer refused"[..], READ),
        _ => return usage(),
    };
    let headers = headers(authorization);
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let endpoint = match Endpoint::new(Config::new().id_source(SequentialIds::new(0))) {
        Ok(endpoint) => endpoint,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let document = if kind == "read-long" {
        long_document()
    } else {
        document()
    };
    let summaries = summaries();
    let mut bytes = 0;
    for _ in 0..=count {
        let host = (&document, &summaries[..]);
        match exchange(&endpoint, &parts, body, host) {
            Ok(len) => bytes += std::hint::black_box(len),
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{kind}: {} exchanges, {bytes} body bytes", count + 1);
    ExitCode::SUCCESS
}

/// One exchange through `Endpoint::handle`: the response body's length, or
/// the effect no exchange here should yield.
fn exchange(
    endpoint: &Endpoint,
    parts: &RequestParts<'_>,
    body: &'static str,
    (document, summaries): (&Document, &[DocumentSummary]),
) -> Result<usize, String> {
    let mut outcome: Outcome<&str> = endpoint.handle(parts, body);
    loop {
        outcome = match outcome {
            Outcome::Respond(response) => return Ok(response.body().len()),
            Outcome::Authenticate(auth) => {
                let caller = (auth.authorization() == Some(ALLOWED)).then_some("octocat");
                auth.answer(caller)
            }
            Outcome::List(list) => list.answer(summaries),
            Outcome::Read(read) => {
                let found = (read.id() == document.id).then_some(document);
                read.answer(found)
            }
            other => return Err(format!("unexpected effect: {other:?}")),
        };
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: cycles read|read-long|list|tools|initialize|refused COUNT");
    ExitCode::from(2)
}
