//! The reference server for [`chopin_mcp`]: what its two binaries share.
//!
//! - `chopin-mcp-server` (`src/main.rs`, its connection driver in
//!   [`serve`]): tokio and the crate's own HTTP/1.1 adapter drive the
//!   endpoint (hyper serves only the metrics listener); the default.
//! - `chopin-mcp-blocking` (`src/bin/chopin-mcp-blocking.rs`): `std::net`
//!   threads and the crate's own HTTP/1.1 adapter, no async runtime.
//!
//! Both parse the same command line ([`options`]), open the same store
//! ([`store`]: SQLite, or PostgreSQL for `chopin-mcp-server`) and carry out
//! the endpoint's effects the same way ([`host`]). Operating them: request
//! logs ([`telemetry`]), Prometheus metrics ([`metrics`]), both labelled from
//! [`labels`] and joined per request by [`record`], health endpoints
//! ([`health`]) and graceful shutdown ([`shutdown`]); what they write on
//! the wire besides the endpoint's responses is [`wire`]'s. [`token`] is
//! `chopin-mcp-server token …`: bearer tokens added to and revoked from an
//! existing database.

pub mod affinity;
pub mod graph;
pub mod health;
pub mod host;
pub mod labels;
pub mod metrics;
pub mod oauth;
pub mod options;
pub mod planner;
pub mod record;
pub mod runs;
pub mod serve;
pub mod shutdown;
pub mod sqlite;
pub mod store;
pub mod telemetry;
pub mod token;
pub mod wire;
