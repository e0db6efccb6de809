//! The servers' flags as clap reads them, one struct per `--help` heading
//! (serving, store, operations here; OAuth in [`crate::oauth::Flags`]),
//! and the subcommands: `token` now, each a variant of [`Sub`]. Their help
//! is the doc comments below, kept as written (`verbatim_doc_comment`);
//! [`Cli::into_command`] turns what was read into a [`Command`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand};

use super::values::{self, DEFAULT_LISTEN};
use super::{Command, DEFAULT_IMAGE_QUOTA_MIB, LogFormat, Options};
use crate::store::{Database, Limits};

/// The command line: serve, with the flags, or run a subcommand instead
/// (a flag before it is refused: `token` comes first).
#[derive(Debug, Parser)]
#[command(
    name = "chopin-mcp-server",
    about = "Serves Chopin plan documents over MCP (Streamable HTTP) at /mcp, and each\n\
             document at its URL, /documents/ID.",
    disable_help_flag = true,
    disable_help_subcommand = true,
    next_line_help = true,
    args_override_self = true,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    serving: Serving,
    #[command(flatten)]
    store: Store,
    #[command(flatten)]
    oauth: crate::oauth::Flags,
    #[command(flatten)]
    planner: super::planner::PlannerFlags,
    #[command(flatten)]
    operations: Operations,
}

/// What runs instead of a server: administrative commands on its
/// database.
#[derive(Debug, Subcommand)]
enum Sub {
    /// bearer tokens in an existing database (a server reads them when it
    /// starts): add, revoke, list
    #[command(verbatim_doc_comment)]
    Token(crate::token::TokenArgs),
    /// an implementation graph, as the operator drafts and approves it:
    /// draft, approve, show
    #[command(verbatim_doc_comment)]
    Graph(crate::graph::GraphArgs),
    /// implementation runs: show a document's, check every stored log
    Runs(crate::runs::RunsArgs),
}

/// What is served, to whom.
#[derive(Debug, Args)]
#[command(next_help_heading = "Serving")]
struct Serving {
    /// address to bind (default 127.0.0.1:8080, or the CHOPIN_MCP_LISTEN
    /// environment variable); a bare PORT means 127.0.0.1:PORT; port 0
    /// picks a free one
    #[arg(long, value_name = "ADDR", value_parser = values::listen, allow_hyphen_values = true, verbatim_doc_comment)]
    listen: Option<SocketAddr>,
    /// accept this bearer token for CALLER (repeatable; replaces the
    /// generated token)
    #[arg(long = "token", value_name = "TOKEN=CALLER", value_parser = values::token, allow_hyphen_values = true, verbatim_doc_comment)]
    tokens: Vec<(String, String)>,
    /// repositories CALLER may list, read and write in (repeatable):
    /// CALLER=OWNER/REPO[,OWNER/REPO...] or CALLER=*
    #[arg(long = "grant", value_name = "CALLER=REPOS", value_parser = values::grant, allow_hyphen_values = true, verbatim_doc_comment)]
    grants: Vec<(String, Vec<String>)>,
    /// repositories CALLER may list and read in but not write in
    /// (repeatable): CALLER=OWNER/REPO[,OWNER/REPO...] or CALLER=*;
    /// a repository --grant names too is read and write
    #[arg(long = "grant-read", value_name = "CALLER=REPOS", value_parser = values::grant_read, allow_hyphen_values = true, verbatim_doc_comment)]
    read_grants: Vec<(String, Vec<String>)>,
    /// offer no write tool (create_document, update_document,
    /// rename_document, archive_document, restore_document, upload_image)
    #[arg(long, verbatim_doc_comment)]
    read_only: bool,
    /// MiB of images each repository may hold (upload_image; default 64);
    /// 0 offers no upload_image
    #[arg(long, value_name = "MIB", value_parser = values::image_quota, allow_hyphen_values = true, verbatim_doc_comment)]
    image_quota_mib: Option<u64>,
    /// offer no implementation tool (read_implementation,
    /// start_implementation and the six lifecycle tools)
    #[arg(long, verbatim_doc_comment)]
    no_implementations: bool,
    /// bind implementation runs to the caller that claimed them: another
    /// caller's lifecycle call on a run gets `run` (off by default)
    #[arg(long, verbatim_doc_comment)]
    bind_runs: bool,
    /// allow browser requests from ORIGIN (repeatable)
    #[arg(
        long = "allow-origin",
        value_name = "ORIGIN",
        allow_hyphen_values = true
    )]
    origins: Vec<String>,
    /// OAuth protected-resource metadata named in 401s, when it is hosted
    /// elsewhere
    #[arg(
        long,
        value_name = "URL",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    resource_metadata: Option<String>,
    /// the instructions given to a model (initialize, server/discover)
    /// instead of the built-in ones (UTF-8, at most 64 KiB; an empty file
    /// gives none)
    #[arg(
        long,
        value_name = "FILE",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    instructions_file: Option<PathBuf>,
    /// where clients reach this server, http(s)://HOST[:PORT][/PATH]: the
    /// documents' url is then URL/documents/ID (default /documents/ID)
    #[arg(long, value_name = "URL", value_parser = values::public_url, allow_hyphen_values = true, verbatim_doc_comment)]
    public_url: Option<String>,
}

