//! The shared fake host: a token table, an in-memory document store, a
//! deterministic id source, and a transcript of every outcome it was handed.
#![allow(dead_code)] // each test binary uses its own part of the harness

mod images;
pub mod implementation;
mod implementation_effects;
mod planner;
mod writes;

use std::collections::HashMap;

use bytes::Bytes;
use chopin_mcp::{
    BodyChunks, ClientInfo, Config, CreateAnswer, CreatedDocument, Document, DocumentOutcome,
    DocumentSummary, DocumentUpdate, Endpoint, Granted, Header, NewDocument, Outcome,
    PlannerDocument, PlannerRefusal, RequestParts, Response, SequentialIds, UpdatedDocument,
};
#[allow(unused_imports)] // used by the upload and image tests
pub use images::{Images, Upload, base64, uploading};
#[allow(unused_imports)] // used by the implementation tools' tests
pub use implementation_effects::{Reported, STARTED_AT, Started};
#[allow(unused_imports)] // used by the write tools' tests
pub use planner::{Invoked, planner_document, refusing};
use serde_json::{Value, json};
#[allow(unused_imports)] // used by the write tools' tests
pub use writes::{
    ARCHIVED_AT, Fixed, Writing, assert_refused, assert_result, framed, read_write, text_members,
    tool_call,
};

/// The seed's document.
pub fn seed_document() -> Document {
    Document {
        archived_at: None,
        description: None,
        url: None,
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n".into(),
        revision: 4,
    }
}

/// One step of an exchange, as the host saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Authenticate,
    Body,
    List(String),
    Read(String),
    Create(String),
    /// The write effects, with the locator as the host received it.
    Update(String),
    Rename(String),
    Archive(String),
    Restore(String),
    /// A planner effect, with the locator as the host received it.
    Invoke(String),
    /// An upload, with the locator as sent; an image read, by hex digest.
    StoreImage(String),
    ReadImage(String),
    /// The implementation effects: the locator, or the lifecycle tool.
    ReadImplementation(String),
    StartImplementation(String),
    Lifecycle(&'static str),
    Respond(u16),
}

/// How the fake host answers create effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Creating {
    /// Like a real store: keyed by caller + idempotency key, comparing
    /// fingerprints; refuses repositories the caller is not granted.
    Store,
    /// Always this answer, as the seed's adapters do.
    Conflict,
    Forbidden,
    Unavailable,
    /// Created, echoing the input as the seed's first create adapter does
    /// (`id: "created"`, `url: "/channels/created"`).
    Echo,
}

/// The fake host's answer to an authenticate effect.
pub(crate) enum Judged {
    Unavailable,
    Scoped(String, Granted),
    Caller(Option<String>),
}

/// The fake host.
pub struct Host {
    pub tokens: HashMap<String, String>,
    /// Tokens answered with scopes (`Authenticate::answer_scoped`): caller
    /// and grant.
    pub scoped: HashMap<String, (String, Granted)>,
    /// Tokens the host cannot judge now (`Authenticate::unavailable`).
    pub unjudgeable: Vec<String>,
    /// `(repository, document)` pairs, and who may see each repository.
    pub documents: Vec<(String, Document)>,
    pub grants: HashMap<String, Vec<String>>,
    pub transcript: Vec<Step>,
    pub creating: Creating,
    /// What the store kept: (caller, idempotency key) → (fingerprint, document).
    pub created: HashMap<(String, String), (String, CreatedDocument)>,
    /// Every create effect's input, in order.
    pub create_inputs: Vec<NewDocument>,
    /// Repositories whose listing the host refuses (`forbidden`), although
    /// the caller knows them.
    pub denied: Vec<String>,
    /// How the host answers the write effects.
    pub writing: Writing,
    /// What the store kept of updates: (caller, key) → (fingerprint, the
    /// document as the update left it).
    pub updated: HashMap<(String, String), (String, UpdatedDocument)>,
    /// Every update effect's input, in order.
    pub update_inputs: Vec<DocumentUpdate>,
    /// Every rename effect's (locator, title), in order.
    pub rename_inputs: Vec<(String, String)>,
    /// Archived documents' ids and when they were archived.
    pub archived: HashMap<String, String>,
    /// How the planner answers every call.
    pub planner: Result<PlannerDocument, PlannerRefusal>,
    /// Every planner effect's arguments, in order.
    pub invoke_inputs: Vec<Invoked>,
    /// The client of every effect that names one (create, update), in order.
    pub clients: Vec<ClientInfo>,
    /// The image store (SURFACE.md §8).
    pub images: Images,
    /// Every claim, and every lifecycle report, as received.
    pub started: Vec<Started>,
    pub reported: Vec<Reported>,
}

