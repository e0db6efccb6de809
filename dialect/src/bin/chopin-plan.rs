//! `chopin-plan`: check and format Chopin plan files with the dialect's own
//! parser, validator and canonicalizer. `chopin-plan --help` says how.
//!
//! The arguments are read by clap ([`Cli`]): a usage error is clap's, after
//! `chopin-plan: `, with exit status 2.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use chopin_dialect::{Issue, SequentialIds, SystemIds, catalog_summary, check, issues_json};

/// The first line of every help text.
const ABOUT: &str = "\
chopin-plan: check and format Chopin plan documents (Markdown with the Chopin
components). The plan dialect, every component and its attributes:
docs/plans.md in the chopin-mcp repository, or chopin-plan catalog.";

const STDIN: &str = "A FILE of - is standard input, named <stdin> in messages.";

const CHECK: &str = "\
check    Reports every issue of each plan, one line each:
           PATH:LINE:COLUMN: CODE: MESSAGE
         or, for an issue about the whole plan (no location),
           PATH: CODE: MESSAGE
         LINE and COLUMN start at 1; a COLUMN counts Unicode scalar values
         (characters) from the start of the line, a tab counting as one:
         not bytes, not UTF-16 units. \\n, \\r\\n and \\r each end a line.
         --format json prints, for each FILE in order, one line holding the
         {\"issues\":[...]} object that the MCP tool create_document answers
         with (each issue: code, message, path, offset, line, column; offset
         in UTF-8 bytes).";

const FMT: &str = "\
fmt      Prints each plan in its canonical form on standard output: the plan
         with an id minted into every component that needs one. Minted ids
         are fresh ULIDs (the clock and the system's randomness), so two runs
         on a plan with missing ids give different ids; a canonical plan
         formats to the same bytes.
         --write  writes the canonical form back into each FILE instead (only
                  when it differs; not with -)
         --check  writes nothing and fails when a FILE is not canonical
         A plan with issues is not formatted: its issues go to standard
         error, as check prints them.";

const CATALOG: &str = "\
catalog  Prints every component of the dialect on a line of its own: its
         attributes (? marks an optional one) with their allowed values,
         where it may stand and what it may hold; then what Markdown is
         refused. The text chopin-mcp-server gives models with its
         instructions.";

const EXIT_STATUS: &str = "\
Exit status: 0 when every plan is clean (and, for fmt --check, canonical);
1 when any plan has issues (or, for fmt --check, is not canonical); 2 on a
usage error or when a FILE cannot be read or written (or is not UTF-8).";

/// The command line: one of the commands, each a variant of [`Command`].
#[derive(Debug, Parser)]
#[command(
    name = "chopin-plan",
    version,
    about = ABOUT,
    disable_help_subcommand = true,
    propagate_version = true,
    args_override_self = true,
    subcommand_required = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report every issue of each plan, one line each
    Check {
        /// text (default), or a line of JSON for each FILE
        #[arg(long, value_name = "text|json", value_parser = format, allow_hyphen_values = true)]
        format: Option<Format>,
        /// the plans (- for standard input)
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
    /// Print each plan in its canonical form
    Fmt {
        /// write the canonical form back into each FILE instead
        #[arg(long, conflicts_with = "check")]
        write: bool,
        /// write nothing; fail when a FILE is not canonical
        #[arg(long)]
        check: bool,
        /// the plans (- for standard input)
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
    /// Print every component of the dialect and what Markdown is refused
    Catalog,
}

/// `--format text|json`.
fn format(text: &str) -> Result<Format, String> {
    match text {
        "text" => Ok(Format::Text),
        "json" => Ok(Format::Json),
        other => Err(format!("--format must be text or json, not '{other}'")),
    }
}

/// The clap command, its help texts put together: every command's on the
/// first page, each command's own on its page.
fn command() -> clap::Command {
    let page = |texts: &[&str]| format!("{STDIN}\n\n{}\n\n{EXIT_STATUS}", texts.join("\n"));
    Cli::command()
        // No command: clap's error saying so, not the help on stderr.
        .arg_required_else_help(false)
        .after_help(page(&[CHECK, FMT, CATALOG]))
        .mut_subcommand("check", |c| c.before_help(ABOUT).after_help(page(&[CHECK])))
        .mut_subcommand("fmt", |c| c.before_help(ABOUT).after_help(page(&[FMT])))
        .mut_subcommand("catalog", |c| {
            c.before_help(ABOUT).after_help(page(&[CATALOG]))
        })
}

/// What to do, once the command line is read.
#[derive(Debug, PartialEq, Eq)]
enum Run {
    Catalog,
    Check { format: Format, files: Vec<Input> },
    Fmt { mode: FmtMode, files: Vec<Input> },
}

/// Reads the command line: help and the version, as usage errors, are
/// clap's errors to print.
fn read(args: impl IntoIterator<Item = OsString>) -> Result<Run, clap::Error> {
    let mut command = command();
    let matches = command.try_get_matches_from_mut(args).map_err(|error| {
        // A value's own check says it all, the value included.
        match std::error::Error::source(&error) {
            Some(reason) if error.kind() == ErrorKind::ValueValidation => {
                command.error(ErrorKind::ValueValidation, reason.to_string())
            }
            _ => error,
        }
    })?;
    let cli = Cli::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
    let inputs = |files: Vec<PathBuf>| files.into_iter().map(Input::from_arg).collect();
    Ok(match cli.command {
        Command::Catalog => Run::Catalog,
        Command::Check { format, files } => Run::Check {
            format: format.unwrap_or(Format::Text),
            files: inputs(files),
        },
        Command::Fmt {
            write,
            check,
            files,
        } => {
            let files: Vec<Input> = inputs(files);
            if write && files.contains(&Input::Stdin) {
                return Err(command.error(
                    ErrorKind::ArgumentConflict,
                    "fmt --write cannot write to standard input",
                ));
            }
            let mode = match (write, check) {
                (true, _) => FmtMode::Write,
                (false, true) => FmtMode::Check,
                (false, false) => FmtMode::Print,
            };
            Run::Fmt { mode, files }
        }
    })
}

fn main() -> ExitCode {
    let run = match read(std::env::args_os()) {
        Ok(run) => run,
        Err(error) => return usage(&error),
    };
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let mut stderr = io::stderr().lock();
    let status = match run {
        Run::Catalog => write_or_fail(&mut stdout, catalog_summary().as_bytes()),
        Run::Check { format, files } => run_check(format, &files, &mut stdout, &mut stderr),
        Run::Fmt { mode, files } => run_fmt(mode, &files, &mut stdout, &mut stderr),
    };
    ExitCode::from(status.code())
}

/// Help and the version on standard output (0); a usage error on standard
/// error, after `chopin-plan: ` (2).
fn usage(error: &clap::Error) -> ExitCode {
    let text = error.to_string();
    if !error.use_stderr() {
        return ExitCode::from(write_or_fail(&mut io::stdout().lock(), text.as_bytes()).code());
    }
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    let _ = write!(io::stderr().lock(), "chopin-plan: {text}");
    ExitCode::from(2)
}

/// The worst thing that happened to any file; the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Clean,
    Issues,
    Failed,
}

impl Status {
    fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Issues => 1,
            Status::Failed => 2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FmtMode {
    Print,
    Write,
    Check,
}

/// Where a plan comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn from_arg(arg: PathBuf) -> Input {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(arg)
        }
    }

    /// The plan's text. Standard input is read once; a second `-` reads
    /// what is left of it (nothing).
    fn read(&self) -> Result<String, String> {
        let bytes = match self {
            Input::Stdin => {
                let mut bytes = Vec::new();
                io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .map_err(|e| format!("{self}: cannot read: {e}"))?;
                bytes
            }
            Input::File(path) => fs::read(path).map_err(|e| format!("{self}: cannot read: {e}"))?,
        };
        String::from_utf8(bytes).map_err(|e| {
            format!(
                "{self}: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        })
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("<stdin>"),
            Input::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// One issue in the compact format editors and CI annotators read.
fn write_issue(out: &mut impl Write, input: &Input, issue: &Issue) -> io::Result<()> {
    match (issue.line, issue.column) {
        (Some(line), Some(column)) => writeln!(
            out,
            "{input}:{line}:{column}: {}: {}",
            issue.code, issue.message
        ),
        _ => writeln!(out, "{input}: {}: {}", issue.code, issue.message),
    }
}

/// Runs `each` on every plan in turn, after reading it: the worst status
/// wins. A file that cannot be read is reported and skipped; standard output
/// failing stops the run.
fn each_plan<O: Write, E: Write>(
    files: &[Input],
    stdout: &mut O,
    stderr: &mut E,
    mut each: impl FnMut(&Input, String, &mut O, &mut E) -> io::Result<Status>,
) -> Status {
    let mut status = Status::Clean;
    for input in files {
        let plan = match input.read() {
            Ok(plan) => plan,
            Err(message) => {
                status = status.max(fail(stderr, &message));
                continue;
            }
        };
        match each(input, plan, stdout, stderr) {
            Ok(found) => status = status.max(found),
            Err(e) => return output_failed(stderr, &e),
        }
    }
    status.max(flush(stdout, stderr))
}

fn run_check(
    format: Format,
    files: &[Input],
    stdout: &mut impl Write,
    stderr: &mut impl Write,
) -> Status {
    each_plan(files, stdout, stderr, |input, plan, stdout, _| {
        // Issues do not depend on the minted ids' values, only on their
        // number: deterministic ids keep `check` free of the clock.
        let report = check(&plan, &SequentialIds::new(0));
        match format {
            Format::Text => report
                .issues
                .iter()
                .try_for_each(|issue| write_issue(stdout, input, issue))?,
            Format::Json => {
                stdout.write_all(&issues_json(&report.issues))?;
                stdout.write_all(b"\n")?;
            }
        }
        Ok(if report.issues.is_empty() {
            Status::Clean
        } else {
            Status::Issues
        })
    })
}

fn run_fmt(
    mode: FmtMode,
    files: &[Input],
    stdout: &mut impl Write,
    stderr: &mut impl Write,
) -> Status {
    each_plan(files, stdout, stderr, |input, plan, stdout, stderr| {
        let report = check(&plan, &SystemIds);
        if !report.issues.is_empty() {
            for issue in &report.issues {
                write_issue(stderr, input, issue)?;
            }
            return Ok(Status::Issues);
        }
        match mode {
            FmtMode::Print => stdout.write_all(report.canonical.as_bytes())?,
            FmtMode::Check if report.canonical != plan => {
                writeln!(
                    stdout,
                    "{input}: not canonical ({} id{} to mint; run chopin-plan fmt --write)",
                    report.minted,
                    if report.minted == 1 { "" } else { "s" }
                )?;
                return Ok(Status::Issues);
            }
            FmtMode::Check => {}
            FmtMode::Write if report.canonical == plan => {}
            FmtMode::Write => {
                let Input::File(path) = input else {
                    unreachable!("refused when parsed")
                };
                if let Err(e) = replace(path, report.canonical.as_bytes()) {
                    return Ok(fail(stderr, &format!("{input}: cannot write: {e}")));
                }
            }
        }
        Ok(Status::Clean)
    })
}

/// Writes `contents` beside `path` and renames it over `path`, so that a
/// reader never sees half a plan and a failed write leaves the file as it
/// was. The file keeps its permissions.
fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    let permissions = fs::metadata(path)?.permissions();
    let mut name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
        .to_os_string();
    name.push(".chopin-plan.tmp");
    let temporary = path.with_file_name(name);
    let written = fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(contents)?;
        file.set_permissions(permissions)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| fs::rename(&temporary, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    renamed
}

fn fail(stderr: &mut impl Write, message: &str) -> Status {
    let _ = writeln!(stderr, "chopin-plan: {message}");
    Status::Failed
}

/// Standard output went away or failed: stop. A closed pipe (`| head`) is
/// not worth a message.
fn output_failed(stderr: &mut impl Write, error: &io::Error) -> Status {
    if error.kind() != io::ErrorKind::BrokenPipe {
        let _ = writeln!(stderr, "chopin-plan: cannot write output: {error}");
    }
    Status::Failed
}

fn flush(stdout: &mut impl Write, stderr: &mut impl Write) -> Status {
    match stdout.flush() {
        Ok(()) => Status::Clean,
        Err(e) => output_failed(stderr, &e),
    }
}

fn write_or_fail(stdout: &mut impl Write, text: &[u8]) -> Status {
    match stdout.write_all(text).and_then(|()| stdout.flush()) {
        Ok(()) => Status::Clean,
        Err(e) => output_failed(&mut io::stderr(), &e),
    }
}
