//! The servers' command line, on clap: the [`Options`] to serve with, or
//! a `token` command to run instead. The flags, grouped by `--help`
//! heading, are in `cli`; the checks of their values in `values`.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::FromArgMatches;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::store::{Database, Limits};

mod cli;
mod help;
mod planner;
mod values;

pub use help::HelpText;
pub(crate) use help::render as render_help;
pub use planner::PlannerOptions;

/// `chopin-mcp-server --help`, as clap renders it.
pub const USAGE: HelpText = HelpText::new(|| {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| render_help(&["--help"]))
});

/// `chopin-mcp-server token --help`, as clap renders it. (Here, beside
/// [`USAGE`], not in [`crate::token`]: rendering it reads the whole command
/// line, which holds `token`'s arguments, and the token room stays below
/// this one.)
pub const TOKEN_USAGE: HelpText = HelpText::new(|| {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| render_help(&["token", "--help"]))
});

/// The program name [`parse`] reads its arguments for.
const PROGRAM: &str = "chopin-mcp-server";

/// `--image-quota-mib`'s default.
pub const DEFAULT_IMAGE_QUOTA_MIB: u64 = 64;

/// The environment variable that sets the address to bind when `--listen`
/// is not given (a container's, or a test's free port).
pub const LISTEN_ENV: &str = "CHOPIN_MCP_LISTEN";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// `key=value` fields after a timestamp and level.
    Text,
    /// One JSON object a line.
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub listen: SocketAddr,
    pub database: Database,
    /// `(token, caller)` pairs; empty means "use the stored token".
    pub tokens: Vec<(String, String)>,
    /// `(caller, repositories)` pairs: read and write (`--grant`).
    pub grants: Vec<(String, Vec<String>)>,
    /// `(caller, repositories)` pairs: read only (`--grant-read`).
    pub read_grants: Vec<(String, Vec<String>)>,
    pub import: Option<PathBuf>,
    pub read_only: bool,
    /// `--image-quota-mib`: what each repository's images may take, in
    /// MiB (default 64); 0: `upload_image` is not offered.
    pub image_quota_mib: u64,
    /// The implementation tools (IMPLEMENTATION.md §2.1): all eight, or
    /// `read_implementation` alone with `read_only`; off with
    /// `--no-implementations`.
    pub implementations: bool,
    /// `--bind-runs`: runs bound to their claimer (IMPLEMENTATION.md §3).
    pub bind_runs: bool,
    pub origins: Vec<String>,
    pub resource_metadata: Option<String>,
    /// `--instructions-file`: replaces the built-in instructions.
    pub instructions_file: Option<PathBuf>,
    /// `--public-url`, without a trailing `/`: documents' `url` is
    /// `<public-url>/documents/<id>` (SURFACE.md §3); `None`:
    /// `/documents/<id>`.
    pub public_url: Option<String>,
    pub log_format: LogFormat,
    /// How long requests in flight may take to finish after SIGTERM/SIGINT.
    pub shutdown_timeout: Duration,
    /// Where to serve `/metrics`; `None`: no metrics.
    pub metrics_listen: Option<SocketAddr>,
    /// How many worker runtimes; `None`: one per CPU this process may use.
    pub workers: Option<usize>,
    /// Whether each worker is kept on a CPU of its own (when the counts
    /// match; see `affinity`).
    pub pin: bool,
    /// `--db-pool-size` and `--db-statement-timeout`.
    pub db_limits: Limits,
    /// The OAuth flags (AUTH.md §2); `None` without `--oauth-issuer`.
    pub oauth: Option<crate::oauth::Settings>,
    /// The planner (SURFACE.md §9); `None` without `--planner-command`:
    /// then `invoke_planner` is not offered.
    pub planner: Option<PlannerOptions>,
}

/// What the command line asks for.
// Built once per process: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    Serve(Options),
    Help,
    /// `token …`: see [`crate::token`].
    Token(crate::token::TokenCommand),
    /// `graph …`: see [`crate::graph`].
    Graph(crate::graph::GraphCommand),
    /// `runs …`: see [`crate::runs`].
    Runs(crate::runs::RunsCommand),
}