impl Host {
    /// The seed's host: `Bearer allowed` is `octocat`, who sees the seed
    /// document in `githubnext/chopin`. Beside it, OAuth-style tokens for
    /// octocat with scopes (AUTH.md §1.2, LIFECYCLE.md §1): `reader`
    /// (read), `creator` (create only), `writer` (write only), `editor`
    /// (read and write), `scopeless` (none), `both` (read and create),
    /// `all` (every scope, answered scoped); and `down`, which the host
    /// cannot judge now.
    pub fn seed() -> Host {
        let octocat = |granted| ("octocat".to_owned(), granted);
        Host {
            tokens: HashMap::from([("allowed".to_owned(), "octocat".to_owned())]),
            scoped: HashMap::from([
                (
                    "reader".to_owned(),
                    octocat(Granted::new(true, false, false)),
                ),
                (
                    "creator".to_owned(),
                    octocat(Granted::new(false, true, false)),
                ),
                (
                    "writer".to_owned(),
                    octocat(Granted::new(false, false, true)),
                ),
                (
                    "editor".to_owned(),
                    octocat(Granted::new(true, false, true)),
                ),
                ("scopeless".to_owned(), octocat(Granted::NONE)),
                ("both".to_owned(), octocat(Granted::new(true, true, false))),
                ("all".to_owned(), octocat(Granted::ALL)),
            ]),
            unjudgeable: vec!["down".to_owned()],
            documents: vec![("githubnext/chopin".to_owned(), seed_document())],
            grants: HashMap::from([("octocat".to_owned(), vec!["githubnext/chopin".to_owned()])]),
            transcript: Vec::new(),
            creating: Creating::Store,
            created: HashMap::new(),
            create_inputs: Vec::new(),
            denied: Vec::new(),
            writing: Writing::Store,
            updated: HashMap::new(),
            update_inputs: Vec::new(),
            rename_inputs: Vec::new(),
            archived: HashMap::new(),
            planner: Ok(planner_document()),
            invoke_inputs: Vec::new(),
            clients: Vec::new(),
            images: Images::default(),
            started: Vec::new(),
            reported: Vec::new(),
        }
    }

    /// A host that knows the caller but finds no document anywhere.
    pub fn empty() -> Host {
        Host {
            documents: Vec::new(),
            ..Host::seed()
        }
    }

    /// How the host answers a bearer token: it cannot judge `down`; the
    /// scoped tokens get their scopes; the others their caller, if any.
    pub(crate) fn judge(&self, token: Option<&str>) -> Judged {
        if token.is_some_and(|t| self.unjudgeable.iter().any(|u| u == t)) {
            Judged::Unavailable
        } else if let Some((caller, granted)) = token.and_then(|t| self.scoped.get(t)) {
            Judged::Scoped(caller.clone(), *granted)
        } else {
            Judged::Caller(token.and_then(|t| self.tokens.get(t)).cloned())
        }
    }

    pub fn may_see(&self, caller: &str, repository: &str) -> bool {
        self.grants
            .get(caller)
            .is_some_and(|repos| repos.iter().any(|r| r == repository))
    }

