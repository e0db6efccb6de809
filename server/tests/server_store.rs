//! The SQLite store in files, through both server binaries: the migration
//! of a plain-token database to digests, start-up refusals (newer schema,
//! PostgreSQL on the blocking server, malformed URLs) and processes sharing
//! one file. The behaviour common to both engines is in
//! `store_behaviour.rs`.

#[path = "interop/harness.rs"]
mod support;

use chopin_mcp_server::store::Database;
use chopin_mcp_server::store::{CreateOutcome, Draft, Listing, Setup, Store, token_digest};
use support::{SERVERS, Server, run, status, temp_path};

/// The tables as servers before schema version 1 made them: plain tokens,
/// no `user_version`.
const OLD_SCHEMA: &str = "
CREATE TABLE documents (
    id TEXT PRIMARY KEY, repository TEXT NOT NULL, title TEXT NOT NULL,
    source TEXT NOT NULL, revision INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_by TEXT, idempotency_key TEXT, fingerprint TEXT,
    brief TEXT NOT NULL DEFAULT '{}', UNIQUE (created_by, idempotency_key)
);
CREATE INDEX documents_in_repository ON documents (repository, title, id);
CREATE TABLE tokens (token TEXT PRIMARY KEY, caller TEXT NOT NULL);
CREATE TABLE grants (caller TEXT NOT NULL, repository TEXT NOT NULL,
    PRIMARY KEY (caller, repository));
";

fn file_bytes(db: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(db).unwrap();
    for suffix in ["-wal", "-journal"] {
        if let Ok(more) = std::fs::read(format!("{}{suffix}", db.display())) {
            bytes.extend(more);
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn a_plain_token_database_is_migrated_to_digests_and_its_token_still_works() {
    for name in SERVERS {
        let db = temp_path("plain-tokens", "db");
        let token = "0123456789abcdef-old-plain-token-0123456789abcdef";
        {
            let conn = rusqlite::Connection::open(&db).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
            conn.execute_batch(OLD_SCHEMA).unwrap();
            conn.execute(
                "INSERT INTO tokens (token, caller) VALUES (?1, 'local')",
                [token],
            )
            .unwrap();
            conn.execute_batch(
                "INSERT INTO grants VALUES ('local', '*');
                 INSERT INTO documents (id, repository, title, source)
                 VALUES ('old-doc', 'example/plans', 'Old', '# Old\n');",
            )
            .unwrap();
        }
        assert!(contains(&file_bytes(&db), token), "{name}: the setup");
        let server = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = server.banner.join("\n");
        assert!(
            banner.contains("stored tokens replaced by their SHA-256 digests: 1"),
            "{name}: {banner}"
        );
        assert!(!banner.contains(token), "{name}: {banner}");
        assert!(!banner.contains("client configuration"), "{name}: {banner}");
        let list = server.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#,
            Some(token),
        );
        assert_eq!(status(&list), 200, "{name}: {list}");
        assert!(list.contains("old-doc"), "{name}: {list}");
        assert!(
            !contains(&file_bytes(&db), token),
            "{name}: plain token left"
        );
        let conn = rusqlite::Connection::open(&db).unwrap();
        let stored: String = conn
            .query_row("SELECT token_sha256 FROM tokens", [], |row| row.get(0))
            .unwrap();
        assert_eq!(stored, token_digest(token));
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, chopin_mcp_server::store::SCHEMA_VERSION);
        drop(server);
        // A later start: nothing more to migrate, the token still works.
        let again = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = again.banner.join("\n");
        assert!(
            !banner.contains("stored tokens replaced by their SHA-256 digests"),
            "{name}: {banner}"
        );
        let list = again.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#,
            Some(token),
        );
        assert_eq!(status(&list), 200, "{name}: {list}");
    }
}

