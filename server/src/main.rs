//! An MCP server on tokio, backed by SQLite or PostgreSQL.
//!
//! ```sh
//! cargo run --release -p chopin-mcp-server            # ./chopin.db, seeded on first run
//! cargo run --release -p chopin-mcp-server -- --help
//! ```
//!
//! This file reads the command line, sets up logging, the TLS crypto
//! provider and SQLite, and hands over to the connection driver,
//! [`chopin_mcp_server::serve`]: how the server moves bytes between its
//! clients, the endpoint and the store, on one runtime per core, is
//! described there.

use std::process::ExitCode;

use chopin_mcp_server::{options, serve, telemetry};

/// mimalloc for the server's own allocations (SQLite keeps the C library's
/// malloc): a request's dozen-odd small allocations come from the worker's
/// own heap, freed on the same thread, without glibc's arena bookkeeping.
/// `benches/history/host-floor.md` ("On the issue's kind of machine") has what it changed
/// per read and per held stream.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let options = match options::from_command_line() {
        Ok(options) => options,
        Err(code) => return code,
    };
    let _logs = telemetry::init(options.log_format); // ops: logging, flushed at exit
    // The one rustls crypto provider of the process (ring: the OAuth client
    // here, PostgreSQL TLS too). Already installed is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    chopin_mcp_server::sqlite::configure();
    match serve::serve(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
