//! The README's commands run as it spells them: every command of its `sh`
//! blocks is read from README.md and run by `bash` in a scratch copy of the
//! repository (its tracked files and the untracked ones git does not
//! ignore, as they are now), so the test follows the README when it
//! changes, and a command it does not know how to check fails it.
//!
//! - The first block starts the server: it must print the banner the README
//!   shows (its own token and address in place of the README's), answer the
//!   README's `curl` calls with the token and URL it printed, and stop on
//!   SIGTERM.
//! - The lost-token commands run on the database that start made; a restart
//!   then accepts the token they printed and refuses the first one.
//! - The `cargo install` commands install into the scratch folder; the
//!   installed commands the README shows then run from there (a server is
//!   started, called and stopped; `chopin-plan check plan.md` checks
//!   docs/plans.md's complete plan).
//! - The test command must be the one `.ci/run` runs.
//!
//! What differs from a reader's terminal is the environment only: the
//! target folder is this build's (`CARGO_TARGET_DIR`: nothing is built
//! twice, and the scratch copy's files keep their modification times, so
//! cargo finds the sources it built from), the servers bind a free port
//! (`CHOPIN_MCP_LISTEN=127.0.0.1:0`, the default `--listen` they read),
//! `cargo install` installs into the scratch folder (`CARGO_INSTALL_ROOT`,
//! put first on `PATH`), and the `curl` block is given the printed token and
//! URL, as a reader would paste them.
//!
//! It builds the release binaries, minutes on a fresh machine: it runs under
//! `CI` (as `.ci/run` sets it) or with `CHOPIN_README_COMMANDS=1`, and says
//! it skipped otherwise.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a first start may take: a release build from nothing on a
/// two-core machine.
const FIRST_BUILD: Duration = Duration::from_secs(40 * 60);

fn wanted() -> bool {
    if std::env::var_os("CI").is_some() || std::env::var_os("CHOPIN_README_COMMANDS").is_some() {
        return true;
    }
    println!(
        "skipped: the README's commands build release binaries (minutes); \
         run with CHOPIN_README_COMMANDS=1, as CI does"
    );
    false
}

/// The repository's root, and the target folder this test was built in.
fn places() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    (root, target)
}

/// A scratch copy of the repository: the files git lists, modification
/// times kept. Removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn copy_repository(root: &Path) -> Scratch {
    let dir = std::env::temp_dir().join(format!("chopin-readme-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .expect("git, to list the repository's files");
    assert!(listed.status.success(), "git ls-files failed");
    for name in listed.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).expect("a UTF-8 file name");
        let from = root.join(name);
        // Listed but deleted in the working tree: a clone would have it,
        // this working tree does not; neither does the copy.
        let Ok(meta) = fs::symlink_metadata(&from) else {
            continue;
        };
        let to = dir.join(name);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&from).unwrap(), &to).unwrap();
            continue;
        }
        fs::copy(&from, &to).unwrap();
        let file = fs::File::options().write(true).open(&to).unwrap();
        file.set_modified(meta.modified().unwrap()).unwrap();
    }
    Scratch(dir)
}

/// The commands of a Markdown file's `sh` blocks, block by block: lines
/// joined where they end in `\`, and a trailing `# comment` dropped.
fn sh_blocks(markdown: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line != "```sh" {
            continue;
        }
        let mut commands = Vec::new();
        let mut current = String::new();
        for line in lines.by_ref() {
            if line == "```" {
                break;
            }
            match line.strip_suffix('\\') {
                Some(start) => current.push_str(start),
                None => {
                    current.push_str(line);
                    let command = strip_comment(&current).trim().to_owned();
                    if !command.is_empty() {
                        commands.push(command);
                    }
                    current.clear();
                }
            }
        }
        blocks.push(commands);
    }
    blocks
}

/// `command` without a `#` comment that starts after whitespace outside
/// quotes.
fn strip_comment(command: &str) -> &str {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in command.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return &command[..at],
            _ => {}
        }
        previous = c;
    }
    command
}

/// The first ```` ```text ```` block after `after` in `markdown`.
fn text_block_after<'a>(markdown: &'a str, after: &str) -> &'a str {
    let from = markdown.find(after).expect("the command") + after.len();
    let start = markdown[from..].find("```text\n").expect("a text block") + from + 8;
    let len = markdown[start..].find("```").expect("the block ends");
    &markdown[start..start + len]
}

/// How the test runs commands: in the scratch copy, with the environment
/// the module docs describe.
struct Shell {
    dir: PathBuf,
    target: PathBuf,
    install_root: PathBuf,
}

