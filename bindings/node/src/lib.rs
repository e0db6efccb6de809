//! chopin-mcp's endpoint as a Node-API addon, for the npm package in this
//! folder (`index.cjs`, `index.mjs`, `index.d.ts`).
//!
//! The drive loop runs in JavaScript: each step is one call into the addon
//! (a plain function taking the endpoint's number), and each effect is a
//! plain, awaited call of the host's JavaScript function. Nothing calls back
//! from Rust into JavaScript, and no thread is started.
//!
//! The exchanges in flight are kept here, in numbered slots the JavaScript
//! side hands out (the caller value never crosses: it stays in JavaScript,
//! and the endpoint's caller type is `()`). What crosses is flat: the method
//! and header values in, one string out per step (`src/wire.rs` has the
//! format; a create's or update's plan and a response body from 1 KiB are
//! a second string, made from the endpoint's own bytes rather than copied
//! into the first), plain strings, numbers and byte arrays for the host's
//! answers.
//! The exports a request crosses are plain Node-API callbacks
//! (`src/ffi.rs`); the others are napi-rs's.
//!
//! Every export catches unwinding (`catch_unwind`): a panic, were one ever
//! to happen, becomes a JavaScript exception instead of aborting the
//! process.

mod ffi;
mod options;
mod wire;

pub use ffi::export_names;
pub use wire::NAMED;

use std::borrow::Cow;

use chopin_mcp::{
    ArchiveAnswer, ArchiveDocument, ArchivedDocument, Authenticate, BodyIntake, Brief,
    CreateAnswer, CreateDocument, CreatedDocument, Document, DocumentSummary, DocumentSummaryRef,
    Endpoint, Header, ListDocuments, Outcome, ReadDocument, RenameAnswer, RenameDocument,
    RequestParts, Response, RestoreAnswer, RestoreDocument, UpdateAnswer, UpdateDocument,
    UpdatedDocument,
};
use napi::bindgen_prelude::{Env, External};
use napi::{Error, Status};
use napi_derive::napi;
use serde::{Deserialize, Serialize};

pub use options::BadOptions;

/// The addon's allocator (the runtime keeps its own for JavaScript).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The most exchanges one endpoint keeps in flight at once (a slot number
/// past it is a misuse of the addon, not an input).
const MAX_SLOTS: u32 = 1 << 24;

/// An endpoint and the exchanges in flight on it.
pub struct Core {
    endpoint: Endpoint,
    /// The `tools/list` result's tools, as a JSON array.
    tools: String,
    slots: Vec<Option<Pending>>,
    heads: wire::Heads,
    /// The outcome being written (kept to spare an allocation per step).
    out: Vec<u8>,
    /// The document of the last read answered (kept for its strings).
    document: Document,
}

/// An exchange waiting for the host.
enum Pending {
    Authenticate(Authenticate<()>),
    Body(BodyIntake<()>),
    List(ListDocuments<()>),
    Read(ReadDocument<()>),
    Create(CreateDocument<()>),
    Update(UpdateDocument<()>),
    Rename(RenameDocument<()>),
    Archive(ArchiveDocument<()>),
    Restore(RestoreDocument<()>),
    /// A response whose body crosses apart ([`Core::body`]), until it has.
    Reply(Response),
}

impl Pending {
    fn into_authenticate(self) -> Option<Authenticate<()>> {
        match self {
            Pending::Authenticate(auth) => Some(auth),
            _ => None,
        }
    }

    fn into_body(self) -> Option<BodyIntake<()>> {
        match self {
            Pending::Body(intake) => Some(intake),
            _ => None,
        }
    }

    fn into_list(self) -> Option<ListDocuments<()>> {
        match self {
            Pending::List(list) => Some(list),
            _ => None,
        }
    }

    fn into_read(self) -> Option<ReadDocument<()>> {
        match self {
            Pending::Read(read) => Some(read),
            _ => None,
        }
    }

    fn into_create(self) -> Option<CreateDocument<()>> {
        match self {
            Pending::Create(create) => Some(create),
            _ => None,
        }
    }

    fn into_update(self) -> Option<UpdateDocument<()>> {
        match self {
            Pending::Update(update) => Some(update),
            _ => None,
        }
    }

    fn into_rename(self) -> Option<RenameDocument<()>> {
        match self {
            Pending::Rename(rename) => Some(rename),
            _ => None,
        }
    }

    fn into_archive(self) -> Option<ArchiveDocument<()>> {
        match self {
            Pending::Archive(archive) => Some(archive),
            _ => None,
        }
    }

    fn into_restore(self) -> Option<RestoreDocument<()>> {
        match self {
            Pending::Restore(restore) => Some(restore),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Pending::Authenticate(_) => "authenticate",
            Pending::Body(_) => "body",
            Pending::List(_) => "list",
            Pending::Read(_) => "read",
            Pending::Create(_) => "create",
            Pending::Update(_) => "update",
            Pending::Rename(_) => "rename",
            Pending::Archive(_) => "archive",
            Pending::Restore(_) => "restore",
            Pending::Reply(_) => "reply",
        }
    }
}

/// A call the addon cannot act on: a slot that holds no exchange, or one
/// waiting for another answer, or a host answer that is not what its type
/// says. The package never makes one; the message says what was wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct Misuse(pub String);

impl From<Misuse> for Error {
    fn from(Misuse(message): Misuse) -> Self {
        Error::new(Status::InvalidArg, message)
    }
}

/// How the host answered authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No caller: 401.
    Refused,
    /// A caller with every scope.
    Caller,
    /// A caller with the scopes named.
    Scoped,
    /// The host cannot judge the credentials now: 503.
    Unavailable,
}

impl Verdict {
    fn of(code: u32) -> Result<Verdict, Misuse> {
        Ok(match code {
            0 => Verdict::Refused,
            1 => Verdict::Caller,
            2 => Verdict::Scoped,
            3 => Verdict::Unavailable,
            _ => return Err(Misuse(format!("{code} is not an authentication verdict"))),
        })
    }
}

/// The host's answer to a create effect, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateKind {
    /// Stored now.
    Created,
    /// Stored before, same fingerprint.
    Replayed,
    /// Stored before, another fingerprint.
    Conflict,
    /// The caller may not create here.
    Forbidden,
    /// The store cannot create now.
    Unavailable,
}

