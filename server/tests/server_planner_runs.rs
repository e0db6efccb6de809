//! invoke_planner on both servers (SURFACE.md §9): not offered without
//! `--planner-command`; with it, a turn is recorded and answered at once
//! with the document, and the command runs without a shell, its arguments
//! as given, the instruction on its standard input, only the four
//! documented variables in its environment (no token), in the document's
//! own working directory; its exit status and output go to the turn's row
//! and the log line, which names the tool. An unseen or archived document
//! records nothing.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/planner.rs"]
mod planner;

use planner::{OTHER_ID, all_ended, invoke, result, script, start, start_capturing, wait_for};
use serde_json::json;
use support::{DOC_ID, DOC_TITLE, SERVERS, Server, temp_path};

#[test]
fn without_planner_command_the_tool_is_neither_listed_nor_found() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let list = server.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Some(support::TOKEN),
        );
        let tools = result(&list)["tools"].clone();
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"restore_document"), "{name}: {names:?}");
        assert!(!names.contains(&"invoke_planner"), "{name}: {names:?}");
        let called = invoke(&server, DOC_ID, "Plan.");
        assert_eq!(
            called,
            json!({"code": -32601, "message": "tool not found"}),
            "{name}"
        );
    }
}

#[test]
fn the_command_gets_only_the_documented_environment() {
    for name in SERVERS {
        let db = temp_path("planner-env", "db");
        let server = start(
            name,
            &db,
            &[
                "--planner-command",
                "/usr/bin/env",
                "--planner-workers",
                "2",
            ],
        );
        assert!(
            server.banner.iter().any(
                |line| line.starts_with("mode: read-write") && line.contains(" invoke_planner")
            ),
            "{name}: {:?}",
            server.banner
        );
        let answered = invoke(&server, DOC_ID, "Plan.");
        assert_eq!(
            answered["structuredContent"],
            json!({"id": DOC_ID, "title": DOC_TITLE, "url": format!("/documents/{DOC_ID}")}),
            "{name}: {answered}"
        );
        let turns = wait_for(&db, all_ended);
        assert_eq!(turns.len(), 1, "{name}");
        let mut lines: Vec<&str> = turns[0].output.as_deref().unwrap().lines().collect();
        lines.sort_unstable();
        assert_eq!(
            lines,
            [
                "CHOPIN_CALLER=octocat".to_owned(),
                format!("CHOPIN_DOCUMENT_ID={DOC_ID}"),
                format!("CHOPIN_DOCUMENT_URL=/documents/{DOC_ID}"),
                "CHOPIN_REPOSITORY=githubnext/chopin".to_owned(),
            ],
            "{name}"
        );
        assert_eq!(
            (turns[0].state.as_str(), turns[0].exit_status),
            ("exited", Some(0))
        );
    }
}

#[test]
fn the_instruction_arrives_on_stdin_with_the_arguments_as_given_in_the_documents_directory() {
    let planner = script(
        "planner-echo",
        // External commands, each ending before the next begins (a shell's
        // own builtins may buffer what they write).
        "/usr/bin/printf 'args:'; /usr/bin/printf '[%s]' \"$@\"; /bin/echo\n/bin/cat\n/bin/echo\n/bin/pwd\n/bin/echo 'to stderr' >&2\nexit 3\n",
    );
    for name in SERVERS {
        let db = temp_path("planner-stdin", "db");
        let server = start_capturing(
            name,
            &db,
            &[
                "--planner-command",
                planner.to_str().unwrap(),
                "--planner-arg",
                "two words",
                "--planner-arg",
                "$HOME;*",
            ],
            true,
        );
        let arguments = json!({
            "id": format!("/documents/{DOC_ID}"),
            "instruction": "  Plan this.\n\"Quoted\" 😀",
            "checkout": "/tmp/score",
        });
        let answered = result(&server.call("invoke_planner", &arguments.to_string()));
        assert_eq!(
            answered["structuredContent"]["id"], DOC_ID,
            "{name}: {answered}"
        );
        let turns = wait_for(&db, all_ended);
        let turn = &turns[0];
        assert_eq!(
            (turn.caller.as_str(), turn.document.as_str()),
            ("octocat", DOC_ID)
        );
        assert_eq!(turn.instruction, "  Plan this.\n\"Quoted\" 😀");
        assert_eq!(turn.checkout.as_deref(), Some("/tmp/score"));
        assert_eq!((turn.state.as_str(), turn.exit_status), ("exited", Some(3)));
        let output = turn.output.as_deref().unwrap();
        let mut sections = output.splitn(2, '\n');
        assert_eq!(
            sections.next(),
            Some("args:[two words][$HOME;*]"),
            "{output}"
        );
        let rest = sections.next().unwrap();
        assert!(
            rest.starts_with("  Plan this.\n\"Quoted\" 😀\n"),
            "{name}: {output}"
        );
        assert!(rest.ends_with("\nto stderr\n"), "{name}: {output}");
        // The document's own directory, beside the database file.
        let cwd = rest
            .lines()
            .find(|line| line.starts_with('/'))
            .expect("the working directory");
        let root = format!("{}-planner/", db.display());
        assert!(cwd.starts_with(&root), "{name}: {cwd} not in {root}");
        assert_eq!(cwd.len(), root.len() + 32, "{name}: {cwd}");
        // Another document's turns run elsewhere.
        invoke(&server, OTHER_ID, "Plan.");
        let turns = wait_for(&db, |turns| turns.len() == 2 && all_ended(turns));
        let other = turns[1].output.as_deref().unwrap();
        assert!(!other.contains(cwd), "{name}: {other}");
        // The log names the tool, with the exit status.
        let ended = planner::logged(&server, |line| line.contains("planner turn ended"))
            .unwrap_or_else(|| panic!("{name}: no turn logged"));
        assert!(ended.contains("invoke_planner"), "{name}: {ended}");
        assert!(ended.contains("exit_status=3"), "{name}: {ended}");
    }
}

