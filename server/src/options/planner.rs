//! The planner's flags (SURFACE.md §9), their own `--help` heading: the
//! command that runs a turn, its arguments, and how many turns run and
//! wait. Without `--planner-command`, `invoke_planner` is not offered.

use std::time::Duration;

use clap::Args;

/// How the planner runs, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannerOptions {
    /// The program run for each turn (no shell: a path, made absolute
    /// against the server's working directory when relative, or a name
    /// looked up in the server's `PATH`).
    pub command: String,
    /// Its arguments, in order.
    pub args: Vec<String>,
    /// How many turns run at once in this process.
    pub workers: usize,
    /// How many more turns wait in this process.
    pub queue: usize,
    /// How long a turn may run before its process group is killed.
    pub timeout: Duration,
}

/// The default `--planner-timeout`: 30 minutes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// The planner's flags.
#[derive(Debug, Args)]
#[command(next_help_heading = "Planner")]
pub(super) struct PlannerFlags {
    /// offer invoke_planner: run COMMAND (no shell) for each instruction
    /// posted to a document's planner, the instruction on its standard
    /// input, in a working directory of the document's own, with only
    /// CHOPIN_DOCUMENT_ID, CHOPIN_DOCUMENT_URL, CHOPIN_REPOSITORY and
    /// CHOPIN_CALLER in its environment (read-write servers only)
    #[arg(
        long,
        value_name = "COMMAND",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    planner_command: Option<String>,
    /// an argument of the planner command (repeatable, in order)
    #[arg(long = "planner-arg", value_name = "ARG", allow_hyphen_values = true)]
    planner_args: Vec<String>,
    /// planner turns run at once by this process (default 1); one at a
    /// time per document
    #[arg(long, value_name = "N", value_parser = workers, allow_hyphen_values = true, verbatim_doc_comment)]
    planner_workers: Option<usize>,
    /// planner turns this process holds waiting beyond those running
    /// (default 4); more are answered planner-queue-full
    #[arg(long, value_name = "N", value_parser = queue, allow_hyphen_values = true, verbatim_doc_comment)]
    planner_queue: Option<usize>,
    /// how long a planner turn may run before its process group is
    /// killed (default 1800)
    #[arg(long, value_name = "SECONDS", value_parser = timeout, allow_hyphen_values = true, verbatim_doc_comment)]
    planner_timeout: Option<Duration>,
}

impl PlannerFlags {
    /// The planner's options, `None` without `--planner-command`; a reason
    /// when the flags do not go together.
    pub(super) fn finish(self, read_only: bool) -> Result<Option<PlannerOptions>, String> {
        let Some(command) = self.planner_command else {
            let stray = [
                (!self.planner_args.is_empty(), "--planner-arg"),
                (self.planner_workers.is_some(), "--planner-workers"),
                (self.planner_queue.is_some(), "--planner-queue"),
                (self.planner_timeout.is_some(), "--planner-timeout"),
            ];
            return match stray.into_iter().find(|(given, _)| *given) {
                Some((_, flag)) => Err(format!("{flag}: needs --planner-command")),
                None => Ok(None),
            };
        };
        if command.is_empty() {
            return Err("--planner-command: empty".to_owned());
        }
        if read_only {
            return Err(
                "--planner-command: invoke_planner is a write tool, not offered with --read-only"
                    .to_owned(),
            );
        }
        // A relative path (`./planner.sh`) is the server's, not the
        // document's working directory's, where the command runs.
        let command = if command.contains('/') && !command.starts_with('/') {
            let here = std::env::current_dir()
                .map_err(|e| format!("--planner-command: cannot resolve {command:?}: {e}"))?;
            here.join(&command).to_string_lossy().into_owned()
        } else {
            command
        };
        Ok(Some(PlannerOptions {
            command,
            args: self.planner_args,
            workers: self.planner_workers.unwrap_or(1),
            queue: self.planner_queue.unwrap_or(4),
            timeout: self.planner_timeout.unwrap_or(DEFAULT_TIMEOUT),
        }))
    }
}

/// `--planner-workers N`.
fn workers(text: &str) -> Result<usize, String> {
    let count = text
        .parse()
        .ok()
        .filter(|&n: &usize| (1..=256).contains(&n));
    count.ok_or_else(|| format!("--planner-workers: {text:?} is not a number from 1 to 256"))
}

/// `--planner-queue N`.
fn queue(text: &str) -> Result<usize, String> {
    let count = text.parse().ok().filter(|&n: &usize| n <= 4096);
    count.ok_or_else(|| format!("--planner-queue: {text:?} is not a number from 0 to 4096"))
}

/// `--planner-timeout SECONDS`.
fn timeout(text: &str) -> Result<Duration, String> {
    let seconds = text
        .parse()
        .ok()
        .filter(|&n: &u64| (1..=604_800).contains(&n));
    seconds.map(Duration::from_secs).ok_or_else(|| {
        format!("--planner-timeout: {text:?} is not a number of seconds from 1 to 604800")
    })
}
