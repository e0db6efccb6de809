//! A real OAuth authorization server for the server's OAuth tests: starts
//! `node server/tests/oauth/as.mjs` (oidc-provider, pinned by the committed
//! lockfile) on a loopback port and talks to it over raw HTTP/1.1.
//!
//! Used beside `interop/harness.rs` (the server binaries).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;

/// The authorization server's own clients (see as.mjs).
pub const SERVER_CLIENT: (&str, &str) = ("chopin-server", "chopin-server-secret-0123456789");
pub const READER_BOT: (&str, &str) = ("reader-bot", "reader-bot-secret-0123456789");
pub const OPAQUE_BOT: (&str, &str) = ("opaque-bot", "opaque-bot-secret-0123456789");
/// The one user of the headless login.
pub const USER: &str = "alice";

/// The directory of as.mjs and its node_modules.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth")
}

/// Whether the AS (and the TS SDK for the client side) are installed: when
/// not, the test says it skipped, except under `CI`, where it fails.
/// Seconds since the epoch, as tokens count time.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

pub fn installed() -> bool {
    let needed = [
        (
            dir().join("node_modules/oidc-provider"),
            "npm ci in server/tests/oauth",
        ),
        (
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/interop/node_modules/@modelcontextprotocol/sdk"),
            "npm ci in server/tests/interop",
        ),
    ];
    for (path, how) in needed {
        if !path.exists() {
            let message = format!("{} is missing ({how})", path.display());
            if std::env::var_os("CI").is_some() {
                panic!("CI is set but {message}");
            }
            println!("skipped: {message}");
            return false;
        }
    }
    true
}