impl Shell {
    fn command(&self, text: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .args(["-c", text])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_INSTALL_ROOT", &self.install_root)
            .env("CHOPIN_MCP_LISTEN", "127.0.0.1:0")
            .env("CARGO_TERM_COLOR", "never")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.install_root.join("bin")];
        paths.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(paths).unwrap());
        command
    }

    /// Runs `text` to its end; fails the test unless it succeeds.
    fn run(&self, text: &str) -> Output {
        let output = self.command(text).output().expect("run bash");
        assert!(
            output.status.success(),
            "`{text}` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Starts the server command `text`: once it printed its address, the
    /// lines it printed up to there.
    fn start(&self, text: &str, within: Duration) -> Running {
        let mut child = self
            .command(&format!("exec {text}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the server");
        let (lines, printed) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = child.stderr.take().unwrap();
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                text.push_str(&line);
                text.push('\n');
            }
            text
        });
        let until = Instant::now() + within;
        let mut banner = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match printed.recv_timeout(left) {
                Ok(line) => {
                    let ready = line.starts_with("chopin-mcp listening on ");
                    banner.push(line);
                    if ready {
                        break;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "`{text}` printed no address:\n{}\n{}",
                        banner.join("\n"),
                        errors.join().unwrap_or_default()
                    );
                }
            }
        }
        // Keep reading what it prints, so that it never blocks on a pipe.
        std::thread::spawn(move || printed.iter().for_each(drop));
        Running {
            child,
            banner,
            errors: Some(errors),
        }
    }
}

/// A server started by [`Shell::start`].
struct Running {
    child: Child,
    banner: Vec<String>,
    errors: Option<std::thread::JoinHandle<String>>,
}

impl Running {
    /// The base URL it printed: `http://ADDR`.
    fn base(&self) -> String {
        let line = self.banner.last().unwrap();
        let url = line.strip_prefix("chopin-mcp listening on ").unwrap();
        url.strip_suffix("/mcp").expect("an /mcp URL").to_owned()
    }

    /// The token it printed, if it generated one.
    fn token(&self) -> Option<String> {
        self.banner.iter().find_map(|line| {
            let rest = line.strip_prefix("token: ")?;
            Some(rest.split(' ').next()?.to_owned())
        })
    }

