//! Runs one kind of exchange through `Endpoint::handle` many times, for an
//! instruction counter (`benches/instructions.sh` runs it under callgrind):
//!
//! ```sh
//! cargo run --release --example cycles -- read 1000
//! ```
//!
//! Kinds: `read` (a `read_document` answered with a small plan), `list` (100
//! summaries), `tools` (`tools/list`), `initialize`, `refused` (a token the
//! host refuses: 401). Each run makes one exchange first, then the number
//! asked for; the counter takes the difference of two runs, so what a
//! process costs to start and the first exchange's one-time work cancel out.

use std::process::ExitCode;

use chopin_mcp::{
    Config, Document, DocumentSummary, Endpoint, Header, Outcome, RequestParts, SequentialIds,
};

const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
const TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kind, count) = match args.as_slice() {
        [kind, count] => match count.parse::<u64>() {
            Ok(count) => (kind.as_str(), count),
            Err(_) => return usage(),
        },
        _ => return usage(),
    };
    let (token, body) = match kind {
        "read" => ("allowed", READ),
        "list" => ("allowed", LIST),
        "tools" => ("allowed", TOOLS),
        "initialize" => ("allowed", INITIALIZE),
        "refused" => ("refused", READ),
        _ => return usage(),
    };
    let authorization = format!("Bearer {token}");
    let headers = [
        Header::new("host", b"localhost:8080"),
        Header::new("authorization", authorization.as_bytes()),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let endpoint = match Endpoint::new(Config::new().id_source(SequentialIds::new(0))) {
        Ok(endpoint) => endpoint,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
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
    let mut bytes = 0;
    for _ in 0..=count {
        let mut outcome: Outcome<&str> = endpoint.handle(&parts, body);
        let response = loop {
            outcome = match outcome {
                Outcome::Respond(response) => break response,
                Outcome::Authenticate(auth) => {
                    let caller = (auth.bearer_token() == Some("allowed")).then_some("octocat");
                    auth.answer(caller)
                }
                Outcome::List(list) => list.answer(&summaries),
                Outcome::Read(read) => {
                    let found = (read.id() == document.id).then_some(&document);
                    read.answer(found)
                }
                other => {
                    eprintln!("unexpected effect: {other:?}");
                    return ExitCode::FAILURE;
                }
            };
        };
        bytes += std::hint::black_box(response).body().len();
    }
    println!("{kind}: {} exchanges, {bytes} body bytes", count + 1);
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: cycles read|list|tools|initialize|refused COUNT");
    ExitCode::from(2)
}
