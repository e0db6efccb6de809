//! `chopin-mcp-server runs …`: the operator's view of implementation runs
//! (IMPLEMENTATION.md §4).
//!
//! - `runs show DOC` prints the document's `LIFE` (its active run with its
//!   events, its ended runs with their outcomes) as one JSON line.
//! - `runs check` refolds every stored log with the rules of
//!   `chopin_mcp::implementation`, prints each run whose log does not fold
//!   (`DOCUMENT RUN CODE`) and exits 1 if there is one; else it says how
//!   many runs it checked and exits 0.
//!
//! Each is one transaction on the server's database (`--db`, default
//! `./chopin.db`), safe while servers serve it.

use std::process::ExitCode;

use crate::graph::{Place, on_store};
use crate::store::{Database, Store};

/// What `runs` was asked to do, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunsCommand {
    pub action: RunsAction,
    pub database: Database,
}

/// One of `runs`'s verbs, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsAction {
    Show { document: String },
    Check,
}

/// `runs …` as clap reads it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "--db is the server's: a SQLite file (default ./chopin.db) or a postgres:// URL.",
    subcommand_required = true
)]
pub struct RunsArgs {
    #[command(subcommand)]
    verb: Verb,
    /// print this help
    #[arg(short, long, action = clap::ArgAction::Help, global = true)]
    help: Option<bool>,
}

#[derive(Debug, clap::Subcommand)]
enum Verb {
    /// the document's runs and their events, as one JSON line (LIFE)
    Show(ShowArgs),
    /// refold every stored log; exit 1 if one does not fold
    Check(Place),
}

#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// the document's id or canonical URL
    document: String,
    #[command(flatten)]
    place: Place,
}

impl RunsArgs {
    /// The command to run.
    pub fn into_command(self) -> Result<RunsCommand, String> {
        let (action, place) = match self.verb {
            Verb::Show(args) => (
                RunsAction::Show {
                    document: args.document,
                },
                args.place,
            ),
            Verb::Check(place) => (RunsAction::Check, place),
        };
        Ok(RunsCommand {
            action,
            database: place.database(),
        })
    }
}

/// Runs the command.
pub fn run(command: RunsCommand) -> ExitCode {
    let action = command.action;
    on_store(&command.database, |store| carry_out(store, action))
}

async fn carry_out(store: Store, action: RunsAction) -> Result<(), String> {
    let failed = |e| format!("runs: {e}");
    match action {
        RunsAction::Show { document } => {
            let doc = store
                .implementation_rows(&document)
                .await
                .map_err(failed)?
                .ok_or_else(|| format!("runs: no document {document}"))?;
            let life = doc.life_json().ok_or_else(|| {
                format!("runs: a stored log of document {document} does not fold: run `runs check`")
            })?;
            println!("{}", String::from_utf8_lossy(&life));
            Ok(())
        }
        RunsAction::Check => {
            let (checked, broken) = store.runs_check().await.map_err(failed)?;
            for run in &broken {
                println!("{} {} {}", run.document_id, run.run_id, run.refusal.code());
            }
            if broken.is_empty() {
                eprintln!("runs: checked {checked} runs: every log folds");
                Ok(())
            } else {
                Err(format!(
                    "runs: {} of {checked} runs do not fold",
                    broken.len()
                ))
            }
        }
    }
}