    /// Stops it with SIGTERM, as a service manager or Ctrl-C would; its
    /// exit status.
    fn stop(mut self) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success());
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let _ = self.errors.take().map(std::thread::JoinHandle::join);
                return status;
            }
            assert!(Instant::now() < until, "no exit within 30 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The README's call block with `token` and `base` in place of its own:
/// what it prints.
fn call(shell: &Shell, block: &[String], token: &str, base: &str) -> String {
    let script: Vec<String> = block
        .iter()
        .map(|command| match command.strip_prefix("TOKEN=") {
            Some(_) => format!("TOKEN={token}"),
            None => command.replace("http://127.0.0.1:8080", base),
        })
        .collect();
    let output = shell.run(&script.join("\n"));
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The banner as the README shows it: the README's example token and
/// address in place of the printed ones, and the lines the README leaves
/// out (how the workers are placed, which depends on the machine) left out.
fn as_shown(banner: &[String], token: &str, base: &str, readme_token: &str) -> Vec<String> {
    banner
        .iter()
        .filter(|line| !line.starts_with("workers: "))
        .map(|line| {
            line.replace(token, readme_token)
                .replace(base, "http://127.0.0.1:8080")
        })
        .collect()
}

#[test]
fn the_readme_commands_run_as_written() {
    if !wanted() {
        return;
    }
    let (root, target) = places();
    let scratch = copy_repository(&root);
    let shell = Shell {
        dir: scratch.0.clone(),
        target,
        install_root: scratch.0.join(".cargo-install"),
    };
    let readme = fs::read_to_string(scratch.0.join("README.md")).unwrap();
    let blocks = sh_blocks(&readme);
    let mut unchecked: Vec<&String> = blocks.iter().flatten().collect();
    let mut checked = |command: &str| unchecked.retain(|c| c.as_str() != command);

    // Try it: the first command starts the server.
    let serve = blocks[0].first().expect("a first command").clone();
    assert_eq!(
        blocks[0].len(),
        1,
        "the first block is the one command to run"
    );
    checked(&serve);
    let call_block = blocks
        .iter()
        .find(|block| block.iter().any(|c| c.starts_with("curl ")))
        .expect("a curl call")
        .clone();
    call_block.iter().for_each(|c| checked(c));
    let readme_banner: Vec<String> = text_block_after(&readme, &format!("```sh\n{serve}"))
        .lines()
        .map(str::to_owned)
        .collect();
    let readme_token = readme_banner
        .iter()
        .find_map(|line| line.strip_prefix("token: "))
        .and_then(|rest| rest.split(' ').next())
        .expect("the README shows a token line")
        .to_owned();

    let started = Instant::now();
    let server = shell.start(&serve, FIRST_BUILD);
    println!("first start (its build included): {:?}", started.elapsed());
    let first = server.token().expect("a first run prints its token");
    let base = server.base();
    assert_eq!(
        as_shown(&server.banner, &first, &base, &readme_token),
        readme_banner,
        "the README shows what the first run prints"
    );
    let answered = call(&shell, &call_block, &first, &base);
    assert!(
        answered.contains(r#""documents":[{"id":"01JD2X7K4M8Q3R5T6V7W8X9Y0Z","title":"Keep the reading position offline"}]"#),
        "{answered}"
    );
    assert!(
        answered.contains("\n# Keep the reading position offline\n"),
        "{answered}"
    );
    assert!(server.stop().success(), "SIGTERM ends the server cleanly");

    // Lost your token? The commands, on the database the first run made.
    let mut replaced = None;
    for command in blocks.iter().flatten().filter(|c| c.contains(" token ")) {
        let output = shell.run(command);
        let printed = String::from_utf8(output.stdout).unwrap();
        if command.contains(" token add ") {
            replaced = Some(printed.trim().to_owned());
        }
        checked(command);
    }
    let second = replaced.expect("the README says how to mint a new token");
    let server = shell.start(&serve, Duration::from_secs(120));
    assert_eq!(server.token(), None, "a later run keeps the stored tokens");
    let base = server.base();
    let answered = call(&shell, &call_block, &second, &base);
    assert!(
        answered.contains("Keep the reading position offline"),
        "{answered}"
    );
    let refused = call(&shell, &call_block, &first, &base);
    assert!(refused.contains(r#""message":"unauthorized""#), "{refused}");
    assert!(server.stop().success());

    // Install, then what the README runs with the installed commands.
    for command in blocks
        .iter()
        .flatten()
        .filter(|c| c.starts_with("cargo install "))
    {
        let started = Instant::now();
        shell.run(command);
        println!("`{command}`: {:?}", started.elapsed());
        checked(command);
    }
    let mut installed: Vec<String> = fs::read_dir(shell.install_root.join("bin"))
        .expect("cargo install put commands in the scratch folder")
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    installed.sort();
    assert_eq!(
        installed,
        ["chopin-mcp-blocking", "chopin-mcp-server", "chopin-plan"]
    );
    for name in &installed {
        assert!(readme.contains(name), "the README names {name}");
    }
    fs::write(scratch.0.join("plan.md"), complete_plan(&scratch.0)).unwrap();
    for command in blocks
        .iter()
        .flatten()
        .filter(|c| {
            installed
                .iter()
                .any(|name| c.starts_with(&format!("{name} ")))
                || installed.contains(c)
        })
        .cloned()
        .collect::<Vec<_>>()
    {
        let is_server = command.starts_with("chopin-mcp-")
            && !command.contains("--help")
            && !command.contains(" token ");
        if is_server {
            let server = shell.start(&command, Duration::from_secs(60));
            let answered = call(&shell, &call_block, &second, &server.base());
            assert!(
                answered.contains("Keep the reading position offline"),
                "{command}: {answered}"
            );
            server.stop();
        } else {
            let output = shell.run(&command);
            if command.contains("--help") {
                assert!(!output.stdout.is_empty(), "{command}");
            }
        }
        checked(&command);
    }

    // The test command is CI's.
    let ci = fs::read_to_string(scratch.0.join(".ci/run")).unwrap();
    for command in blocks
        .iter()
        .flatten()
        .filter(|c| c.starts_with("cargo test "))
    {
        assert!(
            ci.lines().any(|line| line == command),
            "`{command}` is what .ci/run runs"
        );
        checked(command);
    }
    assert!(
        unchecked.is_empty(),
        "README commands this test does not run: {unchecked:?}"
    );
}

/// docs/plans.md's complete plan, for `chopin-plan check plan.md`.
fn complete_plan(dir: &Path) -> String {
    let page = fs::read_to_string(dir.join("docs/plans.md")).unwrap();
    let section = &page[page.find("## A complete plan").unwrap()..];
    let start = section.find("```mdx\n").unwrap() + 7;
    let len = section[start..].find("\n```\n").unwrap() + 1;
    section[start..start + len].to_owned()
}

#[test]
fn commands_are_read_from_sh_blocks_as_a_shell_reads_them() {
    let markdown = "x\n```sh\na \\\n  b  # c\n# only a comment\nd 'e # f'\n```\n```text\nno\n```\n";
    assert_eq!(
        sh_blocks(markdown),
        [vec!["a   b".to_owned(), "d 'e # f'".to_owned()]]
    );
}
