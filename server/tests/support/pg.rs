//! A throwaway PostgreSQL server for tests: `initdb` in a temporary
//! directory (as user `postgres` when the tests run as root: PostgreSQL
//! refuses to run as root), `postgres` on a free loopback port, trust
//! authentication. A small shell watchdog owns the server and stops it
//! (SIGQUIT: an immediate shutdown, no shared memory left behind) and removes
//! the directory when its standard input closes: when the cluster is dropped,
//! or when the test process exits however it exits.
//!
//! Without PostgreSQL binaries the tests say they skipped, except under the
//! environment variable `CI`, where they fail (a CI that lost its install
//! step cannot go green by skipping). `PG_BINDIR` names the binaries'
//! directory; otherwise the newest `/usr/lib/postgresql/NN/bin`, else
//! `initdb` on the PATH.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running throwaway PostgreSQL server.
pub struct Cluster {
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    watchdog: Child,
    /// Closing it stops the server.
    stdin: Option<ChildStdin>,
}

/// The cluster this test binary shares (started on first use), or `None`
/// (after printing why) when PostgreSQL is not installed.
pub fn shared() -> Option<&'static Cluster> {
    static SHARED: OnceLock<Option<Cluster>> = OnceLock::new();
    SHARED.get_or_init(start).as_ref()
}

/// A cluster of the caller's own (to stop it mid-test), or `None` (after
/// printing why) when PostgreSQL is not installed.
pub fn start() -> Option<Cluster> {
    let Some(bin) = binaries() else {
        let message = "skipped: PostgreSQL is not installed (apt-get install postgresql)";
        assert!(std::env::var_os("CI").is_none(), "under CI: {message}");
        eprintln!("{message}");
        return None;
    };
    let mut last = String::new();
    for _ in 0..5 {
        match Cluster::try_start(&bin) {
            Ok(cluster) => return Some(cluster),
            Err(e) => last = e,
        }
    }
    panic!("cannot start a throwaway PostgreSQL: {last}");
}

fn binaries() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BINDIR") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("initdb"))
        .find(|initdb| initdb.exists())
        .and_then(|initdb| initdb.canonicalize().ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
}

/// `postgres`'s uid and gid when this process is root, else `None`.
fn server_user() -> Option<(u32, u32)> {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    let line = passwd
        .lines()
        .find(|line| line.starts_with("postgres:"))
        .expect("running as root, and no user postgres to run PostgreSQL as");
    let fields: Vec<&str> = line.split(':').collect();
    Some((
        fields[2].parse().expect("a uid"),
        fields[3].parse().expect("a gid"),
    ))
}

fn as_server_user(command: &mut Command) -> &mut Command {
    if let Some((uid, gid)) = server_user() {
        command.uid(uid).gid(gid);
    }
    command
}

impl Cluster {
    fn try_start(bin: &Path) -> Result<Cluster, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        // Short: the socket path must stay under 107 bytes.
        let dir = PathBuf::from(format!(
            "/tmp/chpg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Some((uid, gid)) = server_user() {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
        }
        let initdb = as_server_user(&mut Command::new(bin.join("initdb")))
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"])
            .arg("--no-sync")
            .arg("-D")
            .arg(dir.join("data"))
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !initdb.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "initdb: {}",
                String::from_utf8_lossy(&initdb.stderr)
            ));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        // The watchdog: starts the server, waits for its stdin to close,
        // then stops the server and removes the directory.
        let script = r#"
            "$1/postgres" -D "$2/data" -p "$3" -k "$2" -c listen_addresses=127.0.0.1 \
                -c max_connections=300 >"$2/server.log" 2>&1 &
            pid=$!
            echo "started $pid"
            read -r _ || true
            kill -QUIT "$pid" 2>/dev/null
            wait "$pid"
            rm -rf "$2"
        "#;
        let mut watchdog = as_server_user(&mut Command::new("sh"))
            .arg("-c")
            .arg(script)
            .arg("watchdog")
            .arg(bin)
            .arg(&dir)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("sh: {e}"))?;
        let mut started = String::new();
        let stdout = watchdog.stdout.take().expect("piped stdout");
        BufReader::new(stdout)
            .read_line(&mut started)
            .map_err(|e| e.to_string())?;
        let mut cluster = Cluster {
            port,
            bin: bin.to_path_buf(),
            dir,
            stdin: watchdog.stdin.take(),
            watchdog,
        };
        let until = Instant::now() + Duration::from_secs(30);
        while Instant::now() < until {
            let ready = Command::new(cluster.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Ok(cluster);
            }
            let log = std::fs::read_to_string(cluster.dir.join("server.log")).unwrap_or_default();
            if log.contains("could not bind") || log.contains("FATAL") {
                cluster.stop();
                return Err(log);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        cluster.stop();
        Err("the server did not become ready in 30 s".to_owned())
    }

    /// The URL of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database (its default collation byte-unaware where ICU
    /// is there: `und`, so that byte-wise ordering is the store's doing),
    /// and its URL.
    pub fn database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let icu = format!(
            "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und'"
        );
        if self.psql("postgres", &icu).is_err() {
            self.psql("postgres", &format!("CREATE DATABASE {name}"))
                .expect("create a database");
        }
        self.url(&name)
    }

    /// Runs `sql` in database `name` with psql; its output, or the error.
    pub fn psql(&self, name: &str, sql: &str) -> Result<String, String> {
        let output = Command::new(self.bin.join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-U", "postgres", "-d", name, "-c", sql])
            .output()
            .map_err(|e| format!("psql: {e}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    /// Stops the server (immediate shutdown) and removes its directory.
    pub fn stop(&mut self) {
        drop(self.stdin.take());
        let _ = self.watchdog.wait();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The database name at the end of a URL made by [`Cluster::database`].
pub fn database_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or_default()
}
