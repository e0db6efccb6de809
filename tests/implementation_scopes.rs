//! IMPLEMENTATION.md §2.1 and §5 case 25: read_implementation needs the
//! read scope; the other seven the read and write scopes (403 naming
//! `chopin:read chopin:write`, before their arguments, in both eras, and
//! for a notification too); a notification with the scopes is 202 and
//! starts nothing.

mod common;

use chopin_mcp::Config;
use common::{Request, Step, as_token, call, endpoint_with, insufficient, mreq_id, scope_of};
use serde_json::{Value, json};

const D: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const RUN: &str = "01K2XQ7Z0000000000000000R1";

fn endpoint() -> chopin_mcp::Endpoint {
    endpoint_with(
        Config::new()
            .enable_implementations()
            .client_sessions(false),
    )
}

fn writes() -> [(&'static str, Value); 7] {
    let head = |more: Value| {
        let mut value = json!({"id": D, "runId": RUN, "idempotencyKey": "k"});
        value
            .as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        value
    };
    [
        (
            "start_implementation",
            json!({"id": D, "planRevision": 3, "graphVersion": 1,
            "graphRevision": 1, "repository": "githubnext/chopin", "branch": "tq/017",
            "commit": "deadbeef"}),
        ),
        ("start_task", head(json!({"taskId": "foundation"}))),
        (
            "block_task",
            head(json!({"taskId": "foundation", "reason": "r"})),
        ),
        (
            "report_pr",
            head(json!({"taskId": "foundation",
            "url": "https://github.com/githubnext/chopin/pull/1", "state": "open"})),
        ),
        (
            "complete_task",
            head(json!({"taskId": "foundation", "summary": "s"})),
        ),
        (
            "report_verification",
            head(json!({"passed": true, "summary": "s",
            "reviewerMethod": "m", "evidence": [{"taskId": "foundation", "evidence": ["e"]}],
            "tasksNeedingWork": []})),
        ),
        ("request_revision", head(json!({"reason": "r"}))),
    ]
}

fn both_eras(name: &str, arguments: &Value) -> [Request; 2] {
    [
        Request::post(&call(json!(9), name, arguments.clone())),
        mreq_id(
            json!(9),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    ]
}

#[test]
fn a_read_token_reads_implementations() {
    for request in both_eras("read_implementation", &json!({"id": D})) {
        let (reply, transcript) = as_token(request, "reader").exchange(&endpoint());
        assert_eq!(reply.status, 200);
        assert_eq!(transcript[1], Step::ReadImplementation(D.to_owned()));
    }
}

#[test]
fn the_seven_need_the_read_and_write_scopes_before_their_arguments() {
    for (name, arguments) in writes() {
        for arguments in [arguments, json!({"bogus": true})] {
            for request in both_eras(name, &arguments) {
                for token in ["reader", "writer", "both"] {
                    let (reply, transcript) =
                        as_token(request.clone(), token).exchange(&endpoint());
                    assert_eq!(
                        (reply.status, reply.text()),
                        (403, &*insufficient("9")),
                        "{name} {token}"
                    );
                    assert_eq!(
                        scope_of(reply.header("www-authenticate")),
                        "chopin:read chopin:write"
                    );
                    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
                }
            }
        }
        let request = Request::post(&call(json!(9), name, writes_arguments(name)));
        // (`send`: each claim mints its own run id.)
        let mut host = common::Host::seed();
        let reply = as_token(request, "editor").send(&endpoint(), &mut host);
        assert_eq!(reply.status, 200, "{name}");
        assert_eq!(host.transcript.len(), 3, "{name}: an effect");
    }
}

fn writes_arguments(name: &str) -> Value {
    writes()
        .into_iter()
        .find(|(tool, _)| *tool == name)
        .unwrap()
        .1
}

#[test]
fn a_notification_is_refused_without_the_scopes_and_starts_nothing_with_them() {
    let mut notification = call(json!(0), "start_task", writes_arguments("start_task"));
    notification.as_object_mut().unwrap().remove("id");
    let request = Request::post(&notification);
    let (reply, _) = as_token(request.clone(), "reader").exchange(&endpoint());
    assert_eq!(reply.status, 403);
    assert_eq!(
        scope_of(reply.header("www-authenticate")),
        "chopin:read chopin:write"
    );
    let (reply, transcript) = as_token(request, "editor").exchange(&endpoint());
    assert_eq!(reply.status, 202);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(202)]);
}
