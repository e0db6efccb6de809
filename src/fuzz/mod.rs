//! Fuzz bodies: the code each `fuzz/` target runs, kept in the crate so that
//! every build type-checks it and `cargo test` replays the committed corpora
//! through it (`tests/fuzz_corpus.rs`). Each body panics only when an
//! invariant of the crate is broken.
//!
//! Not part of the public API.

mod images;
mod lifecycle;
pub(crate) mod message_strings;
mod planner;
mod writer;

use bytes::Bytes;

pub use images::image;
pub use lifecycle::update;

use crate::http1::{self, BodyDecoder};
use crate::json::{self, Raw};
use crate::negotiate::{media_ranges, quality};
use crate::record::Record;
use crate::{
    Config, CreateAnswer, CreatedDocument, Document, DocumentSummary, Endpoint, Granted, Header,
    LifecycleAnswer, NewDocument, Outcome, ReadImplementationAnswer, RequestParts, Response,
    SequentialIds, StartAnswer, dialect,
};
use crate::{oracle, scan};

/// Reads fuzz input as a sequence of small decisions.
struct Cursor<'a> {
    data: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&first, rest)) => {
                self.data = rest;
                first
            }
            None => 0,
        }
    }

    /// A length-prefixed slice (one length byte).
    fn slice(&mut self) -> &'a [u8] {
        let len = usize::from(self.byte()).min(self.data.len());
        let (head, rest) = self.data.split_at(len);
        self.data = rest;
        head
    }

    fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }
}

const SECRET: &str = "SECRET-DOCUMENT-CONTENT";

/// The one origin the fuzz endpoints allow exactly.
const ALLOWED_ORIGIN: &[u8] = b"https://allowed.example";

/// The resource an OAuth fuzz endpoint protects.
const RESOURCE: &str = "https://mcp.example/mcp";

fn endpoint(budget: usize) -> Endpoint {
    endpoint_with(budget, false, false)
}

/// With `loopback`, the endpoint also calls `allow_loopback_hosts` (loopback
/// `Host` names only, loopback origins admitted); with `oauth`, it is an
/// OAuth resource server for [`RESOURCE`] (Protected Resource Metadata,
/// challenges naming the read scope), else it names a metadata URL only.
fn endpoint_with(budget: usize, loopback: bool, oauth: bool) -> Endpoint {
    let mut config = Config::new()
        .body_budget(budget)
        .allow_origin("https://allowed.example")
        .enable_creation()
        .enable_lifecycle()
        .enable_planner()
        .enable_upload()
        .enable_implementations()
        .id_source(SequentialIds::new(1));
    config = if oauth {
        config.oauth(RESOURCE, "https://auth.example")
    } else {
        config.resource_metadata("https://auth.example/.well-known/oauth-protected-resource")
    };
    if loopback {
        config = config.allow_loopback_hosts();
    }
    Endpoint::new(config).unwrap_or_else(|_| unreachable!("the fuzz configuration is valid"))
}

fn document() -> Document {
    Document {
        archived_at: None,
        description: None,
        url: None,
        id: "doc".into(),
        title: "Title".into(),
        brief: None,
        source: SECRET.into(),
        revision: 1,
    }
}

/// What happened in one exchange.
#[derive(Debug, PartialEq, Eq)]
struct Transcript {
    effects: Vec<&'static str>,
    document_given: bool,
    status: u16,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Bytes,
}

