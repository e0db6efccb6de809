//! SPEC.md §4 (and pipeline steps 5a, 5b and 6): `Accept` negotiation for the
//! GET event stream and for POST replies.

mod common;

use common::{Reply, Request, Step, call, endpoint, ping, seed_document};
use serde_json::json;

/// A GET with these `Accept` values (one header each; none: no header).
fn get(accepts: &[&str]) -> Reply {
    accepts
        .iter()
        .fold(Request::get(), |request, accept| {
            request.add_header("accept", accept)
        })
        .exchange(&endpoint())
        .0
}

/// A POST ping with these `Accept` values (one header each; none: no header).
fn post(accepts: &[&str]) -> Reply {
    accepts
        .iter()
        .fold(Request::post(&ping(json!(1))), |request, accept| {
            request.add_header("accept", accept)
        })
        .exchange(&endpoint())
        .0
}

fn assert_get(accept: &str, status: u16) {
    let reply = get(&[accept]);
    assert_eq!(reply.status, status, "GET with accept: {accept}");
    match status {
        200 => {
            assert!(reply.event_stream, "{accept}");
            assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        }
        _ => {
            assert!(!reply.event_stream, "{accept}");
            assert_eq!(reply.text(), "not acceptable", "{accept}");
        }
    }
}

#[test]
fn the_seed_refusals_of_a_get_are_406_not_acceptable() {
    for accept in [
        "text/event-stream;q=0",
        "application/json, text/event-stream; q=0",
        "text/event-stream;q=0, */*;q=1",
        "*/*;q=0",
        "application/json",
    ] {
        assert_get(accept, 406);
    }
}

#[test]
fn the_seed_acceptances_of_a_get_open_the_event_stream() {
    assert_get("text/event-stream", 200);
    assert_get("text/event-stream;q=0.25", 200);
}

#[test]
fn a_get_without_accept_means_any_type_and_opens_the_stream() {
    let reply = get(&[]);
    assert_eq!(reply.status, 200);
    assert!(reply.event_stream);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
}

#[test]
fn wildcard_ranges_accept_the_event_stream() {
    for accept in [
        "text/*",
        "*/*",
        "text/*;q=0.5",
        "*/*;q=0.001",
        "application/json, */*",
    ] {
        assert_get(accept, 200);
    }
}

#[test]
fn media_types_and_the_q_parameter_name_are_case_insensitive() {
    assert_get("TEXT/Event-Stream", 200);
    assert_get("Text/*", 200);
    assert_get("text/event-stream;Q=0", 406);
}

#[test]
fn the_most_specific_matching_range_decides() {
    for (accept, status) in [
        ("text/event-stream;q=0, text/*;q=1", 406),
        ("text/*;q=1, text/event-stream;q=0", 406),
        ("text/event-stream;q=0, */*", 406),
        ("text/*;q=0, text/event-stream;q=0.5", 200),
        ("text/event-stream;q=0.5, text/*;q=0", 200),
        ("*/*;q=0, text/*", 200),
        ("text/*;q=0, */*;q=1", 406),
        ("*/*;q=0, text/event-stream;q=0.1", 200),
        ("text/html, application/*", 406),
    ] {
        assert_get(accept, status);
    }
}

#[test]
fn invalid_qvalues_count_as_zero() {
    for accept in [
        "text/event-stream;q=1.5",
        "text/event-stream;q=0.0001",
        "text/event-stream;q=abc",
        "text/event-stream;q=2",
        "text/event-stream;q=-1",
        "text/event-stream;q=.5",
        "text/event-stream;q=1.001",
        "text/event-stream;q=0.5000",
        "text/event-stream;q=1.0000",
        "text/event-stream;q=",
        "*/*;q=1.5",
    ] {
        assert_get(accept, 406);
    }
}