/// Where the documents and tokens are kept.
#[derive(Debug, Args)]
#[command(next_help_heading = "Store")]
struct Store {
    /// SQLite database file (default ./chopin.db), or a PostgreSQL database:
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?KEY=VALUE...] (also
    /// postgresql://), for replicas on many machines; chopin-mcp-server
    /// only: chopin-mcp-blocking serves SQLite only. TLS as in libpq:
    /// sslmode=disable|prefer (default)|require|verify-ca|verify-full,
    /// sslrootcert=PATH|system
    #[arg(long, value_name = "PATH|URL", value_parser = Database::parse, overrides_with = "memory", allow_hyphen_values = true, verbatim_doc_comment)]
    db: Option<Database>,
    /// keep everything in memory instead of a file
    #[arg(long, overrides_with = "db")]
    memory: bool,
    /// PostgreSQL connections in each of the read and the write pool
    /// (default 8): at most 2N per server; a request waits for a free one
    #[arg(long, value_name = "N", value_parser = values::pool_size, allow_hyphen_values = true, verbatim_doc_comment)]
    db_pool_size: Option<usize>,
    /// how long a request may wait for the database, for a connection and
    /// its statement together, before a 503 with retry-after
    /// (default 5; 0 = no statement timeout: PostgreSQL requests still give
    /// up after 10 s, SQLite waits for its lock without limit)
    #[arg(long, value_name = "SECONDS", value_parser = values::statement_timeout, allow_hyphen_values = true, verbatim_doc_comment)]
    db_statement_timeout: Option<Duration>,
    /// insert or replace the documents of a JSON array of
    /// {id, repository, title, source, revision}
    #[arg(
        long,
        value_name = "FILE",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    import: Option<PathBuf>,
}

/// How the process runs: logs, shutdown, metrics, threads.
#[derive(Debug, Args)]
#[command(next_help_heading = "Operations")]
struct Operations {
    /// request and error log lines on stderr (default text; RUST_LOG
    /// filters them, default info)
    #[arg(long, value_name = "text|json", value_parser = values::log_format, allow_hyphen_values = true, verbatim_doc_comment)]
    log_format: Option<LogFormat>,
    /// on SIGTERM or SIGINT, how long requests in flight may take to finish
    /// (default 10)
    #[arg(long, value_name = "SECONDS", value_parser = values::shutdown_timeout, allow_hyphen_values = true, verbatim_doc_comment)]
    shutdown_timeout: Option<Duration>,
    /// serve Prometheus metrics at http://ADDR/metrics (off by default; a
    /// bare PORT means 127.0.0.1:PORT)
    #[arg(long, value_name = "ADDR", value_parser = values::metrics_listen, allow_hyphen_values = true, verbatim_doc_comment)]
    metrics_listen: Option<SocketAddr>,
    /// single-threaded runtimes serving connections (default: the CPUs this
    /// process may use); chopin-mcp-server only
    #[arg(long, value_name = "N", value_parser = values::workers, allow_hyphen_values = true, verbatim_doc_comment)]
    workers: Option<usize>,
    /// leave the workers' placement to the scheduler (by default, when the
    /// process may run on exactly N CPUs, each worker is kept on one of
    /// them); chopin-mcp-server only
    #[arg(long, verbatim_doc_comment)]
    no_pin: bool,
    /// print this help
    #[arg(short, long, action = ArgAction::Help)]
    help: Option<bool>,
}