    /// Carries out effects until the endpoint responds; body chunks are fed
    /// from `chunks` when the exchange asks for them.
    pub fn drive(
        &mut self,
        mut outcome: Outcome<String>,
        chunks: &mut dyn Iterator<Item = Bytes>,
    ) -> Response {
        loop {
            outcome = match outcome {
                Outcome::Respond(response) => {
                    self.transcript.push(Step::Respond(response.status()));
                    return response;
                }
                Outcome::Authenticate(auth) => {
                    self.transcript.push(Step::Authenticate);
                    match self.judge(auth.bearer_token()) {
                        Judged::Unavailable => auth.unavailable(),
                        Judged::Scoped(caller, granted) => auth.answer_scoped(caller, granted),
                        Judged::Caller(caller) => auth.answer(caller),
                    }
                }
                Outcome::Body(mut intake) => {
                    self.transcript.push(Step::Body);
                    loop {
                        match chunks.next() {
                            None => break intake.finish(),
                            Some(chunk) => match intake.push(&chunk) {
                                Ok(next) => intake = next,
                                Err(response) => break Outcome::Respond(response),
                            },
                        }
                    }
                }
                Outcome::List(list) if self.denied.iter().any(|r| r == list.repository()) => {
                    self.transcript
                        .push(Step::List(list.repository().to_owned()));
                    list.forbidden()
                }
                Outcome::List(list) => {
                    self.transcript
                        .push(Step::List(list.repository().to_owned()));
                    let caller = list.caller().clone();
                    let found: Vec<DocumentSummary> = self
                        .documents
                        .iter()
                        .filter(|(repo, doc)| {
                            repo == list.repository()
                                && self.may_see(&caller, repo)
                                && !self.archived.contains_key(&doc.id)
                        })
                        .map(|(_, doc)| DocumentSummary {
                            archived_at: None,
                            description: None,
                            id: doc.id.clone(),
                            title: doc.title.clone(),
                        })
                        .collect();
                    list.answer(&found)
                }
                Outcome::Read(read) => {
                    self.transcript.push(Step::Read(read.id().to_owned()));
                    let found = self
                        .documents
                        .iter()
                        .find(|(repo, doc)| {
                            doc.id == read.id()
                                && self.may_see(read.caller(), repo)
                                && !self.archived.contains_key(&doc.id)
                        })
                        .map(|(_, doc)| doc);
                    read.answer(found)
                }
                Outcome::Create(create) => {
                    let input = create.document().clone();
                    self.transcript.push(Step::Create(input.repository.clone()));
                    self.create_inputs.push(input.clone());
                    self.clients.push(create.client().clone());
                    let caller = create.caller().clone();
                    let document = CreatedDocument {
                        id: format!("doc-{}", self.created.len() + 1),
                        title: input.title.clone(),
                        brief: input.brief.clone(),
                        source: input.plan.clone(),
                        revision: 0,
                        url: String::new(),
                    };
                    match self.creating {
                        Creating::Conflict => create.answer(CreateAnswer::Conflict),
                        Creating::Forbidden => create.answer(CreateAnswer::Forbidden),
                        Creating::Unavailable => create.answer(CreateAnswer::Unavailable),
                        Creating::Echo => {
                            let document = CreatedDocument {
                                id: "created".into(),
                                url: "/channels/created".into(),
                                ..document
                            };
                            create.answer(CreateAnswer::Created(&document))
                        }
                        Creating::Store if !self.may_see(&caller, &input.repository) => {
                            create.answer(CreateAnswer::Forbidden)
                        }
                        Creating::Store => {
                            let key = (caller, input.idempotency_key.clone());
                            match self.created.get(&key) {
                                Some((fingerprint, stored))
                                    if *fingerprint == input.fingerprint =>
                                {
                                    create.answer(CreateAnswer::Replayed(stored))
                                }
                                Some(_) => create.answer(CreateAnswer::Conflict),
                                None => {
                                    let document = CreatedDocument {
                                        url: format!("/documents/{}", document.id),
                                        ..document
                                    };
                                    self.created
                                        .insert(key.clone(), (input.fingerprint.clone(), document));
                                    create.answer(CreateAnswer::Created(&self.created[&key].1))
                                }
                            }
                        }
                    }
                }
                Outcome::Update(update) => self.update(update),
                Outcome::Rename(rename) => self.rename(rename),
                Outcome::Archive(archive) => self.archive(archive),
                Outcome::Restore(restore) => self.restore(restore),
                Outcome::InvokePlanner(invoke) => self.invoke(invoke),
                Outcome::StoreImage(store) => self.store_image(store),
                Outcome::ReadImplementation(read) => self.read_implementation(read),
                Outcome::StartImplementation(start) => self.start_implementation(start),
                Outcome::ReportLifecycle(report) => self.report_lifecycle(report),
            };
        }
    }

