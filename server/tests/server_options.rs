//! The servers' command line (`src/options.rs`).

use std::path::PathBuf;

use std::time::Duration;

use chopin_mcp_server::options::{self, Command, LogFormat, Options, USAGE};
use chopin_mcp_server::store::Database;
use chopin_mcp_server::store::{DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT};

fn parse(args: &[&str]) -> Result<Options, String> {
    match options::parse(args.iter().map(|a| a.to_string()))? {
        Command::Serve(options) => Ok(options),
        Command::Help => Err("help".to_owned()),
        Command::Token(_) => Err("token".to_owned()),
        Command::Graph(_) => Err("graph".to_owned()),
        Command::Runs(_) => Err("runs".to_owned()),
    }
}

#[test]
fn token_commands_take_the_server_s_database() {
    use chopin_mcp_server::token::{Action, TokenCommand};
    let token = |args: &[&str]| match options::parse(args.iter().map(|a| a.to_string())) {
        Ok(Command::Token(command)) => command,
        _ => panic!("{args:?} is a token command"),
    };
    assert_eq!(
        token(&["token", "add", "local"]),
        TokenCommand {
            action: Action::Add("local".to_owned()),
            database: Database::File(PathBuf::from("chopin.db")),
        }
    );
    let url = "postgres://u@localhost/chopin";
    assert_eq!(
        token(&["token", "revoke", "--db", url, "ci bot"]),
        TokenCommand {
            action: Action::Revoke("ci bot".to_owned()),
            database: Database::Postgres(url.to_owned()),
        }
    );
    assert_eq!(
        token(&["token", "list", "--db", "x.db"]).action,
        Action::List
    );
    // Only as the first argument: elsewhere it is no flag of the server.
    assert!(parse(&["--memory", "token"]).is_err());
}

#[test]
fn no_flags_serve_chopin_db_on_port_8080() {
    let options = parse(&[]).unwrap();
    assert_eq!(options.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(options.database, Database::File(PathBuf::from("chopin.db")));
    assert!(options.tokens.is_empty() && options.grants.is_empty() && !options.read_only);
    assert!(options.read_grants.is_empty());
    assert_eq!(options.log_format, LogFormat::Text);
    assert_eq!(options.shutdown_timeout, Duration::from_secs(10));
    assert_eq!(options.metrics_listen, None);
    assert_eq!(options.workers, None);
    assert!(options.pin);
    assert_eq!(options.db_limits.pool_size, DEFAULT_POOL_SIZE);
    assert_eq!(
        options.db_limits.statement_timeout,
        DEFAULT_STATEMENT_TIMEOUT
    );
}

#[test]
fn every_flag_is_read() {
    let options = parse(&[
        "--listen",
        "127.0.0.1:0",
        "--memory",
        "--token",
        "t1=ann",
        "--token",
        "t2=bob",
        "--grant",
        "ann=acme/plans,acme/other",
        "--grant",
        "bob=*",
        "--grant-read",
        "cat=acme/plans,acme/other",
        "--grant-read",
        "ann=*",
        "--import",
        "docs.json",
        "--read-only",
        "--allow-origin",
        "https://a.example",
        "--resource-metadata",
        "https://a.example/.well-known/oauth-protected-resource",
        "--log-format",
        "json",
        "--shutdown-timeout",
        "3",
        "--metrics-listen",
        "0.0.0.0:9090",
        "--workers",
        "3",
        "--no-pin",
        "--db-pool-size",
        "4",
        "--db-statement-timeout",
        "0",
    ])
    .unwrap();
    assert_eq!(options.listen.port(), 0);
    assert_eq!(options.database, Database::Memory);
    assert_eq!(options.tokens.len(), 2);
    assert_eq!(options.grants[0].1, ["acme/plans", "acme/other"]);
    assert_eq!(options.grants[1].1, ["*"]);
    assert_eq!(
        options.read_grants,
        [
            (
                "cat".to_owned(),
                vec!["acme/plans".to_owned(), "acme/other".to_owned()]
            ),
            ("ann".to_owned(), vec!["*".to_owned()]),
        ]
    );
    assert_eq!(options.import, Some(PathBuf::from("docs.json")));
    assert!(options.read_only);
    assert_eq!(options.origins, ["https://a.example"]);
    assert!(options.resource_metadata.is_some());
    assert_eq!(options.log_format, LogFormat::Json);
    assert_eq!(options.shutdown_timeout, Duration::from_secs(3));
    assert_eq!(options.metrics_listen.unwrap().to_string(), "0.0.0.0:9090");
    assert_eq!(options.workers, Some(3));
    assert!(!options.pin);
    assert_eq!(options.db_limits.pool_size, 4);
    assert_eq!(options.db_limits.statement_timeout, Duration::ZERO);
}

#[test]
fn a_bare_metrics_port_binds_loopback_only() {
    for port in ["9464", ":9464"] {
        let options = parse(&["--metrics-listen", port]).unwrap();
        assert_eq!(
            options.metrics_listen.unwrap().to_string(),
            "127.0.0.1:9464"
        );
    }
    let options = parse(&["--metrics-listen", "[::]:9464"]).unwrap();
    assert_eq!(options.metrics_listen.unwrap().to_string(), "[::]:9464");
}

#[test]
fn bad_command_lines_are_refused_with_a_reason() {
    for args in [
        &["--listen", "nowhere"][..],
        &["--token", "no-caller"],
        &["--token", "=ann"],
        &["--grant", "ann=not-a-repo"],
        &["--grant", "ann=a/b/c"],
        &["--grant-read", "ann=not-a-repo"],
        &["--grant-read", "=acme/plans"],
        &["--db"],
        &["--frobnicate"],
        &["--log-format", "xml"],
        &["--shutdown-timeout", "soon"],
        &["--shutdown-timeout", "-1"],
        &["--metrics-listen", "nowhere"],
        &["--metrics-listen", "70000"],
        &["--workers", "0"],
        &["--workers"],
        &["--db-pool-size", "0"],
        &["--db-pool-size", "many"],
        &["--db-statement-timeout", "-1"],
        &["--db-statement-timeout", "1.5"],
        &["--db-statement-timeout", "86401"],
    ] {
        let error = parse(args).unwrap_err();
        assert!(
            error.starts_with("--") || error.contains("unknown"),
            "{args:?}: {error}"
        );
    }
}

#[test]
fn grant_read_refuses_what_grant_refuses_in_the_same_words() {
    for value in [
        "ann",
        "=acme/plans",
        "ann=",
        "ann=not-a-repo",
        "ann=a/b/c",
        "ann=acme/plans,",
    ] {
        let grant = parse(&["--grant", value]).unwrap_err();
        let read = parse(&["--grant-read", value]).unwrap_err();
        assert!(grant.starts_with("--grant: "), "{value}: {grant}");
        assert_eq!(
            read,
            grant.replacen("--grant: ", "--grant-read: ", 1),
            "{value}"
        );
    }
    assert_eq!(
        parse(&["--grant-read", "ann=not-a-repo"]).unwrap_err(),
        r#"--grant-read: "not-a-repo" is not * or OWNER/REPO[,OWNER/REPO...]"#
    );
}

#[test]
fn help_lists_every_flag() {
    assert_eq!(parse(&["--help"]).unwrap_err(), "help");
    for flag in [
        "--listen",
        "--db",
        "--memory",
        "--token",
        "--grant",
        "--grant-read",
        "--import",
        "--read-only",
        "--allow-origin",
        "--resource-metadata",
        "--log-format",
        "--shutdown-timeout",
        "--metrics-listen",
        "--workers",
        "--no-pin",
        "--db-pool-size",
        "--db-statement-timeout",
    ] {
        assert!(USAGE.contains(flag), "{flag}");
    }
    // The defaults are stated.
    assert!(USAGE.contains(&format!("(default {DEFAULT_POOL_SIZE})")));
    assert!(USAGE.contains(&format!(
        "(default {}; 0 = no statement",
        DEFAULT_STATEMENT_TIMEOUT.as_secs()
    )));
}

#[test]
fn chopin_mcp_listen_is_the_address_when_no_listen_flag_is_given() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    for name in [
        env!("CARGO_BIN_EXE_chopin-mcp-server"),
        env!("CARGO_BIN_EXE_chopin-mcp-blocking"),
    ] {
        let mut child = Command::new(name)
            .args(["--memory", "--token", "t=u"])
            .env("CHOPIN_MCP_LISTEN", "127.0.0.1:0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let listening = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find(|line| line.starts_with("chopin-mcp listening on "));
        let _ = child.kill();
        let _ = child.wait();
        let line = listening.expect("a banner");
        assert!(line.starts_with("chopin-mcp listening on http://127.0.0.1:"));
        assert!(!line.contains(":8080/"), "{name}: {line}");
        // A malformed value is a usage error, unless --listen is given.
        let out = Command::new(name)
            .args(["--memory", "--help"])
            .env("CHOPIN_MCP_LISTEN", "nowhere")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--listen: \"nowhere\""));
        let out = Command::new(name)
            .args(["--listen", "127.0.0.1:0", "--help"])
            .env("CHOPIN_MCP_LISTEN", "nowhere")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
    }
}

