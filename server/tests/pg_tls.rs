//! TLS to PostgreSQL as managed providers hand it over, with libpq's
//! meanings of `sslmode` and `sslrootcert`: a throwaway server with `ssl =
//! on`, a certificate for `db.chopin.test` from a throwaway CA (made with
//! the `openssl` command) and a `pg_hba.conf` that admits only `hostssl`
//! with `scram-sha-256` (`support/pg.rs`). The server reaches it with
//! `require`, `verify-ca` and `verify-full` (and the default, `prefer`), over
//! TLS (`pg_stat_ssl`); is refused, at start with the reason and exit 1, by
//! `verify-full` against the wrong host name, by `verify-ca`/`verify-full`
//! against the wrong CA, and by the server itself with `disable`;
//! `sslrootcert=system` means the platform's roots and `verify-full`; bad
//! TLS settings get a clear message; the host name is sent as SNI; and the
//! workspace has one rustls crypto provider (ring) and no OpenSSL.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};

use calls::{create_body, created_id, post, read_body};
use support::{Server, binary, status, temp_path};

const SERVER: &str = "chopin-mcp-server";
const OTHER_NAME: &str = "other.chopin.test";

/// Runs the server with `--db url` to its exit, with `env` set; its exit
/// code and stderr.
fn run_with(url: &str, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = Command::new(binary(SERVER))
        .args(["--listen", "127.0.0.1:0", "--db", url])
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run the server");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `run_with` that must fail at start with exit 1 and `reason` in stderr;
/// the password never shows.
fn refused(url: &str, env: &[(&str, &str)], reason: &str) {
    let (code, stderr) = run_with(url, env);
    assert_eq!(code, Some(1), "{url}: {stderr}");
    assert!(
        stderr.starts_with("cannot open the database: "),
        "{url}: {stderr}"
    );
    assert!(stderr.contains(reason), "{url}: {reason:?} not in {stderr}");
    assert!(!stderr.contains(pg::PASSWORD), "{stderr}");
}

/// Whether every connection named `application` is TLS, and how many.
fn tls_connections(cluster: &pg::Cluster, application: &str) -> String {
    cluster
        .psql(
            "postgres",
            &format!(
                "SELECT bool_and(s.ssl) || ' ' || count(*) FROM pg_stat_ssl s \
                 JOIN pg_stat_activity a USING (pid) WHERE a.application_name = '{application}'"
            ),
        )
        .unwrap()
}

#[test]
fn require_verify_ca_verify_full_and_the_default_connect_over_tls() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let ca = cluster.ca().display().to_string();
    let name = cluster.new_database();
    for (n, (host, params, says)) in [
        (
            "db.chopin.test",
            "sslmode=require".to_owned(),
            "the certificate not verified",
        ),
        // libpq: a root certificate makes require check the chain
        // (verify-ca), whatever the name.
        (
            OTHER_NAME,
            format!("sslmode=require&sslrootcert={ca}"),
            "chain verified",
        ),
        (
            "db.chopin.test",
            format!("sslmode=verify-ca&sslrootcert={ca}"),
            "chain verified",
        ),
        (
            OTHER_NAME,
            format!("sslmode=verify-ca&sslrootcert={ca}"),
            "chain verified",
        ),
        (
            "db.chopin.test",
            format!("sslmode=verify-full&sslrootcert={ca}"),
            "chain and host name verified",
        ),
        ("db.chopin.test", String::new(), "when the server offers it"),
    ]
    .into_iter()
    .enumerate()
    {
        let application = format!("tls-{n}");
        let url = cluster.tls_url(
            host,
            &name,
            &format!("application_name={application}&{params}"),
        );
        let server = Server::on_db(SERVER, &url, &[]);
        let summary = server.banner_line("PostgreSQL at ").unwrap_or_default();
        assert!(summary.contains(says), "{params}: {summary}");
        assert!(!summary.contains(pg::PASSWORD), "{summary}");
        let id = created_id(&post(server.addr, &create_body(&application, "Over TLS")))
            .unwrap_or_else(|| panic!("{params}: no create"));
        assert_eq!(status(&post(server.addr, &read_body(&id))), 200);
        let tls = tls_connections(cluster, &application);
        assert!(tls.starts_with("true "), "{params}: {tls}");
    }
}

