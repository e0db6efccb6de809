//! An endpoint and the exchanges in flight on it ([`Core`]): the numbered
//! slots in which each exchange waits for the host, which the steps
//! (`src/step/`) and the answers (`src/answer/`) take it from and put it
//! back in, and the tools the endpoint lists.

use chopin_mcp::{
    ArchiveAnswer, ArchiveDocument, Authenticate, BodyIntake, CreateAnswer, CreateDocument,
    Document, DocumentAuthenticate, DocumentRead, Endpoint, ImageAuthenticate, InvokeAnswer,
    InvokePlanner, LifecycleAnswer, ListDocuments, Outcome, PlannerRefusal, ReadDocument,
    ReadImage, ReadImplementation, ReadImplementationAnswer, RenameAnswer, RenameDocument,
    ReportLifecycle, RequestParts, Response, RestoreAnswer, RestoreDocument, StartAnswer,
    StartImplementation, StoreImage, StoreImageAnswer, UpdateAnswer, UpdateDocument,
};
use napi::{Error, Status};
use serde::Deserialize;

use crate::options::{self, BadOptions};
use crate::wire;

/// The most exchanges one endpoint keeps in flight at once (a slot number
/// past it is a misuse of the addon, not an input).
const MAX_SLOTS: u32 = 1 << 24;

/// An endpoint and the exchanges in flight on it.
pub struct Core {
    pub(crate) endpoint: Endpoint,
    /// The `tools/list` result's tools, as a JSON array.
    pub(crate) tools: String,
    pub(crate) slots: Vec<Option<Pending>>,
    pub(crate) heads: wire::Heads,
    /// The outcome being written (kept to spare an allocation per step).
    pub(crate) out: Vec<u8>,
    /// The document of the last read answered (kept for its strings).
    pub(crate) document: Document,
    /// The named headers' values the last `run` read.
    pub(crate) remembered: wire::Remembered,
}

/// An exchange waiting for the host.
pub(crate) enum Pending {
    Authenticate(Authenticate<()>),
    Body(BodyIntake<()>),
    List(ListDocuments<()>),
    Read(ReadDocument<()>),
    Create(CreateDocument<()>),
    Update(UpdateDocument<()>),
    Rename(RenameDocument<()>),
    Archive(ArchiveDocument<()>),
    Restore(RestoreDocument<()>),
    Invoke(InvokePlanner<()>),
    Upload(StoreImage<()>),
    /// An image URL's authentication, then its read (`src/answer/image.rs`).
    ImageAuthenticate(ImageAuthenticate<()>),
    ImageRead(ReadImage<()>),
    ReadImplementation(ReadImplementation<()>),
    StartImplementation(StartImplementation<()>),
    ReportLifecycle(ReportLifecycle<()>),
    /// A response whose body crosses apart ([`Core::body`]), until it has.
    Reply(Response),
    /// A request to a document's URL, waiting for its caller.
    DocumentAuthenticate(DocumentAuthenticate<()>),
    /// A request to a document's URL, waiting for the document.
    DocumentRead(DocumentRead<()>),
}

impl Pending {
    pub(crate) fn into_authenticate(self) -> Option<Authenticate<()>> {
        match self {
            Pending::Authenticate(auth) => Some(auth),
            _ => None,
        }
    }

    pub(crate) fn into_body(self) -> Option<BodyIntake<()>> {
        match self {
            Pending::Body(intake) => Some(intake),
            _ => None,
        }
    }

    pub(crate) fn into_list(self) -> Option<ListDocuments<()>> {
        match self {
            Pending::List(list) => Some(list),
            _ => None,
        }
    }

    pub(crate) fn into_read(self) -> Option<ReadDocument<()>> {
        match self {
            Pending::Read(read) => Some(read),
            _ => None,
        }
    }

    pub(crate) fn into_create(self) -> Option<CreateDocument<()>> {
        match self {
            Pending::Create(create) => Some(create),
            _ => None,
        }
    }

    pub(crate) fn into_update(self) -> Option<UpdateDocument<()>> {
        match self {
            Pending::Update(update) => Some(update),
            _ => None,
        }
    }

    pub(crate) fn into_rename(self) -> Option<RenameDocument<()>> {
        match self {
            Pending::Rename(rename) => Some(rename),
            _ => None,
        }
    }

    pub(crate) fn into_archive(self) -> Option<ArchiveDocument<()>> {
        match self {
            Pending::Archive(archive) => Some(archive),
            _ => None,
        }
    }

    pub(crate) fn into_document_auth(self) -> Option<DocumentAuthenticate<()>> {
        match self {
            Pending::DocumentAuthenticate(auth) => Some(auth),
            _ => None,
        }
    }

    pub(crate) fn into_document_read(self) -> Option<DocumentRead<()>> {
        match self {
            Pending::DocumentRead(read) => Some(read),
            _ => None,
        }
    }

    pub(crate) fn into_restore(self) -> Option<RestoreDocument<()>> {
        match self {
            Pending::Restore(restore) => Some(restore),
            _ => None,
        }
    }

    pub(crate) fn into_invoke(self) -> Option<InvokePlanner<()>> {
        match self {
            Pending::Invoke(invoke) => Some(invoke),
            _ => None,
        }
    }

    pub(crate) fn into_upload(self) -> Option<StoreImage<()>> {
        match self {
            Pending::Upload(upload) => Some(upload),
            _ => None,
        }
    }

    pub(crate) fn into_image_authenticate(self) -> Option<ImageAuthenticate<()>> {
        match self {
            Pending::ImageAuthenticate(auth) => Some(auth),
            _ => None,
        }
    }

    pub(crate) fn into_image_read(self) -> Option<ReadImage<()>> {
        match self {
            Pending::ImageRead(read) => Some(read),
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
            Pending::Invoke(_) => "invoke",
            Pending::Upload(_) => "upload",
            Pending::ImageAuthenticate(_) => "image authenticate",
            Pending::ImageRead(_) => "image",
            Pending::ReadImplementation(_) => "read_implementation",
            Pending::StartImplementation(_) => "start_implementation",
            Pending::ReportLifecycle(_) => "report",
            Pending::Reply(_) => "reply",
            Pending::DocumentAuthenticate(_) => "document authenticate",
            Pending::DocumentRead(_) => "document read",
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
                archived_at: None,
                description: None,
                url: None,
                id: String::new(),
                title: String::new(),
                brief: None,
                source: String::new(),
                revision: 0,
            },
            remembered: wire::Remembered::default(),
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
    pub(crate) fn take<T>(
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
    pub(crate) fn put(&mut self, slot: u32, pending: Pending) -> Result<(), Misuse> {
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
            Outcome::InvokePlanner(invoke) => {
                invoke.answer(InvokeAnswer::Refused(PlannerRefusal::DocumentUnavailable))
            }
            Outcome::StoreImage(upload) => upload.answer(StoreImageAnswer::Unavailable),
            Outcome::ReadImplementation(read) => {
                read.answer(ReadImplementationAnswer::<()>::Unavailable)
            }
            Outcome::StartImplementation(start) => start.answer(StartAnswer::Unavailable),
            Outcome::ReportLifecycle(report) => report.answer(LifecycleAnswer::Unavailable),
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
