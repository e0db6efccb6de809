//! The exchange: the one place where a request's transitions live, from the
//! head to the last effect's answer. Everything else in the crate sits below
//! it and never imports from it: what is decided from the head (`request`,
//! `headers`, `negotiate`, `version`, `origin`, `cors`), reading and writing
//! JSON-RPC (`json`, `lex`, `scan`, `jsonrpc`), the tools, and responses.
//!
//! - [`endpoint`]: the pipeline of SPEC.md §3 up to the body, and the
//!   authenticate effect;
//! - [`body`]: held chunks and the budgeted intake;
//! - [`dispatch`]: the body parsed, its era decided, its messages walked and
//!   their replies written; a tool call that needs the host suspends the
//!   walk in an effect;
//! - [`legacy`] and [`modern`]: the two eras' handling of one message, peers
//!   that `dispatch` calls; neither calls the other;
//! - [`outcome`]: what the host is asked, a response or an effect;
//! - [`effect`]: each effect in a file of its own, with its answer, which
//!   resumes the walk;
//! - [`document`]: a document's URL, `GET` and `HEAD` of its plan, on the
//!   same admission and authentication as `/mcp`;
//! - [`image`]: an image's URL, `GET` and `HEAD` of its bytes, alike.

mod body;
mod dispatch;
mod document;
mod effect;
mod endpoint;
mod image;
mod legacy;
mod modern;
mod outcome;

pub use body::{BodyChunks, BodyIntake};
pub use document::{DocumentAuthenticate, DocumentOutcome, DocumentRead};
pub use effect::{
    ArchiveDocument, CreateDocument, InvokePlanner, ListDocuments, ReadDocument,
    ReadImplementation, RenameDocument, ReportLifecycle, RestoreDocument, StartImplementation,
    StoreImage, UpdateDocument,
};
pub use endpoint::{Authenticate, Endpoint};
pub use image::{ImageAnswer, ImageAuthenticate, ImageOutcome, ReadImage};
pub use outcome::Outcome;