    /// Carries out a document request's effects until the endpoint
    /// responds: the same authentication as [`Host::drive`], and a read
    /// that finds only documents the caller may see.
    pub fn drive_document(&mut self, mut outcome: DocumentOutcome<String>) -> Response {
        loop {
            outcome = match outcome {
                DocumentOutcome::Respond(response) => {
                    self.transcript.push(Step::Respond(response.status()));
                    return response;
                }
                DocumentOutcome::Authenticate(auth) => {
                    self.transcript.push(Step::Authenticate);
                    match self.judge(auth.bearer_token()) {
                        Judged::Unavailable => auth.unavailable(),
                        Judged::Scoped(caller, granted) => auth.answer_scoped(caller, granted),
                        Judged::Caller(caller) => auth.answer(caller),
                    }
                }
                DocumentOutcome::Read(read) => {
                    self.transcript.push(Step::Read(read.id().to_owned()));
                    let found = self
                        .documents
                        .iter()
                        .find(|(repo, doc)| {
                            doc.id == read.id() && self.may_see(read.caller(), repo)
                        })
                        .map(|(_, doc)| doc);
                    DocumentOutcome::Respond(read.answer(found))
                }
            };
        }
    }

    /// Whether any effect beyond authentication was started.
    pub fn consulted_store(&self) -> bool {
        self.transcript
            .iter()
            .any(|step| !matches!(step, Step::Authenticate | Step::Body | Step::Respond(_)))
    }
}

/// The seed endpoint: defaults, deterministic ids.
pub fn endpoint() -> Endpoint {
    endpoint_with(Config::new())
}

pub fn endpoint_with(config: Config) -> Endpoint {
    Endpoint::new(config.id_source(SequentialIds::new(1_750_000_000_000))).expect("valid config")
}

/// A request as a test writes it: method, headers, body chunks.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub chunks: Vec<Bytes>,
}

impl Request {
    /// The seed's `request(body)`: a POST with `authorization: Bearer allowed`
    /// and `content-type: application/json`.
    pub fn post(body: &Value) -> Request {
        Request::post_raw(serde_json::to_vec(body).unwrap())
    }

    pub fn post_raw(body: impl Into<Vec<u8>>) -> Request {
        Request {
            method: "POST".into(),
            headers: vec![
                ("authorization".into(), b"Bearer allowed".to_vec()),
                ("content-type".into(), b"application/json".to_vec()),
            ],
            chunks: vec![Bytes::from(body.into())],
        }
    }

    /// A GET with `authorization: Bearer allowed`.
    pub fn get() -> Request {
        Request {
            method: "GET".into(),
            headers: vec![("authorization".into(), b"Bearer allowed".to_vec())],
            chunks: Vec::new(),
        }
    }

    pub fn method(mut self, method: &str) -> Request {
        self.method = method.into();
        self
    }

