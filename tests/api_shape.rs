//! The API's shape: what a host can rely on at compile time.

use chopin_mcp::{
    ArchiveDocument, Authenticate, BodyIntake, CreateDocument, Endpoint, ListDocuments, Outcome,
    ReadDocument, ReadImplementation, RenameDocument, ReportLifecycle, Response, RestoreDocument,
    StartImplementation, UpdateDocument,
};

fn send_sync<T: Send + Sync>() {}
fn copy<T: Copy>() {}
fn compared<T: PartialEq + std::fmt::Debug>() {}
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
    send::<UpdateDocument<String>>();
    send::<RenameDocument<String>>();
    send::<ArchiveDocument<String>>();
    send::<RestoreDocument<String>>();
    send::<ReadImplementation<String>>();
    send::<StartImplementation<String>>();
    send::<ReportLifecycle<String>>();
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
    let _: (bool, bool, bool) = (
        Granted::ALL.read(),
        Granted::new(true, false, false).create(),
        Granted::NONE.write(),
    );
    let answers: [fn(Authenticate<String>) -> Outcome<String>; 4] = [
        |auth| auth.answer(None),
        |auth| auth.answer(Some("octocat".to_owned())),
        |auth| auth.answer_scoped("octocat".to_owned(), Granted::NONE),
        |auth| auth.unavailable(),
    ];
    assert_eq!(answers.len(), 4);
}