#[test]
fn verify_full_refuses_a_certificate_for_another_host_name() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let ca = cluster.ca().display().to_string();
    let name = cluster.new_database();
    let params = format!("sslmode=verify-full&sslrootcert={ca}");
    refused(
        &cluster.tls_url(OTHER_NAME, &name, &params),
        &[],
        "certificate not valid for name",
    );
    // An address is a name too: the certificate holds no IP address.
    refused(
        &cluster.tls_url("127.0.0.1", &name, &params),
        &[],
        "certificate not valid for name",
    );
}

#[test]
fn verify_ca_and_verify_full_refuse_a_certificate_from_another_ca() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let dir = temp_path("other-ca", "dir");
    std::fs::create_dir_all(&dir).unwrap();
    let other = pg::Ca::make(&dir, "another CA").unwrap();
    let other = other.cert.display().to_string();
    let name = cluster.new_database();
    for mode in ["verify-ca", "verify-full", "require"] {
        let params = format!("sslmode={mode}&sslrootcert={other}");
        refused(
            &cluster.tls_url("db.chopin.test", &name, &params),
            &[],
            "UnknownIssuer",
        );
    }
}

#[test]
fn a_hostssl_only_server_refuses_sslmode_disable() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let name = cluster.new_database();
    let url = cluster.tls_url("db.chopin.test", &name, "sslmode=disable");
    refused(&url, &[], "no pg_hba.conf entry");
    refused(&url, &[], "no encryption");
}

#[test]
fn sslrootcert_system_means_the_platforms_roots_and_verify_full() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let ca = cluster.ca().display().to_string();
    let name = cluster.new_database();
    // The platform's roots (rustls-native-certs reads SSL_CERT_FILE when
    // set, as OpenSSL does): here the throwaway CA alone.
    let url = cluster.tls_url("db.chopin.test", &name, "sslrootcert=system");
    let server = Server::start_capturing(
        SERVER,
        &support::db_args(&url, &[]),
        &[("SSL_CERT_FILE", &ca)],
    );
    let summary = server.banner_line("PostgreSQL at ").unwrap_or_default();
    assert!(
        summary.contains("sslmode=verify-full, sslrootcert=system"),
        "{summary}"
    );
    assert!(created_id(&post(server.addr, &create_body("system", "System"))).is_some());
    // verify-full it is: another name is refused.
    refused(
        &cluster.tls_url(OTHER_NAME, &name, "sslrootcert=system"),
        &[("SSL_CERT_FILE", &ca)],
        "certificate not valid for name",
    );
    // The platform's own roots do not hold the throwaway CA.
    if std::path::Path::new("/etc/ssl/certs/ca-certificates.crt").exists() {
        refused(&url, &[], "UnknownIssuer");
    }
    // Weaker modes are refused (any public CA could vouch for any server).
    for mode in ["verify-ca", "require", "prefer", "disable"] {
        let weaker = cluster.tls_url(
            "db.chopin.test",
            &name,
            &format!("sslrootcert=system&sslmode={mode}"),
        );
        let (code, stderr) = run_with(&weaker, &[]);
        assert_eq!(code, Some(2), "{mode}: {stderr}");
        assert!(
            stderr.contains("may not be used with sslrootcert=system"),
            "{mode}: {stderr}"
        );
    }
}

#[test]
fn only_the_urls_sslrootcert_counts_not_root_crt_or_pg_variables() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let home = temp_path("home", "dir");
    std::fs::create_dir_all(home.join(".postgresql")).unwrap();
    let other = pg::Ca::make(&home, "another CA").unwrap().cert;
    std::fs::copy(&other, home.join(".postgresql/root.crt")).unwrap();
    let other = other.display().to_string();
    let home = home.display().to_string();
    let elsewhere = [
        ("HOME", home.as_str()),
        ("PGSSLROOTCERT", other.as_str()),
        ("PGSSLMODE", "verify-full"),
    ];
    let name = cluster.new_database();
    // libpq would verify against root.crt (the wrong CA) and fail; here
    // require without sslrootcert verifies nothing, and connects.
    let url = cluster.tls_url("db.chopin.test", &name, "sslmode=require");
    let server = Server::start_capturing(SERVER, &support::db_args(&url, &[]), &elsewhere);
    assert!(created_id(&post(server.addr, &create_body("url-only", "URL only"))).is_some());
    // And verify-full still needs the URL's sslrootcert.
    let url = cluster.tls_url("db.chopin.test", &name, "sslmode=verify-full");
    let (code, stderr) = run_with(&url, &elsewhere);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("needs sslrootcert"), "{stderr}");
}

