//! `chopin-mcp-server token …`: a token minted for a caller of an existing
//! database (printed once, only its digest stored), revoked, listed; on
//! SQLite and PostgreSQL, with the database's documents untouched, and
//! accepted or refused by the server from its next start.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

use std::process::{Command, Output, Stdio};

use chopin_mcp_server::store::token_digest;
use support::{Server, binary, draft, status, temp_path};

/// The sample plan a first start puts in a new database.
const SAMPLE_ID: &str = "01JD2X7K4M8Q3R5T6V7W8X9Y0Z";

fn token(name: &str, args: &[&str]) -> Output {
    Command::new(binary(name))
        .arg("token")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run the token command")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `token add CALLER` on `db`: the token it printed, after checking that
/// standard output holds that alone.
fn add(name: &str, caller: &str, db: &str) -> (String, String) {
    let out = token(name, &["add", caller, "--db", db]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let minted = printed.trim_end().to_owned();
    assert_eq!(printed, format!("{minted}\n"));
    assert_eq!(minted.len(), 64);
    assert!(minted.bytes().all(|b| b.is_ascii_hexdigit()));
    (minted, text(&out.stderr))
}

/// A server on `db` with only the database's tokens.
fn serve(name: &str, db: &str, extra: &[&str]) -> Server {
    let mut args = vec!["--db", db];
    args.extend_from_slice(extra);
    Server::start(name, &args)
}

/// The HTTP status and body of a `read_document` of `id` with `token`.
fn read(server: &Server, token: &str, id: &str) -> (u16, String) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_document","arguments":{{"id":"{id}"}}}}}}"#
    );
    let response = server.post(&body, Some(token));
    (status(&response), response)
}

/// The whole story on one database: the first start's token, a document
/// created with it, a second token added, both listed, both revoked, a
/// third added; each start accepts exactly the tokens stored before it, and
/// every document is still there.
fn replace_a_lost_token(name: &str, db: &str) {
    let server = serve(name, db, &[]);
    let first = server
        .banner_line("token: ")
        .and_then(|line| line.split(' ').next().map(str::to_owned))
        .expect("a first start prints its token");
    let created = server.post(
        &serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{
            "name":"create_document",
            "arguments": draft("key-1", "Kept", "# Kept\n")}})
        .to_string(),
        Some(&first),
    );
    let created_id = created
        .split(r#""id":""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{name}: no created id in {created}"));
    server.kill();

    let (second, said) = add(name, "local", db);
    assert!(said.contains("printed once"), "{said}");
    assert!(said.contains("restart"), "{said}");
    let server = serve(name, db, &[]);
    // A later start says how a lost token is replaced.
    let stored = server
        .banner_line("stored tokens: 2 ")
        .expect("the stored tokens");
    assert!(
        stored.contains("token revoke CALLER, token add CALLER"),
        "{stored}"
    );
    for token in [&first, &second] {
        assert_eq!(read(&server, token, SAMPLE_ID).0, 200, "{name}");
        let (code, body) = read(&server, token, &created_id);
        assert!(
            code == 200 && body.contains(r#"\"title\":\"Kept\""#),
            "{name}: {body}"
        );
    }
    server.kill();

    let out = token(name, &["list", "--db", db]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut listed: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    listed.sort();
    let mut expected = vec![
        format!("local {}", token_digest(&first)),
        format!("local {}", token_digest(&second)),
    ];
    expected.sort();
    assert_eq!(listed, expected, "{name}: only digests are stored");

    let out = token(name, &["revoke", "local", "--db", db]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("revoked 2 tokens of caller local"));
    let (third, _) = add(name, "local", db);
    let server = serve(name, db, &[]);
    for token in [&first, &second] {
        assert_eq!(read(&server, token, SAMPLE_ID).0, 401, "{name}: revoked");
    }
    assert_eq!(read(&server, &third, SAMPLE_ID).0, 200, "{name}");
    assert!(
        read(&server, &third, &created_id).1.contains("Kept"),
        "{name}"
    );
}

#[test]
fn a_lost_token_is_replaced_on_a_sqlite_file_without_losing_a_document() {
    for name in support::SERVERS {
        let db = temp_path("tokens", "db");
        replace_a_lost_token(name, db.to_str().unwrap());
    }
}

#[test]
fn a_lost_token_is_replaced_on_postgresql_without_losing_a_document() {
    let Some(cluster) = pg::shared() else {
        return;
    };
    replace_a_lost_token("chopin-mcp-server", &cluster.database());
}

#[test]
fn a_token_for_a_new_caller_reaches_what_the_server_grants_it() {
    let db = temp_path("tokens-new-caller", "db");
    let db = db.to_str().unwrap();
    serve("chopin-mcp-server", db, &[]).kill();
    let (alice, said) = add("chopin-mcp-server", "alice", db);
    assert!(said.contains("may use no repository yet"), "{said}");
    assert!(said.contains("--grant alice="), "{said}");
    let server = serve("chopin-mcp-server", db, &[]);
    assert!(
        !read(&server, &alice, SAMPLE_ID)
            .1
            .contains("Keep the reading"),
        "no grant, no document"
    );
    server.kill();
    let server = serve("chopin-mcp-server", db, &["--grant", "alice=example/plans"]);
    assert!(
        read(&server, &alice, SAMPLE_ID)
            .1
            .contains("Keep the reading")
    );
    server.kill();
    let (_, said) = add("chopin-mcp-server", "alice", db);
    assert!(
        said.contains("caller alice may use: example/plans"),
        "{said}"
    );
}

#[test]
fn a_token_for_a_read_only_caller_says_what_it_may_only_read() {
    let db = temp_path("tokens-read-only", "db");
    let db = db.to_str().unwrap();
    serve(
        "chopin-mcp-server",
        db,
        &[
            "--grant-read",
            "bob=example/plans,acme/plans",
            "--grant",
            "bob=acme/plans",
        ],
    )
    .kill();
    let (_, said) = add("chopin-mcp-server", "bob", db);
    assert!(said.contains("caller bob may use: acme/plans\n"), "{said}");
    assert!(
        said.contains("caller bob may read only: example/plans\n"),
        "{said}"
    );
}

#[test]
fn a_database_no_server_set_up_is_refused_and_left_as_it_was() {
    let missing = temp_path("tokens-missing", "db");
    for name in support::SERVERS {
        let out = token(name, &["add", "local", "--db", missing.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(text(&out.stderr).contains("no database at"), "{name}");
        assert!(!missing.exists(), "{name}: no file is made");
        assert!(out.stdout.is_empty(), "{name}: no token printed");
    }
    // A file that is a database but was never set up by a server.
    let empty = temp_path("tokens-empty", "db");
    std::fs::write(&empty, b"").unwrap();
    let out = token(
        "chopin-mcp-server",
        &["add", "x", "--db", empty.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("never set up"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    if let Some(cluster) = pg::shared() {
        let url = cluster.url(&cluster.new_database());
        let out = token("chopin-mcp-server", &["add", "x", "--db", &url]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stderr).contains("never set up"),
            "{}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn usage_errors_exit_2_and_help_says_how() {
    for args in [
        &[][..],
        &["add"],
        &["add", "local", "--memory"],
        &["add", "local", "bob"],
        &["add", "a\u{7}b"],
        &["add", ""],
        &["list", "local"],
        &["rotate", "local"],
        &["add", "local", "--listen", "127.0.0.1:0"],
    ] {
        let out = token("chopin-mcp-server", args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = token("chopin-mcp-server", &["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("token add CALLER"));
    let out = Command::new(binary("chopin-mcp-server"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("chopin-mcp-server token add CALLER"));
}
