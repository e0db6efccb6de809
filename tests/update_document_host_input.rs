//! What update_document asks of the host (LIFECYCLE.md §2): the locator as
//! sent, the revision, the **canonical** plan, the key and the fingerprint
//! of the submitted values, in that order; a plan with issues is answered
//! with them, exactly as create_document answers, and the host is not asked.

mod common;

use chopin_mcp::DocumentUpdate;
use common::{Host, Request, Step, assert_result, call, read_write, text_members};
use serde_json::{Value, json};

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

fn update(revision: u64, plan: &str) -> Value {
    json!({"id": ID, "revision": revision, "plan": plan, "idempotencyKey": "update-plan-1"})
}

/// The host input of one call of update_document with `arguments`.
fn host_input(arguments: Value) -> DocumentUpdate {
    let mut host = Host::seed();
    Request::post(&call(json!(1), "update_document", arguments)).send(&read_write(), &mut host);
    assert_eq!(host.update_inputs.len(), 1, "the host was asked once");
    host.update_inputs.remove(0)
}

#[test]
fn the_fingerprint_is_the_spec_s_for_each_vector() {
    let revised = "# Revised\n\nUpdated prose.\n";
    assert_eq!(
        host_input(update(4, revised)).fingerprint,
        "2465e740e953d416d664661bf4064354c397b6afe602aadab4556d012ab03970"
    );
    assert_eq!(
        host_input(update(5, revised)).fingerprint,
        "afce82ac37344bc0054a6af8d97a0c6c90f465199943848a57440b3240da2163"
    );
    // Twice through one endpoint: each canonical plan has an id minted
    // afresh, and the fingerprint, of the submitted plan, stays.
    let callout = "<Callout type=\"note\">\nA note.\n</Callout>\n";
    let endpoint = read_write();
    let mut host = Host::seed();
    for _ in 0..2 {
        Request::post(&call(json!(1), "update_document", update(4, callout)))
            .send(&endpoint, &mut host);
    }
    let [first, second] = [&host.update_inputs[0], &host.update_inputs[1]];
    for input in [first, second] {
        assert_eq!(
            input.fingerprint,
            "47de85ef8680e43b358506492410405c7a195b8ae0b362546cb1d6b79ef3f01d"
        );
        assert!(input.plan.starts_with("<Callout id=\""), "{}", input.plan);
        assert!(
            input
                .plan
                .ends_with(" type=\"note\">\nA note.\n</Callout>\n")
        );
    }
    assert_ne!(first.plan, second.plan);
}

#[test]
fn the_fingerprint_covers_the_locator_as_sent_and_the_revision_as_an_integer() {
    let plain = host_input(update(4, "# Revised\n")).fingerprint;
    let mut by_url = update(4, "# Revised\n");
    by_url["id"] = json!(format!("https://chopin.example/documents/{ID}"));
    assert_ne!(host_input(by_url).fingerprint, plain);
    let mut untrimmed = update(4, "# Revised\n");
    untrimmed["id"] = json!(format!(" {ID}"));
    assert_ne!(host_input(untrimmed).fingerprint, plain);
    let spelled = format!(
        r##"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"update_document","arguments":{{"plan":"# Revised\n","revision":4.0e0,"idempotencyKey":"update-plan-1","id":"{ID}"}}}}}}"##
    );
    let mut host = Host::seed();
    Request::post_raw(spelled).send(&read_write(), &mut host);
    assert_eq!(host.update_inputs[0].fingerprint, plain);
}

#[test]
fn the_host_input_is_in_the_documented_order() {
    let input = host_input(update(4, "# Revised\n"));
    let fingerprint = input.fingerprint.clone();
    assert_eq!(
        serde_json::to_string(&input).unwrap(),
        format!(
            r##"{{"id":"{ID}","revision":4,"plan":"# Revised\n","idempotencyKey":"update-plan-1","fingerprint":"{fingerprint}"}}"##
        )
    );
}

#[test]
fn a_plan_with_issues_is_answered_with_them_and_the_host_is_not_asked() {
    let issues = r#"{"issues":[{"code":"unknown-component","message":"`Chart` is not a plan component","path":"root > Chart[0]","offset":0,"line":1,"column":1}]}"#;
    assert_result(
        &read_write(),
        Host::seed,
        "update_document",
        &update(4, "<Chart />\n"),
        &text_members(issues, true),
        &[],
    );
    // The plan's own limit: 256 KiB.
    let large = format!("# {}\n", "😀".repeat(65_536));
    let too_large = r#"{"issues":[{"code":"source-too-large","message":"Plan exceeds the 256 KiB limit","path":"root"}]}"#;
    assert_result(
        &read_write(),
        Host::seed,
        "update_document",
        &update(4, &large),
        &text_members(too_large, true),
        &[],
    );
}

#[test]
fn a_clean_plan_is_the_one_update_effect() {
    let (reply, transcript) =
        Request::post(&call(json!(1), "update_document", update(4, "# Revised\n")))
            .exchange(&read_write());
    assert_eq!(reply.status, 200);
    assert_eq!(
        transcript,
        [
            Step::Authenticate,
            Step::Update(ID.to_owned()),
            Step::Respond(200)
        ]
    );
}