#[test]
fn a_generated_token_is_printed_once_and_stored_as_its_digest() {
    for name in SERVERS {
        let db = temp_path("generated", "db");
        let first = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = first.banner.join("\n");
        let token = banner
            .lines()
            .find_map(|line| line.strip_prefix("token: "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("{name}: {banner}"))
            .to_owned();
        drop(first);
        assert!(!contains(&file_bytes(&db), &token), "{name}");
        let second = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = second.banner.join("\n");
        assert!(!banner.contains(&token), "{name}: {banner}");
        assert!(!banner.contains("client configuration"), "{name}: {banner}");
        assert!(
            banner.contains("stored tokens: 1 (callers: local;"),
            "{name}: {banner}"
        );
        let list = second.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#,
            Some(&token),
        );
        assert_eq!(status(&list), 200, "{name}: {list}");
    }
}

#[test]
fn a_newer_schema_is_refused_at_start_and_left_alone() {
    for name in SERVERS {
        let db = temp_path("newer", "db");
        {
            let conn = rusqlite::Connection::open(&db).unwrap();
            conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 7;")
                .unwrap();
        }
        let (code, stderr) = run(name, &["--db", db.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "schema version 7, newer than this server's {}",
                chopin_mcp_server::store::SCHEMA_VERSION
            )),
            "{name}: {stderr}"
        );
        let conn = rusqlite::Connection::open(&db).unwrap();
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tables, 1, "{name}: the database was changed");
    }
}

#[test]
fn the_blocking_server_refuses_postgres_with_a_reason() {
    let (code, stderr) = run(
        "chopin-mcp-blocking",
        &["--db", "postgres://postgres@127.0.0.1:1/chopin"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("serves SQLite only"), "{stderr}");
}

#[test]
fn a_malformed_postgres_url_is_a_usage_error() {
    for name in SERVERS {
        for url in [
            "postgres://postgres@127.0.0.1:notaport/chopin",
            "postgresql://u@h/db?sslmode=bogus",
            "postgres://u@h/db?nosuchkey=1",
            "postgres://u@h/db?sslmode=verify-full",
            "postgres://u@h/db?sslrootcert=system&sslmode=require",
            "postgres://u@h/db?sslcert=client.crt",
            "postgres://u@h/db?sslrootcert=%zz",
        ] {
            let (code, stderr) = run(name, &["--db", url]);
            assert_eq!(code, Some(2), "{name} {url}: {stderr}");
            assert!(stderr.starts_with("--db: "), "{name} {url}: {stderr}");
        }
    }
    let parsed = Database::parse("postgresql://u:secret@db.example:6543/chopin?connect_timeout=3");
    assert!(matches!(parsed, Ok(Database::Postgres(_))), "{parsed:?}");
    assert_eq!(
        Database::parse("postgres.db"),
        Ok(Database::File("postgres.db".into()))
    );
}

#[test]
fn two_stores_on_one_file_racing_one_key_create_one_document() {
    let db = temp_path("race", "db");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let database = Database::File(db.clone());
        let setup = Setup {
            grants: vec![("ann".to_owned(), vec!["*".to_owned()])],
            ..Setup::default()
        };
        Store::open(&database)
            .await
            .unwrap()
            .setup(&setup)
            .await
            .unwrap();
        let draft = Draft {
            idempotency_key: "k".to_owned(),
            fingerprint: "f".to_owned(),
            repository: "acme/plans".to_owned(),
            title: "T".to_owned(),
            source: "# T\n".to_owned(),
            brief: r#"{"goal":"g","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
            base: None,
        };
        // Each store is what one server process has: its own connections.
        let mut racers = Vec::new();
        for n in 0..4 {
            let store = Store::open(&database).await.unwrap();
            let draft = draft.clone();
            racers.push(tokio::spawn(async move {
                store
                    .create("ann", &format!("01RACE{n}"), &draft)
                    .await
                    .unwrap()
            }));
        }
        let mut new = 0;
        for racer in racers {
            if let CreateOutcome::New(_) = racer.await.unwrap() {
                new += 1;
            }
        }
        assert_eq!(new, 1);
        let store = Store::open(&database).await.unwrap();
        let listed = store.list("ann", "acme/plans", false).await.unwrap();
        assert!(matches!(listed, Listing::Listed(d) if d.len() == 1));
    });
}
