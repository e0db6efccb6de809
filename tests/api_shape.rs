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

/// The OAuth resource server's API (AUTH.md §1): a host configures the
/// resource and issuer, serves metadata before routing, reads a token's
/// scopes into a `Granted` with the endpoint's names, and answers the
/// authenticate effect in one of three ways.
#[test]
fn the_oauth_api_a_host_uses() {
    use chopin_mcp::{Config, Granted, RequestParts, Scopes};

    fn copy<T: Copy + Send + Sync + 'static>() {}
    copy::<Granted>();
    send_sync::<Scopes>();
    let endpoint = Endpoint::new(
        Config::new()
            .oauth("https://mcp.example.com/mcp", "https://login.example.com")
            .scopes("chopin:read", "chopin:create"),
    )
    .unwrap();
    let _: Option<Response> = endpoint.metadata(&RequestParts::new(
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
    ));
    let scopes: &Scopes = endpoint.scopes();
    let _: Granted = scopes.of_scope("chopin:read");
    let _: Granted = scopes.of_names(["chopin:read"]);
    let _: (bool, bool) = (Granted::ALL.read(), Granted::new(true, false).create());
    let answers: [fn(Authenticate<String>) -> Outcome<String>; 4] = [
        |auth| auth.answer(None),
        |auth| auth.answer(Some("octocat".to_owned())),
        |auth| auth.answer_scoped("octocat".to_owned(), Granted::NONE),
        |auth| auth.unavailable(),
    ];
    assert_eq!(answers.len(), 4);
}
