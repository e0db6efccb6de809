//! chopin-mcp: a sans-IO Model Context Protocol endpoint for Chopin plans.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod dialect;
mod ids;

pub use ids::{IdSource, SequentialIds, SystemIds, ulid_from_parts};
