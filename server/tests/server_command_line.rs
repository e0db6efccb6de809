//! The servers' command line as a user meets it: a misspelt flag gets
//! clap's suggestion and starts nothing, as does a bad `--grant-read`
//! value (refused in `--grant`'s words), `--listen` takes a bare port as
//! `--metrics-listen` does, and the start-up lines README.md and
//! docs/running.md show are the ones a first start prints.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use chopin_mcp_server::options::{self, Options};

const SERVERS: [&str; 2] = [
    env!("CARGO_BIN_EXE_chopin-mcp-server"),
    env!("CARGO_BIN_EXE_chopin-mcp-blocking"),
];

/// An empty folder of its own, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        // Tests run at once in this process: each folder has a number.
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "chopin-command-line-{name}-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn entries(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn parse(args: &[&str]) -> Options {
    match options::parse(args.iter().map(|a| a.to_string())) {
        Ok(options::Command::Serve(options)) => options,
        Ok(_) => panic!("{args:?} serves"),
        Err(reason) => panic!("{args:?}: {reason}"),
    }
}

#[test]
fn a_misspelt_flag_gets_a_suggestion_exit_2_and_starts_nothing() {
    for server in SERVERS {
        let scratch = Scratch::new("misspelt");
        let db = scratch.0.join("plans.db");
        let out = Command::new(server)
            .args(["--db", db.to_str().unwrap(), "--read-onyl"])
            .current_dir(&scratch.0)
            .env_remove(options::LISTEN_ENV)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{server}: {stderr}");
        assert!(
            stderr.contains("unexpected argument '--read-onyl'"),
            "{server}: {stderr}"
        );
        assert!(
            stderr.contains("tip: a similar argument exists: '--read-only'"),
            "{server}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{server}: nothing started");
        // Neither the named database nor ./chopin.db was made.
        assert_eq!(scratch.entries(), Vec::<PathBuf>::new(), "{server}");
    }
}

#[test]
fn a_bad_grant_read_value_is_refused_exit_2_and_starts_nothing() {
    for server in SERVERS {
        let scratch = Scratch::new("grant-read");
        let db = scratch.0.join("plans.db");
        let out = Command::new(server)
            .args(["--db", db.to_str().unwrap(), "--grant-read", "ann=acme"])
            .current_dir(&scratch.0)
            .env_remove(options::LISTEN_ENV)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{server}: {stderr}");
        assert!(
            stderr.contains(r#"--grant-read: "acme" is not * or OWNER/REPO[,OWNER/REPO...]"#),
            "{server}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{server}: nothing started");
        assert_eq!(scratch.entries(), Vec::<PathBuf>::new(), "{server}");
    }
}

#[test]
fn a_bare_listen_port_binds_the_default_host() {
    for port in ["9090", ":9090"] {
        assert_eq!(
            parse(&["--listen", port]).listen.to_string(),
            "127.0.0.1:9090"
        );
    }
    assert_eq!(
        parse(&["--listen", "[::1]:9090"]).listen.to_string(),
        "[::1]:9090"
    );
    assert_eq!(
        parse(&["--listen=0.0.0.0:80"]).listen.to_string(),
        "0.0.0.0:80"
    );
    let refused = options::parse(["--listen".to_owned(), "70000".to_owned()]);
    assert!(matches!(refused, Err(reason) if reason.starts_with("--listen: \"70000\"")));
    // Port 0 alone: a free port on loopback, on both servers.
    for server in SERVERS {
        let (banner, _) = first_start(server, &["--memory", "--listen", "0"]);
        let line = banner.last().unwrap();
        assert!(
            line.starts_with("chopin-mcp listening on http://127.0.0.1:"),
            "{server}: {line}"
        );
        assert!(!line.ends_with(":0/mcp"), "{server}: {line}");
    }
}

/// Starts `server` with `args` in a fresh folder (its working directory),
/// reads standard output up to the `listening` line and stops it: those
/// lines, and the folder, kept until the caller is done.
fn first_start(server: &str, args: &[&str]) -> (Vec<String>, Scratch) {
    let scratch = Scratch::new("start");
    let mut child = Command::new(server)
        .args(args)
        .current_dir(&scratch.0)
        .env(options::LISTEN_ENV, "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let mut banner = Vec::new();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        let done = line.starts_with("chopin-mcp listening on ");
        banner.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let errors = errors.join().unwrap_or_default();
    assert!(
        banner
            .last()
            .is_some_and(|line| line.starts_with("chopin-mcp listening on ")),
        "{server} printed no address: {banner:?}\n{errors}"
    );
    (banner, scratch)
}

/// The lines of the ```` ```text ```` block of `document` that holds a
/// `listening` line.
fn shown_start(document: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(document).unwrap();
    text.split("```text\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .find(|block| block.contains("chopin-mcp listening on "))
        .unwrap_or_else(|| panic!("{} shows no start", document.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The token of a `token: TOKEN (caller …)` line.
fn token_of(lines: &[String]) -> String {
    lines
        .iter()
        .find_map(|line| line.strip_prefix("token: ")?.split(' ').next())
        .expect("a token line")
        .to_owned()
}

#[test]
fn the_documents_show_what_a_first_start_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // README.md's `cargo run -p chopin-mcp-server` and docs/running.md's
    // `chopin-mcp-server`: no flag, a folder without chopin.db.
    let (printed, scratch) = first_start(SERVERS[0], &[]);
    assert!(scratch.0.join("chopin.db").exists());
    let token = token_of(&printed);
    let listening = printed.last().unwrap();
    let base = listening
        .strip_prefix("chopin-mcp listening on ")
        .and_then(|url| url.strip_suffix("/mcp"))
        .expect("an /mcp URL");
    for document in ["README.md", "docs/running.md"] {
        let shown = shown_start(&root.join(document));
        let shown_token = token_of(&shown);
        // The documents leave out how the workers are placed (it depends
        // on the machine), and show their own token and the default
        // address.
        let as_shown: Vec<String> = printed
            .iter()
            .filter(|line| !line.starts_with("workers: "))
            .map(|line| {
                line.replace(&token, &shown_token)
                    .replace(base, "http://127.0.0.1:8080")
            })
            .collect();
        assert_eq!(as_shown, shown, "{document}");
    }
}