#[test]
fn bad_tls_settings_get_a_clear_message_at_start() {
    let Some(cluster) = pg::shared_tls() else {
        return;
    };
    let name = cluster.new_database();
    let empty = temp_path("no-certificates", "pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    // Read at start: exit 1 with the reason.
    refused(
        &cluster.tls_url(
            "db.chopin.test",
            &name,
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
        ),
        &[],
        "sslrootcert=/nonexistent/ca.pem: cannot read it",
    );
    refused(
        &cluster.tls_url(
            "db.chopin.test",
            &name,
            &format!("sslmode=verify-ca&sslrootcert={}", empty.display()),
        ),
        &[],
        "holds no PEM certificate",
    );
    // Malformed or unsupported: a usage error (exit 2), naming the key.
    for (params, reason) in [
        ("sslmode=bogus", "sslmode=\"bogus\" is not one of"),
        (
            "sslmode=verify-full",
            "sslmode=verify-full needs sslrootcert",
        ),
        ("sslmode=verify-ca", "sslmode=verify-ca needs sslrootcert"),
        ("sslmode=allow", "sslmode=allow is not supported"),
        ("sslrootcert=", "sslrootcert is empty"),
        (
            "sslrootcert=%4",
            "sslrootcert: a % not followed by two hex digits",
        ),
        ("sslcert=client.crt", "sslcert is not supported yet"),
        ("sslkey=client.key", "sslkey is not supported yet"),
        ("sslcrl=revoked.crl", "sslcrl is not supported yet"),
        ("sslsni=0", "always sends the host name"),
    ] {
        let url = cluster.tls_url("db.chopin.test", &name, params);
        let (code, stderr) = run_with(&url, &[]);
        assert_eq!(code, Some(2), "{params}: {stderr}");
        assert!(stderr.starts_with("--db: "), "{params}: {stderr}");
        assert!(
            stderr.contains(reason),
            "{params}: {reason:?} not in {stderr}"
        );
        assert!(!stderr.contains(pg::PASSWORD), "{stderr}");
    }
}

/// Stands in for a PostgreSQL server: accepts one connection, answers its
/// SSLRequest with `S`, and returns the SNI of the ClientHello that follows.
fn sni_of_the_next_connection(listener: TcpListener) -> std::thread::JoinHandle<Option<String>> {
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 8];
        stream.read_exact(&mut request).unwrap();
        assert_eq!(request, [0, 0, 0, 8, 4, 210, 22, 47], "an SSLRequest");
        stream.write_all(b"S").unwrap();
        let mut acceptor = rustls::server::Acceptor::default();
        loop {
            acceptor.read_tls(&mut stream).unwrap();
            match acceptor.accept() {
                Ok(Some(accepted)) => {
                    return accepted.client_hello().server_name().map(str::to_owned);
                }
                Ok(None) => {}
                Err((e, _)) => panic!("not a ClientHello: {e}"),
            }
        }
    })
}

#[test]
fn the_host_name_is_sent_as_sni_also_with_hostaddr() {
    let dir = temp_path("sni-ca", "dir");
    std::fs::create_dir_all(&dir).unwrap();
    if pg::openssl().is_none() {
        return;
    }
    let ca = pg::Ca::make(&dir, "sni CA").unwrap().cert;
    for params in [
        "sslmode=require".to_owned(),
        format!("sslmode=verify-full&sslrootcert={}", ca.display()),
        String::new(),
    ] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sni = sni_of_the_next_connection(listener);
        let url = format!(
            "postgres://u:{}@provider-routes-on.this.name:{port}/db?hostaddr=127.0.0.1&{params}",
            pg::PASSWORD
        );
        let (code, stderr) = run_with(&url, &[]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(!stderr.contains(pg::PASSWORD), "{stderr}");
        assert_eq!(
            sni.join().unwrap().as_deref(),
            Some("provider-routes-on.this.name"),
            "{params}"
        );
    }
}

#[test]
fn the_workspace_has_one_rustls_crypto_provider_and_no_openssl() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    let packages: Vec<&str> = lock
        .lines()
        .filter_map(|line| line.strip_prefix("name = \""))
        .map(|name| name.trim_end_matches('"'))
        .collect();
    assert!(packages.contains(&"ring"), "ring is the provider");
    for other in [
        "aws-lc-rs",
        "aws-lc-sys",
        "openssl",
        "openssl-sys",
        "native-tls",
    ] {
        assert!(!packages.contains(&other), "{other} is in Cargo.lock");
    }
}
