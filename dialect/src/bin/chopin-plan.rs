//! `chopin-plan`: check and format Chopin plan files with the dialect's own
//! parser, validator and canonicalizer. `chopin-plan --help` says how.
//!
//! The arguments are parsed by hand: the crate's dependencies stay what the
//! dialect needs.

use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chopin_dialect::{Issue, SequentialIds, SystemIds, catalog_summary, check, issues_json};

const USAGE: &str = "\
chopin-plan: check and format Chopin plan documents (Markdown with the Chopin
components). The plan dialect, every component and its attributes:
docs/plans.md in the chopin-mcp repository, or chopin-plan catalog.

Usage:
  chopin-plan check [--format text|json] FILE...
  chopin-plan fmt [--write | --check] FILE...
  chopin-plan catalog
  chopin-plan --help | --version

A FILE of - is standard input, named <stdin> in messages.

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
         in UTF-8 bytes).
fmt      Prints each plan in its canonical form on standard output: the plan
         with an id minted into every component that needs one. Minted ids
         are fresh ULIDs (the clock and the system's randomness), so two runs
         on a plan with missing ids give different ids; a canonical plan
         formats to the same bytes.
         --write  writes the canonical form back into each FILE instead (only
                  when it differs; not with -)
         --check  writes nothing and fails when a FILE is not canonical
         A plan with issues is not formatted: its issues go to standard
         error, as check prints them.
catalog  Prints every component of the dialect on a line of its own: its
         attributes (? marks an optional one) with their allowed values,
         where it may stand and what it may hold; then what Markdown is
         refused. The text chopin-mcp-server gives models with its
         instructions.

Exit status: 0 when every plan is clean (and, for fmt --check, canonical);
1 when any plan has issues (or, for fmt --check, is not canonical); 2 on a
usage error or when a FILE cannot be read or written (or is not UTF-8).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match Command::parse(&args) {
        Ok(command) => command,
        Err(Usage(message)) => {
            eprintln!("chopin-plan: {message}\nTry 'chopin-plan --help'.");
            return ExitCode::from(2);
        }
    };
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let mut stderr = io::stderr().lock();
    let status = match command {
        Command::Help => write_or_fail(&mut stdout, USAGE.as_bytes()),
        Command::Version => write_or_fail(
            &mut stdout,
            concat!("chopin-plan ", env!("CARGO_PKG_VERSION"), "\n").as_bytes(),
        ),
        Command::Catalog => write_or_fail(&mut stdout, catalog_summary().as_bytes()),
        Command::Check { format, files } => run_check(format, &files, &mut stdout, &mut stderr),
        Command::Fmt { mode, files } => run_fmt(mode, &files, &mut stdout, &mut stderr),
    };
    ExitCode::from(status.code())
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

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    Catalog,
    Check { format: Format, files: Vec<Input> },
    Fmt { mode: FmtMode, files: Vec<Input> },
}

/// A usage error's message.
#[derive(Debug)]
struct Usage(String);

impl Command {
    fn parse(args: &[String]) -> Result<Command, Usage> {
        let mut rest = args.iter().map(String::as_str);
        let subcommand = match rest.next() {
            None => return Err(Usage("no command given (check, fmt or catalog)".into())),
            Some("-h" | "--help") => return Ok(Command::Help),
            Some("-V" | "--version") => return Ok(Command::Version),
            Some("catalog") => {
                return match rest.next() {
                    None => Ok(Command::Catalog),
                    Some("-h" | "--help") => Ok(Command::Help),
                    Some(other) => Err(Usage(format!("catalog takes no argument, not '{other}'"))),
                };
            }
            Some(name @ ("check" | "fmt")) => name,
            Some(other) => return Err(Usage(format!("unknown command '{other}'"))),
        };
        let mut format = Format::Text;
        let mut mode = FmtMode::Print;
        let mut files = Vec::new();
        let mut options_done = false;
        while let Some(arg) = rest.next() {
            if options_done || arg == "-" || !arg.starts_with('-') {
                files.push(Input::from_arg(arg));
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (arg, None),
            };
            match (subcommand, name) {
                (_, "--") if inline.is_none() => options_done = true,
                (_, "-h" | "--help") if inline.is_none() => return Ok(Command::Help),
                (_, "-V" | "--version") if inline.is_none() => return Ok(Command::Version),
                ("check", "--format") => {
                    let value = match inline {
                        Some(value) => value,
                        None => rest
                            .next()
                            .ok_or_else(|| Usage("--format needs a value (text or json)".into()))?,
                    };
                    format = match value {
                        "text" => Format::Text,
                        "json" => Format::Json,
                        other => {
                            return Err(Usage(format!(
                                "--format must be text or json, not '{other}'"
                            )));
                        }
                    };
                }
                ("fmt", "--write" | "--check") if inline.is_none() => {
                    let wanted = if name == "--write" {
                        FmtMode::Write
                    } else {
                        FmtMode::Check
                    };
                    if mode != FmtMode::Print && mode != wanted {
                        return Err(Usage("--write and --check exclude each other".into()));
                    }
                    mode = wanted;
                }
                _ => return Err(Usage(format!("unknown option '{arg}' for {subcommand}"))),
            }
        }
        if files.is_empty() {
            return Err(Usage(format!(
                "{subcommand} needs at least one FILE (- for standard input)"
            )));
        }
        if mode == FmtMode::Write && files.contains(&Input::Stdin) {
            return Err(Usage("fmt --write cannot write to standard input".into()));
        }
        Ok(match subcommand {
            "check" => Command::Check { format, files },
            _ => Command::Fmt { mode, files },
        })
    }
}

/// Where a plan comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
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
