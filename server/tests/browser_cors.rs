//! CORS proven in a real browser: headless Chromium loads pages from other
//! loopback origins whose scripts drive both servers with `fetch`, and with
//! the official TypeScript SDK client bundled for the browser.
//!
//! | page | origin | what its script checks |
//! |---|---|---|
//! | `fetch.html` | allowed (`--allow-origin`) | initialize, tools/list, read_document, a wrong token's 401 with `www-authenticate` readable |
//! | `sdk.html` | allowed | the SDK's `Client` + `StreamableHTTPClientTransport`: connect, listTools, callTool, a wrong token's 401 as an error |
//! | `blocked.html` | not allowed | a preflighted and a simple request both fail in the browser (`TypeError`) |
//!
//! The pages are files in `server/tests/browser/`, served by a small HTTP
//! server in this test. A page writes one line per check into
//! `<pre id="log">` and its verdict into `<p id="verdict">`; Chromium's
//! `--dump-dom` prints the DOM once `--virtual-time-budget` has run out, and
//! virtual time does not advance while a request is in flight, so the dump
//! follows the page's last check.
//!
//! The origins: the server is bound to 127.0.0.1, where MODERN.md §7 admits
//! the loopback origins `localhost`, `127.0.0.1` and `[::1]` by name. So the
//! allowed pages are served from `http://127.0.0.3:PORT`, admitted only by
//! `--allow-origin`, and the blocked page from `http://127.0.0.2:PORT`, which
//! neither rule admits (all of 127.0.0.0/8 is loopback on Linux). That the
//! server itself refuses the blocked origin, rather than only the browser, is
//! checked with raw requests carrying that `Origin`.
//!
//! Needs `chromium` on the `PATH` (or `CHROMIUM=/path`) and, for the SDK page,
//! `npm ci` in `server/tests/browser` (esbuild bundles `sdk-entry.js` into the
//! target directory). Without them the test prints "skipped: …" and passes,
//! except under `CI`, where it fails.

#[path = "interop/harness.rs"]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::{DOC_ID, SERVERS, Server, TOKEN, status};

/// The allowed pages' loopback address: not a §7 loopback name.
const ALLOWED_IP: &str = "127.0.0.3";
/// The blocked page's loopback address: allowed by nothing.
const BLOCKED_IP: &str = "127.0.0.2";

/// Virtual time a page gets; requests in flight do not use it up.
const VIRTUAL_TIME_BUDGET_MS: u32 = 30_000;
/// Real time one Chromium run gets before it is killed.
const CHROMIUM_DEADLINE: Duration = Duration::from_secs(90);

