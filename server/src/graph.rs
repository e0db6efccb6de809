//! `chopin-mcp-server graph …`: the operator drafts and approves a
//! document's task graph (IMPLEMENTATION.md §4: only a person approves, and
//! the operator's command is the person; no MCP tool can).
//!
//! - `graph draft DOC --plan-revision N [--graph-revision R] --tasks FILE
//!   [--base-branch B --base-commit C]` stores `{"tasks":[…]}` from FILE as
//!   a draft: the latest draft's next revision (`--graph-revision` naming
//!   it), or a new version after the approved one. Refusals, in order:
//!   `stale-plan`, `stale-graph`, `locked`, then the tasks' checks (`task`,
//!   `duplicate`, `acceptance`, `missing`, `self`, `cycle`, `root`). A
//!   document without provenance needs `--base-branch` and `--base-commit`,
//!   which the draft records.
//! - `graph approve DOC --version N --revision R` approves that draft
//!   (`not-draft`, `stale-plan`); the version approved before is
//!   superseded.
//! - `graph show DOC` prints every version, one `VERSION` a line.
//!
//! Each is one transaction on the server's database (`--db`, default
//! `./chopin.db`), safe while servers serve it: they read graphs per call.
//! The version stored is printed on standard output as `VERSION` JSON; a
//! refusal goes to standard error with its code and exits 1.

use std::path::PathBuf;
use std::process::ExitCode;

use chopin_mcp::implementation::{Definition, GraphRefusal, to_json};

use crate::store::{Database, GraphDraft, GraphOutcome, Store};

/// Who the operator's commands record as drafting and approving.
pub const OPERATOR: &str = "operator";

/// The largest `--tasks` file read (200 tasks of the largest texts fit).
const MAX_TASKS_FILE: u64 = 64 * 1024 * 1024;

/// What `graph` was asked to do, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphCommand {
    pub action: GraphAction,
    pub database: Database,
}

/// One of `graph`'s verbs, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphAction {
    Draft {
        document: String,
        plan_revision: u64,
        graph_revision: Option<u64>,
        tasks: PathBuf,
        base: Option<(String, String)>,
    },
    Approve {
        document: String,
        version: u64,
        revision: u64,
    },
    Show {
        document: String,
    },
}

/// `graph …` as clap reads it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "--db is the server's: a SQLite file (default ./chopin.db) or a postgres:// URL.\n\
                  Each command is one transaction; servers on the same database see it at once.",
    subcommand_required = true
)]
pub struct GraphArgs {
    #[command(subcommand)]
    verb: Verb,
    /// print this help
    #[arg(short, long, action = clap::ArgAction::Help, global = true)]
    help: Option<bool>,
}