/// Drives an exchange to its response, answering effects from `answers`.
/// An authentication gets no caller or a caller with every scope; with
/// `scoped`, also a caller with any of the read, create and write scopes,
/// or the verdict that the host cannot judge the token.
fn drive(
    mut outcome: Outcome<u8>,
    answers: &mut Cursor<'_>,
    chunks: &[&[u8]],
    budget: usize,
    scoped: bool,
) -> Transcript {
    let mut effects = Vec::new();
    let mut document_given = false;
    let mut granted = Granted::ALL;
    let mut unavailable = false;
    let document = document();
    let summaries = [DocumentSummary {
        archived_at: None,
        description: None,
        id: "doc".into(),
        title: "Title".into(),
    }];
    let response: Response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => {
                effects.push("authenticate");
                let choice = answers.byte();
                match choice % 8 {
                    0 => auth.answer(None),
                    _ if !scoped => auth.answer(Some(7)),
                    1 => {
                        unavailable = true;
                        auth.unavailable()
                    }
                    2..=5 => {
                        granted =
                            Granted::new(choice & 16 != 0, choice & 32 != 0, choice & 64 != 0);
                        auth.answer_scoped(7, granted)
                    }
                    _ => auth.answer(Some(7)),
                }
            }
            Outcome::Body(intake) => {
                effects.push("body");
                match intake.push_all(chunks) {
                    Ok(intake) => {
                        assert!(intake.received() <= budget, "buffered past the budget");
                        intake.finish()
                    }
                    Err(response) => break response,
                }
            }
            Outcome::List(list) => {
                effects.push("list");
                assert_eq!(*list.caller(), 7);
                let count = usize::from(answers.byte() % 2);
                list.answer(&summaries[..count])
            }
            Outcome::Read(read) => {
                effects.push("read");
                let found = answers.byte() % 2 == 0;
                document_given |= found;
                read.answer(found.then_some(&document))
            }
            Outcome::Create(create) => {
                effects.push("create");
                check_new_document(create.document());
                let created = created_document(create.document());
                create.answer(match answers.byte() % 5 {
                    0 => CreateAnswer::Created(&created),
                    1 => CreateAnswer::Replayed(&created),
                    2 => CreateAnswer::Conflict,
                    3 => CreateAnswer::Forbidden,
                    _ => CreateAnswer::Unavailable,
                })
            }
            Outcome::Update(update) => {
                effects.push("update");
                lifecycle::answer_update(update, answers.byte())
            }
            Outcome::Rename(rename) => {
                effects.push("rename");
                lifecycle::answer_rename(rename, answers.byte())
            }
            Outcome::Archive(archive) => {
                effects.push("archive");
                lifecycle::answer_archive(archive, answers.byte())
            }
            Outcome::Restore(restore) => {
                effects.push("restore");
                lifecycle::answer_restore(restore, answers.byte())
            }
            Outcome::InvokePlanner(invoke) => {
                effects.push("invoke_planner");
                planner::answer_invoke(invoke, answers.byte())
            }
            Outcome::StoreImage(store) => {
                effects.push("store_image");
                images::answer_store_image(store, answers.byte())
            }
            // Answered unavailable: the fuzzed inputs reach the argument
            // checks and the session gate; the answers are the rules'.
            Outcome::ReadImplementation(read) => {
                effects.push("read_implementation");
                read.answer(ReadImplementationAnswer::<()>::Unavailable)
            }
            Outcome::StartImplementation(start) => {
                effects.push("start_implementation");
                start.answer(StartAnswer::Unavailable)
            }
            Outcome::ReportLifecycle(report) => {
                effects.push("report_lifecycle");
                report.answer(LifecycleAnswer::Unavailable)
            }
        };
    };
    check_response(&response, &effects, document_given);
    check_grant(&response, &effects, granted, unavailable);
    Transcript {
        effects,
        document_given,
        status: response.status(),
        // Each `initialize` is issued its own session id (SURFACE.md §10):
        // kept without its ULID, the part that differs.
        headers: response
            .headers()
            .map(|(name, value)| match name {
                "mcp-session-id" => (name, value[..value.len().saturating_sub(26)].to_vec()),
                _ => (name, value.to_vec()),
            })
            .collect(),
        body: response.into_body(),
    }
}

/// What a create effect carries: a canonical plan that checks clean and is a
/// fixed point, and a 64-digit lowercase hex fingerprint.
fn check_new_document(document: &NewDocument) {
    check_effect_plan(&document.plan, &document.fingerprint);
}

