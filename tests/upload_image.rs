//! upload_image (SURFACE.md §8, §12 cases 1, 2, 4–13, and the upload parts
//! of 34 and 35): offered only when enabled; its checks in §8's order, each
//! refusal before the host; the effect carries the locator as sent, the
//! type, the decoded bytes and their SHA-256; each host answer's result.

mod common;

use chopin_mcp::{Config, ImageType, StoreImageAnswer, UPLOAD_BUDGET};
use common::{
    Host, Request, Step, as_token, assert_refused, assert_result, base64, call, endpoint,
    endpoint_with, read_write, scope_of, text_members, tool_call, uploading,
};
use serde_json::{Value, json};

const MESSAGE: &str = "upload_image requires an id or URL, base64 data, and an image mimeType";
const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
/// PNG12: the PNG signature and the first chunk's length.
const PNG12: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d";
const PNG12_BASE64: &str = "iVBORw0KGgoAAAAN";

fn upload(data: &str, mime: &str) -> Value {
    json!({"id": ID, "data": data, "mimeType": mime})
}

/// A host whose store keeps every upload (the seed document resolves).
fn storing() -> Host {
    Host::seed()
}

/// A host that answers every upload with `answer`.
fn always(answer: StoreImageAnswer) -> impl Fn() -> Host {
    move || {
        let mut host = Host::seed();
        host.images.always = Some(answer);
        host
    }
}

