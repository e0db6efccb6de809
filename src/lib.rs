#![doc = include_str!("../docs/embedding.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod auth;
mod config;
mod cors;
mod exchange;
#[doc(hidden)]
pub mod fuzz;
mod headers;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
pub mod http1;
mod image;
pub mod implementation;
mod json;
mod jsonrpc;
mod lex;
pub mod negotiate;
mod oracle;
mod origin;
mod record;
mod request;
mod response;
mod scan;
mod session;
pub mod sse;
mod tools;
mod version;

pub use auth::{Granted, Scopes};
/// The Chopin plan dialect: the [`chopin_dialect`] crate, which parses,
/// validates and canonicalizes the plans `create_document` accepts.
pub use chopin_dialect as dialect;
pub use chopin_dialect::{IdSource, SequentialIds, SystemIds, ulid_from_parts};
pub use config::{
    CREATION_BUDGET, Config, ConfigError, MAX_CACHE_TTL_MS, READ_ONLY_BUDGET, UPLOAD_BUDGET,
};
pub use exchange::{
    ArchiveDocument, Authenticate, BodyChunks, BodyIntake, CreateDocument, DocumentAuthenticate,
    DocumentOutcome, DocumentRead, Endpoint, ImageAnswer, ImageAuthenticate, ImageOutcome,
    InvokePlanner, ListDocuments, Outcome, ReadDocument, ReadImage, ReadImplementation,
    RenameDocument, ReportLifecycle, RestoreDocument, StartImplementation, StoreImage,
    UpdateDocument,
};
pub use image::ImageType;
pub use jsonrpc::MAX_BATCH;
pub use request::{Header, RequestParts};
pub use response::Response;
pub use session::ClientInfo;
pub use tools::archive::{ArchiveAnswer, ArchivedDocument};
pub use tools::create::{Brief, CreateAnswer, CreatedDocument, NewDocument};
pub use tools::implementation::{
    LifecycleAnswer, ReadImplementationAnswer, StartAnswer, StartRequest,
};
pub use tools::invoke::{InvokeAnswer, PlannerDocument, PlannerRefusal};
pub use tools::rename::RenameAnswer;
pub use tools::restore::RestoreAnswer;
pub use tools::update::{
    DocumentUpdate, PreparedUpdate, UpdateAnswer, UpdatedDocument, prepare_update,
};
pub use tools::upload::StoreImageAnswer;
pub use tools::{Document, DocumentSummary, DocumentSummaryRef};
pub use version::{Era, ProtocolVersion};

/// The README's code blocks, compiled and run as doc tests (its drive loop
/// is the one of the crate docs: `tests/docs_in_step.rs` holds them equal).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
