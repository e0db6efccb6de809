//! invoke_planner's arguments and answers (SURFACE.md §9; §12 cases 17–20):
//! keys among `id`, `instruction`, `checkout`; the locator rule; an
//! instruction that is not blank, of at most 65,536 UTF-8 bytes, never
//! trimmed; an absolute checkout of at most 4096 bytes without U+0000; every
//! argument reaching the host as sent; each answer's exact bytes in both
//! eras.

mod common;

use chopin_mcp::{Config, Endpoint, PlannerRefusal};
use common::{
    Host, Invoked, Step, assert_refused, assert_result, endpoint_with, refusing, text_members,
    tool_call,
};
use serde_json::{Value, json};

const MESSAGE: &str =
    "invoke_planner requires an id or URL, instruction, and optional absolute checkout";
const LOCATOR: &str = "/documents/octo-org/score/release";

fn planner() -> Endpoint {
    endpoint_with(Config::new().enable_planner())
}

/// Calls invoke_planner with `arguments` in both eras and returns what the
/// host received each time, after asserting a 200 `Invoked` result.
fn invoked(arguments: &Value) -> Vec<Invoked> {
    let mut received = Vec::new();
    for modern in [false, true] {
        let mut host = Host::seed();
        let reply = tool_call("invoke_planner", arguments, modern).send(&planner(), &mut host);
        assert_eq!(reply.status, 200, "{arguments}");
        assert!(
            reply
                .text()
                .contains(r#""structuredContent":{"id":"document-id""#),
            "{arguments}: {}",
            reply.text()
        );
        received.extend(host.invoke_inputs);
    }
    received
}

#[test]
fn the_host_gets_every_argument_exactly_as_sent_and_its_document_is_the_result() {
    let arguments =
        json!({"id": LOCATOR, "instruction": "  Plan this.\n", "checkout": "/tmp/score"});
    let expected = Invoked {
        caller: "octocat".into(),
        locator: LOCATOR.into(),
        instruction: "  Plan this.\n".into(),
        checkout: Some("/tmp/score".into()),
    };
    assert_eq!(invoked(&arguments), [expected.clone(), expected]);
    assert_result(
        &planner(),
        Host::seed,
        "invoke_planner",
        &arguments,
        &text_members(
            r#"{"id":"document-id","title":"Release","url":"http://localhost/documents/octo-org/score/release"}"#,
            false,
        ),
        &[Step::Invoke(LOCATOR.to_owned())],
    );
}

#[test]
fn without_a_checkout_the_host_gets_none_and_a_description_is_answered_before_the_url() {
    let received = invoked(&json!({"id": "doc", "instruction": "Plan."}));
    assert_eq!(received[0].checkout, None);
    let described = || {
        let mut host = Host::seed();
        host.planner = Ok(chopin_mcp::PlannerDocument {
            description: Some("Ship \"it\".".into()),
            ..common::planner_document()
        });
        host
    };
    assert_result(
        &planner(),
        described,
        "invoke_planner",
        &json!({"id": "doc", "instruction": "Plan."}),
        &text_members(
            r#"{"id":"document-id","title":"Release","description":"Ship \"it\".","url":"http://localhost/documents/octo-org/score/release"}"#,
            false,
        ),
        &[Step::Invoke("doc".to_owned())],
    );
}

#[test]
fn invalid_arguments_are_refused_before_the_host() {
    let call = |instruction: Value| json!({"id": "doc", "instruction": instruction});
    let with_checkout =
        |checkout: Value| json!({"id": "doc", "instruction": "Plan.", "checkout": checkout});
    for arguments in [
        json!({}),
        json!({"id": "doc"}),
        json!({"instruction": "Plan."}),
        json!({"id": " ", "instruction": "Plan."}),
        json!({"id": "x".repeat(2049), "instruction": "Plan."}),
        json!({"id": 7, "instruction": "Plan."}),
        call(json!(" \n\t")),
        call(json!("")),
        call(json!("\u{feff}\u{a0}\u{2028}")),
        call(json!("a".repeat(65_537))),
        call(json!("é".repeat(32_769))),
        call(json!(3)),
        call(json!(null)),
        with_checkout(json!("relative/path")),
        with_checkout(json!(null)),
        with_checkout(json!("")),
        with_checkout(json!(7)),
        with_checkout(json!(format!("/{}", "x".repeat(4096)))),
        with_checkout(json!("/tmp/a\u{0}b")),
        json!({"id": "doc", "instruction": "Plan.", "extra": true}),
    ] {
        assert_refused(&planner(), "invoke_planner", &arguments, MESSAGE);
    }
}

#[test]
fn the_instruction_is_measured_in_utf8_bytes_and_the_checkout_in_bytes() {
    for instruction in ["a".repeat(65_536), "é".repeat(32_768), "😀".repeat(16_384)] {
        let received = invoked(&json!({"id": "doc", "instruction": instruction}));
        assert_eq!(received[0].instruction, instruction);
    }
    assert_refused(
        &planner(),
        "invoke_planner",
        &json!({"id": "doc", "instruction": "😀".repeat(16_385)}),
        MESSAGE,
    );
    let longest = format!("/{}", "x".repeat(4095));
    let received = invoked(&json!({"id": "doc", "instruction": "Plan.", "checkout": longest}));
    assert_eq!(received[0].checkout.as_deref(), Some(longest.as_str()));
}

#[test]
fn an_escaped_instruction_reaches_the_host_unescaped() {
    let received = invoked(&json!({"id": "doc", "instruction": "line one\n\"two\"\t😀"}));
    assert_eq!(received[0].instruction, "line one\n\"two\"\t😀");
    // Sent as `\u00e9` escapes: 6 bytes each as sent, 2 unescaped.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"invoke_planner","arguments":{{"id":"doc","instruction":"{}"}}}}}}"#,
        "\\u00e9".repeat(32_768)
    );
    let mut host = Host::seed();
    let reply = common::Request::post_raw(body).send(&planner(), &mut host);
    assert_eq!(reply.status, 200);
    assert_eq!(host.invoke_inputs[0].instruction, "é".repeat(32_768));
}