#[test]
fn an_unseen_or_archived_document_records_no_turn() {
    let planner = script("planner-true", "exit 0\n");
    for name in SERVERS {
        let db = temp_path("planner-refused", "db");
        let server = start(name, &db, &["--planner-command", planner.to_str().unwrap()]);
        let missing = invoke(&server, "no-such-document", "Plan.");
        assert_eq!(
            (&missing["structuredContent"], &missing["isError"]),
            (&json!({"code": "document-unavailable"}), &json!(true)),
            "{name}"
        );
        let archived = server.call("archive_document", &json!({"id": OTHER_ID}).to_string());
        assert!(archived.contains("archivedAt"), "{name}: {archived}");
        let refused = invoke(&server, OTHER_ID, "Plan.");
        assert_eq!(
            refused["structuredContent"],
            json!({"code": "document-archived"}),
            "{name}"
        );
        assert!(planner::turns(&db).is_empty(), "{name}");
    }
}

#[test]
fn the_planner_flags_are_refused_where_they_do_not_go_together() {
    for name in SERVERS {
        for (args, says) in [
            (
                &["--planner-arg", "x"][..],
                "--planner-arg: needs --planner-command",
            ),
            (
                &["--planner-timeout", "5"][..],
                "--planner-timeout: needs --planner-command",
            ),
            (
                &["--planner-command", "/bin/true", "--read-only"][..],
                "--planner-command: invoke_planner is a write tool, not offered with --read-only",
            ),
            (
                &["--planner-command", "/bin/true", "--planner-workers", "0"][..],
                "--planner-workers: \"0\" is not a number from 1 to 256",
            ),
            (
                &["--public-url", "ftp://plans.example"][..],
                "--public-url \"ftp://plans.example\": expected http(s)://HOST[:PORT][/PATH], without a query or fragment",
            ),
            (
                &["--public-url", "https://plans.example/?q"][..],
                "--public-url \"https://plans.example/?q\": expected http(s)://HOST[:PORT][/PATH], without a query or fragment",
            ),
            (
                &["--planner-command", "/bin/true", "--planner-timeout", "0"][..],
                "--planner-timeout: \"0\" is not a number of seconds from 1 to 604800",
            ),
        ] {
            let (code, stderr) = support::run(name, args);
            assert_eq!(code, Some(2), "{name} {args:?}: {stderr}");
            assert_eq!(stderr.lines().next(), Some(says), "{name} {args:?}");
        }
    }
}

#[test]
fn a_turn_records_the_client_its_session_id_names() {
    let planner = script("planner-client", "exit 0\n");
    for name in SERVERS {
        let db = temp_path("planner-client", "db");
        let server = start(name, &db, &["--planner-command", planner.to_str().unwrap()]);
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "planner-test", "version": "2"},
        }});
        let reply = server.post(&initialize.to_string(), Some(support::TOKEN));
        let session = reply
            .lines()
            .find_map(|line| line.strip_prefix("mcp-session-id: "))
            .unwrap_or_else(|| panic!("{name}: no session id: {reply}"))
            .trim()
            .to_owned();
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "invoke_planner", "arguments": {"id": DOC_ID, "instruction": "Plan."},
        }});
        let headers = format!(
            "authorization: Bearer {}\r\nmcp-session-id: {session}\r\n",
            support::TOKEN
        );
        let answered = result(&server.post_with(&call.to_string(), &headers));
        assert_eq!(
            answered["structuredContent"]["id"], DOC_ID,
            "{name}: {answered}"
        );
        invoke(&server, DOC_ID, "Plan again.");
        let turns = wait_for(&db, |turns| turns.len() == 2 && all_ended(turns));
        let clients: Vec<&str> = turns.iter().map(|t| t.client.as_str()).collect();
        assert_eq!(clients, ["planner-test 2", "unknown unknown"], "{name}");
    }
}

#[test]
fn with_a_public_url_the_documents_url_is_absolute() {
    for name in SERVERS {
        let db = temp_path("planner-public", "db");
        let server = start(
            name,
            &db,
            &[
                "--planner-command",
                "/usr/bin/env",
                "--public-url",
                "https://plans.example/chopin/",
            ],
        );
        let url = format!("https://plans.example/chopin/documents/{DOC_ID}");
        let answered = invoke(&server, DOC_ID, "Plan.");
        assert_eq!(answered["structuredContent"]["url"], url.as_str(), "{name}");
        let turns = wait_for(&db, all_ended);
        let output = turns[0].output.as_deref().unwrap();
        assert!(
            output
                .lines()
                .any(|line| line == format!("CHOPIN_DOCUMENT_URL={url}")),
            "{name}: {output}"
        );
    }
}

#[test]
fn the_instructions_name_the_planner_only_when_it_is_offered() {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }})
    .to_string();
    let line = "\ninvoke_planner: Post an instruction to a document's planner, attributed to the caller, and return the document without waiting for the turn.";
    for name in SERVERS {
        let db = temp_path("planner-instructions", "db");
        let server = start(name, &db, &["--planner-command", "/bin/true"]);
        let text = result(&server.post(&initialize, Some(support::TOKEN)))["instructions"].clone();
        assert!(text.as_str().unwrap().contains(line), "{name}: {text}");
        let without = Server::seeded(name);
        let text = result(&without.post(&initialize, Some(support::TOKEN)))["instructions"].clone();
        assert!(
            !text.as_str().unwrap().contains("invoke_planner"),
            "{name}: {text}"
        );
    }
}