#[derive(Debug, clap::Subcommand)]
enum Verb {
    /// store {"tasks":[…]} from FILE as the document's draft graph
    Draft(DraftArgs),
    /// approve the draft at exactly --version and --revision
    Approve(ApproveArgs),
    /// every graph version of the document, one JSON line each
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
struct DraftArgs {
    /// the document's id or canonical URL
    document: String,
    /// the plan revision the graph was drafted on (the document's current)
    #[arg(long, value_name = "N")]
    plan_revision: u64,
    /// the latest version's revision, as read (required to edit a draft)
    #[arg(long, value_name = "R")]
    graph_revision: Option<u64>,
    /// a JSON file: {"tasks":[{id, title, context, goal, acceptance, dependsOn}, …]}
    #[arg(long, value_name = "FILE")]
    tasks: PathBuf,
    /// the base branch, for a document without provenance (with --base-commit)
    #[arg(long, value_name = "B", requires = "base_commit")]
    base_branch: Option<String>,
    /// the base commit, for a document without provenance (with --base-branch)
    #[arg(long, value_name = "C", requires = "base_branch")]
    base_commit: Option<String>,
    #[command(flatten)]
    place: Place,
}

#[derive(Debug, clap::Args)]
struct ApproveArgs {
    /// the document's id or canonical URL
    document: String,
    /// the draft's version number
    #[arg(long, value_name = "N")]
    version: u64,
    /// the draft's revision
    #[arg(long, value_name = "R")]
    revision: u64,
    #[command(flatten)]
    place: Place,
}

#[derive(Debug, clap::Args)]
struct ShowArgs {
    /// the document's id or canonical URL
    document: String,
    #[command(flatten)]
    place: Place,
}

/// The database a verb works in.
#[derive(Debug, clap::Args)]
pub(crate) struct Place {
    /// the server's database: a SQLite file (default ./chopin.db) or a
    /// postgres:// URL
    #[arg(long, value_name = "PATH|URL", value_parser = Database::parse, allow_hyphen_values = true, verbatim_doc_comment)]
    db: Option<Database>,
}

impl Place {
    pub(crate) fn database(self) -> Database {
        self.db
            .unwrap_or_else(|| Database::File("chopin.db".into()))
    }
}

impl GraphArgs {
    /// The command to run.
    pub fn into_command(self) -> Result<GraphCommand, String> {
        let (action, place) = match self.verb {
            Verb::Draft(args) => (
                GraphAction::Draft {
                    document: args.document,
                    plan_revision: args.plan_revision,
                    graph_revision: args.graph_revision,
                    tasks: args.tasks,
                    base: args.base_branch.zip(args.base_commit),
                },
                args.place,
            ),
            Verb::Approve(args) => (
                GraphAction::Approve {
                    document: args.document,
                    version: args.version,
                    revision: args.revision,
                },
                args.place,
            ),
            Verb::Show(args) => (
                GraphAction::Show {
                    document: args.document,
                },
                args.place,
            ),
        };
        Ok(GraphCommand {
            action,
            database: place.database(),
        })
    }
}

/// Runs `job` on the store at `database` on a runtime of its own: 0 when
/// it succeeded, 1 (its message on standard error) when not.
pub(crate) fn on_store<F>(database: &Database, job: impl FnOnce(Store) -> F) -> ExitCode
where
    F: std::future::Future<Output = Result<(), String>>,
{
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
    let outcome = runtime.block_on(async {
        if let Database::File(path) = database
            && !path.exists()
        {
            return Err(format!(
                "no database at {}: a server makes it on its first start (or name it with --db)",
                path.display()
            ));
        }
        let store = Store::open(database)
            .await
            .map_err(|e| format!("cannot open the database: {e}"))?;
        // The token listing checks the schema version first (as `token`
        // does): a database never served, or served by an older or newer
        // server, is refused with what to do, and nothing is touched.
        store.stored_tokens().await.map_err(|e| e.to_string())?;
        job(store).await
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command.
pub fn run(command: GraphCommand) -> ExitCode {
    let action = command.action;
    on_store(&command.database, |store| carry_out(store, action))
}

async fn carry_out(store: Store, action: GraphAction) -> Result<(), String> {
    let failed = |e| format!("graph: {e}");
    let (document, outcome, tasks) = match action {
        GraphAction::Draft {
            document,
            plan_revision,
            graph_revision,
            tasks,
            base,
        } => {
            let definition = read_tasks(&tasks)?;
            let asked = GraphDraft {
                locator: document.clone(),
                plan_revision,
                graph_revision,
                definition: definition.clone(),
                base,
                by: OPERATOR.to_owned(),
            };
            let outcome = store.graph_draft(&asked).await.map_err(failed)?;
            (document, outcome, Some(definition))
        }
        GraphAction::Approve {
            document,
            version,
            revision,
        } => {
            let outcome = store
                .graph_approve(&document, version, revision, OPERATOR)
                .await
                .map_err(failed)?;
            (document, outcome, None)
        }
        GraphAction::Show { document } => {
            let rows = store.implementation_rows(&document).await.map_err(failed)?;
            let doc = rows.ok_or_else(|| format!("graph: no document {document}"))?;
            for version in &doc.versions {
                println!("{}", String::from_utf8_lossy(&to_json(version)));
            }
            return Ok(());
        }
    };
    match outcome {
        GraphOutcome::Stored(version) => {
            println!("{}", String::from_utf8_lossy(&to_json(&version)));
            Ok(())
        }
        GraphOutcome::Refused(refusal) => Err(refused(refusal, tasks.as_ref())),
        GraphOutcome::NoProvenance => Err(format!(
            "graph: document {document} has no provenance: give --base-branch and --base-commit"
        )),
        GraphOutcome::Unavailable => Err(format!("graph: no document {document}")),
    }
}

/// `graph: refused: CODE` and the task concerned, if any.
fn refused(refusal: GraphRefusal, tasks: Option<&Definition>) -> String {
    let code = refusal.refusal.code();
    let task = refusal
        .task
        .map(|at| match tasks.and_then(|d| d.tasks.get(at)) {
            Some(task) => format!(" (task {} {:?})", at + 1, task.id),
            None => format!(" (task {})", at + 1),
        })
        .unwrap_or_default();
    format!("graph: refused: {code}{task}")
}

/// The `--tasks` file, parsed (its shape wrong: `task`).
fn read_tasks(path: &PathBuf) -> Result<Definition, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("graph: cannot read {}: {e}", path.display()))?;
    let mut text = Vec::new();
    file.take(MAX_TASKS_FILE + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("graph: cannot read {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_TASKS_FILE {
        return Err(format!(
            "graph: refused: task ({} is over {MAX_TASKS_FILE} bytes)",
            path.display()
        ));
    }
    Definition::from_json(&text).map_err(|refusal| {
        format!(
            "graph: refused: {} ({} is not {{\"tasks\":[…]}} with every field of each task)",
            refusal.code(),
            path.display()
        )
    })
}