/// Runs the TypeScript SDK client's `interop/oauth.mjs MODE` against the
/// server at `resource` (reading `doc_id`, listing `repository`) and
/// returns what it printed; fails the test when it fails.
pub fn sdk_client(mode: &str, resource: &str, doc_id: &str, repository: &str) -> String {
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let output = Command::new("node")
        .args(["oauth.mjs", mode, resource, doc_id, repository])
        .current_dir(&interop)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the SDK's {mode} failed\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A free loopback port (bound and released: the server about to start
/// needs it in `--resource` before it listens).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The running authorization server, killed when dropped.
pub struct AuthServer {
    child: Option<Child>,
    pub issuer: String,
    pub port: u16,
}

impl AuthServer {
    /// Starts it on a free port.
    pub fn start() -> AuthServer {
        AuthServer::start_on(0)
    }

    /// Starts it on `port` (0: any).
    pub fn start_on(port: u16) -> AuthServer {
        let mut child = Command::new("node")
            .arg("as.mjs")
            .arg(port.to_string())
            .current_dir(dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node as.mjs");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let issuer = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(issuer) = line.strip_prefix("issuer ") {
                        break issuer.to_owned();
                    }
                }
                _ => {
                    let _ = child.kill();
                    panic!("the authorization server exited before printing its issuer");
                }
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        let port = issuer
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port");
        AuthServer {
            child: Some(child),
            issuer,
            port,
        }
    }

    /// Stops it (SIGKILL): it answers nothing from then on.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A request to the AS: its status and body.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: &str,
        basic: Option<(&str, &str)>,
    ) -> (u16, String) {
        http(self.port, method, path, content_type, body, basic)
    }

    /// A token minted by the AS's test control (see as.mjs `mint`).
    pub fn mint(&self, spec: serde_json::Value) -> String {
        let (status, body) = self.request(
            "POST",
            "/__test/mint",
            "application/json",
            &spec.to_string(),
            None,
        );
        assert_eq!(status, 200, "mint: {body}");
        json(&body)["token"].as_str().expect("a token").to_owned()
    }

    /// An access token by client credentials, for `resource` with `scope`.
    pub fn client_token(&self, client: (&str, &str), scope: &str, resource: &str) -> String {
        let form = form(&[
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("resource", resource),
        ]);
        let (status, body) = self.request(
            "POST",
            "/token",
            "application/x-www-form-urlencoded",
            &form,
            Some(client),
        );
        assert_eq!(status, 200, "token: {body}");
        json(&body)["access_token"]
            .as_str()
            .expect("an access token")
            .to_owned()
    }

    /// Revokes a token (RFC 7009) as the client it was issued to.
    pub fn revoke(&self, client: (&str, &str), token: &str) {
        let form = form(&[("token", token)]);
        let (status, body) = self.request(
            "POST",
            "/token/revocation",
            "application/x-www-form-urlencoded",
            &form,
            Some(client),
        );
        assert_eq!(status, 200, "revocation: {body}");
    }

    /// Puts a new signing key first (it signs from now on); the old ones stay
    /// published. Returns the new kid.
    pub fn rotate(&self) -> String {
        let (status, body) = self.request("POST", "/__test/rotate", "application/json", "{}", None);
        assert_eq!(status, 200, "rotate: {body}");
        json(&body)["kid"].as_str().expect("a kid").to_owned()
    }

    /// Publishes only the current signing key.
    pub fn retire_old_keys(&self) {
        let (status, body) = self.request("POST", "/__test/retire", "application/json", "{}", None);
        assert_eq!(status, 200, "retire: {body}");
    }

    /// The kids published, signing key first.
    pub fn kids(&self) -> Vec<String> {
        let (_, body) = self.request("GET", "/__test/keys", "application/json", "", None);
        json(&body)["kids"]
            .as_array()
            .expect("kids")
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect()
    }

    /// Claims for a minted access token for `resource`, valid for five
    /// minutes, with `scope`, for caller `sub`.
    pub fn claims(&self, resource: &str, sub: &str, scope: &str) -> serde_json::Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        serde_json::json!({
            "iss": self.issuer, "aud": resource, "sub": sub, "scope": scope,
            "client_id": "minted", "iat": now, "exp": now + 300, "jti": format!("j{now}{sub}"),
        })
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The secret file of the server's introspection client.
pub fn secret_file() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("oauth-secret-{}", std::process::id()));
    std::fs::write(&path, format!("{}\n", SERVER_CLIENT.1)).expect("write the secret file");
    path
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// `application/x-www-form-urlencoded`.
pub fn form(pairs: &[(&str, &str)]) -> String {
    let encode = |text: &str| {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    char::from(b).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// One HTTP/1.1 request to `127.0.0.1:port`, `connection: close`; the status
/// and the (de-chunked) body.
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    content_type: &str,
    body: &str,
    basic: Option<(&str, &str)>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let auth = basic.map_or(String::new(), |(id, secret)| {
        let pair = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        format!("authorization: Basic {pair}\r\n")
    });
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n{auth}content-type: {content_type}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase().starts_with("transfer-encoding:")
            && l.to_ascii_lowercase().contains("chunked")
    });
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    (status, body)
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        text = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}

/// `chopin-mcp-server` in memory with the seed document, signing users in
/// at `auth`: resource `http://127.0.0.1:PORT/mcp`, the static token
/// `allowed` for `octocat`, grants for `alice` and `reader-bot`, then
/// `extra`; stderr captured. Returns the server and its resource.
pub fn serve(auth: &AuthServer, extra: &[&str]) -> (crate::support::Server, String) {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let resource = format!("http://{listen}/mcp");
    let import = crate::support::import_file();
    let mut args = vec![
        "--memory",
        "--token",
        "allowed=octocat",
        "--grant",
        "octocat=*",
        "--import",
        import.to_str().expect("a UTF-8 path"),
        "--listen",
        &listen,
        "--oauth-issuer",
        &auth.issuer,
        "--resource",
        &resource,
        "--grant",
        "alice=*",
        "--grant",
        "reader-bot=*",
    ];
    args.extend_from_slice(extra);
    let server = crate::support::Server::start_capturing("chopin-mcp-server", &args, &[]);
    (server, resource)
}