impl CreateKind {
    fn of(code: u32) -> Result<CreateKind, Misuse> {
        Ok(match code {
            0 => CreateKind::Created,
            1 => CreateKind::Replayed,
            2 => CreateKind::Conflict,
            3 => CreateKind::Forbidden,
            4 => CreateKind::Unavailable,
            _ => return Err(Misuse(format!("{code} is not a create answer"))),
        })
    }
}

/// The host's answer to an update effect, by its `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    /// Stored now as the next revision.
    Updated,
    /// Stored before, same fingerprint.
    Replayed,
    /// Stored before, another fingerprint.
    Conflict,
    /// The document is at another revision.
    RevisionConflict,
    /// Held by other work.
    Locked,
    /// A protected projection.
    Protected,
    /// Archived.
    Archived,
    /// The caller may not change it.
    Forbidden,
    /// No such document for this caller, or the store cannot update now.
    Unavailable,
}

impl UpdateKind {
    fn of(code: u32) -> Result<UpdateKind, Misuse> {
        const KINDS: [UpdateKind; 9] = [
            UpdateKind::Updated,
            UpdateKind::Replayed,
            UpdateKind::Conflict,
            UpdateKind::RevisionConflict,
            UpdateKind::Locked,
            UpdateKind::Protected,
            UpdateKind::Archived,
            UpdateKind::Forbidden,
            UpdateKind::Unavailable,
        ];
        KINDS
            .get(code as usize)
            .copied()
            .ok_or_else(|| Misuse(format!("{code} is not an update answer")))
    }
}

/// The host's answer to a rename, archive or restore effect, by its
/// `kind`: `Done` is renamed, archived or restored, with the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Renamed, archived or restored.
    Done,
    /// The document is archived (rename only).
    Archived,
    /// The title is taken (rename only).
    Conflict,
    /// The caller may not change it.
    Forbidden,
    /// No such document for this caller, or the store cannot change it now.
    Unavailable,
}

impl ChangeKind {
    fn of(code: u32) -> Result<ChangeKind, Misuse> {
        Ok(match code {
            0 => ChangeKind::Done,
            1 => ChangeKind::Archived,
            2 => ChangeKind::Conflict,
            3 => ChangeKind::Forbidden,
            4 => ChangeKind::Unavailable,
            _ => {
                return Err(Misuse(format!(
                    "{code} is not a rename, archive or restore answer"
                )));
            }
        })
    }
}

/// A document the host read, its text borrowed from the call.
#[derive(Debug, Clone, Copy)]
pub struct DocumentRef<'a> {
    /// The document id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// The canonical plan source.
    pub source: &'a str,
    /// The revision number, from 0.
    pub revision: u64,
}

/// The create effect's host input but its plan, in `CreateDocumentInput`'s
/// order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputFields<'a> {
    idempotency_key: &'a str,
    repository: &'a str,
    base_branch: &'a str,
    base_commit: &'a str,
    title: &'a str,
    brief: &'a Brief,
    fingerprint: &'a str,
}

/// A created document but its source.
#[derive(Deserialize)]
struct CreatedFields {
    id: String,
    title: String,
    brief: Brief,
    revision: u64,
    url: String,
}

/// An updated document but its source.
#[derive(Deserialize)]
struct UpdatedFields {
    id: String,
    title: String,
    #[serde(default)]
    brief: Option<Brief>,
    revision: u64,
    url: String,
}

/// The update effect's host input but its plan, in
/// `UpdateDocumentInput`'s order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateFields<'a> {
    id: &'a str,
    revision: u64,
    idempotency_key: &'a str,
    fingerprint: &'a str,
}

/// A list answer's summaries: `[id, title, id, title, …]`, as JSON.
#[derive(Deserialize)]
struct Flat<'a>(#[serde(borrow)] Vec<Cow<'a, str>>);

impl Core {
    /// An endpoint with the settings of `options` (JSON: `EndpointOptions`
    /// of `index.d.ts`).
    pub fn new(options: &str) -> Result<Core, BadOptions> {
        let endpoint = options::endpoint(options)?;
        let tools = tools_of(&endpoint);
        Ok(Core {
            endpoint,
            tools,
            slots: Vec::new(),
            heads: wire::Heads::default(),
            out: Vec::new(),
            document: Document {
                id: String::new(),
                title: String::new(),
                brief: None,
                source: String::new(),
                revision: 0,
            },
        })
    }

    /// The body budget in bytes.
    pub fn budget(&self) -> usize {
        self.endpoint.body_budget()
    }

    /// The tools this endpoint offers, as a JSON array.
    pub fn tools(&self) -> &str {
        &self.tools
    }

    /// Starts the exchange of a request in `slot`, its headers the values
    /// of [`wire::NAMED`].
    pub fn start(
        &mut self,
        slot: u32,
        method: &str,
        values: &[Option<&[u8]>; wire::NAMED.len()],
    ) -> Result<&[u8], Misuse> {
        let mut lines = [Header::new("", b""); wire::MOST_NAMED];
        let count = wire::named(values, &mut lines);
        let parts = RequestParts::new(method, "", &lines[..count]);
        let outcome = self.endpoint.begin(&parts);
        self.settle(slot, outcome)
    }

    /// Starts the exchange of a request in `slot`, its headers listed
    /// (`name\0value\0…`).
    pub fn start_listed(&mut self, slot: u32, method: &str, flat: &[u8]) -> Result<&[u8], Misuse> {
        let headers = wire::listed(flat);
        let parts = RequestParts::new(method, "", &headers);
        let outcome = self.endpoint.begin(&parts);
        self.settle(slot, outcome)
    }

    /// Protected Resource Metadata, when `target` is its path; headers
    /// listed.
    pub fn metadata(&mut self, method: &str, target: &str, flat: &[u8]) -> Option<&[u8]> {
        let headers = wire::listed(flat);
        let parts = RequestParts::new(method, target, &headers);
        let response = self.endpoint.metadata(&parts)?;
        self.out.clear();
        self.heads.encode(&response, false, &mut self.out);
        Some(&self.out)
    }

