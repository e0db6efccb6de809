//! Throwaway PostgreSQL servers for tests, and what managed providers put in
//! front of them.
//!
//! - [`Cluster`]: `initdb` in a temporary directory (as user `postgres` when
//!   the tests run as root: PostgreSQL refuses to run as root), `postgres` on
//!   a free loopback port, trust authentication. [`start_with`] can make it
//!   what a managed provider hands over instead: `ssl = on` with a
//!   certificate from a throwaway CA (made with the `openssl` command), and a
//!   `pg_hba.conf` that admits only `hostssl` with `scram-sha-256`, for role
//!   [`ROLE`]. The test's own `psql` always uses the Unix socket.
//! - [`Bouncer`]: Debian's `pgbouncer` in front of a cluster, in transaction
//!   mode (how hosted poolers are used), with few server connections.
//!
//! A small shell watchdog owns each server and stops it (PostgreSQL:
//! SIGQUIT, an immediate shutdown, no shared memory left behind; PgBouncer:
//! SIGTERM) and removes its directory when its standard input closes: when
//! the value is dropped, or when the test process exits however it exits.
//!
//! Without the PostgreSQL binaries, `pgbouncer` or `openssl`, the tests say
//! they skipped, except under the environment variable `CI`, where they fail
//! (a CI that lost its install step cannot go green by skipping).
//! `PG_BINDIR` names PostgreSQL's binaries' directory; otherwise the newest
//! `/usr/lib/postgresql/NN/bin`, else `initdb` on the PATH. `PGBOUNCER`
//! names the pgbouncer binary; otherwise `/usr/sbin/pgbouncer`, else the
//! PATH's.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The role a TLS cluster admits (with [`PASSWORD`], scram-sha-256).
pub const ROLE: &str = "chopin";
/// [`ROLE`]'s password.
pub const PASSWORD: &str = "s3cret-for-tests";
/// The name a TLS cluster's certificate is for (its only name: neither
/// `localhost` nor `127.0.0.1`). URLs reach it with `hostaddr=127.0.0.1`.
pub const SERVER_NAME: &str = "db.chopin.test";

/// How a cluster is started.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `max_connections`; 300 when `None`.
    pub max_connections: Option<u32>,
    /// `ssl = on`, a certificate for [`SERVER_NAME`] from a throwaway CA,
    /// and `hostssl`-only `scram-sha-256` access for [`ROLE`].
    pub tls: bool,
    /// With `tls`: plaintext TCP admitted too (same authentication), to
    /// compare the two on one server.
    pub plaintext_too: bool,
}

/// A running throwaway PostgreSQL server.
pub struct Cluster {
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    /// The TLS cluster's CA certificate (PEM).
    ca: Option<PathBuf>,
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

/// The TLS cluster this test binary shares (see [`Settings::tls`]).
pub fn shared_tls() -> Option<&'static Cluster> {
    static SHARED: OnceLock<Option<Cluster>> = OnceLock::new();
    SHARED
        .get_or_init(|| {
            start_with(Settings {
                tls: true,
                ..Settings::default()
            })
        })
        .as_ref()
}

/// A PgBouncer in front of [`shared`], shared by this test binary.
pub fn shared_bouncer() -> Option<&'static Bouncer> {
    static SHARED: OnceLock<Option<Bouncer>> = OnceLock::new();
    SHARED.get_or_init(|| Bouncer::start(shared()?, 4)).as_ref()
}

/// The URL of the database `name` on [`shared`]: direct, or through
/// [`shared_bouncer`] (`None` when that cannot start).
pub fn shared_url(name: &str, through_pgbouncer: bool) -> Option<String> {
    if through_pgbouncer {
        Some(shared_bouncer()?.url(name))
    } else {
        Some(shared()?.url(name))
    }
}

/// A cluster of the caller's own (to stop it mid-test), or `None` (after
/// printing why) when PostgreSQL is not installed.
pub fn start() -> Option<Cluster> {
    start_with(Settings::default())
}

/// [`start`] with these settings.
pub fn start_with(settings: Settings) -> Option<Cluster> {
    let bin = binaries().or_else(|| missing("PostgreSQL", "apt-get install postgresql"))?;
    if settings.tls {
        openssl()?;
    }
    let mut last = String::new();
    for _ in 0..5 {
        match Cluster::try_start(&bin, &settings) {
            Ok(cluster) => return Some(cluster),
            Err(e) => last = e,
        }
    }
    panic!("cannot start a throwaway PostgreSQL: {last}");
}