/// What a create or update effect carries: a canonical plan that checks
/// clean and is a fixed point, and a 64-digit lowercase hex fingerprint.
fn check_effect_plan(plan: &str, fingerprint: &str) {
    assert_eq!(fingerprint.len(), 64);
    assert!(
        fingerprint
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    let again = dialect::check(plan, &SequentialIds::new(2));
    assert!(
        again.issues.is_empty(),
        "the canonical plan has issues: {:?}",
        again.issues
    );
    assert_eq!(
        again.canonical, plan,
        "the canonical plan is not a fixed point"
    );
}

fn created_document(document: &NewDocument) -> CreatedDocument {
    CreatedDocument {
        id: "new".into(),
        title: document.title.clone(),
        brief: document.brief.clone(),
        source: document.plan.clone(),
        revision: 0,
        url: "/documents/new".into(),
    }
}

/// What the caller's grant allows: no list or read without the read scope,
/// no create without the create scope, no write effect without the write
/// scope (AUTH.md §1.2, LIFECYCLE.md §1: refused before any effect); a host
/// that cannot judge the credentials gets its 503 and nothing else happens.
fn check_grant(response: &Response, effects: &[&str], granted: Granted, unavailable: bool) {
    if unavailable {
        assert_eq!(response.status(), 503);
        assert_eq!(response.header("retry-after"), Some(&b"5"[..]));
        assert_eq!(
            effects,
            ["authenticate"],
            "effects after an unavailable verdict"
        );
    }
    for effect in effects {
        match *effect {
            "list" | "read" => assert!(granted.read(), "{effect} without the read scope"),
            "create" => assert!(granted.create(), "create without the create scope"),
            "read_implementation" => assert!(granted.read(), "{effect} without the read scope"),
            "update"
            | "rename"
            | "archive"
            | "restore"
            | "start_implementation"
            | "report_lifecycle" => {
                assert!(granted.read(), "{effect} without the read scope");
                assert!(granted.write(), "{effect} without the write scope");
            }
            _ => {}
        }
    }
}

/// The effects that reach the host for a tool call.
const TOOL_EFFECTS: [&str; 10] = [
    "list",
    "read",
    "create",
    "update",
    "rename",
    "archive",
    "restore",
    "read_implementation",
    "start_implementation",
    "report_lifecycle",
];

/// Invariants every response keeps. Each tool effect was answered once,
/// into a result of its own: a response carries at least as many results
/// as effects were started, and an effect never ends in an error reply
/// (an argument refusal, `-32602`, never reaches the host).
fn check_response(response: &Response, effects: &[&str], document_given: bool) {
    let status = response.status();
    assert!(
        [200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 503].contains(&status),
        "unexpected status {status}"
    );
    assert_eq!(
        response.header("x-content-type-options"),
        Some(&b"nosniff"[..])
    );
    let tool_effects = effects.iter().filter(|e| TOOL_EFFECTS.contains(e)).count();
    assert!(
        tool_effects == 0 || status == 200,
        "an effect was started for a failing request"
    );
    let body = std::str::from_utf8(response.body()).expect("bodies are UTF-8");
    if tool_effects > 0 {
        let results = count_results(response);
        assert!(
            tool_effects <= results,
            "{tool_effects} effects for {results} results"
        );
    }
    assert!(
        !body.contains(SECRET) || document_given,
        "document content leaked"
    );
    // Replies are checked for JSON syntax only: an id echoed as sent may be a
    // number no float holds (`1e400`), which is still JSON.
    match response.content_type() {
        Some("application/json") => {
            serde_json::from_str::<&serde_json::value::RawValue>(body).expect("JSON replies parse");
        }
        Some("text/event-stream") if !response.is_event_stream() => {
            // One event, or (`subscriptions/listen`) two, each carrying JSON.
            let events = body.strip_suffix("\n\n").expect("framed events");
            let mut count = 0;
            for event in events.split("\n\n") {
                let data = event
                    .strip_prefix("event: message\ndata: ")
                    .expect("one data line per event");
                serde_json::from_str::<&serde_json::value::RawValue>(data)
                    .expect("the event carries JSON");
                count += 1;
            }
            assert!(count == 1 || (count == 2 && response.header("x-accel-buffering").is_some()));
        }
        _ => {}
    }
}

/// The replies of a 200 that carry a `result` (one message's, or a batch's
/// elements'), in JSON or in one SSE event.
fn count_results(response: &Response) -> usize {
    let body = std::str::from_utf8(response.body()).unwrap_or_default();
    let data = body
        .strip_prefix("event: message\ndata: ")
        .map_or(body, |rest| rest.trim_end_matches('\n'));
    let is_result = |reply: &serde_json::Value| reply.get("result").is_some();
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(serde_json::Value::Array(replies)) => replies.iter().filter(|r| is_result(r)).count(),
        Ok(reply) => usize::from(is_result(&reply)),
        // An id no float holds (`1e400`) is not read here: no count.
        Err(_) => usize::MAX,
    }
}

