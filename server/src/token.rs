//! `chopin-mcp-server token …`: bearer tokens in an existing database,
//! without starting a server and without touching a document.
//!
//! - `token add CALLER` mints a token for `CALLER` (32 bytes of the OS's
//!   randomness, as hex, like the one a first start generates), stores its
//!   SHA-256 digest and prints the token on standard output, this once;
//!   what it may reach (the caller's grants) goes to standard error.
//! - `token revoke CALLER` removes every stored token of `CALLER`.
//! - `token list` prints each stored token's caller and digest.
//!
//! Each takes `--db PATH` or `--db postgres://…` (default `./chopin.db`),
//! a database a server has set up: a missing file is never created, and
//! `--memory` would keep nothing. A server reads the stored tokens when it
//! starts, so a running one accepts an added token, and refuses a revoked
//! one, after its next start.

use std::io::Read;
use std::process::ExitCode;

use crate::store::{ALL_REPOSITORIES, Database, Store};

/// What `token` was asked to do, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCommand {
    pub action: Action,
    pub database: Database,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Add(String),
    Revoke(String),
    List,
}

/// `token …` as clap reads it: one of its commands (`add`, `revoke`,
/// `list`), each a variant of `Verb`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "--db is the server's: a SQLite file (default ./chopin.db) or a postgres:// URL.\n\
                  Documents and grants are left as they are; grant a new caller repositories with\n\
                  --grant CALLER=OWNER/REPO (--grant-read to read only) when the server starts.",
    subcommand_required = true
)]
pub struct TokenArgs {
    #[command(subcommand)]
    verb: Verb,
    /// print this help
    #[arg(short, long, action = clap::ArgAction::Help, global = true)]
    help: Option<bool>,
}

#[derive(Debug, clap::Subcommand)]
enum Verb {
    /// mint a token for CALLER: printed once on standard output, only its
    /// SHA-256 stored
    #[command(verbatim_doc_comment)]
    Add(Caller),
    /// remove every stored token of CALLER
    Revoke(Caller),
    /// each stored token's caller and SHA-256
    List(Place),
}

/// A verb's caller and database.
#[derive(Debug, clap::Args)]
struct Caller {
    /// the caller: 1 to 255 characters, no control characters
    #[arg(value_name = "CALLER", value_parser = checked_caller)]
    caller: String,
    #[command(flatten)]
    place: Place,
}

/// The database a verb works in.
#[derive(Debug, clap::Args)]
struct Place {
    /// the server's database: a SQLite file (default ./chopin.db) or a
    /// postgres:// URL
    #[arg(long, value_name = "PATH|URL", value_parser = Database::parse, allow_hyphen_values = true, verbatim_doc_comment)]
    db: Option<Database>,
    /// refused: a database in memory would keep nothing
    #[arg(long, hide = true)]
    memory: bool,
}

impl TokenArgs {
    /// The command to run; a reason when its flags do not go together.
    pub fn into_command(self) -> Result<TokenCommand, String> {
        let (action, place) = match self.verb {
            Verb::Add(Caller { caller, place }) => (Action::Add(caller), place),
            Verb::Revoke(Caller { caller, place }) => (Action::Revoke(caller), place),
            Verb::List(place) => (Action::List, place),
        };
        if place.memory {
            return Err(
                "token: --memory would keep nothing; name the server's database with --db"
                    .to_owned(),
            );
        }
        let database = place
            .db
            .unwrap_or_else(|| Database::File("chopin.db".into()));
        Ok(TokenCommand { action, database })
    }
}

/// A caller name as logs and grants can hold it: 1 to 255 characters, no
/// control characters.
fn checked_caller(caller: &str) -> Result<String, String> {
    let fits = (1..=255).contains(&caller.chars().count());
    if fits && !caller.chars().any(char::is_control) {
        Ok(caller.to_owned())
    } else {
        Err(format!(
            "token: {caller:?} is not a caller name (1 to 255 characters, no control characters)"
        ))
    }
}

/// Runs the command: 0 when done, 1 when the database refused or failed.
pub fn run(command: TokenCommand) -> ExitCode {
    // The process's one rustls provider, for PostgreSQL over TLS.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(carry_out(command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

async fn carry_out(command: TokenCommand) -> Result<(), String> {
    let place = match &command.database {
        Database::File(path) => {
            // Opening would create it: a token in a new, empty file would
            // never be read by the server the user meant.
            if !path.exists() {
                return Err(format!(
                    "no database at {}: a server makes it on its first start (or name it with --db)",
                    path.display()
                ));
            }
            path.display().to_string()
        }
        Database::Postgres(_) => "the PostgreSQL database".to_owned(),
        // Refused when parsed.
        Database::Memory => return Err("token: --memory would keep nothing".to_owned()),
    };
    let store = Store::open(&command.database)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let failed = |e| format!("{place}: {e}");
    match command.action {
        Action::Add(caller) => {
            let token = random_token();
            let added = store.add_token(&token, &caller).await.map_err(failed)?;
            println!("{token}");
            eprintln!(
                "a new token for caller {caller}, printed once: only its SHA-256 is stored in {place}"
            );
            match (&added.grants[..], &added.read_grants[..]) {
                ([], []) => eprintln!(
                    "caller {caller} may use no repository yet: start the server with \
                     --grant {caller}=OWNER/REPO (or ={ALL_REPOSITORIES}; --grant-read to \
                     read only) once"
                ),
                (grants, read) => {
                    if !grants.is_empty() {
                        eprintln!("caller {caller} may use: {}", grants.join(", "));
                    }
                    if !read.is_empty() {
                        eprintln!("caller {caller} may read only: {}", read.join(", "));
                    }
                }
            }
            eprintln!("a server reads its tokens when it starts: restart it to accept this one");
        }
        Action::Revoke(caller) => {
            let revoked = store.revoke_tokens(&caller).await.map_err(failed)?;
            let plural = if revoked == 1 { "" } else { "s" };
            eprintln!("revoked {revoked} token{plural} of caller {caller} in {place}");
            if revoked > 0 {
                eprintln!("a server reads its tokens when it starts: restart it to refuse them");
            }
        }
        Action::List => {
            for (digest, caller) in store.stored_tokens().await.map_err(failed)? {
                println!("{caller} {digest}");
            }
        }
    }
    Ok(())
}

/// 32 bytes from the OS's randomness, as hex. Exits when there is none:
/// a guessable token would be worse than no server.
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if let Err(e) = read {
        eprintln!("cannot read /dev/urandom for a token: {e}");
        std::process::exit(1);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