    /// Sets a header, replacing any of the same name.
    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.into(), value.as_bytes().to_vec()));
        self
    }

    /// Adds a header, keeping others of the same name.
    pub fn add_header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.into(), value.as_bytes().to_vec()));
        self
    }

    pub fn without(mut self, name: &str) -> Request {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Replaces the body by these chunks.
    pub fn chunks(mut self, chunks: Vec<Vec<u8>>) -> Request {
        self.chunks = chunks.into_iter().map(Bytes::from).collect();
        self
    }

    pub fn body(&self) -> Vec<u8> {
        self.chunks.concat()
    }

    fn with_parts<R>(&self, f: impl FnOnce(&RequestParts<'_>) -> R) -> R {
        let headers: Vec<Header<'_>> = self
            .headers
            .iter()
            .map(|(n, v)| Header::new(n, v))
            .collect();
        f(&RequestParts::new(&self.method, "/mcp", &headers))
    }

    /// Sends it through `Endpoint::handle` (the held-body form).
    pub fn send(&self, endpoint: &Endpoint, host: &mut Host) -> Reply {
        let outcome = self.with_parts(|parts| {
            endpoint.handle(parts, self.chunks.iter().cloned().collect::<BodyChunks>())
        });
        Reply::from(host.drive(outcome, &mut std::iter::empty()))
    }

    /// Sends it through `Endpoint::handle`, authorized as `octocat`, with
    /// `answer` as the host of every effect it asks for (a tool call asks
    /// one); returns the reply and how many effects were asked.
    pub fn answered(
        &self,
        endpoint: &Endpoint,
        mut answer: impl FnMut(Outcome<String>) -> Outcome<String>,
    ) -> (Reply, usize) {
        let mut outcome = self.with_parts(|parts| {
            endpoint.handle(parts, self.chunks.iter().cloned().collect::<BodyChunks>())
        });
        let mut effects = 0;
        loop {
            outcome = match outcome {
                Outcome::Respond(response) => return (Reply::from(response), effects),
                Outcome::Authenticate(auth) => auth.answer(Some("octocat".to_owned())),
                effect => {
                    effects += 1;
                    answer(effect)
                }
            };
        }
    }

    /// Sends it through `Endpoint::begin` (the incremental form), pushing
    /// its chunks one by one.
    pub fn send_streaming(&self, endpoint: &Endpoint, host: &mut Host) -> Reply {
        let outcome = self.with_parts(|parts| endpoint.begin(parts));
        Reply::from(host.drive(outcome, &mut self.chunks.iter().cloned()))
    }

    /// Sends it both ways, checks they agree, and returns the reply of the
    /// held-body form and the host's transcript.
    pub fn exchange(&self, endpoint: &Endpoint) -> (Reply, Vec<Step>) {
        self.exchange_with(endpoint, Host::seed)
    }

    /// [`exchange`](Self::exchange) with hosts made by `host`.
    pub fn exchange_with(
        &self,
        endpoint: &Endpoint,
        host: impl Fn() -> Host,
    ) -> (Reply, Vec<Step>) {
        let mut held = host();
        let reply = self.send(endpoint, &mut held);
        let mut streamed = host();
        let again = self.send_streaming(endpoint, &mut streamed);
        // Each `initialize` is issued its own session id (SURFACE.md §10):
        // the two agree but for its ULID.
        assert_eq!(
            reply.without_session_ulid(),
            again.without_session_ulid(),
            "handle and begin disagree"
        );
        let without_body: Vec<_> = streamed
            .transcript
            .into_iter()
            .filter(|s| *s != Step::Body)
            .collect();
        assert_eq!(
            held.transcript, without_body,
            "handle and begin took different steps"
        );
        (reply, held.transcript)
    }
}

/// A response, owned, for assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub event_stream: bool,
}

impl From<Response> for Reply {
    fn from(response: Response) -> Reply {
        Reply {
            status: response.status(),
            headers: response
                .headers()
                .map(|(n, v)| (n.to_owned(), String::from_utf8(v.to_vec()).unwrap()))
                .collect(),
            event_stream: response.is_event_stream(),
            body: response.into_body().to_vec(),
        }
    }
}

impl Reply {
    /// The reply with its `mcp-session-id`'s ULID (its last 26
    /// characters) cut off.
    pub fn without_session_ulid(&self) -> Reply {
        let mut reply = self.clone();
        for (name, value) in &mut reply.headers {
            if name == "mcp-session-id" {
                value.truncate(value.len().saturating_sub(26));
            }
        }
        reply
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// Sends `request` to a fresh seed host and returns the reply.
pub fn send(request: &Request) -> Reply {
    request.send(&endpoint(), &mut Host::seed())
}

/// A `tools/call` request body.
pub fn call(id: Value, name: &str, arguments: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// The seed's malformed tool arguments (`seed-mcp.test.ts`): the tool, its
/// arguments, and the message each is refused with.
pub fn seed_bad_arguments() -> [(&'static str, Value, &'static str); 4] {
    const REPOSITORY: &str = "list_documents requires a repository";
    const ID: &str = "read_document requires an id";
    [
        (
            "list_documents",
            json!({"repository": "./chopin"}),
            REPOSITORY,
        ),
        (
            "list_documents",
            json!({"repository": "owner/.."}),
            REPOSITORY,
        ),
        ("read_document", json!({"id": " \t"}), ID),
        ("read_document", json!({"id": "x".repeat(129)}), ID),
    ]
}

/// The tool definitions of SPEC.md §7, as a fixture written from the spec.
pub fn expected_tools() -> Value {
    serde_json::from_str(include_str!("../fixtures/tools.json")).unwrap()
}

impl Reply {
    /// The raw JSON text of a top-level member of the body, exactly as the
    /// endpoint wrote it (e.g. `1.0` for an id echoed as `1.0`).
    pub fn raw_member(&self, name: &str) -> String {
        let members: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
            serde_json::from_slice(&self.body)
                .unwrap_or_else(|e| panic!("not a JSON object ({e}): {}", self.text()));
        members
            .get(name)
            .unwrap_or_else(|| panic!("no member {name:?} in {}", self.text()))
            .get()
            .to_owned()
    }
}

/// `request` with `authorization: Bearer <token>` (the seed host's tokens
/// with scopes: see [`Host::seed`]).
pub fn as_token(request: Request, token: &str) -> Request {
    request.header("authorization", &format!("Bearer {token}"))
}

/// The 403 body of AUTH.md §1.1 for a request with this id.
pub fn insufficient(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32000,"message":"insufficient scope"}}}}"#
    )
}