/// Parses the arguments after the program name: [`Command::Help`] for
/// `--help` (of the server or of a subcommand), else the reason they are
/// refused, on one line, naming the flag.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    match read(PROGRAM, args) {
        Ok(command) => Ok(command),
        Err(error) if error.kind() == ErrorKind::DisplayHelp => Ok(Command::Help),
        Err(error) => Err(describe(&error)),
    }
}

/// Reads the arguments after the program name as the binary `bin` does:
/// every refusal is clap's error, help included, ready to print.
fn read<T: Into<OsString>>(
    bin: &str,
    args: impl IntoIterator<Item = T>,
) -> Result<Command, clap::Error> {
    let mut command = cli::command(bin);
    let args = std::iter::once(OsString::from(bin)).chain(args.into_iter().map(Into::into));
    let matches = command
        .try_get_matches_from_mut(args)
        .map_err(|error| in_own_words(error, &mut command))?;
    let cli = cli::Cli::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
    cli.into_command()
        .map_err(|reason| command.error(ErrorKind::ArgumentConflict, reason))
}

/// A value the flag's own check refused says only what that check says
/// (which names the flag), not clap's `invalid value '…' for '…'` before
/// it: the value is in the reason already, and a `--db` URL's password is
/// better not printed twice.
fn in_own_words(error: clap::Error, command: &mut clap::Command) -> clap::Error {
    match std::error::Error::source(&error) {
        Some(reason) if error.kind() == ErrorKind::ValueValidation => {
            command.error(ErrorKind::ValueValidation, reason.to_string())
        }
        _ => error,
    }
}

/// The first line of a refusal, without `error: `, and prefixed with the
/// argument it is about unless it starts with a flag already.
fn describe(error: &clap::Error) -> String {
    let text = error.to_string();
    let line = text.lines().next().unwrap_or_default();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) if !line.starts_with("--") => {
            let flag = arg.split([' ', '=']).next().unwrap_or(arg);
            format!("{flag}: {line}")
        }
        _ => line.to_owned(),
    }
}

/// The options of this process's command line; the exit code instead when
/// there is nothing to serve (0 after `--help`, 2 on a usage error, or the
/// outcome of a `token` command, which this runs).
pub fn from_command_line() -> Result<Options, ExitCode> {
    let mut given = std::env::args_os();
    let bin = given
        .next()
        .and_then(|program| {
            let name = std::path::Path::new(&program).file_name()?.to_str()?;
            Some(name.to_owned())
        })
        .unwrap_or_else(|| PROGRAM.to_owned());
    let given: Vec<OsString> = given.collect();
    // `CHOPIN_MCP_LISTEN` stands for a `--listen` the command line does
    // not give: read first, so that a malformed one is refused even
    // before `--help`.
    let listen = std::env::var_os(LISTEN_ENV);
    let serving = given.first().is_none_or(|first| first != "token");
    let gives_listen = given.iter().any(|arg| {
        arg.to_str()
            .is_some_and(|arg| arg == "--listen" || arg.starts_with("--listen="))
    });
    let from_env = listen
        .filter(|_| serving && !gives_listen)
        .map(|addr| [OsString::from("--listen"), addr]);
    match read(&bin, from_env.into_iter().flatten().chain(given)) {
        Ok(Command::Serve(options)) => Ok(options),
        // An administrative command, run instead of a server.
        Ok(Command::Token(command)) => Err(crate::token::run(command)),
        Ok(Command::Graph(command)) => Err(crate::graph::run(command)),
        Ok(Command::Runs(command)) => Err(crate::runs::run(command)),
        // `read` leaves help to clap, below.
        Ok(Command::Help) => Err(ExitCode::SUCCESS),
        // A value or a combination of flags our own checks refused: their
        // message alone, as the command line has always printed it (it
        // names the flag; scripts and tests read it from its first byte).
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::ValueValidation | ErrorKind::ArgumentConflict
            ) =>
        {
            eprintln!("{}", describe(&error));
            Err(ExitCode::from(2))
        }
        Err(error) => {
            // Help on standard output, clap's refusals (an unknown flag,
            // with its suggestion) on standard error.
            let _ = error.print();
            Err(ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2)))
        }
    }
}