    /// Answers the authenticate effect in `slot`. With `body` (the whole
    /// body, which the host read because its declared length is within the
    /// budget), a body step that follows is taken care of at once: the
    /// body is pushed and finished, as `Endpoint::handle` does with a held
    /// body.
    pub fn authenticate(
        &mut self,
        slot: u32,
        verdict: Verdict,
        scopes: &[String],
        body: Option<&[u8]>,
    ) -> Result<&[u8], Misuse> {
        let auth = self.take(slot, "authenticate", Pending::into_authenticate)?;
        let outcome = self.answer_authenticate(auth, verdict, scopes, body);
        self.settle(slot, outcome)
    }

    /// [`start`](Self::start) and [`authenticate`](Self::authenticate) in
    /// one call, for a request whose caller the host found first (the
    /// package does when nothing before authentication can refuse the
    /// request). Should the endpoint answer before authentication all the
    /// same, that answer is the outcome.
    pub fn start_answered(
        &mut self,
        slot: u32,
        method: &str,
        values: &[Option<&[u8]>; wire::NAMED.len()],
        verdict: Verdict,
        scopes: &[String],
        body: Option<&[u8]>,
    ) -> Result<&[u8], Misuse> {
        let mut lines = [Header::new("", b""); wire::MOST_NAMED];
        let count = wire::named(values, &mut lines);
        let parts = RequestParts::new(method, "", &lines[..count]);
        // A body read whole is held from the start, as `Endpoint::handle`
        // takes it: dispatched as it is, not pushed through the body step.
        let outcome = match body {
            Some(body) => self.endpoint.handle(&parts, body.to_vec()),
            None => self.endpoint.begin(&parts),
        };
        let outcome = match outcome {
            Outcome::Authenticate(auth) => self.answer_authenticate(auth, verdict, scopes, None),
            outcome => outcome,
        };
        self.settle(slot, outcome)
    }

    fn answer_authenticate(
        &self,
        auth: Authenticate<()>,
        verdict: Verdict,
        scopes: &[String],
        body: Option<&[u8]>,
    ) -> Outcome<()> {
        let outcome = match verdict {
            Verdict::Refused => auth.answer(None),
            Verdict::Caller => auth.answer(Some(())),
            Verdict::Scoped => {
                let granted = self
                    .endpoint
                    .scopes()
                    .of_names(scopes.iter().map(String::as_str));
                auth.answer_scoped((), granted)
            }
            Verdict::Unavailable => auth.unavailable(),
        };
        match (outcome, body) {
            (Outcome::Body(intake), Some(body)) => match intake.push(body) {
                Ok(intake) => intake.finish(),
                Err(response) => Outcome::Respond(response),
            },
            (outcome, _) => outcome,
        }
    }

    /// Takes in a chunk of the body in `slot`: `b` to go on reading, or the
    /// 413 response (then the host stops reading).
    pub fn push(&mut self, slot: u32, chunk: &[u8]) -> Result<&[u8], Misuse> {
        let intake = self.take(slot, "body", Pending::into_body)?;
        match intake.push(chunk) {
            Ok(intake) => {
                self.put(slot, Pending::Body(intake))?;
                self.out.clear();
                self.out.push(b'b');
                Ok(&self.out)
            }
            Err(response) => self.settle(slot, Outcome::Respond(response)),
        }
    }

    /// Takes in the last chunk of the body in `slot`, if any, and goes on.
    pub fn finish(&mut self, slot: u32, chunk: Option<&[u8]>) -> Result<&[u8], Misuse> {
        let intake = self.take(slot, "body", Pending::into_body)?;
        let outcome = match chunk {
            None => intake.finish(),
            Some(chunk) => match intake.push(chunk) {
                Ok(intake) => intake.finish(),
                Err(response) => Outcome::Respond(response),
            },
        };
        self.settle(slot, outcome)
    }

    /// Answers the list effect in `slot` with `[id, title, …]` (JSON).
    pub fn answer_list(&mut self, slot: u32, flat: &str) -> Result<&[u8], Misuse> {
        let list = self.take(slot, "list", Pending::into_list)?;
        let Flat(items) = serde_json::from_str(flat)
            .map_err(|_| Misuse("a list answer is an array of strings".into()))?;
        if items.len() % 2 != 0 {
            return Err(Misuse("a list answer pairs ids and titles".into()));
        }
        let summaries: Vec<DocumentSummaryRef<'_>> = items
            .chunks_exact(2)
            .map(|pair| DocumentSummaryRef {
                id: &pair[0],
                title: &pair[1],
            })
            .collect();
        let outcome = list.answer_borrowed(&summaries);
        self.settle(slot, outcome)
    }

    /// Answers the read effect in `slot` with a document. Its text is
    /// copied into the endpoint's one scratch document, whose strings keep
    /// their capacity: a read allocates nothing for it.
    pub fn answer_found(
        &mut self,
        slot: u32,
        found: DocumentRef<'_>,
        brief: Option<Brief>,
    ) -> Result<&[u8], Misuse> {
        let read = self.take(slot, "read", Pending::into_read)?;
        let document = &mut self.document;
        for (to, from) in [
            (&mut document.id, found.id),
            (&mut document.title, found.title),
            (&mut document.source, found.source),
        ] {
            to.clear();
            to.push_str(from);
        }
        document.brief = brief;
        document.revision = found.revision;
        let outcome = read.answer(Some(&self.document));
        self.settle(slot, outcome)
    }

    /// Answers the read effect in `slot`: no such document for this caller.
    pub fn answer_absent(&mut self, slot: u32) -> Result<&[u8], Misuse> {
        let read = self.take(slot, "read", Pending::into_read)?;
        let outcome = read.answer(None);
        self.settle(slot, outcome)
    }