#[test]
fn valid_qvalues_at_the_edges_of_the_grammar_are_honoured() {
    for accept in [
        "text/event-stream;q=0.001",
        "text/event-stream;q=1",
        "text/event-stream;q=1.0",
        "text/event-stream;q=1.000",
        "text/event-stream;q=0.999",
        "text/event-stream ; q=0.5",
    ] {
        assert_get(accept, 200);
    }
    assert_get("text/event-stream;q=0.000", 406);
    assert_get("text/event-stream;q=0.0", 406);
}

#[test]
fn parameters_other_than_q_are_ignored() {
    assert_get("text/event-stream;charset=utf-8", 200);
    assert_get("text/event-stream;v=0", 200);
    assert_get("text/event-stream;x=1.5", 200);
    assert_get("text/event-stream;qq=0", 200);
    assert_get("text/event-stream; charset=utf-8; q=0.5", 200);
    assert_get("text/event-stream;level=1;q=0", 406);
    assert_get("text/event-stream;x=\"a,b\";q=0", 406);
}

#[test]
fn several_accept_headers_are_joined() {
    let both = get(&["application/json", "text/event-stream"]);
    assert_eq!(both.status, 200);
    assert!(both.event_stream);
    let refused_later = get(&["*/*", "text/event-stream;q=0"]);
    assert_eq!(refused_later.status, 406);
    let specific_later = get(&["text/*;q=0", "text/event-stream"]);
    assert_eq!(specific_later.status, 200);
}

#[test]
fn a_post_without_accept_gets_a_json_reply() {
    let reply = post(&[]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
}

#[test]
fn a_post_gets_json_whenever_json_is_acceptable() {
    for accept in [
        "application/json",
        "application/json, text/event-stream",
        "text/event-stream, application/json",
        "application/json;q=0.1, text/event-stream",
        "application/*",
        "*/*",
        "text/event-stream;q=0, */*",
    ] {
        let reply = post(&[accept]);
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{accept}"
        );
        assert_eq!(
            reply.text(),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "{accept}"
        );
    }
}

#[test]
fn a_post_that_accepts_only_the_event_stream_gets_one_event_carrying_the_reply() {
    for accept in [
        "text/event-stream",
        "text/*",
        "application/json;q=0, text/event-stream",
        "application/json;q=0, */*",
        "application/json;q=1.5, text/event-stream;q=0.2",
    ] {
        let reply = post(&[accept]);
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/event-stream"),
            "{accept}"
        );
        assert!(!reply.event_stream, "a one-event reply is complete");
        assert_eq!(
            reply.text(),
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
            "{accept}"
        );
    }
}

#[test]
fn the_event_stream_reply_carries_the_same_json_rpc_reply_as_the_json_one() {
    let document = seed_document();
    let body = call(json!("r"), "read_document", json!({"id": document.id}));
    let (json_reply, json_steps) = Request::post(&body).exchange(&endpoint());
    let (event_reply, event_steps) = Request::post(&body)
        .header("accept", "text/event-stream")
        .exchange(&endpoint());
    assert_eq!(json_reply.header("content-type"), Some("application/json"));
    assert_eq!(
        event_reply.header("content-type"),
        Some("text/event-stream")
    );
    let mut framed = b"event: message\ndata: ".to_vec();
    framed.extend_from_slice(&json_reply.body);
    framed.extend_from_slice(b"\n\n");
    assert_eq!(event_reply.text(), String::from_utf8(framed).unwrap());
    assert_eq!(json_steps, event_steps);
    assert_eq!(
        event_steps,
        [
            Step::Authenticate,
            Step::Read(document.id),
            Step::Respond(200)
        ]
    );
}

