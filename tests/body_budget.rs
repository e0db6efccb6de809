//! SPEC.md §3 steps 8 and 9: the body budget (65536 bytes for a read-only
//! endpoint, configurable), declared and streamed, in any chunking, for the
//! held-body form (`handle`) and the incremental form (`begin`).

mod common;

use std::cell::Cell;

use chopin_mcp::{Config, Endpoint, Header, RequestParts};
use common::{Host, Reply, Request, Step, endpoint, endpoint_with};

const BUDGET: usize = 65_536;

/// A ping of exactly `len` bytes: the message, then JSON whitespace.
fn ping_of(len: usize) -> Vec<u8> {
    let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec();
    assert!(len >= body.len());
    body.resize(len, b' ');
    body
}

const PONG: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

/// `body` split at the given positions.
fn split(body: &[u8], at: &[usize]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    for &end in at {
        chunks.push(body[start..end].to_vec());
        start = end;
    }
    chunks.push(body[start..].to_vec());
    chunks
}

/// Sends `request` through the incremental form and counts how many of its
/// chunks the host was asked for.
fn send_counting(request: &Request, endpoint: &Endpoint) -> (Reply, Vec<Step>, usize) {
    let headers: Vec<Header<'_>> = request
        .headers
        .iter()
        .map(|(name, value)| Header::new(name, value))
        .collect();
    let outcome = endpoint.begin(&RequestParts::new(&request.method, "/mcp", &headers));
    let consumed = Cell::new(0usize);
    let mut chunks = request
        .chunks
        .iter()
        .cloned()
        .inspect(|_| consumed.set(consumed.get() + 1));
    let mut host = Host::seed();
    let reply = Reply::from(host.drive(outcome, &mut chunks));
    (reply, host.transcript, consumed.get())
}

fn assert_accepted(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 200, "{what}");
    assert_eq!(reply.text(), PONG, "{what}");
}

fn assert_too_large(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 413, "{what}");
    assert_eq!(reply.text(), "request too large", "{what}");
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8"),
        "{what}"
    );
}

#[test]
fn the_read_only_budget_is_65536_bytes() {
    assert_eq!(endpoint().body_budget(), BUDGET);
}

#[test]
fn a_body_of_exactly_the_budget_is_accepted_in_one_chunk() {
    let (reply, transcript) = Request::post_raw(ping_of(BUDGET)).exchange(&endpoint());
    assert_accepted(&reply, "65536 bytes");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_body_one_byte_over_the_budget_is_413_request_too_large() {
    let (reply, transcript) = Request::post_raw(ping_of(BUDGET + 1)).exchange(&endpoint());
    assert_too_large(&reply, "65537 bytes");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
}

#[test]
fn where_a_body_is_split_in_two_never_changes_the_outcome() {
    let endpoint = endpoint();
    let within = ping_of(BUDGET);
    for at in [0, 1, 2, 39, 40, 41, 32_768, BUDGET - 1, BUDGET] {
        let request = Request::post_raw("").chunks(split(&within, &[at]));
        assert_accepted(
            &request.exchange(&endpoint).0,
            &format!("65536 split at {at}"),
        );
    }
    let over = ping_of(BUDGET + 1);
    for at in [0, 1, 2, 32_768, BUDGET - 1, BUDGET, BUDGET + 1] {
        let request = Request::post_raw("").chunks(split(&over, &[at]));
        assert_too_large(
            &request.exchange(&endpoint).0,
            &format!("65537 split at {at}"),
        );
    }
}

#[test]
fn a_body_in_one_byte_chunks_is_judged_by_its_total() {
    let endpoint = endpoint();
    let one_byte =
        |len| Request::post_raw("").chunks(ping_of(len).into_iter().map(|b| vec![b]).collect());
    assert_accepted(&one_byte(BUDGET).exchange(&endpoint).0, "65536 × 1 byte");
    assert_too_large(
        &one_byte(BUDGET + 1).exchange(&endpoint).0,
        "65537 × 1 byte",
    );
}

#[test]
fn with_a_small_budget_every_split_into_two_or_three_chunks_agrees() {
    let endpoint = endpoint_with(Config::new().body_budget(48));
    let within = ping_of(48);
    let over = ping_of(49);
    for i in 0..=within.len() {
        for j in i..=within.len() {
            let request = Request::post_raw("").chunks(split(&within, &[i, j]));
            assert_accepted(&request.exchange(&endpoint).0, &format!("48 at {i},{j}"));
        }
    }
    for i in 0..=over.len() {
        for j in i..=over.len() {
            let request = Request::post_raw("").chunks(split(&over, &[i, j]));
            assert_too_large(&request.exchange(&endpoint).0, &format!("49 at {i},{j}"));
        }
    }
}

#[test]
fn the_incremental_form_asks_for_no_chunk_after_the_one_that_crosses_the_budget() {
    let endpoint = endpoint();
    for (sizes, consumed) in [
        (vec![BUDGET + 1, 1, 1], 1),
        (vec![40_000, 30_000, 1, 1, 1], 2),
        (vec![BUDGET, 1, 1], 2),
        (vec![32_768, 32_768, 1, 5], 3),
        (vec![1; BUDGET + 10], BUDGET + 1),
    ] {
        let chunks = sizes.iter().map(|&n| vec![b' '; n]).collect();
        let request = Request::post_raw("").chunks(chunks);
        let (reply, transcript, taken) = send_counting(&request, &endpoint);
        assert_too_large(&reply, &format!("{} chunks", sizes.len()));
        assert_eq!(
            taken,
            consumed,
            "chunks asked for of {} chunks",
            sizes.len()
        );
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Body, Step::Respond(413)]
        );
    }
}

