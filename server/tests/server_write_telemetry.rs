//! What `chopin-mcp-server` says about the write tools (docs/running.md):
//! each update, rename, archive and restore gets its request line with its
//! tool and its own result field (`update=revision_conflict`, …), counted
//! in its counter (`updates_total{result=…}`, …) and, when it reached the
//! store, in `store_operation_duration_seconds{operation=…}`. A plan with
//! issues is `update=issues` without a store operation; no line holds a
//! plan or a title.

#[path = "interop/harness.rs"]
mod support;

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::json;
use support::{DOC_ID, Server, TOKEN, samples, scrape, status};

/// Text no log line may hold: a plan's and a title's.
const PLAN_TEXT: &str = "Migrate the heron colony";
const NEW_TITLE: &str = "Heron colony plan";

fn call(tool: &str, arguments: serde_json::Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn update(id: &str, revision: u64, plan: &str, key: &str) -> String {
    call(
        "update_document",
        json!({"id": id, "revision": revision, "plan": plan, "idempotencyKey": key}),
    )
}

/// The value of `field=` in a text log line.
fn field<'a>(line: &'a str, field: &str) -> Option<&'a str> {
    line.split(' ')
        .find_map(|pair| pair.strip_prefix(field)?.strip_prefix('='))
}

#[test]
fn each_write_is_logged_and_counted_with_its_own_result() {
    let import = support::import_file();
    let args = support::db_args(
        "--memory",
        &[
            "--import",
            import.to_str().unwrap(),
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let server = Server::start_capturing("chopin-mcp-server", &args, &[]);
    let metrics: SocketAddr = server
        .banner_line("metrics: http://")
        .expect("a metrics line")
        .trim_end_matches("/metrics")
        .parse()
        .expect("an address");
    let plan = format!("# Herons\n\n{PLAN_TEXT}.\n");
    // The seed document is at revision 2. Each request, and the result its
    // line must name.
    let sequence = [
        (update(DOC_ID, 2, &plan, "t1"), "update", "updated"),
        (update(DOC_ID, 2, &plan, "t1"), "update", "replayed"),
        (update(DOC_ID, 2, "# Other\n", "t1"), "update", "conflict"),
        (
            update(DOC_ID, 2, &plan, "t2"),
            "update",
            "revision_conflict",
        ),
        (update(DOC_ID, 3, "<Chart />\n", "t3"), "update", "issues"),
        (
            update("no-such-document", 0, &plan, "t4"),
            "update",
            "unavailable",
        ),
        (
            call("rename_document", json!({"id": DOC_ID, "title": NEW_TITLE})),
            "rename",
            "renamed",
        ),
        (
            call(
                "rename_document",
                json!({"id": "no-such-document", "title": "X"}),
            ),
            "rename",
            "unavailable",
        ),
        (
            call("archive_document", json!({"id": DOC_ID})),
            "archive",
            "archived",
        ),
        (update(DOC_ID, 3, &plan, "t5"), "update", "archived"),
        (
            call("rename_document", json!({"id": DOC_ID, "title": "Y"})),
            "rename",
            "archived",
        ),
        (
            call("archive_document", json!({"id": "no-such-document"})),
            "archive",
            "unavailable",
        ),
        (
            call("restore_document", json!({"id": DOC_ID})),
            "restore",
            "restored",
        ),
        (
            call("restore_document", json!({"id": "no-such-document"})),
            "restore",
            "unavailable",
        ),
    ];
    for (body, _, _) in &sequence {
        let response = server.post(body, Some(TOKEN));
        assert_eq!(status(&response), 200, "{body}\n{response}");
    }

    let lines = server.request_lines(sequence.len());
    assert_eq!(lines.len(), sequence.len(), "{lines:#?}");
    for (line, (_, written, result)) in lines.iter().zip(&sequence) {
        assert_eq!(
            field(line, "tool"),
            Some(format!("{written}_document").as_str()),
            "{line}"
        );
        assert_eq!(field(line, written), Some(*result), "{line}");
        for other in ["create", "update", "rename", "archive", "restore"] {
            assert!(
                other == *written || field(line, other).is_none(),
                "{other}= in {line}"
            );
        }
    }
    let logs = server.logs();
    for text in [PLAN_TEXT, NEW_TITLE, "Release readiness", TOKEN] {
        assert!(!logs.contains(text), "the logs hold {text:?}:\n{logs}");
    }

    let samples = samples(&scrape(metrics));
    let count = |name: &str, label: &str, value: &str| {
        samples
            .get(&format!("chopin_mcp_{name}{{{label}=\"{value}\"}}"))
            .copied()
            .unwrap_or_else(|| panic!("no {name} {value} in {samples:#?}"))
    };
    for (counter, written) in [
        ("updates_total", "update"),
        ("renames_total", "rename"),
        ("archives_total", "archive"),
        ("restores_total", "restore"),
    ] {
        let mut wanted: BTreeMap<&str, f64> = BTreeMap::new();
        for (_, w, result) in &sequence {
            if *w == written {
                *wanted.entry(result).or_default() += 1.0;
            }
        }
        for (result, n) in wanted {
            assert_eq!(count(counter, "result", result), n, "{counter} {result}");
        }
    }
    assert_eq!(count("creates_total", "result", "created"), 0.0);
    // Every write but the one with issues reached the store.
    for (operation, n) in [
        ("update", 6.0),
        ("rename", 3.0),
        ("archive", 2.0),
        ("restore", 2.0),
    ] {
        assert_eq!(
            count(
                "store_operation_duration_seconds_count",
                "operation",
                operation
            ),
            n,
            "{operation}"
        );
    }
}