/// The clap command of the binary named `bin`: the derived one, with the
/// usage lines naming the binary.
pub fn command(bin: &str) -> clap::Command {
    let token = format!(
        "{bin} token add CALLER [--db PATH|URL]\n       \
         {bin} token revoke CALLER [--db PATH|URL]\n       \
         {bin} token list [--db PATH|URL]"
    );
    Cli::command()
        .bin_name(bin.to_owned())
        .override_usage(format!("{bin} [OPTIONS]\n       {token}"))
        .mut_subcommand("token", |command| command.override_usage(token))
        .mut_subcommand("graph", |command| {
            command.override_usage(format!(
                "{bin} graph draft DOC --plan-revision N [--graph-revision R] --tasks FILE \\\n           \
                 [--base-branch B --base-commit C] [--db PATH|URL]\n       \
                 {bin} graph approve DOC --version N --revision R [--db PATH|URL]\n       \
                 {bin} graph show DOC [--db PATH|URL]"
            ))
        })
        .mut_subcommand("runs", |command| {
            command.override_usage(format!(
                "{bin} runs show DOC [--db PATH|URL]\n       {bin} runs check [--db PATH|URL]"
            ))
        })
}

impl Cli {
    /// What the command line asks for; a reason when its flags do not go
    /// together.
    pub fn into_command(self) -> Result<Command, String> {
        let Cli {
            command,
            serving,
            store,
            oauth,
            planner,
            operations,
        } = self;
        match command {
            Some(Sub::Token(token)) => return token.into_command().map(Command::Token),
            Some(Sub::Graph(graph)) => return graph.into_command().map(Command::Graph),
            Some(Sub::Runs(runs)) => return runs.into_command().map(Command::Runs),
            None => {}
        }
        let defaults = Limits::default();
        let database = match store.db {
            _ if store.memory => Database::Memory,
            Some(database) => database,
            None => Database::File(PathBuf::from("chopin.db")),
        };
        Ok(Command::Serve(Options {
            listen: serving.listen.unwrap_or(DEFAULT_LISTEN),
            database,
            tokens: serving.tokens,
            grants: serving.grants,
            read_grants: serving.read_grants,
            import: store.import,
            read_only: serving.read_only,
            image_quota_mib: serving.image_quota_mib.unwrap_or(DEFAULT_IMAGE_QUOTA_MIB),
            implementations: !serving.no_implementations,
            bind_runs: serving.bind_runs,
            origins: serving.origins,
            resource_metadata: serving.resource_metadata,
            instructions_file: serving.instructions_file,
            public_url: serving.public_url,
            log_format: operations.log_format.unwrap_or(LogFormat::Text),
            shutdown_timeout: operations
                .shutdown_timeout
                .unwrap_or(Duration::from_secs(10)),
            metrics_listen: operations.metrics_listen,
            workers: operations.workers,
            pin: !operations.no_pin,
            db_limits: Limits {
                pool_size: store.db_pool_size.unwrap_or(defaults.pool_size),
                statement_timeout: store
                    .db_statement_timeout
                    .unwrap_or(defaults.statement_timeout),
            },
            oauth: oauth.finish()?,
            planner: planner.finish(serving.read_only)?,
        }))
    }
}
