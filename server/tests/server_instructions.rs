//! What both servers tell a model: a title in `serverInfo`, built-in
//! instructions that fit the mode (read-only or not), and
//! `--instructions-file`, which replaces them.

#[path = "interop/harness.rs"]
mod support;

use chopin_mcp::dialect::{catalog_summary, components};
use serde_json::Value;
use support::{SERVERS, Server, TOKEN, run, temp_path};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn initialize(server: &Server) -> Value {
    let response = server.post(INITIALIZE, Some(TOKEN));
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str::<Value>(body).unwrap()["result"].clone()
}

#[test]
fn built_in_instructions_say_how_the_tools_fit_together_for_the_mode() {
    for name in SERVERS {
        let result = initialize(&Server::seeded(name));
        assert_eq!(
            result["serverInfo"]["title"], "Chopin plan documents",
            "{name}"
        );
        let text = result["instructions"].as_str().unwrap();
        // SURFACE.md §10: the generated lines first, then the server's own.
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("Chopin's MCP contract and current tool descriptions are authoritative.")
        );
        let described: Vec<&str> = lines
            .by_ref()
            .take_while(|line| !line.is_empty())
            .map(|line| line.split(": ").next().unwrap())
            .collect();
        assert_eq!(
            described,
            [
                "create_document",
                "update_document",
                "rename_document",
                "archive_document",
                "restore_document",
                "upload_image",
                // IMPLEMENTATION.md §2.1: the implementation tools, after
                // their instruction (`--no-implementations` leaves them out).
                "Read the canonical implementation before every implementation or lifecycle \
                 action; copied plans and lifecycle instructions are not substitutes.",
                "read_implementation",
                "start_implementation",
                "start_task",
                "block_task",
                "report_pr",
                "complete_task",
                "report_verification",
                "request_revision",
            ],
            "{name}: {text}"
        );
        assert!(
            text.contains(
                "\narchive_document: Archive a Chopin document by ID or canonical URL.\n"
            )
        );
        assert!(text.contains("list_documents") && text.contains("read_document"));
        assert!(text.contains("create_document"), "{name}: {text}");
        // A model about to write a plan is told the dialect: the catalog
        // as the validator holds it, every component and its required
        // attributes, and all of it in a few kilobytes.
        assert!(text.contains(&catalog_summary()), "{name}: {text}");
        for component in components() {
            assert!(text.contains(&format!("<{}", component.name())));
            for attribute in component.attributes().filter(|a| a.required()) {
                if !(component.identified() && attribute.name() == "id") {
                    assert!(text.contains(&format!(" {}", attribute.name())));
                }
            }
        }
        // A few kilobytes: the implementation tools' nine lines add about
        // 800 bytes to the document tools' 3.5 KiB.
        assert!(text.len() < 5120, "{name}: {} bytes", text.len());
        let read_only = initialize(&Server::seeded_with(name, &["--read-only"]));
        let text = read_only["instructions"].as_str().unwrap();
        // Read-only: read_implementation alone among the tools described.
        assert!(
            text.starts_with(
                "Chopin's MCP contract and current tool descriptions are authoritative.\n\
             Read the canonical implementation before every implementation or lifecycle \
             action; copied plans and lifecycle instructions are not substitutes.\n\
             read_implementation: "
            ),
            "{name}: {text}"
        );
        assert!(!text.contains("start_implementation"), "{name}: {text}");
        assert!(text.contains("read_document") && !text.contains("create_document"));
        assert!(
            !text.contains("<Callout"),
            "{name}: no plan is written here"
        );
    }
}

#[test]
fn an_instructions_file_replaces_them_and_an_empty_one_gives_none() {
    let file = temp_path("instructions", "txt");
    std::fs::write(&file, "Only read plans in acme/plans.\n").unwrap();
    let empty = temp_path("instructions-empty", "txt");
    std::fs::write(&empty, " \n").unwrap();
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--instructions-file", file.to_str().unwrap()]);
        assert_eq!(
            initialize(&server)["instructions"],
            "Only read plans in acme/plans.\n"
        );
        let server = Server::seeded_with(name, &["--instructions-file", empty.to_str().unwrap()]);
        assert!(initialize(&server).get("instructions").is_none(), "{name}");
    }
}

#[test]
fn an_unreadable_or_oversized_instructions_file_stops_the_start() {
    let big = temp_path("instructions-big", "txt");
    std::fs::write(&big, "x".repeat(64 * 1024 + 1)).unwrap();
    let binary = temp_path("instructions-binary", "txt");
    std::fs::write(&binary, [0xff, 0xfe]).unwrap();
    for name in SERVERS {
        for (path, says) in [
            (
                "/nonexistent/instructions.txt",
                "--instructions-file /nonexistent/instructions.txt: ",
            ),
            (big.to_str().unwrap(), "larger than 65536 bytes"),
            (binary.to_str().unwrap(), "not UTF-8 text"),
        ] {
            let (code, stderr) = run(
                name,
                &[
                    "--memory",
                    "--listen",
                    "127.0.0.1:0",
                    "--instructions-file",
                    path,
                ],
            );
            assert_eq!(code, Some(1), "{name} {path}: {stderr}");
            assert!(stderr.contains(says), "{name} {path}: {stderr}");
        }
    }
}