/// `None`, after saying what is missing; under `CI`, a failure.
fn missing<T>(what: &str, how: &str) -> Option<T> {
    let message = format!("skipped: {what} is not installed ({how})");
    assert!(std::env::var_os("CI").is_none(), "under CI: {message}");
    eprintln!("{message}");
    None
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
    on_path("initdb")
        .and_then(|initdb| initdb.canonicalize().ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|file| file.exists())
}

/// The `openssl` command, or `None` (after saying so).
pub fn openssl() -> Option<PathBuf> {
    on_path("openssl").or_else(|| missing("openssl", "apt-get install openssl"))
}

/// The `pgbouncer` binary, or `None` (after saying so).
fn pgbouncer() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGBOUNCER") {
        return Some(PathBuf::from(path));
    }
    let debian = PathBuf::from("/usr/sbin/pgbouncer");
    if debian.exists() {
        return Some(debian);
    }
    on_path("pgbouncer").or_else(|| missing("pgbouncer", "apt-get install pgbouncer"))
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

/// Gives `path` to the server user (when root), with `mode`.
fn hand_over(path: &Path, mode: u32) {
    if let Some((uid, gid)) = server_user() {
        std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown");
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// A fresh short directory (socket paths must stay under 107 bytes), owned
/// by the server user.
fn scratch(prefix: &str) -> Result<PathBuf, String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(format!(
        "/tmp/{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    hand_over(&dir, 0o755);
    Ok(dir)
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// Runs `program args…` as the server user under a watchdog that sends
/// `signal` and removes `dir` once its stdin closes. The program's output
/// goes to `dir/log`.
fn watched(program: &Path, args: &[&str], dir: &Path, signal: &str) -> Result<Child, String> {
    let script = r#"
        signal=$1; dir=$2; shift 2
        "$@" >"$dir/log" 2>&1 &
        pid=$!
        echo "started $pid"
        read -r _ || true
        kill -"$signal" "$pid" 2>/dev/null
        wait "$pid"
        rm -rf "$dir"
    "#;
    let mut watchdog = as_server_user(&mut Command::new("sh"))
        .arg("-c")
        .arg(script)
        .arg("watchdog")
        .arg(signal)
        .arg(dir)
        .arg(program)
        .args(args)
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
    Ok(watchdog)
}

impl Cluster {
    fn try_start(bin: &Path, settings: &Settings) -> Result<Cluster, String> {
        let dir = scratch("chpg")?;
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
        let port = free_port()?;
        let max_connections = settings.max_connections.unwrap_or(300).to_string();
        let data = dir.join("data");
        let sockets = dir.display().to_string();
        let mut args: Vec<String> = vec![
            "-D".into(),
            data.display().to_string(),
            "-p".into(),
            port.to_string(),
            "-k".into(),
            sockets,
            "-c".into(),
            "listen_addresses=127.0.0.1".into(),
            "-c".into(),
            format!("max_connections={max_connections}"),
        ];
        let mut ca = None;
        if settings.tls {
            let made = Ca::make(&dir, "chopin test CA").map_err(|e| format!("CA: {e}"))?;
            let (cert, key) = made
                .issue(&dir, "server", SERVER_NAME)
                .map_err(|e| format!("server certificate: {e}"))?;
            // Local (the test's psql, over the socket) trusted; TCP only
            // with TLS and a password, as managed providers do.
            let hba = data.join("pg_hba.conf");
            let plaintext = if settings.plaintext_too {
                "hostnossl all all 127.0.0.1/32 scram-sha-256\n"
            } else {
                ""
            };
            std::fs::write(
                &hba,
                format!(
                    "local all all trust\n\
                     hostssl all all 127.0.0.1/32 scram-sha-256\n\
                     hostssl all all ::1/128 scram-sha-256\n{plaintext}"
                ),
            )
            .map_err(|e| e.to_string())?;
            hand_over(&hba, 0o600);
            for (setting, value) in [
                ("ssl", "on".to_owned()),
                ("ssl_cert_file", cert.display().to_string()),
                ("ssl_key_file", key.display().to_string()),
                ("password_encryption", "scram-sha-256".to_owned()),
            ] {
                args.push("-c".into());
                args.push(format!("{setting}={value}"));
            }
            ca = Some(made.cert);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut watchdog = watched(&bin.join("postgres"), &args, &dir, "QUIT")?;
        let stdin = watchdog.stdin.take();
        let mut cluster = Cluster {
            port,
            bin: bin.to_path_buf(),
            dir,
            ca,
            stdin,
            watchdog,
        };
        let until = Instant::now() + Duration::from_secs(30);
        while Instant::now() < until {
            let ready = Command::new(cluster.bin.join("pg_isready"))
                .args(["-q", "-h"])
                .arg(&cluster.dir)
                .args(["-p", &port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                if settings.tls {
                    cluster.psql(
                        "postgres",
                        &format!("CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'"),
                    )?;
                }
                return Ok(cluster);
            }
            let log = cluster.log();
            if log.contains("could not bind") || log.contains("FATAL") {
                cluster.stop();
                return Err(log);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        cluster.stop();
        Err("the server did not become ready in 30 s".to_owned())
    }

    /// What the server wrote to its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// The URL of database `name` (user `postgres`, plaintext).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The CA certificate (PEM) of a TLS cluster.
    pub fn ca(&self) -> &Path {
        self.ca.as_deref().expect("a TLS cluster")
    }

    /// The URL of database `name` on a TLS cluster, as [`ROLE`], for host
    /// `host` (reached at 127.0.0.1), with `params` (`KEY=VALUE&…`) added.
    pub fn tls_url(&self, host: &str, name: &str, params: &str) -> String {
        let url = format!(
            "postgres://{ROLE}:{PASSWORD}@{host}:{}/{name}?hostaddr=127.0.0.1",
            self.port
        );
        if params.is_empty() {
            url
        } else {
            format!("{url}&{params}")
        }
    }

    /// A new, empty database (its default collation byte-unaware where ICU
    /// is there: `und`, so that byte-wise ordering is the store's doing),
    /// owned by [`ROLE`] on a TLS cluster; its URL ([`Cluster::url`]).
    pub fn database(&self) -> String {
        let name = self.new_database();
        self.url(&name)
    }

    /// [`Cluster::database`], its name.
    pub fn new_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let owner = if self.ca.is_some() {
            format!(" OWNER {ROLE}")
        } else {
            String::new()
        };
        let icu = format!(
            "CREATE DATABASE {name}{owner} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und'"
        );
        if self.psql("postgres", &icu).is_err() {
            self.psql("postgres", &format!("CREATE DATABASE {name}{owner}"))
                .expect("create a database");
        }
        name
    }

    fn psql_command(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin.join("psql"));
        command
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.dir)
            .args(["-p", &self.port.to_string()])
            .args(["-U", "postgres", "-d", name]);
        command
    }

    /// Runs `sql` in database `name` with psql (as `postgres`, over the
    /// Unix socket); its output, or the error.
    pub fn psql(&self, name: &str, sql: &str) -> Result<String, String> {
        let output = self
            .psql_command(name)
            .args(["-c", sql])
            .output()
            .map_err(|e| format!("psql: {e}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    /// An open psql session on database `name`, for holding a transaction
    /// (and its locks) while the test does other things.
    pub fn session(&self, name: &str) -> Session {
        let mut child = self
            .psql_command(name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start psql");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Session {
            child,
            stdin: Some(stdin),
            stdout,
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

/// A psql session kept open (see [`Cluster::session`]); it ends (and its
/// transaction rolls back) when dropped.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    /// Runs `sql` (statements, `;`-terminated) and waits until psql has
    /// done them.
    pub fn run(&mut self, sql: &str) {
        let stdin = self.stdin.as_mut().expect("an open session");
        writeln!(stdin, "{sql}\nSELECT 'done-marker';").expect("write to psql");
        stdin.flush().expect("flush psql's stdin");
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read psql");
            assert!(n > 0, "psql ended");
            if line.trim() == "done-marker" {
                return;
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The database name at the end of a URL made by [`Cluster::database`].
pub fn database_name(url: &str) -> &str {
    let path = url.split('?').next().unwrap_or_default();
    path.rsplit('/').next().unwrap_or_default()
}

/// A throwaway certificate authority, made with the `openssl` command.
pub struct Ca {
    pub cert: PathBuf,
    key: PathBuf,
}

impl Ca {
    /// A new CA (EC P-256, one day) named `name`, its files in `dir`.
    pub fn make(dir: &Path, name: &str) -> Result<Ca, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let stem = format!("ca{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let cert = dir.join(format!("{stem}.crt"));
        let key = dir.join(format!("{stem}.key"));
        run_openssl(&[
            "req",
            "-x509",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "1",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout",
            &key.display().to_string(),
            "-out",
            &cert.display().to_string(),
        ])?;
        Ok(Ca { cert, key })
    }

    /// A server certificate for DNS name `host` (its only name) signed by
    /// this CA, and its key (mode 0600, the server user's): files
    /// `dir/stem.crt` and `dir/stem.key`.
    pub fn issue(&self, dir: &Path, stem: &str, host: &str) -> Result<(PathBuf, PathBuf), String> {
        let cert = dir.join(format!("{stem}.crt"));
        let key = dir.join(format!("{stem}.key"));
        let request = dir.join(format!("{stem}.csr"));
        let extensions = dir.join(format!("{stem}.ext"));
        run_openssl(&[
            "req",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            &format!("/CN={host}"),
            "-keyout",
            &key.display().to_string(),
            "-out",
            &request.display().to_string(),
        ])?;
        std::fs::write(
            &extensions,
            format!(
                "subjectAltName=DNS:{host}\nbasicConstraints=critical,CA:FALSE\n\
                 keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        run_openssl(&[
            "x509",
            "-req",
            "-in",
            &request.display().to_string(),
            "-CA",
            &self.cert.display().to_string(),
            "-CAkey",
            &self.key.display().to_string(),
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            &extensions.display().to_string(),
            "-out",
            &cert.display().to_string(),
        ])?;
        hand_over(&key, 0o600);
        hand_over(&cert, 0o644);
        Ok((cert, key))
    }
}

fn run_openssl(args: &[&str]) -> Result<(), String> {
    let openssl = openssl().ok_or("no openssl")?;
    let output = Command::new(openssl)
        .args(args)
        .output()
        .map_err(|e| format!("openssl: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "openssl {}: {}",
            args.first().unwrap_or(&""),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Debian's `pgbouncer` in front of a cluster: transaction pooling, every
/// database of the cluster, user `postgres` (trust), and `pool_size` server
/// connections per database. No protocol-level prepared statements: 1.18
/// has none, newer ones are told `max_prepared_statements = 0`.
pub struct Bouncer {
    pub port: u16,
    dir: PathBuf,
    watchdog: Child,
    stdin: Option<ChildStdin>,
}

impl Bouncer {
    /// Starts one, or `None` (after saying so) when pgbouncer is missing.
    pub fn start(cluster: &Cluster, pool_size: u32) -> Option<Bouncer> {
        let binary = pgbouncer()?;
        let mut last = String::new();
        for _ in 0..5 {
            match Bouncer::try_start(&binary, cluster, pool_size) {
                Ok(bouncer) => return Some(bouncer),
                Err(e) => last = e,
            }
        }
        panic!("cannot start pgbouncer: {last}");
    }

    fn try_start(binary: &Path, cluster: &Cluster, pool_size: u32) -> Result<Bouncer, String> {
        let dir = scratch("chpgb")?;
        let port = free_port()?;
        let version = Command::new(binary)
            .arg("--version")
            .output()
            .map_err(|e| format!("pgbouncer --version: {e}"))?;
        let version = String::from_utf8_lossy(&version.stdout).into_owned();
        // "PgBouncer 1.18.0": 1.21 brought protocol-level prepared
        // statements (and this setting; 1.18 refuses to start with it).
        let (major, minor) = version
            .split_whitespace()
            .nth(1)
            .and_then(|v| {
                let mut parts = v.split('.');
                Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
            })
            .unwrap_or((1u32, 18u32));
        let prepared = if (major, minor) >= (1, 21) {
            "max_prepared_statements = 0\n"
        } else {
            ""
        };
        let users = dir.join("userlist.txt");
        std::fs::write(&users, "\"postgres\" \"\"\n").map_err(|e| e.to_string())?;
        hand_over(&users, 0o600);
        let ini = dir.join("pgbouncer.ini");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n* = host=127.0.0.1 port={}\n\n[pgbouncer]\n\
                 listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
                 auth_type = trust\nauth_file = {}\npool_mode = transaction\n\
                 default_pool_size = {pool_size}\nmax_client_conn = 500\n{prepared}",
                cluster.port,
                users.display()
            ),
        )
        .map_err(|e| e.to_string())?;
        hand_over(&ini, 0o644);
        let ini = ini.display().to_string();
        let mut watchdog = watched(binary, &[&ini], &dir, "TERM")?;
        let stdin = watchdog.stdin.take();
        let mut bouncer = Bouncer {
            port,
            dir,
            watchdog,
            stdin,
        };
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let log = bouncer.log();
            if log.contains("process up") {
                return Ok(bouncer);
            }
            if log.contains("FATAL") || log.contains("ERROR") {
                bouncer.stop();
                return Err(log);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bouncer.stop();
        Err("pgbouncer did not come up in 20 s".to_owned())
    }

    /// The URL of the cluster's database `name` through this pooler.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// What pgbouncer logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    pub fn stop(&mut self) {
        drop(self.stdin.take());
        let _ = self.watchdog.wait();
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        self.stop();
    }
}
