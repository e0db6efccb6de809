#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod body;
mod config;
pub mod dialect;
mod dispatch;
mod endpoint;
#[doc(hidden)]
pub mod fuzz;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
pub mod http1;
mod ids;
mod json;
mod jsonrpc;
pub mod negotiate;
mod outcome;
mod request;
mod response;
pub mod sse;
mod tools;
mod version;

pub use body::{BodyChunks, BodyIntake};
pub use config::{CREATION_BUDGET, Config, ConfigError, READ_ONLY_BUDGET};
pub use endpoint::{Authenticate, Endpoint};
pub use ids::{IdSource, SequentialIds, SystemIds, ulid_from_parts};
pub use jsonrpc::MAX_BATCH;
pub use outcome::{CreateDocument, ListDocuments, Outcome, ReadDocument};
pub use request::{Header, RequestParts};
pub use response::Response;
pub use tools::create::{Brief, CreateAnswer, CreatedDocument, NewDocument};
pub use tools::{Document, DocumentSummary};
pub use version::ProtocolVersion;
