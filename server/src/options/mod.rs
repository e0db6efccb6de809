//! The servers' command line, parsed by hand (no argument crate).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::store::{Database, Limits};

pub const USAGE: &str = "\
Serves Chopin plan documents over MCP (Streamable HTTP) at /mcp, and each
document at its URL, /documents/ID.

Usage:
  chopin-mcp-server [OPTIONS]             serve
  chopin-mcp-server token add CALLER      mint a token for CALLER in the database,
                                          printed once (also token revoke CALLER,
                                          token list; see token --help)

Options:
  --listen ADDR                 address to bind (default 127.0.0.1:8080, or the
                                CHOPIN_MCP_LISTEN environment variable; port 0
                                picks a free one)
  --db PATH                     SQLite database file (default ./chopin.db)
  --db postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?KEY=VALUE...]
                                a PostgreSQL database (also postgresql://), for
                                replicas on many machines; chopin-mcp-server only:
                                chopin-mcp-blocking serves SQLite only. TLS as in
                                libpq: sslmode=disable|prefer (default)|require|
                                verify-ca|verify-full, sslrootcert=PATH|system
  --db-pool-size N              PostgreSQL connections in each of the read and the
                                write pool (default 8): at most 2N per server; a
                                request waits for a free one
  --db-statement-timeout SECONDS
                                how long a request may wait for the database, for a
                                connection and its statement together, before a 503
                                with retry-after (default 5; 0 = no statement
                                timeout: PostgreSQL requests still give up after
                                10 s, SQLite waits for its lock without limit)
  --memory                      keep everything in memory instead of a file
  --token TOKEN=CALLER          accept this bearer token for CALLER (repeatable;
                                replaces the generated token)
  --grant CALLER=OWNER/REPO[,OWNER/REPO...] | CALLER=*
                                repositories CALLER may list, read and write in
                                (repeatable)
  --import FILE                 insert or replace the documents of a JSON array of
                                {id, repository, title, source, revision}
  --read-only                   offer no write tool (create_document,
                                update_document, rename_document,
                                archive_document, restore_document)
  --allow-origin ORIGIN         allow browser requests from ORIGIN (repeatable)
  --resource-metadata URL       OAuth protected-resource metadata named in 401s,
                                when it is hosted elsewhere
  --instructions-file FILE      the instructions given to a model (initialize,
                                server/discover) instead of the built-in ones
                                (UTF-8, at most 64 KiB; an empty file gives none)
  --log-format text|json        request and error log lines on stderr (default text;
                                RUST_LOG filters them, default info)
  --shutdown-timeout SECONDS    on SIGTERM or SIGINT, how long requests in flight
                                may take to finish (default 10)
  --metrics-listen ADDR         serve Prometheus metrics at http://ADDR/metrics
                                (off by default; a bare PORT means 127.0.0.1:PORT)
  --workers N                   single-threaded runtimes serving connections
                                (default: the CPUs this process may use);
                                chopin-mcp-server only
  --no-pin                      leave the workers' placement to the scheduler (by
                                default, when the process may run on exactly N
                                CPUs, each worker is kept on one of them);
                                chopin-mcp-server only
  --help                        print this help

Sign in with an identity provider (OAuth 2.1; chopin-mcp-server only):
  --oauth-issuer URL            the authorization server's issuer (https, or http
                                on loopback); turns OAuth on (no token is
                                generated then; --token still works beside it)
  --resource URL                the canonical URL of this endpoint, e.g.
                                https://mcp.example.com/mcp (needed with
                                --oauth-issuer; published at
                                /.well-known/oauth-protected-resource/mcp)
  --oauth-audience A            an accepted token audience (repeatable; default:
                                the resource)
  --oauth-read-scope S          the read scope (default chopin:read)
  --oauth-create-scope S        the create scope (default chopin:create)
  --oauth-write-scope S         the write scope of update, rename, archive and
                                restore (default chopin:write)
  --oauth-caller-claim NAME     the claim naming the caller (default sub); grant
                                repositories to its values with --grant
  --oauth-introspect            also accept opaque tokens, checked at the issuer's
                                introspection endpoint, with:
  --oauth-client-id ID          this server's client id at the issuer
  --oauth-client-secret-file FILE
                                a file holding its client secret
";

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
    /// `(caller, repositories)` pairs.
    pub grants: Vec<(String, Vec<String>)>,
    pub import: Option<PathBuf>,
    pub read_only: bool,
    pub origins: Vec<String>,
    pub resource_metadata: Option<String>,
    /// `--instructions-file`: replaces the built-in instructions.
    pub instructions_file: Option<PathBuf>,
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
}