/// Splits `body` into chunks whose sizes come from `sizes`.
fn split<'b>(body: &'b [u8], sizes: &[u8]) -> Vec<&'b [u8]> {
    let mut chunks = Vec::new();
    let mut rest = body;
    let mut sizes = sizes.iter().cycle();
    while !rest.is_empty() {
        let size = usize::from(*sizes.next().unwrap_or(&255))
            .max(1)
            .min(rest.len());
        let (chunk, tail) = rest.split_at(size);
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

const NAMES: [&str; 17] = [
    "authorization",
    "accept",
    "content-type",
    "content-length",
    "mcp-protocol-version",
    "origin",
    "host",
    "x-other",
    "access-control-request-method",
    "access-control-request-headers",
    "Origin",
    "Access-Control-Request-Method",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
    "last-event-id",
    "MCP-Protocol-Version",
];

/// `handle`: an arbitrary head, body split into arbitrary chunks, and
/// arbitrary effect answers (grants with or without each scope, a host that
/// cannot judge the token), on an endpoint with or without OAuth; the held
/// and incremental forms must agree, CORS headers appear only as the origin
/// rules allow, and the metadata paths answer as `check_metadata` (below) says.
pub fn handle(data: &[u8]) {
    let mut input = Cursor { data };
    let control = input.byte();
    let budget = [16, 64, 1024, 65_536][usize::from(control % 4)];
    let loopback = control & 4 != 0;
    let oauth = control & 8 != 0;
    let target = [
        "/mcp",
        "/mcp",
        "/mcp?x",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource/mcp?x#y",
        "/.well-known/oauth-protected-resource/other",
        "/.well-known/oauth-protected-resource/mcp/",
    ][usize::from(control >> 4) % 8];
    let method = [
        "GET", "POST", "PUT", "post", "OPTIONS", "OPTIONS", "options", "DELETE",
    ][usize::from(input.byte() % 8)];
    let count = usize::from(input.byte() % 8);
    let mut owned: Vec<(&str, &[u8])> = Vec::new();
    for _ in 0..count {
        let name = NAMES[usize::from(input.byte()) % NAMES.len()];
        owned.push((name, input.slice()));
    }
    let sizes = input.slice();
    let answers = input.slice();
    let body = input.rest();
    let headers: Vec<Header<'_>> = owned.iter().map(|(n, v)| Header::new(n, v)).collect();
    let parts = RequestParts::new(method, target, &headers);
    let endpoint = endpoint_with(budget, loopback, oauth);
    if let Some(response) = endpoint.metadata(&parts) {
        check_metadata(&parts, &response, oauth);
        return;
    }
    assert!(
        !(oauth && is_metadata_path(target)),
        "a metadata path of an OAuth endpoint went unanswered"
    );
    let chunks = split(body, sizes);

    let held: Outcome<u8> = endpoint.handle(
        &parts,
        chunks
            .iter()
            .map(|c| Bytes::copy_from_slice(c))
            .collect::<crate::BodyChunks>(),
    );
    let held = drive(held, &mut Cursor { data: answers }, &[], budget, oauth);
    let pushed = drive(
        endpoint.begin(&parts),
        &mut Cursor { data: answers },
        &chunks,
        budget,
        oauth,
    );
    let pushed_effects: Vec<_> = pushed.effects.iter().filter(|e| **e != "body").collect();
    assert_eq!(held.effects.iter().collect::<Vec<_>>(), pushed_effects);
    assert_eq!((held.status, &held.body), (pushed.status, &pushed.body));
    assert_eq!(held.headers, pushed.headers);
    check_cors(&parts, &held, loopback);
}

/// Protected Resource Metadata (AUTH.md §1.3): answered only by an OAuth
/// endpoint, at its two paths; a `GET` or `HEAD` from an allowed `Host`
/// gets the document naming [`RESOURCE`], readable from any origin; a
/// preflight gets 204; other methods 405; a `Host` not allowed 403.
fn check_metadata(parts: &RequestParts<'_>, response: &Response, oauth: bool) {
    assert!(oauth, "metadata from an endpoint without OAuth");
    assert!(
        is_metadata_path(parts.target()),
        "metadata at {}",
        parts.target()
    );
    let any = Some(&b"*"[..]);
    match response.status() {
        200 => {
            assert!(matches!(parts.method(), "GET" | "HEAD"));
            assert_eq!(response.header("access-control-allow-origin"), any);
            let document: serde_json::Value =
                serde_json::from_slice(response.body()).expect("the metadata is JSON");
            assert_eq!(document["resource"], RESOURCE);
        }
        204 => {
            assert_eq!(parts.method(), "OPTIONS");
            assert_eq!(response.header("access-control-allow-origin"), any);
        }
        403 | 405 => assert_eq!(response.header("access-control-allow-origin"), None),
        status => panic!("metadata answered {status}"),
    }
}

/// Whether `target`'s path is one of the two where [`RESOURCE`]'s metadata
/// lives (RFC 9728 §3.1: the well-known prefix, alone or before the
/// resource's path).
fn is_metadata_path(target: &str) -> bool {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    matches!(
        path,
        "/.well-known/oauth-protected-resource" | "/.well-known/oauth-protected-resource/mcp"
    )
}

/// CORS invariants: a grant only for a request with exactly one `Origin`,
/// echoing it only when it is the allowed origin or (with loopback origins)
/// has a loopback origin's shape; no CORS header at all without `Origin`;
/// 204 only for a granted `OPTIONS`, which starts no effect.
fn check_cors(parts: &RequestParts<'_>, transcript: &Transcript, loopback: bool) {
    let origins: Vec<&[u8]> = parts.all("origin").collect();
    let header = |wanted: &str| {
        transcript
            .headers
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, value)| value.as_slice())
    };
    let granted = header("access-control-allow-origin");
    let cors_headers = transcript
        .headers
        .iter()
        .filter(|(name, _)| name.starts_with("access-control-") || *name == "vary")
        .count();
    match granted {
        None => assert_eq!(cors_headers, 0, "CORS headers without a grant"),
        Some(origin) => {
            assert_eq!(origins, [origin], "the grant echoes the one Origin");
            assert!(
                origin == ALLOWED_ORIGIN || (loopback && looks_like_loopback_origin(origin)),
                "granted an origin that is not allowed"
            );
            assert_eq!(header("vary"), Some(&b"origin"[..]));
        }
    }
    if transcript.status == 204 {
        assert_eq!(parts.method(), "OPTIONS");
        assert!(granted.is_some(), "a preflight answer without a grant");
        assert!(
            transcript.effects.is_empty(),
            "a preflight started an effect"
        );
    }
}

