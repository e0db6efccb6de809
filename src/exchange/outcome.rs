//! What the endpoint asks of the host: a finished response, or an effect.

use std::fmt;

use bytes::Bytes;

use super::body::BodyIntake;
use super::dispatch::Dispatch;
use super::endpoint::Authenticate;
use crate::cors;
use crate::response::Response;
use crate::tools::archive::{self, ArchiveAnswer};
use crate::tools::create::{self, CreateAnswer, NewDocument};
use crate::tools::rename::{self, RenameAnswer};
use crate::tools::restore::{self, RestoreAnswer};
use crate::tools::update::{self, DocumentUpdate, UpdateAnswer};
use crate::tools::{Document, DocumentSummary, DocumentSummaryRef, Summary, list, read};

/// The next thing the host must do for an exchange.
///
/// Drive it in a loop: carry out the effect, answer it, and match the outcome
/// the answer returns, until it is [`Outcome::Respond`]. Each effect is an
/// owned value with its own answer type, so an answer cannot reach the wrong
/// effect and the host may `.await` between an effect and its answer.
///
/// `C` is the host's caller identity: whatever [`Authenticate::answer`] was
/// given, handed back untouched in every later effect.
///
/// The four write effects ([`Update`](Self::Update),
/// [`Rename`](Self::Rename), [`Archive`](Self::Archive),
/// [`Restore`](Self::Restore)) name a document by a locator the host
/// resolves. **Every host's duty** (LIFECYCLE.md §1): any answer but
/// `Unavailable` tells the caller the document exists, so a host answers
/// `Forbidden`, `Archived`, `RevisionConflict`, `Locked`, `Protected` or a
/// rename's `Conflict` only to a caller who may see the document; to anyone
/// else, `Unavailable`.
#[must_use = "an exchange makes progress only when its outcome is acted on"]
pub enum Outcome<C> {
    /// Send this response; the exchange is over.
    Respond(Response),
    /// Map the request's credentials to a caller.
    Authenticate(Authenticate<C>),
    /// Push the request body (only for exchanges started with
    /// [`Endpoint::begin`](crate::Endpoint::begin)).
    Body(BodyIntake<C>),
    /// List a repository's documents the caller may see.
    List(ListDocuments<C>),
    /// Read one document, if the caller may see it.
    Read(ReadDocument<C>),
    /// Create a document from a validated draft and canonical plan (only on
    /// endpoints with [`Config::enable_creation`](crate::Config::enable_creation)).
    Create(CreateDocument<C>),
    /// Store a revised, checked, canonical plan if the document is still at
    /// the revision the caller read (only on endpoints with
    /// [`Config::enable_update`](crate::Config::enable_update)).
    Update(UpdateDocument<C>),
    /// Change a document's title (only on endpoints with
    /// [`Config::enable_rename`](crate::Config::enable_rename)).
    Rename(RenameDocument<C>),
    /// Archive a document (only on endpoints with
    /// [`Config::enable_archive`](crate::Config::enable_archive)).
    Archive(ArchiveDocument<C>),
    /// Restore an archived document (only on endpoints with
    /// [`Config::enable_restore`](crate::Config::enable_restore)).
    Restore(RestoreDocument<C>),
}

impl<C> Outcome<C> {
    /// The response, if the exchange is over.
    pub fn response(&self) -> Option<&Response> {
        match self {
            Outcome::Respond(response) => Some(response),
            _ => None,
        }
    }

    /// Adds the CORS grant to a response for `origin`, when there is one;
    /// an effect passes through untouched (its answer adds the grant).
    pub(crate) fn granted(self, origin: Option<Bytes>) -> Outcome<C> {
        match (self, origin) {
            (Outcome::Respond(response), origin @ Some(_)) => {
                Outcome::Respond(cors::grant(response, origin))
            }
            (outcome, _) => outcome,
        }
    }
}