    /// Answers the create effect in `slot`. For [`CreateKind::Created`] and
    /// [`CreateKind::Replayed`], `fields` is the document but its source, as
    /// JSON (`{id, title, brief, revision, url}`), and `source` its source,
    /// or `None` when it is the canonical plan the effect carried (the host
    /// stored what it was given: it need not cross back).
    pub fn answer_create(
        &mut self,
        slot: u32,
        kind: CreateKind,
        fields: Option<&str>,
        source: Option<&str>,
    ) -> Result<&[u8], Misuse> {
        let create = self.take(slot, "create", Pending::into_create)?;
        let created = match (kind, fields) {
            (CreateKind::Created | CreateKind::Replayed, Some(json)) => {
                let fields: CreatedFields = serde_json::from_str(json)
                    .map_err(|error| Misuse(format!("a created document: {error}")))?;
                Some(CreatedDocument {
                    id: fields.id,
                    title: fields.title,
                    brief: fields.brief,
                    source: source.map_or_else(|| create.document().plan.clone(), str::to_owned),
                    revision: fields.revision,
                    url: fields.url,
                })
            }
            (CreateKind::Created | CreateKind::Replayed, None) => {
                return Err(Misuse("a created document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &created) {
            (CreateKind::Created, Some(document)) => CreateAnswer::Created(document),
            (CreateKind::Replayed, Some(document)) => CreateAnswer::Replayed(document),
            (CreateKind::Conflict, _) => CreateAnswer::Conflict,
            (CreateKind::Forbidden, _) => CreateAnswer::Forbidden,
            _ => CreateAnswer::Unavailable,
        };
        let outcome = create.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the list effect in `slot`: the caller may not list the
    /// repository (`repository-forbidden`).
    pub fn answer_list_forbidden(&mut self, slot: u32) -> Result<&[u8], Misuse> {
        let list = self.take(slot, "list", Pending::into_list)?;
        let outcome = list.forbidden();
        self.settle(slot, outcome)
    }

    /// Answers the update effect in `slot`. For [`UpdateKind::Updated`] and
    /// [`UpdateKind::Replayed`], `fields` is the document but its source,
    /// as JSON (`{id, title, brief?, revision, url}`), and `source` its
    /// source, or `None` when it is the canonical plan the effect carried;
    /// for [`UpdateKind::RevisionConflict`], `current` is the document's
    /// revision.
    pub fn answer_update(
        &mut self,
        slot: u32,
        kind: UpdateKind,
        fields: Option<&str>,
        source: Option<&str>,
        current: u64,
    ) -> Result<&[u8], Misuse> {
        let update = self.take(slot, "update", Pending::into_update)?;
        let document = match (kind, fields) {
            (UpdateKind::Updated | UpdateKind::Replayed, Some(json)) => {
                let fields: UpdatedFields = serde_json::from_str(json)
                    .map_err(|error| Misuse(format!("an updated document: {error}")))?;
                Some(UpdatedDocument {
                    id: fields.id,
                    title: fields.title,
                    brief: fields.brief,
                    source: source.map_or_else(|| update.update().plan.clone(), str::to_owned),
                    revision: fields.revision,
                    url: fields.url,
                })
            }
            (UpdateKind::Updated | UpdateKind::Replayed, None) => {
                return Err(Misuse("an updated document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &document) {
            (UpdateKind::Updated, Some(document)) => UpdateAnswer::Updated(document),
            (UpdateKind::Replayed, Some(document)) => UpdateAnswer::Replayed(document),
            (UpdateKind::Conflict, _) => UpdateAnswer::Conflict,
            (UpdateKind::RevisionConflict, _) => UpdateAnswer::RevisionConflict(current),
            (UpdateKind::Locked, _) => UpdateAnswer::Locked,
            (UpdateKind::Protected, _) => UpdateAnswer::Protected,
            (UpdateKind::Archived, _) => UpdateAnswer::Archived,
            (UpdateKind::Forbidden, _) => UpdateAnswer::Forbidden,
            _ => UpdateAnswer::Unavailable,
        };
        let outcome = update.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the rename effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id and title.
    pub fn answer_rename(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<(&str, &str)>,
    ) -> Result<&[u8], Misuse> {
        let rename = self.take(slot, "rename", Pending::into_rename)?;
        let summary = summary(kind, document, "a renamed document")?;
        let answer = match (kind, &summary) {
            (ChangeKind::Done, Some(summary)) => RenameAnswer::Renamed(summary),
            (ChangeKind::Archived, _) => RenameAnswer::Archived,
            (ChangeKind::Conflict, _) => RenameAnswer::Conflict,
            (ChangeKind::Forbidden, _) => RenameAnswer::Forbidden,
            _ => RenameAnswer::Unavailable,
        };
        let outcome = rename.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the archive effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id, title and the time it was archived.
    pub fn answer_archive(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<(&str, &str, &str)>,
    ) -> Result<&[u8], Misuse> {
        if matches!(kind, ChangeKind::Archived | ChangeKind::Conflict) {
            return Err(Misuse(
                "an archive is answered archived, forbidden or unavailable".into(),
            ));
        }
        let archive = self.take(slot, "archive", Pending::into_archive)?;
        let archived = match (kind, document) {
            (ChangeKind::Done, Some((id, title, archived_at))) => Some(ArchivedDocument {
                id: id.to_owned(),
                title: title.to_owned(),
                archived_at: archived_at.to_owned(),
            }),
            (ChangeKind::Done, None) => {
                return Err(Misuse("an archived document is missing".into()));
            }
            _ => None,
        };
        let answer = match (kind, &archived) {
            (ChangeKind::Done, Some(document)) => ArchiveAnswer::Archived(document),
            (ChangeKind::Forbidden, _) => ArchiveAnswer::Forbidden,
            _ => ArchiveAnswer::Unavailable,
        };
        let outcome = archive.answer(answer);
        self.settle(slot, outcome)
    }

    /// Answers the restore effect in `slot`; [`ChangeKind::Done`] with the
    /// document's id and title.
    pub fn answer_restore(
        &mut self,
        slot: u32,
        kind: ChangeKind,
        document: Option<(&str, &str)>,
    ) -> Result<&[u8], Misuse> {
        if matches!(kind, ChangeKind::Archived | ChangeKind::Conflict) {
            return Err(Misuse(
                "a restore is answered restored, forbidden or unavailable".into(),
            ));
        }
        let restore = self.take(slot, "restore", Pending::into_restore)?;
        let summary = summary(kind, document, "a restored document")?;
        let answer = match (kind, &summary) {
            (ChangeKind::Done, Some(summary)) => RestoreAnswer::Restored(summary),
            (ChangeKind::Forbidden, _) => RestoreAnswer::Forbidden,
            _ => RestoreAnswer::Unavailable,
        };
        let outcome = restore.answer(answer);
        self.settle(slot, outcome)
    }

    /// The plan of the create or update effect in `slot` (its outcome
    /// carries the rest of the host input).
    pub fn plan(&self, slot: u32) -> Result<&[u8], Misuse> {
        match self.slots.get(slot as usize) {
            Some(Some(Pending::Create(create))) => Ok(create.document().plan.as_bytes()),
            Some(Some(Pending::Update(update))) => Ok(update.update().plan.as_bytes()),
            _ => Err(Misuse(format!(
                "no create or update effect waits in slot {slot}"
            ))),
        }
    }

    /// Takes the response in `slot` whose body crosses apart (its outcome
    /// carried the head alone); its slot is free again.
    pub fn body(&mut self, slot: u32) -> Result<Response, Misuse> {
        self.take(slot, "reply", |pending| match pending {
            Pending::Reply(response) => Some(response),
            _ => None,
        })
    }

    /// Drops whatever exchange `slot` holds (the host gave up on it).
    pub fn release(&mut self, slot: u32) {
        if let Some(entry) = self.slots.get_mut(slot as usize) {
            *entry = None;
        }
    }

    /// How many exchanges are waiting for the host.
    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|slot| slot.is_some()).count()
    }

    /// The exchange in `slot`, if it waits for the `wanted` answer (`pick`
    /// takes it out of its kind); one waiting for another stays the
    /// host's to answer.
    fn take<T>(
        &mut self,
        slot: u32,
        wanted: &'static str,
        pick: fn(Pending) -> Option<T>,
    ) -> Result<T, Misuse> {
        let entry = self.slots.get_mut(slot as usize).and_then(Option::take);
        match entry {
            Some(pending) if pending.name() == wanted => pick(pending)
                .ok_or_else(|| Misuse(format!("the exchange in slot {slot} is not a {wanted}"))),
            Some(pending) => {
                let waiting = pending.name();
                self.slots[slot as usize] = Some(pending);
                Err(Misuse(format!(
                    "the exchange in slot {slot} waits for the {waiting} answer, not {wanted}"
                )))
            }
            None => Err(Misuse(format!("no exchange is waiting in slot {slot}"))),
        }
    }

    /// Keeps `pending` in `slot`: one in use, or the next after the last
    /// (the package numbers slots from 0 and reuses freed ones, so the
    /// table grows by one at a time and never past the most exchanges
    /// in flight at once).
    fn put(&mut self, slot: u32, pending: Pending) -> Result<(), Misuse> {
        let index = slot as usize;
        if index == self.slots.len() && slot < MAX_SLOTS {
            self.slots.push(None);
        }
        match self.slots.get_mut(index) {
            Some(entry) => {
                *entry = Some(pending);
                Ok(())
            }
            None => Err(Misuse(format!(
                "slot {slot} is past the next one ({})",
                self.slots.len()
            ))),
        }
    }

    /// Writes `outcome` for JavaScript, keeping an effect in `slot`.
    fn settle(&mut self, slot: u32, outcome: Outcome<()>) -> Result<&[u8], Misuse> {
        self.out.clear();
        let pending = match outcome {
            Outcome::Respond(response) => {
                if !self.heads.encode(&response, true, &mut self.out) {
                    return Ok(&self.out);
                }
                Pending::Reply(response)
            }
            Outcome::Authenticate(auth) => {
                self.out.push(b'a');
                Pending::Authenticate(auth)
            }
            Outcome::Body(intake) => {
                self.out.push(b'b');
                Pending::Body(intake)
            }
            Outcome::List(list) => {
                self.out.push(b'l');
                self.out.extend_from_slice(list.repository().as_bytes());
                Pending::List(list)
            }
            Outcome::Read(read) => {
                self.out.push(b'r');
                self.out.extend_from_slice(read.id().as_bytes());
                Pending::Read(read)
            }
            Outcome::Create(create) => {
                // The host input but its plan, as JSON; then the plan as it
                // is (a 256 KiB plan escaped into JSON and parsed back in
                // JavaScript cost more than the rest of the crossing).
                let input = create.document();
                let fields = serde_json::to_string(&InputFields {
                    idempotency_key: &input.idempotency_key,
                    repository: &input.repository,
                    base_branch: &input.base_branch,
                    base_commit: &input.base_commit,
                    title: &input.title,
                    brief: &input.brief,
                    fingerprint: &input.fingerprint,
                })
                // Strings only: serializing cannot fail.
                .unwrap_or_default();
                self.out.push(b'c');
                self.out.extend_from_slice(fields.as_bytes());
                Pending::Create(create)
            }
            Outcome::Update(update) => {
                // As create's: the fields as JSON, then the plan.
                let input = update.update();
                let fields = serde_json::to_string(&UpdateFields {
                    id: &input.id,
                    revision: input.revision,
                    idempotency_key: &input.idempotency_key,
                    fingerprint: &input.fingerprint,
                })
                // Strings and a number: serializing cannot fail.
                .unwrap_or_default();
                self.out.push(b'u');
                self.out.extend_from_slice(fields.as_bytes());
                Pending::Update(update)
            }
            Outcome::Rename(rename) => {
                push_parts(&mut self.out, b'n', rename.id(), rename.title());
                Pending::Rename(rename)
            }
            Outcome::Archive(archive) => {
                self.out.push(b'v');
                self.out.extend_from_slice(archive.id().as_bytes());
                Pending::Archive(archive)
            }
            Outcome::Restore(restore) => {
                self.out.push(b's');
                self.out.extend_from_slice(restore.id().as_bytes());
                Pending::Restore(restore)
            }
        };
        self.put(slot, pending)?;
        Ok(&self.out)
    }
}

/// Appends `tag`, the length of `first` in UTF-16 units (as JavaScript
/// slices), `:`, `first`, then `second`.
fn push_parts(out: &mut Vec<u8>, tag: u8, first: &str, second: &str) {
    let length = first.encode_utf16().count();
    out.reserve(24 + first.len() + second.len());
    out.push(tag);
    out.extend_from_slice(length.to_string().as_bytes());
    out.push(b':');
    out.extend_from_slice(first.as_bytes());
    out.extend_from_slice(second.as_bytes());
}

/// The document of a [`ChangeKind::Done`] answer (`what` names it when
/// missing); none for the others.
fn summary(
    kind: ChangeKind,
    document: Option<(&str, &str)>,
    what: &str,
) -> Result<Option<DocumentSummary>, Misuse> {
    match (kind, document) {
        (ChangeKind::Done, Some((id, title))) => Ok(Some(DocumentSummary {
            id: id.to_owned(),
            title: title.to_owned(),
        })),
        (ChangeKind::Done, None) => Err(Misuse(format!("{what} is missing"))),
        _ => Ok(None),
    }
}

/// The tools a `tools/list` on `endpoint` lists, as a JSON array.
fn tools_of(endpoint: &Endpoint) -> String {
    let headers = [
        chopin_mcp::Header::new("content-type", b"application/json"),
        chopin_mcp::Header::new("accept", b"application/json"),
    ];
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let mut outcome =
        endpoint.handle::<()>(&parts, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => auth.answer(Some(())),
            Outcome::Body(intake) => intake.finish(),
            // tools/list asks nothing of the host.
            Outcome::List(list) => list.answer(&[]),
            Outcome::Read(read) => read.answer(None),
            Outcome::Create(create) => create.answer(CreateAnswer::Unavailable),
            Outcome::Update(update) => update.answer(UpdateAnswer::Unavailable),
            Outcome::Rename(rename) => rename.answer(RenameAnswer::Unavailable),
            Outcome::Archive(archive) => archive.answer(ArchiveAnswer::Unavailable),
            Outcome::Restore(restore) => restore.answer(RestoreAnswer::Unavailable),
        }
    };
    // The tools as the endpoint wrote them, keys in its order.
    #[derive(Deserialize)]
    struct Reply<'a> {
        #[serde(borrow)]
        result: ToolsResult<'a>,
    }
    #[derive(Deserialize)]
    struct ToolsResult<'a> {
        #[serde(borrow)]
        tools: &'a serde_json::value::RawValue,
    }
    serde_json::from_slice::<Reply<'_>>(response.body())
        .map(|reply| reply.result.tools.get().to_owned())
        .unwrap_or_else(|_| "[]".to_owned())
}

/// Owns endpoint number `id` for JavaScript: when the owner is collected,
/// the endpoint goes.
pub struct Owner {
    id: u32,
}

impl Drop for Owner {
    fn drop(&mut self) {
        ffi::remove(self.id);
    }
}

/// An endpoint from its settings (JSON), or an error naming the bad one:
/// its owner, whose number the other exports take.
#[napi(catch_unwind)]
pub fn endpoint(options: String) -> napi::Result<External<Owner>> {
    let core = Core::new(&options)
        .map_err(|BadOptions(message)| Error::new(Status::InvalidArg, message))?;
    let id = ffi::add(core)?;
    Ok(External::new(Owner { id }))
}

/// The number of an endpoint's owner.
#[napi(catch_unwind)]
pub fn endpoint_id(owner: &External<Owner>) -> u32 {
    owner.id
}

/// The endpoint's tools, as a JSON array.
#[napi(catch_unwind)]
pub fn tools(core: u32) -> napi::Result<String> {
    Ok(ffi::with(core, |core| core.tools().to_owned())?)
}

/// The endpoint's body budget in bytes.
#[napi(catch_unwind)]
pub fn budget(core: u32) -> napi::Result<f64> {
    Ok(ffi::with(core, |core| core.budget() as f64)?)
}

/// Protected Resource Metadata for a request, as an outcome string, or
/// `undefined`.
#[napi(catch_unwind)]
pub fn metadata(
    core: u32,
    method: String,
    target: String,
    headers: String,
) -> napi::Result<Option<String>> {
    let out = ffi::with(core, |core| {
        core.metadata(&method, &target, headers.as_bytes())
            .map(|out| String::from_utf8_lossy(out).into_owned())
    })?;
    Ok(out)
}

/// How many exchanges wait for the host (for tests: none is left behind).
#[napi(catch_unwind)]
pub fn in_flight(core: u32) -> napi::Result<u32> {
    Ok(ffi::with(core, |core| core.in_flight() as u32)?)
}

/// Every request header the endpoint reads, in the order `start` takes
/// their values.
#[napi(catch_unwind)]
pub fn named_headers() -> Vec<&'static str> {
    NAMED.to_vec()
}

/// The keep-alive comment an open event stream sends.
#[napi(catch_unwind)]
pub fn keep_alive() -> napi::bindgen_prelude::Uint8Array {
    chopin_mcp::sse::keep_alive().to_vec().into()
}

/// Adds the exports a request crosses, plain Node-API callbacks
/// (`src/ffi.rs`).
#[napi(module_exports, catch_unwind)]
pub fn exports(exports: napi::bindgen_prelude::Object<'_>, env: Env) -> napi::Result<()> {
    // SAFETY: the module initialization's environment and exports object.
    use napi::JsValue;
    unsafe { ffi::export(env.raw(), exports.raw()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: &[u8] = b"authorization\0Bearer t\0content-type\0application/json\0";
    const READ: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"plan-1"}}}"#;

    fn text(out: Result<&[u8], Misuse>) -> String {
        String::from_utf8(out.expect("a step").to_vec()).unwrap()
    }

    #[test]
    fn a_read_goes_authenticate_body_read_respond_and_frees_its_slot() {
        let mut core = Core::new("{}").unwrap();
        assert_eq!(text(core.start_listed(0, "POST", HEADERS)), "a");
        assert_eq!(text(core.authenticate(0, Verdict::Caller, &[], None)), "b");
        assert_eq!(text(core.finish(0, Some(READ.as_bytes()))), "rplan-1");
        assert_eq!(core.in_flight(), 1);
        let document = DocumentRef {
            id: "plan-1",
            title: "Plan",
            source: "# Plan\n",
            revision: 2,
        };
        let out = text(core.answer_found(0, document, None));
        let (head, body) = out.split_once('\0').unwrap();
        assert!(
            head.starts_with("H0200\ncontent-type\napplication/json\n"),
            "{head}"
        );
        assert!(body.contains(
            r##""structuredContent":{"id":"plan-1","title":"Plan","source":"# Plan\n","revision":2}"##
        ));
        assert_eq!(core.in_flight(), 0);
        // The same head again is named by its id.
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        core.finish(0, Some(READ.as_bytes())).unwrap();
        assert!(text(core.answer_absent(0)).starts_with("R0{"));
    }

    #[test]
    fn a_body_from_the_apart_size_crosses_apart_from_its_head() {
        let mut core = Core::new("{}").unwrap();
        let read = |core: &mut Core, source: &str| {
            core.start_listed(0, "POST", HEADERS).unwrap();
            core.authenticate(0, Verdict::Caller, &[], Some(READ.as_bytes()))
                .unwrap();
            let document = DocumentRef {
                id: "plan-1",
                title: "Plan",
                source,
                revision: 2,
            };
            text(core.answer_found(0, document, None))
        };
        let small = "# Plan\n";
        assert!(read(&mut core, small).starts_with("H0"));
        let large = "# Plan\n\nA line of the plan.\n".repeat(wire::APART_FROM / 16);
        assert_eq!(read(&mut core, &large), "PR0");
        // The response waits in the slot until its body is taken.
        assert_eq!(core.in_flight(), 1);
        let response = core.body(0).unwrap();
        let body = std::str::from_utf8(response.body()).unwrap();
        assert!(
            body.starts_with(r#"{"jsonrpc":"2.0","id":4,"result":"#),
            "{body}"
        );
        assert!(body.len() >= wire::APART_FROM, "{}", body.len());
        assert_eq!(core.in_flight(), 0);
        assert!(core.body(0).is_err());
        // Below the size, the body is in the outcome again.
        assert!(read(&mut core, small).starts_with("R0{"));
    }

    #[test]
    fn a_body_given_with_the_answer_is_pushed_and_finished() {
        let mut core = Core::new("{}").unwrap();
        core.start_listed(0, "POST", HEADERS).unwrap();
        let body = Some(READ.as_bytes());
        assert_eq!(
            text(core.authenticate(0, Verdict::Caller, &[], body)),
            "rplan-1"
        );
        // A refusal before the body ignores it.
        core.release(0);
        core.start_listed(0, "POST", HEADERS).unwrap();
        let out = text(core.authenticate(0, Verdict::Refused, &[], body));
        assert!(out.starts_with("H0401\n"), "{out}");
        // Over the budget: 413.
        let mut small = Core::new(r#"{"bodyBudget":8}"#).unwrap();
        small.start_listed(0, "POST", HEADERS).unwrap();
        let out = text(small.authenticate(0, Verdict::Caller, &[], body));
        assert!(out.ends_with("\0request too large"), "{out}");
    }

    #[test]
    fn the_wrong_answer_is_a_misuse_and_the_exchange_still_waits() {
        let mut core = Core::new("{}").unwrap();
        core.start_listed(0, "POST", HEADERS).unwrap();
        let Misuse(message) = core.answer_absent(0).unwrap_err();
        assert_eq!(
            message,
            "the exchange in slot 0 waits for the authenticate answer, not read"
        );
        assert_eq!(text(core.authenticate(0, Verdict::Caller, &[], None)), "b");
        let Misuse(message) = core.push(1, b"x").unwrap_err();
        assert_eq!(message, "no exchange is waiting in slot 1");
    }

    #[test]
    fn named_and_listed_headers_start_alike() {
        let mut core = Core::new(r#"{"allowedHosts":["mcp.example"]}"#).unwrap();
        let mut values = [None; wire::NAMED.len()];
        values[1] = Some(&b"mcp.example"[..]);
        values[3] = Some(&b"Bearer t"[..]);
        assert_eq!(text(core.start(0, "POST", &values)), "a");
        core.release(0);
        assert_eq!(
            text(core.start_listed(0, "POST", b"Host\0mcp.example\0authorization\0Bearer t")),
            "a"
        );
        core.release(0);
        values[1] = Some(&b"mcp.example, mcp.example"[..]);
        assert!(text(core.start(0, "POST", &values)).ends_with("host is not allowed"));
    }

    #[test]
    fn start_answered_is_start_then_authenticate() {
        let mut core = Core::new(r#"{"allowedHosts":["mcp.example"]}"#).unwrap();
        let mut values = [None; wire::NAMED.len()];
        values[1] = Some(&b"mcp.example"[..]);
        values[4] = Some(&b"2025-03-26"[..]);
        let body = Some(READ.as_bytes());
        assert_eq!(
            text(core.start_answered(0, "POST", &values, Verdict::Caller, &[], body)),
            "rplan-1"
        );
        core.release(0);
        // An answer before authentication stands: the caller is not used.
        values[1] = Some(&b"elsewhere.example"[..]);
        let out = text(core.start_answered(0, "POST", &values, Verdict::Caller, &[], body));
        assert!(out.ends_with("host is not allowed"), "{out}");
        assert_eq!(core.in_flight(), 0);
        // A held body over the budget: 413, as a pushed one.
        let mut small = Core::new(r#"{"bodyBudget":8}"#).unwrap();
        values[1] = None;
        let out = text(small.start_answered(0, "POST", &values, Verdict::Caller, &[], body));
        assert!(
            out.starts_with("H0413\n") && out.ends_with("\0request too large"),
            "{out}"
        );
        assert_eq!(small.in_flight(), 0);
    }

    #[test]
    fn slots_grow_one_at_a_time() {
        let mut core = Core::new("{}").unwrap();
        let Misuse(message) = core.start_listed(1, "POST", HEADERS).unwrap_err();
        assert_eq!(message, "slot 1 is past the next one (0)");
        for slot in 0..3 {
            assert_eq!(text(core.start_listed(slot, "POST", HEADERS)), "a");
        }
        assert_eq!(core.in_flight(), 3);
        core.release(1);
        assert_eq!(core.in_flight(), 2);
        assert_eq!(text(core.start_listed(1, "POST", HEADERS)), "a");
    }

    #[test]
    fn a_push_over_the_budget_answers_413_and_frees_the_slot() {
        let mut core = Core::new(r#"{"bodyBudget":4}"#).unwrap();
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        assert_eq!(text(core.push(0, b"1234")), "b");
        let out = text(core.push(0, b"5"));
        assert!(
            out.starts_with("H0413\n") && out.ends_with("\0request too large"),
            "{out}"
        );
        assert_eq!(core.in_flight(), 0);
    }

    #[test]
    fn the_create_effect_carries_the_input_fields_as_json_and_its_plan_crosses_apart() {
        let mut core = Core::new(r#"{"create":true}"#).unwrap();
        let draft = r##"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_document","arguments":{"idempotencyKey":"k","repository":"o/r","baseBranch":"main","baseCommit":"c","title":"Tï","brief":{"goal":"G","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"plan":"# P\n"}}}"##;
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        let out = text(core.finish(0, Some(draft.as_bytes())));
        let fields = out.strip_prefix('c').unwrap();
        let plan = std::str::from_utf8(core.plan(0).unwrap()).unwrap();
        assert!(
            fields.starts_with(r#"{"idempotencyKey":"k","repository":"o/r","baseBranch":"main","baseCommit":"c","title":"Tï","brief":{"goal":"G","#),
            "{fields}"
        );
        assert!(
            fields.contains(r#","fingerprint":""#) && fields.ends_with("\"}"),
            "{fields}"
        );
        assert_eq!(plan, "# P\n");
        assert!(core.plan(1).is_err());
        let Misuse(message) = core
            .answer_create(0, CreateKind::Created, Some("{}"), None)
            .unwrap_err();
        assert!(
            message.starts_with("a created document: missing field"),
            "{message}"
        );
        // Without a source, the document's is the canonical plan.
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        core.finish(0, Some(draft.as_bytes())).unwrap();
        let created = r#"{"id":"n","title":"T","brief":{"goal":"G","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"revision":0,"url":"/n"}"#;
        let out = text(core.answer_create(0, CreateKind::Created, Some(created), None));
        assert!(
            out.contains(r##""source":"# P\n","revision":0,"url":"/n"}"##),
            "{out}"
        );
    }

    /// Drives a `tools/call` of `tool` with `arguments` to its effect.
    fn effect(core: &mut Core, tool: &str, arguments: &str) -> String {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
        );
        core.start_listed(0, "POST", HEADERS).unwrap();
        core.authenticate(0, Verdict::Caller, &[], None).unwrap();
        text(core.finish(0, Some(call.as_bytes())))
    }

    #[test]
    fn the_lifecycle_effects_carry_their_input_and_take_their_answers() {
        let mut core =
            Core::new(r#"{"update":true,"rename":true,"archive":true,"restore":true}"#).unwrap();
        let out = effect(
            &mut core,
            "update_document",
            r##"{"id":"dï","revision":4,"plan":"# P\n","idempotencyKey":"k"}"##,
        );
        let fields = out.strip_prefix('u').unwrap();
        assert!(
            fields.starts_with(r#"{"id":"dï","revision":4,"idempotencyKey":"k","fingerprint":""#),
            "{fields}"
        );
        assert_eq!(core.plan(0).unwrap(), b"# P\n");
        let out = text(core.answer_update(0, UpdateKind::RevisionConflict, None, None, 7));
        assert!(
            out.contains(r#""structuredContent":{"code":"revision-conflict","revision":7}"#),
            "{out}"
        );
        // Without a source, the updated document's is the canonical plan.
        effect(
            &mut core,
            "update_document",
            r##"{"id":"d","revision":4,"plan":"# P\n","idempotencyKey":"k"}"##,
        );
        let fields = r#"{"id":"d","title":"T","revision":5,"url":"/d"}"#;
        let out = text(core.answer_update(0, UpdateKind::Updated, Some(fields), None, 0));
        assert!(
            out.contains(
                r##""structuredContent":{"id":"d","title":"T","source":"# P\n","revision":5,"url":"/d"}"##
            ),
            "{out}"
        );

        let out = effect(&mut core, "rename_document", r#"{"id":"é","title":" T "}"#);
        assert_eq!(out, "n1:éT");
        let out = text(core.answer_rename(0, ChangeKind::Done, Some(("é", "T"))));
        assert!(
            out.contains(r#""structuredContent":{"id":"é","title":"T"}"#),
            "{out}"
        );

        assert_eq!(effect(&mut core, "archive_document", r#"{"id":"d"}"#), "vd");
        let Misuse(message) = core
            .answer_archive(0, ChangeKind::Conflict, None)
            .unwrap_err();
        assert_eq!(
            message,
            "an archive is answered archived, forbidden or unavailable"
        );
        // A misuse leaves the exchange waiting for its answer.
        let out = text(core.answer_archive(0, ChangeKind::Done, Some(("d", "T", "then"))));
        assert!(
            out.contains(r#""structuredContent":{"id":"d","title":"T","archivedAt":"then"}"#),
            "{out}"
        );

        assert_eq!(effect(&mut core, "restore_document", r#"{"id":"d"}"#), "sd");
        let out = text(core.answer_restore(0, ChangeKind::Forbidden, None));
        assert!(
            out.contains(r#""structuredContent":{"code":"repository-forbidden"}"#),
            "{out}"
        );
        assert_eq!(core.in_flight(), 0);
    }

    #[test]
    fn a_list_answered_forbidden_is_repository_forbidden() {
        let mut core = Core::new("{}").unwrap();
        assert_eq!(
            effect(&mut core, "list_documents", r#"{"repository":"o/r"}"#),
            "lo/r"
        );
        let out = text(core.answer_list_forbidden(0));
        assert!(
            out.contains(r#""structuredContent":{"code":"repository-forbidden"},"isError":true"#),
            "{out}"
        );
    }

    #[test]
    fn a_list_answer_pairs_ids_and_titles() {
        let mut core = Core::new("{}").unwrap();
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"o/r"}}}"#;
        for (answer, ok) in [
            (r#"["a","A"]"#, true),
            (r#"["a"]"#, false),
            (r#"{"a":1}"#, false),
        ] {
            core.start_listed(0, "POST", HEADERS).unwrap();
            core.authenticate(0, Verdict::Caller, &[], None).unwrap();
            assert_eq!(text(core.finish(0, Some(list.as_bytes()))), "lo/r");
            let out = core.answer_list(0, answer);
            assert_eq!(out.is_ok(), ok, "{answer}");
            if let Ok(out) = out {
                assert!(
                    String::from_utf8_lossy(out)
                        .contains(r#""structuredContent":{"documents":[{"id":"a","title":"A"}]}"#)
                );
            }
            core.release(0);
        }
    }

    #[test]
    fn the_tools_are_tools_list_s_in_the_endpoint_s_order() {
        let core = Core::new(r#"{"create":true}"#).unwrap();
        assert!(
            core.tools()
                .starts_with(r#"[{"name":"list_documents","title":"List plan documents","#)
        );
        let names: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(core.tools())
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            ["list_documents", "read_document", "create_document"]
        );
    }
}