/// An independent, looser statement of MODERN.md §7's shape: a web scheme,
/// then only host and port characters.
fn looks_like_loopback_origin(origin: &[u8]) -> bool {
    let lower = origin.to_ascii_lowercase();
    let rest = lower
        .strip_prefix(b"http://")
        .or_else(|| lower.strip_prefix(b"https://"));
    rest.is_some_and(|rest| {
        (rest.starts_with(b"localhost")
            || rest.starts_with(b"127.0.0.1")
            || rest.starts_with(b"[::1]"))
            && rest
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b".:[]".contains(&b))
    })
}

/// `ops`: random sequences of operations on exchanges of both eras (begin,
/// push, finish, answer each effect kind, drop), checking the state
/// machine's invariants.
pub fn ops(data: &[u8]) {
    let mut input = Cursor { data };
    let endpoint = endpoint(512);
    // From the allowed origin: every response of every exchange of either
    // era, whatever step gives it, must carry the grant.
    let legacy = [
        Header::new("authorization", b"Bearer x"),
        Header::new("origin", ALLOWED_ORIGIN),
    ];
    let modern = [
        Header::new("authorization", b"Bearer x"),
        Header::new("origin", ALLOWED_ORIGIN),
        Header::new("mcp-protocol-version", b"2026-07-28"),
        Header::new("mcp-method", b"tools/call"),
        Header::new("mcp-name", b"read_document"),
    ];
    let heads = [
        RequestParts::new("POST", "/mcp", &legacy),
        RequestParts::new("POST", "/mcp", &modern),
    ];
    let bodies: [&[u8]; 14] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"doc"}}}"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"a/b"}}}"#,
        br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"doc"}}},{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_document","arguments":{"id":"doc"}}}"#,
        br#"{"jsonrpc":"2.0","id":1,"#,
        &[b' '; 600],
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"doc"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        br#"{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_document","arguments":{"id":" "},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        br##"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"update_document","arguments":{"id":"doc","revision":1,"plan":"# T\n","idempotencyKey":"k"}}}"##,
        br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"rename_document","arguments":{"id":"doc","title":" T "}}}"#,
        br#"[{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"archive_document","arguments":{"id":"doc"}}},{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"restore_document","arguments":{"id":"doc"}}}]"#,
        br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"archive_document","arguments":{"id":"doc"}}}"#,
        br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"upload_image","arguments":{"id":"doc","data":"iVBORw0KGgoAAAAN","mimeType":"image/png"}}}"#,
    ];
    let mut live: Vec<Outcome<u8>> = Vec::new();
    let mut responses = 0usize;
    let mut started = 0usize;
    for _ in 0..64 {
        let op = input.byte();
        if input.data.is_empty() && live.is_empty() {
            break;
        }
        match op % 4 {
            0 => {
                let parts = &heads[usize::from(input.byte() % 2)];
                live.push(endpoint.begin(parts));
                started += 1;
            }
            1 if !live.is_empty() => {
                let index = usize::from(input.byte()) % live.len();
                drop(live.swap_remove(index));
                started -= 1;
            }
            _ if !live.is_empty() => {
                let index = usize::from(input.byte()) % live.len();
                let outcome = live.swap_remove(index);
                let choice = input.byte();
                let next = match outcome {
                    Outcome::Respond(_) => unreachable!("responses are never kept live"),
                    Outcome::Authenticate(auth) => auth.answer((choice % 4 != 0).then_some(1)),
                    Outcome::Body(intake) => {
                        let body = bodies[usize::from(choice) % bodies.len()];
                        match intake.push_all(split(body, input.slice())) {
                            Ok(intake) => {
                                assert!(intake.received() <= 512, "buffered past the budget");
                                intake.finish()
                            }
                            Err(response) => Outcome::Respond(response),
                        }
                    }
                    Outcome::List(list) => list.answer(&[]),
                    Outcome::Read(read) => {
                        let document = document();
                        read.answer((choice % 2 == 0).then_some(&document))
                    }
                    Outcome::Create(create) => create.answer(CreateAnswer::Conflict),
                    Outcome::Update(update) => lifecycle::answer_update(update, choice),
                    Outcome::Rename(rename) => lifecycle::answer_rename(rename, choice),
                    Outcome::Archive(archive) => lifecycle::answer_archive(archive, choice),
                    Outcome::Restore(restore) => lifecycle::answer_restore(restore, choice),
                    Outcome::InvokePlanner(invoke) => planner::answer_invoke(invoke, choice),
                    Outcome::StoreImage(store) => images::answer_store_image(store, choice),
                    Outcome::ReadImplementation(read) => {
                        read.answer(ReadImplementationAnswer::<()>::Unavailable)
                    }
                    Outcome::StartImplementation(start) => start.answer(StartAnswer::Unavailable),
                    Outcome::ReportLifecycle(report) => report.answer(LifecycleAnswer::Unavailable),
                };
                match next {
                    Outcome::Respond(response) => {
                        check_response(&response, &[], true);
                        assert_eq!(
                            response.header("access-control-allow-origin"),
                            Some(ALLOWED_ORIGIN),
                            "a response lost the grant"
                        );
                        responses += 1;
                        started -= 1;
                    }
                    other => live.push(other),
                }
            }
            _ => {}
        }
        assert_eq!(
            live.len(),
            started,
            "every exchange is live until its one response"
        );
    }
    let _ = responses;
}