/// The help texts point to files of the repository only (the specs the
/// code was written from are not in it).
#[test]
fn help_texts_cite_only_files_in_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for text in [USAGE, options::TOKEN_USAGE] {
        for word in text.split(|c: char| c.is_whitespace() || "(),;:".contains(c)) {
            if word.ends_with(".md") {
                assert!(root.join(word).exists(), "--help cites {word}");
            }
        }
    }
}

#[test]
fn implementation_flags_turn_the_tools_off_and_bind_runs_to_their_claimer() {
    let defaults = parse(&[]).unwrap();
    assert!(defaults.implementations && !defaults.bind_runs);
    let options = parse(&["--no-implementations", "--bind-runs"]).unwrap();
    assert!(!options.implementations && options.bind_runs);
}

#[test]
fn graph_and_runs_commands_take_the_server_s_database() {
    use chopin_mcp_server::graph::GraphAction;
    use chopin_mcp_server::runs::RunsAction;
    let command = options::parse(
        [
            "graph",
            "approve",
            "D",
            "--version",
            "2",
            "--revision",
            "3",
            "--db",
            "x.db",
        ]
        .iter()
        .map(|a| a.to_string()),
    );
    match command {
        Ok(Command::Graph(graph)) => {
            assert_eq!(graph.database, Database::File(PathBuf::from("x.db")));
            assert_eq!(
                graph.action,
                GraphAction::Approve {
                    document: "D".into(),
                    version: 2,
                    revision: 3
                }
            );
        }
        _ => panic!("not graph approve"),
    }
    match options::parse(["runs", "check"].iter().map(|a| a.to_string())) {
        Ok(Command::Runs(runs)) => {
            assert_eq!(runs.database, Database::File(PathBuf::from("chopin.db")));
            assert_eq!(runs.action, RunsAction::Check);
        }
        _ => panic!("not runs check"),
    }
    // --base-branch without --base-commit is refused by the parser.
    let half = options::parse(
        [
            "graph",
            "draft",
            "D",
            "--plan-revision",
            "1",
            "--tasks",
            "t.json",
            "--base-branch",
            "m",
        ]
        .iter()
        .map(|a| a.to_string()),
    );
    assert!(half.is_err());
}