impl<C> fmt::Debug for Outcome<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Respond(response) => f.debug_tuple("Respond").field(response).finish(),
            Outcome::Authenticate(effect) => f.debug_tuple("Authenticate").field(effect).finish(),
            Outcome::Body(intake) => f.debug_tuple("Body").field(intake).finish(),
            Outcome::List(effect) => f.debug_tuple("List").field(effect).finish(),
            Outcome::Read(effect) => f.debug_tuple("Read").field(effect).finish(),
            Outcome::Create(effect) => f.debug_tuple("Create").field(effect).finish(),
            Outcome::Update(effect) => f.debug_tuple("Update").field(effect).finish(),
            Outcome::Rename(effect) => f.debug_tuple("Rename").field(effect).finish(),
            Outcome::Archive(effect) => f.debug_tuple("Archive").field(effect).finish(),
            Outcome::Restore(effect) => f.debug_tuple("Restore").field(effect).finish(),
        }
    }
}

/// The list effect: the documents of [`repository`](Self::repository) that
/// [`caller`](Self::caller) may see.
pub struct ListDocuments<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    repository: String,
}

impl<C> ListDocuments<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, repository: String) -> Self {
        ListDocuments {
            dispatch,
            id,
            repository,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The repository, `owner/name`, already validated.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// Answers with the documents, in the order to present them.
    pub fn answer(self, documents: &[DocumentSummary]) -> Outcome<C> {
        self.answer_with(documents)
    }

    /// [`answer`](Self::answer) with summaries borrowed from the host's own
    /// buffers: the same result, byte for byte.
    pub fn answer_borrowed(self, documents: &[DocumentSummaryRef<'_>]) -> Outcome<C> {
        self.answer_with(documents)
    }

    /// Answers that the caller may not see the repository:
    /// `{"code":"repository-forbidden"}` (LIFECYCLE.md §5). A repository the
    /// caller may see that holds no document is an empty answer instead.
    pub fn forbidden(self) -> Outcome<C> {
        self.dispatch.answer(&self.id, list::write_forbidden)
    }

    fn answer_with<T: Summary>(self, documents: &[T]) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            list::write_result(out, frame, documents)
        })
    }
}

impl<C> fmt::Debug for ListDocuments<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListDocuments")
            .field("repository", &self.repository)
            .finish_non_exhaustive()
    }
}

/// The read effect: the document [`id`](Self::id), if
/// [`caller`](Self::caller) may see it.
pub struct ReadDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    document: String,
}

impl<C> ReadDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, document: String) -> Self {
        ReadDocument {
            dispatch,
            id,
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The document id asked for (1–128 characters, not blank).
    pub fn id(&self) -> &str {
        &self.document
    }

    /// Answers with the document, or `None` when it is missing, archived,
    /// or the caller may not see it (the three must be indistinguishable).
    /// A document with a [`brief`](Document::brief) is answered with it.
    pub fn answer(self, document: Option<&Document>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            read::write_result(out, frame, document)
        })
    }
}

impl<C> fmt::Debug for ReadDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadDocument")
            .field("id", &self.document)
            .finish_non_exhaustive()
    }
}

/// The create effect: store [`document`](Self::document) for
/// [`caller`](Self::caller), atomically and idempotently.
///
/// The host keys creation on caller + [`NewDocument::idempotency_key`]: a key
/// seen before with the same [`NewDocument::fingerprint`] answers
/// [`CreateAnswer::Replayed`] with the stored document, with another
/// fingerprint [`CreateAnswer::Conflict`].
pub struct CreateDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    document: Box<NewDocument>,
}

impl<C> CreateDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, document: Box<NewDocument>) -> Self {
        CreateDocument {
            dispatch,
            id,
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The validated draft, its canonical plan and its fingerprint.
    pub fn document(&self) -> &NewDocument {
        &self.document
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: CreateAnswer<'_>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            create::write_result(out, frame, answer)
        })
    }
}

impl<C> fmt::Debug for CreateDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CreateDocument")
            .field("repository", &self.document.repository)
            .field("fingerprint", &self.document.fingerprint)
            .finish_non_exhaustive()
    }
}