#[test]
fn a_browser_uses_both_servers_from_an_allowed_origin_and_is_blocked_from_another() {
    let Some(chromium) = chromium() else {
        return unavailable("no chromium on the PATH (apt-get install chromium, or set CHROMIUM)");
    };
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let bundle_dir = support::temp_path("browser-bundle", "d");
    std::fs::create_dir_all(&bundle_dir).expect("create the bundle directory");
    let sdk_bundled = bundle_sdk(&pages, &bundle_dir);

    let allowed = PageServer::start(ALLOWED_IP, vec![pages.clone(), bundle_dir.clone()]);
    let blocked = PageServer::start(BLOCKED_IP, vec![pages.clone()]);
    let allowed_origin = format!("http://{}", allowed.addr);
    let blocked_origin = format!("http://{}", blocked.addr);
    println!("chromium: {}", chromium_version(&chromium));
    println!("allowed origin {allowed_origin}, blocked origin {blocked_origin}");

    let mut failures = Vec::new();
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--allow-origin", &allowed_origin]);
        let mcp = format!("http://{}/mcp", server.addr);
        let query = format!("?mcp={mcp}&token={TOKEN}&doc={DOC_ID}");

        failures.extend(
            server_side_origin_checks(&server, &allowed_origin, &blocked_origin)
                .into_iter()
                .map(|failure| format!("{name}: {failure}")),
        );

        let mut runs = vec![(&allowed, "fetch.html"), (&blocked, "blocked.html")];
        if sdk_bundled {
            runs.insert(1, (&allowed, "sdk.html"));
        }
        for (origin, page) in runs {
            let url = format!("http://{}/{page}{query}", origin.addr);
            let started = Instant::now();
            let outcome = run_page(&chromium, &url);
            let took = started.elapsed();
            match outcome {
                Ok(page_result) => {
                    println!(
                        "{name} {page} ({:.1} s): {}\n{}",
                        took.as_secs_f64(),
                        page_result.verdict,
                        page_result.log
                    );
                    if !page_result.verdict.starts_with("pass:") {
                        failures.push(format!(
                            "{name} {page}: {}\n{}",
                            page_result.verdict, page_result.log
                        ));
                    }
                }
                Err(error) => failures.push(format!("{name} {page}: {error}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&bundle_dir);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Without a tool the test needs: says so and passes, or fails under CI.
fn unavailable(why: &str) {
    if std::env::var_os("CI").is_some_and(|value| !value.is_empty()) {
        panic!("CI is set, but {why}");
    }
    println!("skipped: {why}");
}

/// The Chromium binary: `$CHROMIUM`, else `chromium` on the `PATH`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|candidate| candidate.is_file())
}

fn chromium_version(chromium: &Path) -> String {
    Command::new(chromium)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_else(|error| format!("unknown ({error})"))
}

/// Bundles `sdk-entry.js` with the SDK into `out/sdk.js`; false (after
/// saying why) when `npm ci` has not been run in `pages`.
fn bundle_sdk(pages: &Path, out: &Path) -> bool {
    let esbuild = pages.join("node_modules/.bin/esbuild");
    if !esbuild.exists() {
        unavailable(&format!(
            "{} has no node_modules (run `npm ci` there): the SDK page is not run",
            pages.display()
        ));
        return false;
    }
    let outfile = out.join("sdk.js");
    let output = Command::new(&esbuild)
        .args([
            "sdk-entry.js",
            "--bundle",
            "--format=esm",
            "--platform=browser",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", outfile.display()))
        .current_dir(pages)
        .output()
        .expect("run esbuild");
    assert!(
        output.status.success(),
        "esbuild failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    true
}

/// What a page wrote: its verdict and its log of checks.
struct PageResult {
    verdict: String,
    log: String,
}

/// Loads `url` in headless Chromium with a fresh profile and reads the page's
/// verdict from the dumped DOM.
fn run_page(chromium: &Path, url: &str) -> Result<PageResult, String> {
    let profile = support::temp_path("chromium-profile", "d");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-features=CorsNonWildcardRequestHeadersSupport",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}"))
        .arg("--dump-dom")
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start chromium: {error}"))?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut dom = String::new();
        let _ = stdout.read_to_string(&mut dom);
        let _ = sender.send(dom);
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let dom = receiver.recv_timeout(CHROMIUM_DEADLINE);
    if dom.is_err() {
        let _ = child.kill();
    }
    let exit = child.wait();
    let _ = std::fs::remove_dir_all(&profile);
    let Ok(dom) = dom else {
        return Err(format!(
            "chromium did not finish within {CHROMIUM_DEADLINE:?}: killed"
        ));
    };
    let verdict = element_text(&dom, r#"<p id="verdict">"#, "</p>");
    let log = element_text(&dom, r#"<pre id="log">"#, "</pre>");
    match (verdict, log) {
        (Some(verdict), Some(log)) => Ok(PageResult { verdict, log }),
        _ => {
            let stderr = errors.join().unwrap_or_default();
            let stderr: Vec<&str> = stderr
                .lines()
                .filter(|line| !line.contains("dbus"))
                .collect();
            Err(format!(
                "no verdict in the dumped DOM (chromium {exit:?})\nDOM: {dom}\nstderr:\n{}",
                stderr.join("\n")
            ))
        }
    }
}

/// The text between `open` and the next `close`, with the few entities
/// Chromium's serializer writes in text decoded.
fn element_text(dom: &str, open: &str, close: &str) -> Option<String> {
    let start = dom.find(open)? + open.len();
    let end = start + dom[start..].find(close)?;
    Some(
        dom[start..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&"),
    )
}

/// Raw requests carrying the pages' origins, to see what the server itself
/// answers: the blocked origin is refused (the browser's block is not the
/// only defence), the allowed one is granted a preflight, and only by the
/// exact `--allow-origin` value.
fn server_side_origin_checks(
    server: &Server,
    allowed_origin: &str,
    blocked_origin: &str,
) -> Vec<String> {
    let mut failures = Vec::new();
    let preflight = |origin: &str| {
        server.raw(
            format!(
                "OPTIONS /mcp HTTP/1.1\r\nhost: {}\r\norigin: {origin}\r\n\
                 access-control-request-method: POST\r\n\
                 access-control-request-headers: authorization,content-type\r\n\
                 connection: close\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        )
    };
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let post = |origin: &str| {
        server.raw(
            format!(
                "POST /mcp HTTP/1.1\r\nhost: {}\r\norigin: {origin}\r\n\
                 authorization: Bearer {TOKEN}\r\ncontent-type: application/json\r\n\
                 accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{initialize}",
                server.addr,
                initialize.len()
            )
            .as_bytes(),
        )
    };
    let grant = |response: &str| header(response, "access-control-allow-origin");

    for (what, response) in [
        ("preflight", preflight(blocked_origin)),
        ("POST", post(blocked_origin)),
    ] {
        if status(&response) != 403
            || !response.contains("origin is not allowed")
            || grant(&response).is_some()
        {
            failures.push(format!(
                "{what} from the blocked origin {blocked_origin}: want 403 \
                 `origin is not allowed` without a grant, got:\n{response}"
            ));
        }
    }

    let response = preflight(allowed_origin);
    if status(&response) != 204 || grant(&response).as_deref() != Some(allowed_origin) {
        failures.push(format!(
            "preflight from the allowed origin {allowed_origin}: want 204 granting it, got:\n{response}"
        ));
    }

    // The same address on another port is not the configured origin, nor a
    // §7 loopback name: the allowed pages are admitted by the flag alone.
    let elsewhere = format!("http://{ALLOWED_IP}:1");
    let response = post(&elsewhere);
    if status(&response) != 403 {
        failures.push(format!("POST from {elsewhere}: want 403, got:\n{response}"));
    }
    failures
}

/// The value of the first header named `name` (lower case) in a raw response.
fn header(response: &str, name: &str) -> Option<String> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// Serves the files of its directories (the first that has the name) on an
/// ephemeral port of `ip`: the pages' origin. Its thread lives as long as
/// the test process.
struct PageServer {
    addr: SocketAddr,
}

impl PageServer {
    fn start(ip: &str, dirs: Vec<PathBuf>) -> PageServer {
        let listener = TcpListener::bind((ip, 0)).expect("bind the page server");
        let addr = listener.local_addr().expect("its address");
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let dirs = dirs.clone();
                std::thread::spawn(move || serve_file(stream, &dirs));
            }
        });
        PageServer { addr }
    }
}

/// Answers one GET with a file named by the path (query ignored), or 404.
fn serve_file(mut stream: TcpStream, dirs: &[PathBuf]) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(&stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // The rest of the head.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let target = request_line.split(' ').nth(1).unwrap_or("/");
    let name = target.split('?').next().unwrap_or_default();
    let name = name.trim_start_matches('/');
    let file = if served_name(name) {
        dirs.iter()
            .find_map(|dir| std::fs::read(dir.join(name)).ok())
    } else {
        None
    };
    let head = match &file {
        Some(body) => {
            let content_type = if name.ends_with(".html") {
                "text/html; charset=utf-8"
            } else {
                "text/javascript; charset=utf-8"
            };
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
                 cache-control: no-store\r\nconnection: close\r\n\r\n",
                body.len()
            )
        }
        None => {
            String::from("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        }
    };
    let _ = stream.write_all(head.as_bytes());
    if let Some(body) = file {
        let _ = stream.write_all(&body);
    }
}

/// A plain `.html` or `.js` file name: letters, digits, `-` and `.`, no path.
fn served_name(name: &str) -> bool {
    !name.starts_with('.')
        && (name.ends_with(".html") || name.ends_with(".js"))
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}