/// The `scope` a `www-authenticate` challenge names.
pub fn scope_of(challenge: Option<&str>) -> &str {
    let challenge = challenge.expect("a challenge");
    let start = challenge.find("scope=\"").expect("a scope") + 7;
    let end = start + challenge[start..].find('"').unwrap();
    &challenge[start..end]
}

/// A ping request body with this id.
pub fn ping(id: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

/// The seed's `creation` draft (seed-mcp.test.ts, with its plan restored by
/// SPEC.md §1).
pub fn creation() -> Value {
    serde_json::json!({
        "idempotencyKey": "create-plan-1",
        "repository": "githubnext/chopin",
        "baseBranch": "main",
        "baseCommit": "0123456789abcdef0123456789abcdef01234567",
        "title": "Ship MCP creation",
        "brief": {
            "goal": "Create a collaborative plan.",
            "constraints": ["Keep plans immutable through MCP."],
            "settledDecisions": ["Use the documented dialect."],
            "openQuestions": ["Which reviewer owns the rollout?"],
            "repositoryFindings": ["The plan becomes a hosted channel."],
        },
        "plan": "# Draft\n\n<Callout type=\"note\">\nCreated through MCP.\n</Callout>\n",
    })
}

/// MODERN.md §9's `E`: the `_meta` a 2026-07-28 client sends.
pub fn meta() -> Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A modern body: `params` (an object) with `_meta` = [`meta`] added.
pub fn mbody(id: Value, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta();
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// MODERN.md §9's `Mreq(m, p)` with id 1.
pub fn mreq(method: &str, params: Value) -> Request {
    mreq_id(serde_json::json!(1), method, params)
}

/// `Mreq(m, p)` with this id: valid credentials, JSON content type,
/// `mcp-protocol-version: 2026-07-28`, `mcp-method: m`, and for `tools/call`
/// `mcp-name: p.name` when it is a string.
pub fn mreq_id(id: Value, method: &str, params: Value) -> Request {
    let name = params["name"].as_str().map(str::to_owned);
    let request = Request::post(&mbody(id, method, params))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    match name {
        Some(name) if method == "tools/call" => request.header("mcp-name", &name),
        _ => request,
    }
}

/// `SI`: the `_meta` member every modern result ends with.
pub fn si() -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"chopin","version":"{}"}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

/// A JSON-RPC error reply's exact bytes.
pub fn rpc_error(id: &str, code: i32, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

/// A JSON-RPC result reply's exact bytes.
pub fn rpc_result(id: &str, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// Sends `request` both ways to `endpoint` and asserts a modern error: the
/// status, `application/json`, exact bytes, and no effect after Authenticate.
pub fn assert_modern_error(endpoint: &Endpoint, request: &Request, status: u16, body: &str) {
    let (reply, transcript) = request.exchange(endpoint);
    assert_eq!(
        (reply.status, reply.text()),
        (status, body),
        "{:?}",
        String::from_utf8_lossy(&request.body())
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(status)]);
}
