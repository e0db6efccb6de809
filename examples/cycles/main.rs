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

use chopin_mcp::{Config, Endpoint, RequestParts, SequentialIds};

mod exchange;

use exchange::{ALLOWED, INITIALIZE, LIST, Plain, READ, TOOLS};

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
        "read" => (ALLOWED, READ),
        "list" => (ALLOWED, LIST),
        "tools" => (ALLOWED, TOOLS),
        "initialize" => (ALLOWED, INITIALIZE),
        "refused" => (&b"Bearer refused"[..], READ),
        _ => return usage(),
    };
    let headers = exchange::headers(authorization);
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let endpoint = match Endpoint::new(Config::new().id_source(SequentialIds::new(0))) {
        Ok(endpoint) => endpoint,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let (document, summaries) = (exchange::document(), exchange::summaries());
    let mut bytes = 0;
    for _ in 0..=count {
        let host = (&document, &summaries[..]);
        match exchange::exchange(&endpoint, &parts, body, host, &mut Plain) {
            Ok((_, len)) => bytes += std::hint::black_box(len),
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{kind}: {} exchanges, {bytes} body bytes", count + 1);
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: cycles read|list|tools|initialize|refused COUNT");
    ExitCode::from(2)
}
