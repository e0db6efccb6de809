//! The Rust steps of an in-process `read_document` through the addon
//! (`Core::start_answered` with the body, then `Core::answer_found`, as the
//! handler's `run` and `answerRead` make them) beside the crate's own
//! `Endpoint::handle` cycle for the same request, in one process, with no
//! Node-API: what the addon's steps add over the crate's.
//!
//!   cargo run --release -p chopin-mcp-node --example read_steps [N] [ROUNDS] [addon|crate]
//!
//! Prints each loop's median ns per read over the rounds (the two loops
//! alternate in every round); `addon` or `crate` runs that loop alone (to
//! profile it).
// A bench reads the clock; the endpoint does not.
#![allow(clippy::disallowed_methods)]

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Instant;

use chopin_mcp::{Config, Document, Endpoint, Header, Outcome, RequestParts};
use chopin_mcp_node::{Core, DocumentRef, NAMED, NamedValues, Verdict};

/// The request of ../shared/peers/ts-handler's bench.
const BODY: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"f401c8d6-3717-4f1d-8473-cfdd0af894e4"}}}"#;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(200_000, |s| s.parse().expect("N"));
    let rounds: usize = args.next().map_or(7, |s| s.parse().expect("ROUNDS"));
    let only = args.next().unwrap_or_default();
    let length = BODY.len().to_string();

    // The header values the handler passes, in NAMED's order.
    let mut values: [Option<&[u8]>; NAMED.len()] = [None; NAMED.len()];
    values[3] = Some(b"Bearer allowed");
    values[4] = Some(b"2025-03-26");
    values[5] = Some(b"application/json, text/event-stream");
    values[6] = Some(b"application/json");
    values[7] = Some(length.as_bytes());
    let found = DocumentRef {
        archived_at: None,
        description: None,
        url: None,
        // The handler passes the read's own id as a bit.
        id: None,
        title: "Release readiness",
        source: "# Release readiness\n",
        revision: 4,
    };
    let mut core = Core::new("{}").expect("an endpoint");
    // The first request's values are read and remembered; the handler
    // passes each later one equal to them as a bit, as here.
    let read = NamedValues {
        read: &values,
        same: 0,
    };
    core.start_answered(
        0,
        "POST",
        read,
        Verdict::Caller,
        &[],
        Some(Cow::Borrowed(BODY.as_bytes())),
    )
    .expect("the read effect");
    core.release(0);
    let same = values
        .iter()
        .enumerate()
        .fold(0, |bits, (i, value)| bits | u32::from(value.is_some()) << i);
    let none = [None; NAMED.len()];
    let mut addon = || {
        let out = core
            .start_answered(
                0,
                "POST",
                black_box(NamedValues { read: &none, same }),
                Verdict::Caller,
                &[],
                Some(Cow::Borrowed(BODY.as_bytes())),
            )
            .expect("the read effect");
        assert_eq!(out[0], b'r');
        core.answer_found(0, black_box(found), None)
            .expect("a response")
            .len()
    };

    let headers = [
        Header::new("host", b"127.0.0.1"),
        Header::new("authorization", b"Bearer allowed"),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
        Header::new("mcp-protocol-version", b"2025-03-26"),
        Header::new("content-length", length.as_bytes()),
    ];
    let endpoint = Endpoint::new(Config::new()).expect("an endpoint");
    let document = Document {
        archived_at: None,
        description: None,
        url: None,
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: found.title.into(),
        brief: None,
        source: found.source.into(),
        revision: found.revision,
    };
    let crate_cycle = || {
        let parts = RequestParts::new("POST", "", &headers);
        let mut outcome = endpoint.handle::<()>(black_box(&parts), BODY);
        loop {
            outcome = match outcome {
                Outcome::Respond(response) => return response.body().len(),
                Outcome::Authenticate(auth) => auth.answer(Some(())),
                Outcome::Read(read) => read.answer(Some(black_box(&document))),
                other => panic!("a read asks for no {other:?}"),
            }
        }
    };

    let (mut addon_ns, mut crate_ns) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        if only != "crate" {
            let start = Instant::now();
            for _ in 0..n {
                black_box(addon());
            }
            addon_ns.push(start.elapsed().as_nanos() as f64 / n as f64);
        }
        if only != "addon" {
            let start = Instant::now();
            for _ in 0..n {
                black_box(crate_cycle());
            }
            crate_ns.push(start.elapsed().as_nanos() as f64 / n as f64);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2)
            .map_or("-".to_owned(), |ns| format!("{ns:.0}"))
    };
    println!(
        "read, ns: addon steps {}, crate handle {} (median of {rounds} rounds of {n})",
        median(addon_ns),
        median(crate_ns)
    );
}
