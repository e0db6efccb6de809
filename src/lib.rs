#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod body;
mod config;
mod cors;
pub mod dialect;
mod dispatch;
mod endpoint;
#[doc(hidden)]
pub mod fuzz;
mod headers;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
pub mod http1;
mod ids;
mod json;
mod jsonrpc;
mod modern;
pub mod negotiate;
mod oracle;
mod origin;
mod outcome;
mod request;
mod response;
mod scan;
pub mod sse;
mod tools;
mod version;

pub use body::{BodyChunks, BodyIntake};
pub use config::{CREATION_BUDGET, Config, ConfigError, MAX_CACHE_TTL_MS, READ_ONLY_BUDGET};
pub use endpoint::{Authenticate, Endpoint};
pub use ids::{IdSource, SequentialIds, SystemIds, ulid_from_parts};
pub use jsonrpc::MAX_BATCH;
pub use outcome::{CreateDocument, ListDocuments, Outcome, ReadDocument};
pub use request::{Header, RequestParts};
pub use response::Response;
pub use tools::create::{Brief, CreateAnswer, CreatedDocument, NewDocument};
pub use tools::{Document, DocumentSummary, DocumentSummaryRef};
pub use version::{Era, ProtocolVersion};