/// The update effect: store [`update`](Self::update)'s canonical plan as the
/// document's next revision, for [`caller`](Self::caller), if the document
/// is still at [`DocumentUpdate::revision`] — atomically and idempotently
/// (LIFECYCLE.md §2).
///
/// The plan was checked clean by the dialect; the host never sees a plan
/// with issues. The host keys updates on caller +
/// [`DocumentUpdate::idempotency_key`] (apart from create keys): a key seen
/// before with the same [`DocumentUpdate::fingerprint`] answers
/// [`UpdateAnswer::Replayed`] with the document as that update left it,
/// with another fingerprint [`UpdateAnswer::Conflict`]. Only an update that
/// stored records its key. A document the caller may not see is
/// [`UpdateAnswer::Unavailable`], never `Forbidden`.
pub struct UpdateDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    update: Box<DocumentUpdate>,
}

impl<C> UpdateDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, update: Box<DocumentUpdate>) -> Self {
        UpdateDocument {
            dispatch,
            id,
            update,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The locator as sent, the revision read, the canonical plan, the
    /// idempotency key and the fingerprint.
    pub fn update(&self) -> &DocumentUpdate {
        &self.update
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: UpdateAnswer<'_>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            update::write_result(out, frame, answer)
        })
    }
}

impl<C> fmt::Debug for UpdateDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateDocument")
            .field("revision", &self.update.revision)
            .field("fingerprint", &self.update.fingerprint)
            .finish_non_exhaustive()
    }
}

/// The rename effect: give the document [`id`](Self::id) the title
/// [`title`](Self::title), for [`caller`](Self::caller) (LIFECYCLE.md §3).
///
/// Renaming to the title the document already has answers
/// [`RenameAnswer::Renamed`] and changes nothing.
pub struct RenameDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    /// The locator and the title, boxed: an [`Outcome`] stays as small as
    /// its other effects.
    renaming: Box<(String, String)>,
}

impl<C> RenameDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, document: String, title: String) -> Self {
        RenameDocument {
            dispatch,
            id,
            renaming: Box::new((document, title)),
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn id(&self) -> &str {
        &self.renaming.0
    }

    /// The new title, trimmed of leading and trailing whitespace (1–120
    /// characters).
    pub fn title(&self) -> &str {
        &self.renaming.1
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: RenameAnswer<'_>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            rename::write_result(out, frame, answer)
        })
    }
}

impl<C> fmt::Debug for RenameDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenameDocument")
            .field("id", &self.renaming.0)
            .finish_non_exhaustive()
    }
}

/// The archive effect: take the document [`id`](Self::id) out of every
/// reader's sight until it is restored, for [`caller`](Self::caller)
/// (LIFECYCLE.md §4).
///
/// Archiving an archived document answers [`ArchiveAnswer::Archived`] with
/// the time it was first archived. The time is the host's: the endpoint
/// has no clock.
pub struct ArchiveDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    document: String,
}

impl<C> ArchiveDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, document: String) -> Self {
        ArchiveDocument {
            dispatch,
            id,
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn id(&self) -> &str {
        &self.document
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: ArchiveAnswer<'_>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            archive::write_result(out, frame, answer)
        })
    }
}

impl<C> fmt::Debug for ArchiveDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArchiveDocument")
            .field("id", &self.document)
            .finish_non_exhaustive()
    }
}

/// The restore effect: bring the archived document [`id`](Self::id) back
/// into every reader's sight, for [`caller`](Self::caller) (LIFECYCLE.md §4).
///
/// Restoring a document that is not archived answers
/// [`RestoreAnswer::Restored`].
pub struct RestoreDocument<C> {
    dispatch: Dispatch<C>,
    id: Bytes,
    document: String,
}

impl<C> RestoreDocument<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Bytes, document: String) -> Self {
        RestoreDocument {
            dispatch,
            id,
            document,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn id(&self) -> &str {
        &self.document
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: RestoreAnswer<'_>) -> Outcome<C> {
        self.dispatch.answer(&self.id, |out, frame| {
            restore::write_result(out, frame, answer)
        })
    }
}

impl<C> fmt::Debug for RestoreDocument<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestoreDocument")
            .field("id", &self.document)
            .finish_non_exhaustive()
    }
}