#[test]
fn each_refusal_is_its_code_as_an_error_result() {
    assert_eq!(PlannerRefusal::ALL.len(), 7);
    for refusal in PlannerRefusal::ALL {
        let code = refusal.code();
        assert_result(
            &planner(),
            move || refusing(refusal),
            "invoke_planner",
            &json!({"id": LOCATOR, "instruction": "Plan."}),
            &text_members(&format!(r#"{{"code":"{code}"}}"#), true),
            &[Step::Invoke(LOCATOR.to_owned())],
        );
    }
    let codes: Vec<&str> = PlannerRefusal::ALL.iter().map(|r| r.code()).collect();
    assert_eq!(
        codes,
        [
            "document-unavailable",
            "repository-forbidden",
            "document-archived",
            "planner-owner-unavailable",
            "checkout-unverified",
            "planner-unavailable",
            "planner-queue-full",
        ]
    );
}

#[test]
fn a_modern_call_is_answered_alike() {
    let arguments = json!({"id": "doc", "instruction": "Plan."});
    let reply = tool_call("invoke_planner", &arguments, true).send(&planner(), &mut Host::seed());
    let result = &reply.json()["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["structuredContent"]["id"], "document-id");
}

#[test]
fn the_host_is_told_the_client_from_the_session_id_or_else_unknown() {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "planner-test", "version": "2"},
    }});
    let reply = common::Request::post(&initialize).send(&planner(), &mut Host::seed());
    let session = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let arguments = json!({"id": "doc", "instruction": "Plan."});
    let request = tool_call("invoke_planner", &arguments, false);
    let mut host = Host::seed();
    request
        .clone()
        .header("mcp-session-id", &session)
        .send(&planner(), &mut host);
    let client = &host.clients[0];
    assert_eq!(
        (client.name.as_str(), client.version.as_str()),
        ("planner-test", "2")
    );
    assert_eq!(client.session.as_deref(), session.rsplit('.').next());
    let mut host = Host::seed();
    request.send(&planner(), &mut host);
    assert_eq!(
        (
            host.clients[0].name.as_str(),
            host.clients[0].version.as_str()
        ),
        ("unknown", "unknown")
    );
}