/// Every public name a host may use, named once: removing or renaming one
/// breaks this build. Additions are listed here as they are made.
#[test]
fn every_public_name_stays() {
    use chopin_mcp::*;
    let _ = (
        READ_ONLY_BUDGET,
        CREATION_BUDGET,
        MAX_CACHE_TTL_MS,
        MAX_BATCH,
    );
    let _ = (
        http1::MAX_HEADERS,
        http1::MAX_HEAD_BYTES,
        http1::MAX_CHUNK_METADATA,
    );
    let _config: [fn(Config) -> Config; 7] = [
        Config::enable_creation,
        Config::enable_update,
        Config::enable_rename,
        Config::enable_archive,
        Config::enable_restore,
        Config::enable_lifecycle,
        Config::allow_loopback_hosts,
    ];
    let _ = ConfigError::ArchiveWithoutRestore;
    let _ = Config::new()
        .body_budget(1)
        .server_name("n")
        .server_version("v")
        .server_title("t")
        .instructions("i")
        .allow_origin("https://a.example")
        .allow_host("a.example")
        .resource_metadata("https://a.example/m")
        .protocol_versions([ProtocolVersion::V2026_07_28])
        .cache_ttl_ms(1)
        .oauth("https://a.example/mcp", "https://login.a.example")
        .scopes("r", "c")
        .write_scope("w")
        .id_source(SequentialIds::new(0));
    let _: fn(Config) -> Result<Endpoint, ConfigError> = Endpoint::new;
    let _: fn(&Endpoint) -> usize = Endpoint::body_budget;
    let _: fn(&Endpoint, &RequestParts<'_>, BodyChunks) -> Outcome<String> = Endpoint::handle;
    let _: fn(&Endpoint, &RequestParts<'_>) -> Outcome<String> = Endpoint::begin;
    let _: fn(&Authenticate<String>) -> Option<&[u8]> = Authenticate::authorization;
    let _: fn(&Authenticate<String>) -> Option<&str> = Authenticate::bearer_token;
    let _: fn(Authenticate<String>, Option<String>) -> Outcome<String> = Authenticate::answer;
    let _: fn(Authenticate<String>, String, Granted) -> Outcome<String> =
        Authenticate::answer_scoped;
    let _: fn(Authenticate<String>) -> Outcome<String> = Authenticate::unavailable;
    let _: fn(&Endpoint, &RequestParts<'_>) -> Option<Response> = Endpoint::metadata;
    let _: fn(&Endpoint) -> &Scopes = Endpoint::scopes;
    let _: fn(&Scopes, &str) -> Granted = Scopes::of_scope;
    let _: fn(&Scopes) -> &str = Scopes::read;
    let _: fn(&Scopes) -> &str = Scopes::create;
    let _: fn(&Scopes) -> &str = Scopes::write;
    let _: fn(bool, bool, bool) -> Granted = Granted::new;
    let _ = (
        Granted::ALL,
        Granted::NONE,
        Granted::read,
        Granted::create,
        Granted::write,
    );
    let _: fn(&BodyIntake<String>) -> usize = BodyIntake::received;
    let _: fn(&BodyIntake<String>) -> usize = BodyIntake::remaining;
    type Pushed = Result<BodyIntake<String>, Response>;
    let _: fn(BodyIntake<String>, &[u8]) -> Pushed = BodyIntake::push;
    let _: fn(BodyIntake<String>) -> Outcome<String> = BodyIntake::finish;
    let _: fn(&ListDocuments<String>) -> &String = ListDocuments::caller;
    let _: fn(&ListDocuments<String>) -> &str = ListDocuments::repository;
    let _: fn(ListDocuments<String>, &[DocumentSummary]) -> Outcome<String> = ListDocuments::answer;
    let _: fn(&ReadDocument<String>) -> &str = ReadDocument::id;
    let _: fn(ReadDocument<String>, Option<&Document>) -> Outcome<String> = ReadDocument::answer;
    let _: fn(&CreateDocument<String>) -> &NewDocument = CreateDocument::document;
    let _: fn(CreateDocument<String>, CreateAnswer<'_>) -> Outcome<String> = CreateDocument::answer;
    let _: fn(ListDocuments<String>) -> Outcome<String> = ListDocuments::forbidden;
    let _: fn(&UpdateDocument<String>) -> &String = UpdateDocument::caller;
    let _: fn(&UpdateDocument<String>) -> &DocumentUpdate = UpdateDocument::update;
    let _: fn(UpdateDocument<String>, UpdateAnswer<'_>) -> Outcome<String> = UpdateDocument::answer;
    let _: fn(&RenameDocument<String>) -> &String = RenameDocument::caller;
    let _: fn(&RenameDocument<String>) -> &str = RenameDocument::id;
    let _: fn(&RenameDocument<String>) -> &str = RenameDocument::title;
    let _: fn(RenameDocument<String>, RenameAnswer<'_>) -> Outcome<String> = RenameDocument::answer;
    let _: fn(&ArchiveDocument<String>) -> &String = ArchiveDocument::caller;
    let _: fn(&ArchiveDocument<String>) -> &str = ArchiveDocument::id;
    let _: fn(ArchiveDocument<String>, ArchiveAnswer<'_>) -> Outcome<String> =
        ArchiveDocument::answer;
    let _: fn(&RestoreDocument<String>) -> &String = RestoreDocument::caller;
    let _: fn(&RestoreDocument<String>) -> &str = RestoreDocument::id;
    let _: fn(RestoreDocument<String>, RestoreAnswer<'_>) -> Outcome<String> =
        RestoreDocument::answer;
    let _ = (
        UpdatedDocument::clone,
        ArchivedDocument::clone,
        DocumentUpdate::clone,
    );
    let _: fn(&Outcome<String>) -> Option<&Response> = Outcome::response;
    let _: fn(&Response) -> u16 = Response::status;
    let _: fn(&Response) -> Option<&'static str> = Response::content_type;
    let _: fn(&Response) -> bool = Response::is_event_stream;
    let _: fn(Response) -> bytes::Bytes = Response::into_body;
    let _ = Header::new("accept", b"*/*");
    let _ = ulid_from_parts(0, [0; 16]).to_string();
    let _: fn(&[u8]) -> Option<ProtocolVersion> = ProtocolVersion::parse;
    let _ = (Era::Legacy, Era::Modern, BodyChunks::empty());
    let _: fn(&str, &dyn IdSource) -> dialect::Report = dialect::check;
    let _ = (SystemIds, Brief::clone, CreatedDocument::clone);
    let _ = (sse::keep_alive, sse::event);
    let _ = (
        http1::parse_head,
        http1::write_response,
        http1::write_response_with,
        http1::write_head_with,
        negotiate::media_ranges::<std::iter::Empty<&[u8]>>,
    );
}

#[test]
fn a_list_can_be_answered_with_borrowed_summaries() {
    // `ListDocuments::answer_borrowed(&[DocumentSummaryRef<'_>])`: a host
    // answers from its own buffers (a store's rows) without a `String` per
    // field; `tests/list_answer_borrowed.rs` shows the bytes are the same.
    fn answers<C>(list: ListDocuments<C>, text: &str) -> Outcome<C> {
        let summaries = [chopin_mcp::DocumentSummaryRef {
            archived_at: None,
            description: None,
            id: &text[..1],
            title: &text[1..],
        }];
        list.answer_borrowed(&summaries)
    }
    let _ = answers::<String>;
    send_sync::<chopin_mcp::DocumentSummaryRef<'static>>();
    copy::<chopin_mcp::DocumentSummaryRef<'static>>();
    compared::<chopin_mcp::DocumentSummaryRef<'static>>();
}