/// `text({"code":code}, error)`.
fn coded(code: &str) -> String {
    text_members(&format!(r#"{{"code":"{code}"}}"#), true)
}

/// `text({"path":p,"markdown":"![](p)"})`.
fn stored(path: &str) -> String {
    text_members(
        &format!(r#"{{"path":"{path}","markdown":"![]({path})"}}"#),
        false,
    )
}

fn legacy_tools(endpoint: &chopin_mcp::Endpoint) -> Vec<Value> {
    let request = Request::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let (reply, _) = request.exchange(endpoint);
    reply.json()["result"]["tools"].as_array().unwrap().clone()
}

#[test]
fn upload_image_is_offered_only_when_enabled_and_listed_last() {
    let without = legacy_tools(&read_write());
    assert!(without.iter().all(|tool| tool["name"] != "upload_image"));
    let (reply, transcript) = tool_call("upload_image", &upload(PNG12_BASE64, "image/png"), false)
        .exchange(&read_write());
    assert_eq!(
        reply.json()["error"],
        json!({"code": -32601, "message": "tool not found"})
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(200)]);

    let with = legacy_tools(&uploading());
    let tool = with.last().unwrap();
    assert_eq!(tool["name"], "upload_image");
    let schema = &tool["inputSchema"];
    assert_eq!(schema["required"], json!(["id", "data", "mimeType"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["properties"]["mimeType"]["enum"],
        json!(["image/png", "image/jpeg", "image/webp", "image/gif"])
    );
    assert_eq!(schema["properties"]["data"]["maxLength"], 1_398_104);
    assert_eq!(schema["properties"]["data"]["contentEncoding"], "base64");
    assert_eq!(tool["title"], "Upload an image to a plan document");
    assert_eq!(
        tool["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    // The generated instructions end with its line (SURFACE.md §10).
    let instructions = Config::new().enable_upload().generated_instructions();
    assert!(
        instructions.ends_with(&format!(
            "\nupload_image: {}",
            tool["description"].as_str().unwrap()
        )),
        "{instructions}"
    );
    assert!(
        !Config::new()
            .generated_instructions()
            .contains("upload_image")
    );
    // §12 case 34: every output schema is an object.
    assert!(
        with.iter()
            .all(|tool| tool["outputSchema"]["type"] == "object")
    );
    let codes = &tool["outputSchema"]["oneOf"][1]["properties"]["code"]["enum"];
    assert_eq!(
        *codes,
        json!([
            "document-unavailable",
            "repository-forbidden",
            "document-archived",
            "too-large",
            "unsupported-type",
            "signature-mismatch"
        ])
    );
}

#[test]
fn a_png_reaches_the_host_with_its_locator_type_bytes_and_digest() {
    let locator = "/documents/githubnext/chopin/release-readiness";
    let path = "/images/218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86.png";
    let arguments = json!({"id": locator, "data": PNG12_BASE64, "mimeType": "image/png"});
    assert_result(
        &uploading(),
        always(StoreImageAnswer::Stored),
        "upload_image",
        &arguments,
        &stored(path),
        &[Step::StoreImage(locator.to_owned())],
    );
    let mut host = always(StoreImageAnswer::Stored)();
    Request::post(&call(json!(1), "upload_image", arguments)).send(&uploading(), &mut host);
    let input = &host.images.inputs[0];
    assert_eq!(input.locator, locator);
    assert_eq!(input.image_type, ImageType::Png);
    assert_eq!(&input.bytes[..], PNG12);
    assert_eq!(input.sha256_hex, path[8..72]);
    assert_eq!(input.path, path);
}

#[test]
fn each_type_with_its_signature_is_stored_once() {
    for (bytes, mime, extension) in [
        (&b"\xff\xd8\xff\xe0"[..], "image/jpeg", "jpg"),
        (b"RIFF\x01\x00\x00\x00WEBP", "image/webp", "webp"),
        (b"GIF87a", "image/gif", "gif"),
        (b"GIF89a", "image/gif", "gif"),
    ] {
        let mut host = storing();
        let reply = Request::post(&call(
            json!(1),
            "upload_image",
            upload(&base64(bytes), mime),
        ))
        .send(&uploading(), &mut host);
        let path = reply.json()["result"]["structuredContent"]["path"].clone();
        assert!(
            path.as_str().unwrap().ends_with(&format!(".{extension}")),
            "{path}"
        );
        assert_eq!(host.images.inputs.len(), 1, "{mime}");
        assert_eq!(&host.images.inputs[0].bytes[..], bytes);
        assert_eq!(host.images.stored.len(), 1);
    }
}

#[test]
fn bytes_without_their_types_signature_are_refused_before_the_host() {
    for (bytes, mime) in [
        (&b"\xff\xd8\xff\xe0"[..], "image/png"),
        (PNG12, "image/jpeg"),
        (b"RIFF\x01\x00\x00\x00AVI ", "image/webp"),
        (b"GIF88a", "image/gif"),
        (b"", "image/png"),
    ] {
        assert_result(
            &uploading(),
            storing,
            "upload_image",
            &upload(&base64(bytes), mime),
            &coded("signature-mismatch"),
            &[],
        );
    }
}

#[test]
fn other_media_types_are_unsupported_whatever_the_data() {
    for mime in ["image/svg+xml", "text/html", "image/avif", "image/PNG"] {
        assert_result(
            &uploading(),
            storing,
            "upload_image",
            &upload(PNG12_BASE64, mime),
            &coded("unsupported-type"),
            &[],
        );
    }
    // The type is judged before the data: not -32602.
    assert_result(
        &uploading(),
        storing,
        "upload_image",
        &upload("not base64!", "image/svg+xml"),
        &coded("unsupported-type"),
        &[],
    );
}

#[test]
fn one_mebibyte_is_stored_and_one_byte_more_is_too_large() {
    let mut image = PNG12.to_vec();
    image.resize(1_048_576, 0);
    let mut host = storing();
    let reply = Request::post(&call(
        json!(1),
        "upload_image",
        upload(&base64(&image), "image/png"),
    ))
    .send(&uploading(), &mut host);
    assert!(reply.json()["result"]["structuredContent"]["path"].is_string());
    assert_eq!(host.images.inputs[0].bytes.len(), 1_048_576);

    image.push(0);
    let data = base64(&image);
    assert_eq!(
        data.len(),
        1_398_104,
        "within the text limit, over the byte limit"
    );
    assert_result(
        &uploading(),
        storing,
        "upload_image",
        &upload(&data, "image/png"),
        &coded("too-large"),
        &[],
    );
}

#[test]
fn data_over_the_text_limit_is_too_large_before_it_is_decoded() {
    assert_result(
        &uploading(),
        storing,
        "upload_image",
        &upload(&"A".repeat(1_398_105), "image/png"),
        &coded("too-large"),
        &[],
    );
    // Counted in UTF-16 code units: 699,053 × 😀 is 1,398,106 units (on an
    // endpoint whose budget lets its 2.8 MB through), and not base64
    // either; the size is judged first.
    let roomy = endpoint_with(Config::new().enable_upload().body_budget(4_000_000));
    assert_result(
        &roomy,
        storing,
        "upload_image",
        &upload(&"😀".repeat(699_053), "image/png"),
        &coded("too-large"),
        &[],
    );
    // 700,000 × é is 1,400,000 bytes of UTF-8 but 700,000 units: within
    // the limit, so its failure is the encoding's.
    assert_refused(
        &uploading(),
        "upload_image",
        &upload(&"é".repeat(700_000), "image/png"),
        MESSAGE,
    );
}

#[test]
fn malformed_arguments_are_refused_with_the_message_before_the_host() {
    for arguments in [
        json!({"id": ID, "data": PNG12_BASE64}),
        json!({"id": " ", "data": PNG12_BASE64, "mimeType": "image/png"}),
        json!({"id": "x".repeat(2049), "data": PNG12_BASE64, "mimeType": "image/png"}),
        upload("not base64!", "image/png"),
        upload("iVBORw0KGgo", "image/png"),
        upload("iVBORw0K\nGgo=", "image/png"),
        upload("iVBORw0K-_o=", "image/png"),
        json!({"id": ID, "data": 7, "mimeType": "image/png"}),
        json!({"id": ID, "data": PNG12_BASE64, "mimeType": null}),
        json!({"id": ID, "data": PNG12_BASE64, "mimeType": "image/png", "extra": 1}),
        json!({}),
    ] {
        assert_refused(&uploading(), "upload_image", &arguments, MESSAGE);
    }
}

#[test]
fn unused_low_bits_of_the_last_group_are_ignored() {
    let path = "/images/4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6.png";
    for data in ["iVBORw0KGgp=", "iVBORw0KGgo="] {
        let mut host = storing();
        Request::post(&call(json!(1), "upload_image", upload(data, "image/png")))
            .send(&uploading(), &mut host);
        assert_eq!(
            &host.images.inputs[0].bytes[..],
            b"\x89PNG\r\n\x1a\n",
            "{data}"
        );
        assert_result(
            &uploading(),
            storing,
            "upload_image",
            &upload(data, "image/png"),
            &stored(path),
            &[Step::StoreImage(ID.to_owned())],
        );
    }
}

#[test]
fn every_host_answer_but_stored_is_its_code() {
    for (answer, code) in [
        (StoreImageAnswer::Forbidden, "repository-forbidden"),
        (StoreImageAnswer::Unavailable, "document-unavailable"),
        (StoreImageAnswer::Archived, "document-archived"),
        (StoreImageAnswer::QuotaExceeded, "too-large"),
    ] {
        assert_result(
            &uploading(),
            always(answer),
            "upload_image",
            &upload(PNG12_BASE64, "image/png"),
            &coded(code),
            &[Step::StoreImage(ID.to_owned())],
        );
    }
}

#[test]
fn the_same_bytes_again_give_the_same_path_and_one_kept_copy() {
    let mut host = storing();
    let first = Request::post(&call(
        json!(1),
        "upload_image",
        upload(PNG12_BASE64, "image/png"),
    ))
    .send(&uploading(), &mut host);
    let again = Request::post(&call(
        json!(1),
        "upload_image",
        upload(PNG12_BASE64, "image/png"),
    ))
    .send(&uploading(), &mut host);
    assert_eq!(first, again);
    assert_eq!(host.images.stored.len(), 1);
}

#[test]
fn uploading_needs_the_write_scope_beside_read() {
    for modern in [false, true] {
        let request = as_token(
            tool_call("upload_image", &upload(PNG12_BASE64, "image/png"), modern),
            "reader",
        );
        let (reply, transcript) = request.exchange(&uploading());
        assert_eq!(reply.status, 403);
        assert_eq!(
            scope_of(reply.header("www-authenticate")),
            "chopin:read chopin:write"
        );
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);
        let request = as_token(
            tool_call("upload_image", &upload(PNG12_BASE64, "image/png"), modern),
            "editor",
        );
        let (reply, transcript) = request.exchange(&uploading());
        assert_eq!(reply.status, 200);
        assert_eq!(transcript[1], Step::StoreImage(ID.to_owned()));
    }
}

#[test]
fn the_upload_budget_reads_its_limit_and_refuses_a_byte_more() {
    assert_eq!(uploading().body_budget(), UPLOAD_BUDGET);
    assert_eq!(UPLOAD_BUDGET, 1_463_640);
    // A set budget wins; without upload, the budget is the creation one.
    let set = endpoint_with(Config::new().enable_upload().body_budget(100));
    assert_eq!(set.body_budget(), 100);
    assert_eq!(read_write().body_budget(), 786_432);
    assert_eq!(endpoint().body_budget(), 65_536);

    let padded = |len: usize| {
        let mut body = serde_json::to_vec(&call(
            json!(1),
            "upload_image",
            upload(PNG12_BASE64, "image/png"),
        ))
        .unwrap();
        body.resize(len, b' ');
        Request::post_raw(body)
    };
    let (reply, transcript) = padded(UPLOAD_BUDGET).exchange(&uploading());
    assert_eq!(reply.status, 200);
    assert_eq!(transcript[1], Step::StoreImage(ID.to_owned()));
    let (reply, transcript) = padded(UPLOAD_BUDGET + 1).exchange(&uploading());
    assert_eq!(reply.status, 413);
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(413)]);
}
