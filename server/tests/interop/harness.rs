//! Starting the server binaries (`chopin-mcp-server`, `chopin-mcp-blocking`)
//! as child processes, and talking to them over raw TCP. Cargo builds both
//! binaries before any integration test of this package runs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Both servers: every behaviour is checked on each.
pub const SERVERS: [&str; 2] = ["chopin-mcp-server", "chopin-mcp-blocking"];

/// The token and caller every test server accepts.
pub const TOKEN: &str = "allowed";
pub const DOC_ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

/// A `read_document` call for [`DOC_ID`] (id 1).
pub fn read_body() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{DOC_ID}"}}}}}}"#
    )
}
pub const DOC_TITLE: &str = "Release readiness";

/// The path of a server binary by name, or a path itself (another build,
/// for before/after measurements).
pub fn binary(name: &str) -> PathBuf {
    PathBuf::from(match name {
        "chopin-mcp-server" => env!("CARGO_BIN_EXE_chopin-mcp-server"),
        "chopin-mcp-blocking" => env!("CARGO_BIN_EXE_chopin-mcp-blocking"),
        path if path.starts_with('/') => path,
        other => panic!("no server binary named {other}"),
    })
}

/// Runs `name` with `args` to its exit (for starts that must fail); its exit
/// code and standard error.
pub fn run(name: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(binary(name))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the server");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A running server, killed (SIGKILL) when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    /// The banner's lines up to the address line.
    pub banner: Vec<String>,
    /// What the server wrote to stderr so far, when started with
    /// [`Server::start_capturing`].
    pub stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `name` on an ephemeral loopback port with `args` added.
    pub fn start(name: &str, args: &[&str]) -> Server {
        Server::spawn(name, args, &[], false)
    }

    /// [`Server::start`] with `env` set and stderr captured into
    /// [`Server::stderr`].
    pub fn start_capturing(name: &str, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn(name, args, env, true)
    }

    fn spawn(name: &str, args: &[&str], env: &[(&str, &str)], capture: bool) -> Server {
        let mut command = Command::new(binary(name));
        // Request lines only where a test reads them: a server whose stderr
        // goes to the terminal logs warnings and errors (unless RUST_LOG
        // says otherwise); a capturing one starts from the default (info).
        if capture {
            command.env_remove("RUST_LOG");
        } else if std::env::var_os("RUST_LOG").is_none() {
            command.env("RUST_LOG", "warn");
        }
        let mut child = command
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(if capture {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("start the server");
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(pipe) = child.stderr.take() {
            let stderr = Arc::clone(&stderr);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    let mut text = stderr.lock().unwrap();
                    text.push_str(&line);
                    text.push('\n');
                }
            });
        }
        let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut banner = Vec::new();
        let addr = loop {
            let line = match lines.next() {
                Some(Ok(line)) => line,
                _ => {
                    let _ = child.kill();
                    panic!("{name} exited before printing its address: {banner:?}");
                }
            };
            banner.push(line.clone());
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.trim_end_matches("/mcp");
                break addr.parse().expect("a socket address");
            }
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Server {
            child,
            addr,
            banner,
            stderr,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The stderr captured so far.
    pub fn logs(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The request lines logged so far, waiting up to 5 s for `count` of
    /// them (a line is written after its response, so a client may see its
    /// answer first).
    pub fn request_lines(&self, count: usize) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let lines: Vec<String> = self
                .logs()
                .lines()
                .filter(|line| line.contains("chopin_mcp_server::request"))
                .map(str::to_owned)
                .collect();
            if lines.len() >= count || Instant::now() > until {
                return lines;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a signal (`TERM`, `INT`, …) with kill(1).
    pub fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{name} failed");
    }

    /// Waits up to `limit` for the server to exit on its own.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// The rest of the banner line starting with `prefix`, if any.
    pub fn banner_line(&self, prefix: &str) -> Option<String> {
        self.banner
            .iter()
            .find_map(|line| line.strip_prefix(prefix).map(str::to_owned))
    }

    /// The default test server: in memory, token `allowed` for `octocat`,
    /// who may read everything, with the seed document imported.
    pub fn seeded(name: &str) -> Server {
        Server::seeded_with(name, &[])
    }

    /// [`Server::seeded`] with more flags (e.g. `--read-only`).
    pub fn seeded_with(name: &str, extra: &[&str]) -> Server {
        let import = import_file();
        let import = import.to_str().expect("a UTF-8 temp path");
        let mut args = vec!["--import", import];
        args.extend_from_slice(extra);
        Server::on_db(name, "--memory", &args)
    }

    /// `name` on the database `db` (a path or URL, or `--memory`), token
    /// `allowed` for `octocat`, who may read everything, with `extra` flags.
    pub fn on_db(name: &str, db: &str, extra: &[&str]) -> Server {
        Server::start(name, &db_args(db, extra))
    }

    /// Sends SIGKILL and waits: no chance to flush or clean up.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        stream
    }

    /// Sends raw request bytes and reads until the server closes.
    pub fn raw(&self, request: &[u8]) -> String {
        let mut stream = self.connect();
        // The server may answer and close before taking every byte.
        let _ = stream.write_all(request);
        read_all(&mut stream)
    }

    /// POSTs a JSON-RPC body with the headers clients send.
    pub fn post(&self, body: &str, token: Option<&str>) -> String {
        let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
        self.post_with(body, &auth)
    }

    /// POSTs a JSON-RPC body with the headers clients send and `headers`
    /// (lines each ending in CRLF) after `host`.
    pub fn post_with(&self, body: &str, headers: &str) -> String {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\n{headers}content-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.raw(request.as_bytes())
    }

    /// `tools/call` of `tool` with `arguments` (a JSON object).
    pub fn call(&self, tool: &str, arguments: &str) -> String {
        self.post(
            &format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
            ),
            Some(TOKEN),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Each thread of `pid`: its name and its `/proc/PID/task/TID/status` text
/// (threads that end meanwhile are left out). Linux only.
pub fn thread_statuses(pid: u32) -> Vec<(String, String)> {
    let mut threads = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let path = entry.unwrap().path();
        if let (Ok(name), Ok(status)) = (
            std::fs::read_to_string(path.join("comm")),
            std::fs::read_to_string(path.join("status")),
        ) {
            threads.push((name.trim().to_owned(), status));
        }
    }
    threads
}

/// Reads until EOF, keeping what arrived before a reset.
pub fn read_all(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The status code of a raw response.
pub fn status(response: &str) -> u16 {
    response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// The flags of a test server on `db` (see [`Server::on_db`]), then `extra`.
pub fn db_args<'a>(db: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = match db {
        "--memory" => vec![db],
        _ => vec!["--db", db],
    };
    args.extend(["--token", "allowed=octocat", "--grant", "octocat=*"]);
    args.extend_from_slice(extra);
    args
}

/// A JSON file holding the seed document, for `--import`.
pub fn import_file() -> PathBuf {
    let path = temp_path("import", "json");
    let document = serde_json::json!([{
        "id": DOC_ID,
        "repository": "githubnext/chopin",
        "title": DOC_TITLE,
        "source": "# Release readiness\n\nShip when the checklist is green.\n",
        "revision": 2,
    }]);
    std::fs::write(&path, document.to_string()).expect("write the import file");
    path
}

/// A unique path in the target's temp directory.
pub fn temp_path(stem: &str, extension: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{stem}-{}-{n}.{extension}", std::process::id()))
}

/// Whether an external client the test drives is installed at `path`. When it
/// is not, prints "skipped: …" (with `how` to install it) and returns false, so
/// that a machine without that tool still passes; under CI (env `CI` set) a
/// missing tool fails the test instead, since `.ci/run` installs them all.
pub fn installed(path: &std::path::Path, how: &str) -> bool {
    if path.exists() {
        return true;
    }
    let message = format!("{} is missing ({how})", path.display());
    if std::env::var_os("CI").is_some() {
        panic!("CI is set but {message}");
    }
    println!("skipped: {message}");
    false
}

/// `tests/<folder>` when its npm packages are in (`package` under its
/// `node_modules`); otherwise `None`, having said how to install them (a
/// failure under `CI`, as [`installed`] has it).
pub fn npm_folder(folder: &str, package: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder);
    let how = format!("run `npm ci` in {}", dir.display());
    installed(&dir.join("node_modules").join(package), &how).then_some(dir)
}

/// Runs a real client, `program args…` in `dir` (a script that prints one
/// line per check and exits non-zero when any failed): prints what it wrote
/// under `what`, and fails the test on a non-zero exit.
pub fn run_client(what: &str, program: &std::path::Path, dir: &std::path::Path, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|error| panic!("run {}: {error}", program.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{what}:\n{stdout}");
    assert!(
        output.status.success(),
        "{what} failed\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The Python SDK's interpreter (the venv at `server/tests/python/.venv`,
/// from `python/requirements.txt`), when it is [`installed`].
pub fn python_sdk() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    let python = dir.join(".venv/bin/python");
    let how = format!(
        "make it with `python3 -m venv {0}/.venv && {0}/.venv/bin/pip install -r {0}/requirements.txt`",
        dir.display()
    );
    installed(&python, &how).then_some(python)
}

/// `create_document` arguments for a draft in `githubnext/chopin` with the
/// given idempotency key, title and plan.
pub fn draft(key: &str, title: &str, plan: &str) -> serde_json::Value {
    serde_json::json!({
        "idempotencyKey": key,
        "repository": "githubnext/chopin",
        "baseBranch": "main",
        "baseCommit": "0123456789abcdef0123456789abcdef01234567",
        "title": title,
        "brief": {"goal": "g", "constraints": [], "settledDecisions": [],
                  "openQuestions": [], "repositoryFindings": []},
        "plan": plan,
    })
}

/// The body of a `GET /metrics` from the metrics listener at `addr`.
pub fn scrape(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .unwrap();
    let response = read_all(&mut stream);
    assert_eq!(status(&response), 200, "{response}");
    response.split("\r\n\r\n").nth(1).unwrap().to_owned()
}

/// Every sample of a scrape: `name{a="1",b="2"}` (labels sorted, as the
/// encoder writes them) → value.
pub fn samples(text: &str) -> std::collections::BTreeMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("series and value");
            (series.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}
