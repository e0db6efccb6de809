//! The planner in `chopin-mcp-server`'s metrics and request log (SURFACE.md
//! §9: logs and metrics name the tool): `requests_total` and the request
//! line say `tool=invoke_planner`, `invokes_total` counts each call by what
//! became of it, the store's `invoke` operation is timed, and
//! `planner_turns_total` counts each turn by how it ended.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/planner.rs"]
mod planner;

use planner::{OTHER_ID, all_ended, invoke, script, start_capturing, wait_for};
use support::{DOC_ID, samples, scrape, temp_path};

#[test]
fn each_call_and_each_turn_is_counted_under_the_tool() {
    let planner = script("planner-metrics", "echo done\nexit 1\n");
    let db = temp_path("planner-metrics", "db");
    let server = start_capturing(
        "chopin-mcp-server",
        &db,
        &[
            "--planner-command",
            planner.to_str().unwrap(),
            "--metrics-listen",
            "127.0.0.1:0",
        ],
        true,
    );
    let metrics = server
        .banner_line("metrics: http://")
        .expect("a metrics line")
        .trim_end_matches("/metrics")
        .parse()
        .expect("an address");
    invoke(&server, DOC_ID, "Plan.");
    invoke(&server, "no-such-document", "Plan.");
    let archived = server.call("archive_document", &format!(r#"{{"id":"{OTHER_ID}"}}"#));
    assert!(archived.contains("archivedAt"), "{archived}");
    invoke(&server, OTHER_ID, "Plan.");
    wait_for(&db, |turns| turns.len() == 1 && all_ended(turns));
    let seen = samples(&scrape(metrics));
    let value = |series: &str| seen.get(series).copied().unwrap_or_default();
    assert_eq!(
        value(r#"chopin_mcp_invokes_total{result="invoked"}"#),
        1.0,
        "{seen:#?}"
    );
    assert_eq!(
        value(r#"chopin_mcp_invokes_total{result="unavailable"}"#),
        1.0
    );
    assert_eq!(value(r#"chopin_mcp_invokes_total{result="archived"}"#), 1.0);
    assert_eq!(
        value(r#"chopin_mcp_planner_turns_total{state="exited",tool="invoke_planner"}"#),
        1.0,
        "{seen:#?}"
    );
    assert_eq!(
        value(
            r#"chopin_mcp_requests_total{method="tools/call",status="200",tool="invoke_planner"}"#
        ),
        3.0,
        "{seen:#?}"
    );
    assert!(
        value(r#"chopin_mcp_store_operation_duration_seconds_count{operation="invoke"}"#) >= 3.0,
        "{seen:#?}"
    );
    let line = planner::logged(&server, |line| {
        line.contains("tool=invoke_planner") && line.contains("invoke=invoked")
    });
    assert!(line.is_some(), "{}", server.stderr.lock().unwrap());
}
