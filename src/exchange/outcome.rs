//! What the endpoint asks of the host: a finished response, or an effect
//! (each effect is a file of [`effect`](super::effect)).

use std::fmt;

use bytes::Bytes;

use super::body::BodyIntake;
use super::effect::{
    ArchiveDocument, CreateDocument, InvokePlanner, ListDocuments, ReadDocument,
    ReadImplementation, RenameDocument, ReportLifecycle, RestoreDocument, StartImplementation,
    StoreImage, UpdateDocument,
};
use super::endpoint::Authenticate;
use crate::cors;
use crate::response::Response;

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
    /// Post an instruction to a document's planner (only on endpoints with
    /// [`Config::enable_planner`](crate::Config::enable_planner)).
    InvokePlanner(InvokePlanner<C>),
    /// Keep a checked image for a document (only on endpoints with
    /// [`Config::enable_upload`](crate::Config::enable_upload)).
    StoreImage(StoreImage<C>),
    /// Read a document's implementation (only on endpoints with
    /// [`Config::enable_implementations`](crate::Config::enable_implementations)
    /// or [`Config::enable_implementation_reads`](crate::Config::enable_implementation_reads)).
    ReadImplementation(ReadImplementation<C>),
    /// Claim a document's approved graph (only on endpoints with
    /// [`Config::enable_implementations`](crate::Config::enable_implementations)).
    StartImplementation(StartImplementation<C>),
    /// Record a lifecycle event of a run (only on endpoints with
    /// [`Config::enable_implementations`](crate::Config::enable_implementations)).
    ReportLifecycle(ReportLifecycle<C>),
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
            Outcome::InvokePlanner(effect) => f.debug_tuple("InvokePlanner").field(effect).finish(),
            Outcome::StoreImage(effect) => f.debug_tuple("StoreImage").field(effect).finish(),
            Outcome::ReadImplementation(effect) => {
                f.debug_tuple("ReadImplementation").field(effect).finish()
            }
            Outcome::StartImplementation(effect) => {
                f.debug_tuple("StartImplementation").field(effect).finish()
            }
            Outcome::ReportLifecycle(effect) => {
                f.debug_tuple("ReportLifecycle").field(effect).finish()
            }
        }
    }
}