#[test]
fn the_incremental_form_reads_every_chunk_of_a_body_within_the_budget() {
    let body = ping_of(BUDGET);
    let request = Request::post_raw("").chunks({
        let mut chunks = split(&body, &[100, 60_000, BUDGET]);
        chunks.push(Vec::new());
        chunks
    });
    let (reply, transcript, taken) = send_counting(&request, &endpoint());
    assert_accepted(&reply, "four chunks and an empty one");
    assert_eq!(taken, 5);
    assert_eq!(
        transcript,
        [Step::Authenticate, Step::Body, Step::Respond(200)]
    );
}

#[test]
fn a_declared_length_over_the_budget_is_413_before_any_body_is_read() {
    let endpoint = endpoint();
    for declared in ["65537", "99999999999999999999999", "18446744073709551616"] {
        let request = Request::post_raw(ping_of(40)).header("content-length", declared);
        let (reply, transcript) = request.exchange(&endpoint);
        assert_too_large(&reply, declared);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
        let (streamed, transcript, taken) = send_counting(&request, &endpoint);
        assert_too_large(&streamed, declared);
        assert_eq!(
            transcript,
            [Step::Authenticate, Step::Respond(413)],
            "no Body step: the host never pushes ({declared})"
        );
        assert_eq!(taken, 0, "{declared}");
    }
}

#[test]
fn a_declared_length_within_the_budget_is_read() {
    let body = ping_of(BUDGET);
    let request = Request::post_raw(body).header("content-length", "65536");
    let (reply, transcript) = request.exchange(&endpoint());
    assert_accepted(&reply, "declared 65536");
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);
}

#[test]
fn a_configured_budget_replaces_the_default() {
    let endpoint = endpoint_with(Config::new().body_budget(10));
    assert_eq!(endpoint.body_budget(), 10);
    let within = Request::post_raw("{}        ");
    let (reply, _) = within.exchange(&endpoint);
    assert_eq!(reply.status, 200, "10 bytes under a 10-byte budget");
    assert_eq!(
        reply.json(),
        serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "invalid request"}})
    );
    let over = Request::post_raw("{}         ");
    assert_too_large(
        &over.exchange(&endpoint).0,
        "11 bytes under a 10-byte budget",
    );
    let split_over = Request::post_raw("").chunks(vec![b"{}   ".to_vec(), b"      ".to_vec()]);
    assert_too_large(&split_over.exchange(&endpoint).0, "5 + 6 bytes");
    let declared = Request::post_raw("{}").header("content-length", "11");
    assert_too_large(&declared.exchange(&endpoint).0, "declared 11");

    // A larger budget lets through what the default refuses.
    let larger = endpoint_with(Config::new().body_budget(BUDGET + 1));
    assert_accepted(
        &Request::post_raw(ping_of(BUDGET + 1)).exchange(&larger).0,
        "65537 bytes under a 65537-byte budget",
    );
}

#[test]
fn an_unauthenticated_request_is_401_even_when_its_body_is_too_large() {
    let endpoint = endpoint();
    for request in [
        Request::post_raw("{}").header("content-length", "65537"),
        Request::post_raw(ping_of(BUDGET + 1)),
        Request::post_raw("").chunks(vec![vec![b' '; 32_768]; 3]),
    ] {
        let request = request.without("authorization");
        let (reply, transcript) = request.exchange(&endpoint);
        assert_eq!(reply.status, 401);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
        let (_, transcript, taken) = send_counting(&request, &endpoint);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
        assert_eq!(taken, 0);
    }
}
