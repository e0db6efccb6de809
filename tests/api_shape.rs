//! The API's shape: what a host can rely on at compile time.

use chopin_mcp::{
    Authenticate, BodyIntake, CreateDocument, Endpoint, ListDocuments, Outcome, ReadDocument,
    Response,
};

fn send_sync<T: Send + Sync>() {}
fn send<T: Send>() {}
fn owned<T: 'static>() {}

#[test]
fn an_endpoint_is_shared_across_threads_and_cloned_cheaply() {
    send_sync::<Endpoint>();
    let endpoint = Endpoint::new(chopin_mcp::Config::new()).unwrap();
    let clone = endpoint.clone();
    std::thread::spawn(move || clone.body_budget())
        .join()
        .unwrap();
    assert_eq!(endpoint.body_budget(), chopin_mcp::READ_ONLY_BUDGET);
}

#[test]
fn effects_are_owned_and_can_cross_an_await_on_a_multithreaded_runtime() {
    // Owned ('static) and Send whenever the caller type is: a host can move
    // a pending effect into a spawned task and answer it later.
    send::<Outcome<String>>();
    owned::<Outcome<String>>();
    send::<Authenticate<String>>();
    send::<BodyIntake<String>>();
    send::<ListDocuments<String>>();
    send::<ReadDocument<String>>();
    send::<CreateDocument<String>>();
    send_sync::<Response>();
}

#[test]
fn outcome_variants_stay_small() {
    // Effects move through the host's loop by value on every step.
    let size = std::mem::size_of::<Outcome<String>>();
    assert!(size <= 256, "Outcome<String> is {size} bytes");
}

#[test]
fn a_list_can_be_answered_with_borrowed_summaries() {
    // `ListDocuments::answer_borrowed(&[DocumentSummaryRef<'_>])`: a host
    // answers from its own buffers (a store's rows) without a `String` per
    // field; `tests/list_answer_borrowed.rs` shows the bytes are the same.
    fn answers<C>(list: ListDocuments<C>, text: &str) -> Outcome<C> {
        let summaries = [chopin_mcp::DocumentSummaryRef {
            id: &text[..1],
            title: &text[1..],
        }];
        list.answer_borrowed(&summaries)
    }
    let _ = answers::<String>;
    send_sync::<chopin_mcp::DocumentSummaryRef<'static>>();
    let summary = chopin_mcp::DocumentSummaryRef {
        id: "a",
        title: "b",
    };
    let copy = summary;
    assert_eq!(summary, copy);
}