/// What the command line asks for.
// Built once per process: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    Serve(Options),
    Help,
    /// `token …`: see [`crate::token`].
    Token(crate::token::TokenCommand),
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|first| first == "token") {
        args.next();
        return crate::token::parse(args).map(Command::Token);
    }
    let mut options = Options {
        listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
        database: Database::File(PathBuf::from("chopin.db")),
        tokens: Vec::new(),
        grants: Vec::new(),
        import: None,
        read_only: false,
        origins: Vec::new(),
        resource_metadata: None,
        instructions_file: None,
        log_format: LogFormat::Text,
        shutdown_timeout: Duration::from_secs(10),
        metrics_listen: None,
        workers: None,
        pin: true,
        db_limits: Limits::default(),
        oauth: None,
    };
    let mut oauth = crate::oauth::Flags::default();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--help" | "-h" => return Ok(Command::Help),
            "--listen" => {
                let text = value()?;
                options.listen = text.parse().map_err(|_| {
                    format!("--listen: {text:?} is not an address like 127.0.0.1:8080")
                })?;
            }
            "--db" => options.database = Database::parse(&value()?)?,
            "--memory" => options.database = Database::Memory,
            "--token" => {
                let (token, caller) = pair(&flag, &value()?)?;
                options.tokens.push((token, caller));
            }
            "--grant" => {
                let (caller, list) = pair(&flag, &value()?)?;
                let repositories: Vec<String> = list.split(',').map(str::to_owned).collect();
                if repositories.iter().any(|r| r != "*" && !is_repository(r)) {
                    return Err(format!(
                        "--grant: {list:?} is not * or OWNER/REPO[,OWNER/REPO...]"
                    ));
                }
                options.grants.push((caller, repositories));
            }
            "--import" => options.import = Some(PathBuf::from(value()?)),
            "--read-only" => options.read_only = true,
            "--allow-origin" => options.origins.push(value()?),
            "--resource-metadata" => options.resource_metadata = Some(value()?),
            "--instructions-file" => options.instructions_file = Some(PathBuf::from(value()?)),
            "--log-format" => {
                options.log_format = match value()?.as_str() {
                    "text" => LogFormat::Text,
                    "json" => LogFormat::Json,
                    other => return Err(format!("--log-format: {other:?} is not text or json")),
                };
            }
            "--shutdown-timeout" => {
                let text = value()?;
                let seconds: u64 = text.parse().map_err(|_| {
                    format!("--shutdown-timeout: {text:?} is not a number of seconds")
                })?;
                options.shutdown_timeout = Duration::from_secs(seconds);
            }
            "--metrics-listen" => options.metrics_listen = Some(metrics_address(&value()?)?),
            "--workers" => {
                let text = value()?;
                let count = text
                    .parse()
                    .ok()
                    .filter(|&n: &usize| (1..=1024).contains(&n));
                options.workers = Some(count.ok_or_else(|| {
                    format!("--workers: {text:?} is not a number from 1 to 1024")
                })?);
            }
            "--no-pin" => options.pin = false,
            "--db-pool-size" => {
                let text = value()?;
                let size = text
                    .parse()
                    .ok()
                    .filter(|&n: &usize| (1..=1000).contains(&n));
                options.db_limits.pool_size = size.ok_or_else(|| {
                    format!("--db-pool-size: {text:?} is not a number from 1 to 1000")
                })?;
            }
            "--db-statement-timeout" => {
                let text = value()?;
                let seconds = text.parse().ok().filter(|&n: &u64| n <= 86_400);
                options.db_limits.statement_timeout =
                    Duration::from_secs(seconds.ok_or_else(|| {
                        format!("--db-statement-timeout: {text:?} is not a number of seconds from 0 to 86400")
                    })?);
            }
            other if oauth.take(other, &mut value)? => {}
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }
    options.oauth = oauth.finish()?;
    Ok(Command::Serve(options))
}

/// `ADDR` of `--metrics-listen`: a socket address, or a bare port (`9090`
/// or `:9090`), which binds loopback only: metrics are for the local
/// scraper unless an address says otherwise.
fn metrics_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.strip_prefix(':').unwrap_or(text).parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!("--metrics-listen: {text:?} is not a port or an address like 127.0.0.1:9090")
    })
}

/// Splits `NAME=VALUE`, both non-empty.
fn pair(flag: &str, text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() && !value.is_empty() => {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!("{flag}: {text:?} is not of the form NAME=VALUE")),
    }
}

/// `owner/name`, loosely: the endpoint validates repositories exactly.
fn is_repository(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(owner, name)| !owner.is_empty() && !name.is_empty() && !name.contains('/'))
}

/// The options of this process's command line; the exit code instead when
/// there is nothing to serve (0 after `--help`, 2 on a usage error, or the
/// outcome of a `token` command, which this runs).
pub fn from_command_line() -> Result<Options, std::process::ExitCode> {
    let given: Vec<String> = std::env::args().skip(1).collect();
    // `CHOPIN_MCP_LISTEN` stands for a `--listen` the command line does
    // not give.
    let listen = std::env::var(LISTEN_ENV).ok();
    let serving = given.first().is_none_or(|first| first != "token");
    let from_env = listen
        .filter(|_| serving && !given.iter().any(|arg| arg == "--listen"))
        .map(|addr| ["--listen".to_owned(), addr]);
    match parse(from_env.into_iter().flatten().chain(given)) {
        Ok(Command::Serve(options)) => Ok(options),
        Ok(Command::Help) => {
            print!("{USAGE}");
            Err(std::process::ExitCode::SUCCESS)
        }
        // An administrative command, run instead of a server.
        Ok(Command::Token(command)) => Err(crate::token::run(command)),
        Err(message) => {
            eprintln!("{message}");
            Err(std::process::ExitCode::from(2))
        }
    }
}