/// `accept`: the negotiation never panics, q stays in range, and reversing
/// the order of ranges never changes the outcome.
pub fn accept(data: &[u8]) {
    let forward = quality(Some([data]), "text", "event-stream");
    assert!(forward <= 1000);
    let elements: Vec<&[u8]> = data.split(|&b| b == b',').collect();
    if !data.contains(&b'"') {
        let reversed = elements.iter().rev().copied().collect::<Vec<_>>();
        assert_eq!(quality(Some(reversed), "text", "event-stream"), forward);
    }
    for range in media_ranges([data]) {
        assert!(range.q <= 1000);
        assert!(!range.kind.is_empty() && !range.subtype.is_empty());
    }
    let _ = quality(Some([data]), "application", "json");
}

/// `jsonrpc`: any body, after a valid head, gets one well-formed response.
pub fn jsonrpc(data: &[u8]) {
    let mut input = Cursor { data };
    let version: &[u8] = match input.byte() % 4 {
        0 => b"2025-03-26",
        1 => b"2025-06-18",
        2 => b"2026-07-28",
        _ => b"2024-11-05",
    };
    let answers = input.slice();
    let body = input.rest();
    let headers = [
        Header::new("authorization", b"Bearer x"),
        Header::new("mcp-protocol-version", version),
        Header::new("content-type", b"application/json"),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let outcome = endpoint(65_536).handle(&parts, Bytes::copy_from_slice(body));
    let transcript = drive(outcome, &mut Cursor { data: answers }, &[], 65_536, false);
    assert!(transcript.status != 401 || transcript.effects == ["authenticate"]);
}

/// `message`: the one-pass message reader against `serde_json`, on any
/// UTF-8 text: the same verdict, and the same members picked at each level.
/// First the string writer, against `serde_json` too (`writer::check`), and
/// the reader's string ends against a byte-by-byte reading.
/// Then each picked value, already validated, is read as an object, an
/// array and a string by `json`'s readers, against `serde_json` again.
/// Returns whether the text is a message `serde_json` reads.
pub fn message(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    writer::check(text);
    message_strings::check(text);
    let expected = oracle::message(text);
    let found = scan::message(text);
    // The oracle records no `arguments`: their record is checked below.
    let unrecorded = found.map(|mut envelope| {
        if let Some(params) = &mut envelope.members {
            params.record = Record::NONE;
        }
        envelope
    });
    assert_eq!(unrecorded, expected, "{text:?}");
    let Some(envelope) = found else {
        return false;
    };
    let params = envelope.members.unwrap_or_default();
    if let Some(arguments) = params.call_arguments().filter(|a| json::is_object(a.raw())) {
        oracle::check_arguments(arguments);
    }
    let meta = params.meta.unwrap_or_default();
    let whole = Raw::new(text.trim_matches([' ', '\t', '\n', '\r']));
    for raw in [
        Some(whole),
        envelope.jsonrpc,
        envelope.id,
        envelope.method,
        envelope.params,
        params.name,
        params.arguments,
        params.uri,
        params.cursor,
        params.notifications,
        params.protocol_version,
        meta.protocol_version,
        meta.client_capabilities,
    ]
    .into_iter()
    .flatten()
    {
        oracle::check_readers(raw);
    }
    true
}

/// The message reader's steps on `text` (its main loop's turns, plus the
/// bytes it moved over when it read the whole text), for the linear-time
/// tests.
pub fn message_steps(text: &str) -> usize {
    scan::message_counting(text).1
}

/// `update_document`'s revision reader on `text` (a JSON value): the
/// revision, and its steps (the bytes it walked and parsed), for the
/// linear-time tests.
pub fn revision_steps(text: &str) -> (Option<u64>, usize) {
    crate::tools::revision::read(text)
}

/// `http1`: the head parser and chunked decoder never panic, decode the same
/// body whatever the split, and never report more input than they were given.
pub fn http1(data: &[u8]) {
    let Some((&split_at, data)) = data.split_first() else {
        return;
    };
    let Ok(Some(head)) = http1::parse_head(data) else {
        return;
    };
    assert!(head.len() <= data.len());
    let _ = head.parts().header("host");
    let rest = &data[head.len()..];
    let whole = decode(head.framing(), &[rest]);
    let at = usize::from(split_at).min(rest.len());
    let halves = decode(head.framing(), &[&rest[..at], &rest[at..]]);
    assert_eq!(whole, halves, "the split changed the decoded body");
}

/// Decodes pieces as a connection would; `None` on a framing error.
fn decode(framing: http1::Framing, pieces: &[&[u8]]) -> Option<(Vec<u8>, bool)> {
    let mut decoder = BodyDecoder::new(framing);
    let mut body = Vec::new();
    let mut pending = Vec::new();
    for piece in pieces {
        pending.extend_from_slice(piece);
        loop {
            let decoded = decoder.decode(&pending).ok()?;
            assert!(decoded.consumed <= pending.len());
            body.extend_from_slice(decoded.data);
            let consumed = decoded.consumed;
            pending.drain(..consumed);
            if consumed == 0 || decoder.is_done() {
                break;
            }
        }
        if decoder.is_done() {
            break;
        }
    }
    Some((body, decoder.is_done()))
}

pub use chopin_dialect::fuzz::dialect;

/// `create`: structure-aware create_document calls. The arguments come from
/// the input (fields, a plan, and a choice of what to break); every reply is
/// well-formed, no create effect starts for an invalid draft or plan, and a
/// create effect carries a clean, canonical plan.
pub fn create(data: &[u8]) {
    let mut input = Cursor { data };
    let control = input.byte();
    let answers = input.slice();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let key = text(input.slice());
    let title = text(input.slice());
    let goal = text(input.slice());
    let item = text(input.slice());
    let plan = text(input.rest());
    let mut arguments = serde_json::json!({
        "idempotencyKey": if control & 1 == 0 { "key-1".to_owned() } else { key },
        "repository": if control & 2 == 0 { "githubnext/chopin" } else { "owner/.." },
        "baseBranch": "main",
        "baseCommit": "0123456789abcdef",
        "title": if control & 4 == 0 { "A plan".to_owned() } else { title },
        "brief": {
            "goal": if control & 8 == 0 { "Plan it.".to_owned() } else { goal },
            "constraints": [item],
            "settledDecisions": [],
            "openQuestions": [],
            "repositoryFindings": [],
            "extra": control,
        },
        "plan": plan,
    });
    if control & 16 != 0 {
        arguments["brief"]["constraints"] = serde_json::json!([1]);
    }
    if control & 32 != 0 {
        arguments["surplus"] = serde_json::json!(true);
    }
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "create_document", "arguments": arguments},
    });
    let headers = [Header::new("authorization", b"Bearer x")];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let body = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
    // The first answer authenticates; the rest answer the create effect.
    let answers = [&[1][..], answers].concat();
    let transcript = drive(
        endpoint(786_432).handle(&parts, body),
        &mut Cursor { data: &answers },
        &[],
        786_432,
        false,
    );
    let invalid = control & (2 | 16 | 32) != 0;
    assert!(
        !invalid || !transcript.effects.contains(&"create"),
        "a create effect for an invalid draft"
    );
}