#[test]
fn a_post_that_accepts_neither_type_is_406_not_acceptable() {
    for accept in [
        "text/html",
        "application/xml, text/plain",
        "application/json;q=0, text/event-stream;q=0",
        "*/*;q=0",
        "application/json;q=0",
        "text/event-stream;q=0",
        "application/json;q=abc, text/*;q=0",
    ] {
        let mut host = common::Host::seed();
        let reply = Request::post(&call(
            json!(1),
            "list_documents",
            json!({"repository": "githubnext/chopin"}),
        ))
        .header("accept", accept)
        .send(&endpoint(), &mut host);
        assert_eq!(reply.status, 406, "{accept}");
        assert_eq!(reply.text(), "not acceptable", "{accept}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(host.transcript, [Step::Authenticate, Step::Respond(406)]);
    }
}

/// Every ordering of `items` (Heap's algorithm), deterministically.
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    fn heap<T: Clone>(k: usize, items: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
        if k <= 1 {
            out.push(items.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, items, out);
            let j = if k % 2 == 0 { i } else { 0 };
            if i + 1 < k {
                items.swap(j, k - 1);
            }
        }
    }
    let mut items = items.to_vec();
    let mut out = Vec::new();
    heap(items.len(), &mut items, &mut out);
    out
}

/// What a reply says about negotiation: status, content type, stream or not.
fn verdict(reply: &Reply) -> (u16, Option<String>, bool) {
    (
        reply.status,
        reply.header("content-type").map(str::to_owned),
        reply.event_stream,
    )
}

#[test]
fn the_outcome_does_not_depend_on_the_order_of_the_ranges() {
    let sets: &[&[&str]] = &[
        &[
            "text/event-stream;q=0",
            "text/*;q=0.5",
            "*/*",
            "application/json",
        ],
        &[
            "text/*;q=0",
            "text/event-stream;q=0.5",
            "*/*;q=0",
            "application/*;q=0",
        ],
        &[
            "application/json;q=0",
            "*/*;q=0.3",
            "text/html",
            "text/*;q=0",
        ],
        &[
            "text/event-stream;q=0",
            "text/event-stream;q=0.5",
            "application/json;q=0",
            "*/*",
        ],
        &[
            "application/json;q=0",
            "application/json",
            "text/event-stream;q=1.5",
            "text/*;q=0",
        ],
        &[
            "*/*;q=0",
            "*/*;q=0.2",
            "text/event-stream;charset=utf-8;q=0",
            "image/png",
        ],
    ];
    let mut checked = 0;
    for set in sets {
        let orders = permutations(set);
        assert_eq!(orders.len(), 24);
        let first = orders[0].join(", ");
        let expected_get = verdict(&get(&[&first]));
        let expected_post = verdict(&post(&[&first]));
        for order in &orders {
            let joined = order.join(", ");
            assert_eq!(verdict(&get(&[&joined])), expected_get, "GET {joined}");
            assert_eq!(verdict(&post(&[&joined])), expected_post, "POST {joined}");
            // The same ranges as one header each: joined as one list.
            assert_eq!(verdict(&get(order)), expected_get, "GET {order:?}");
            assert_eq!(verdict(&post(order)), expected_post, "POST {order:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 24 * sets.len());
}

#[test]
fn the_order_property_sets_have_the_outcomes_the_rules_give() {
    // Pins the first permutation of each set above, so the property cannot
    // hold vacuously (e.g. by everything being refused).
    for (accept, get_status, post_type) in [
        (
            "text/event-stream;q=0, text/*;q=0.5, */*, application/json",
            406,
            Some("application/json"),
        ),
        (
            "text/*;q=0, text/event-stream;q=0.5, */*;q=0, application/*;q=0",
            200,
            Some("text/event-stream"),
        ),
        (
            "application/json;q=0, */*;q=0.3, text/html, text/*;q=0",
            406,
            None,
        ),
    ] {
        assert_eq!(get(&[accept]).status, get_status, "GET {accept}");
        let reply = post(&[accept]);
        match post_type {
            None => assert_eq!(reply.status, 406, "POST {accept}"),
            Some(kind) => {
                assert_eq!(reply.status, 200, "POST {accept}");
                assert_eq!(reply.header("content-type"), Some(kind), "POST {accept}");
            }
        }
    }
}
