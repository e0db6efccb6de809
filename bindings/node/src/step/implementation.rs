//! The host inputs of the claim and the lifecycle report, as JSON (the
//! read's is its locator alone): what `implementations.start` and
//! `implementations.report` take.

use chopin_mcp::{ReportLifecycle, StartImplementation};
use serde::Serialize;
use serde_json::Value;

/// The client an implementation effect names: its `session` is the session
/// id's ULID, or (no session) the run's id for a claim, absent for a report.
#[derive(Serialize)]
struct Client<'a> {
    name: &'a str,
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
}

/// `implementations.start`'s input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StartInput<'a> {
    id: &'a str,
    plan_revision: u64,
    graph_version: u64,
    graph_revision: u64,
    repository: &'a str,
    branch: &'a str,
    commit: &'a str,
    client: Client<'a>,
    run_id: &'a str,
}

/// `implementations.report`'s input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportInput<'a> {
    id: &'a str,
    run_id: &'a str,
    idempotency_key: &'a str,
    /// The event without its key: `{kind, …fields}`.
    command: Value,
    /// The event as stored (`EVENT`).
    event: Value,
    fingerprint: &'a str,
    client: Client<'a>,
}

/// The claim's input, as JSON.
pub(crate) fn start_input(start: &StartImplementation<()>) -> Vec<u8> {
    let request = start.request();
    let client = start.client();
    let input = StartInput {
        id: &request.id,
        plan_revision: request.plan_revision,
        graph_version: request.graph_version,
        graph_revision: request.graph_revision,
        repository: &request.repository,
        branch: &request.branch,
        commit: &request.commit,
        client: Client {
            name: &client.name,
            version: &client.version,
            session: Some(client.session.as_deref().unwrap_or(start.run_id())),
        },
        run_id: start.run_id(),
    };
    // Strings and numbers: serializing cannot fail.
    serde_json::to_vec(&input).unwrap_or_default()
}

/// The report's input, as JSON.
pub(crate) fn report_input(report: &ReportLifecycle<()>) -> Vec<u8> {
    let event: Value = serde_json::from_slice(&report.event().to_json()).unwrap_or_default();
    let mut command = event.clone();
    if let Value::Object(fields) = &mut command {
        fields.remove("idempotencyKey");
    }
    let client = report.client();
    let input = ReportInput {
        id: report.locator(),
        run_id: report.run_id(),
        idempotency_key: report.idempotency_key(),
        command,
        event,
        fingerprint: report.fingerprint(),
        client: Client {
            name: &client.name,
            version: &client.version,
            session: client.session.as_deref(),
        },
    };
    // Strings, numbers and JSON values: serializing cannot fail.
    serde_json::to_vec(&input).unwrap_or_default()
}
