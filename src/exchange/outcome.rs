//! What the endpoint asks of the host: a finished response, or an effect.

use std::fmt;

use bytes::Bytes;

use super::body::BodyIntake;
use super::dispatch::Dispatch;
use super::endpoint::Authenticate;
use crate::cors;
use crate::response::Response;
use crate::tools::create::{CreateAnswer, NewDocument};
use crate::tools::{Document, DocumentSummary, DocumentSummaryRef, Summary, create, list, read};

/// The next thing the host must do for an exchange.
///
/// Drive it in a loop: carry out the effect, answer it, and match the outcome
/// the answer returns, until it is [`Outcome::Respond`]. Each effect is an
/// owned value with its own answer type, so an answer cannot reach the wrong
/// effect and the host may `.await` between an effect and its answer.
///
/// `C` is the host's caller identity: whatever [`Authenticate::answer`] was
/// given, handed back untouched in every later effect.
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

    fn answer_with<T: Summary>(self, documents: &[T]) -> Outcome<C> {
        let origin = self.dispatch.exchange.origin.clone();
        let outcome = self.dispatch.resume(&self.id, |out, frame| {
            list::write_result(out, frame, documents)
        });
        outcome.granted(origin)
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

    /// Answers with the document, or `None` when it is missing or the caller
    /// may not see it (the two must be indistinguishable).
    pub fn answer(self, document: Option<&Document>) -> Outcome<C> {
        let origin = self.dispatch.exchange.origin.clone();
        let outcome = self.dispatch.resume(&self.id, |out, frame| {
            read::write_result(out, frame, document)
        });
        outcome.granted(origin)
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
        let origin = self.dispatch.exchange.origin.clone();
        let outcome = self.dispatch.resume(&self.id, |out, frame| {
            create::write_result(out, frame, answer)
        });
        outcome.granted(origin)
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
