//! `/images/<file>` through `Endpoint::image` (SURFACE.md §8 "Serving",
//! §12 cases 14 and 15): method, then name, then credentials, then the
//! read; a reader gets the bytes with §8's headers, everyone else the same
//! 404; a 304 only after the host found the image for this caller.

mod common;

use bytes::Bytes;
use chopin_mcp::{Header, ImageType, RequestParts};
use common::{Host, Reply, Step, base64, call, uploading};
use serde_json::json;

const ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";
const PNG12: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d";
const PNG_HEX: &str = "218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86";

/// A host whose store holds `bytes` as `mime`, uploaded through the
/// endpoint to the seed document (so the image is linked to it).
fn holding(bytes: &[u8], mime: &str) -> Host {
    let mut host = Host::seed();
    let arguments = json!({"id": ID, "data": base64(bytes), "mimeType": mime});
    let reply = common::Request::post(&call(json!(1), "upload_image", arguments))
        .send(&uploading(), &mut host);
    assert_eq!(reply.status, 200);
    assert_eq!(host.images.stored.len(), 1, "{}", reply.text());
    host.transcript.clear();
    host
}

/// `GET /images/<file>` (or `method`) with these headers, driven by `host`.
fn fetch(host: &mut Host, method: &str, file: &str, headers: &[(&str, &str)]) -> Reply {
    let headers: Vec<Header<'_>> = headers
        .iter()
        .map(|(name, value)| Header::new(name, value.as_bytes()))
        .collect();
    let target = format!("/images/{file}");
    let parts = RequestParts::new(method, &target, &headers);
    Reply::from(host.drive_image(uploading().image(&parts, file)))
}

const ALLOWED: (&str, &str) = ("authorization", "Bearer allowed");

#[test]
fn a_reader_gets_the_bytes_with_the_image_headers() {
    let mut host = holding(PNG12, "image/png");
    let reply = fetch(&mut host, "GET", &format!("{PNG_HEX}.png"), &[ALLOWED]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, PNG12);
    let headers: Vec<(&str, &str)> = reply
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let etag = format!("\"{PNG_HEX}\"");
    assert_eq!(
        headers,
        [
            ("content-type", "image/png"),
            ("cache-control", "private, max-age=31536000, immutable"),
            ("x-content-type-options", "nosniff"),
            ("etag", etag.as_str()),
            ("content-security-policy", "default-src 'none'; sandbox"),
            ("content-disposition", "inline"),
        ]
    );
    assert_eq!(
        host.transcript,
        [
            Step::Authenticate,
            Step::ReadImage(PNG_HEX.to_owned()),
            Step::Respond(200)
        ]
    );
    // HEAD: the same response; the host sends its head only.
    let head = fetch(&mut host, "HEAD", &format!("{PNG_HEX}.png"), &[ALLOWED]);
    assert_eq!(head, reply);
}

#[test]
fn strangers_non_readers_and_unknown_digests_get_the_same_404() {
    let mut host = holding(PNG12, "image/png");
    host.grants.clear();
    let non_reader = fetch(&mut host, "GET", &format!("{PNG_HEX}.png"), &[ALLOWED]);
    let mut host = holding(PNG12, "image/png");
    let unknown = fetch(
        &mut host,
        "GET",
        &format!("{}.png", "a".repeat(64)),
        &[ALLOWED],
    );
    assert_eq!(non_reader, unknown);
    assert_eq!(non_reader.status, 404);
    assert_eq!(non_reader.text(), "image not found");
    assert_eq!(
        non_reader.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(non_reader.header("cache-control"), Some("no-store"));
    assert_eq!(non_reader.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(non_reader.header("etag"), None);
}

#[test]
fn a_png_is_found_only_by_its_own_extension_and_lowercase_name() {
    let not_png = [
        format!("{PNG_HEX}.jpg"),
        format!("{PNG_HEX}.jpeg"),
        format!("{PNG_HEX}.gif"),
        format!("{PNG_HEX}.webp"),
    ];
    for file in &not_png {
        let mut host = holding(PNG12, "image/png");
        let reply = fetch(&mut host, "GET", file, &[ALLOWED]);
        assert_eq!(
            (reply.status, reply.text()),
            (404, "image not found"),
            "{file}"
        );
        // A known extension: the host is asked, and its type decides.
        assert_eq!(host.transcript[1], Step::ReadImage(PNG_HEX.to_owned()));
    }
    let malformed = [
        format!("{PNG_HEX}.svg"),
        format!("{PNG_HEX}.PNG"),
        format!("{}.png", PNG_HEX.to_uppercase()),
        PNG_HEX.to_owned(),
        format!("{PNG_HEX}.png.png"),
        format!("{}.png", &PNG_HEX[1..]),
        String::new(),
    ];
    for file in &malformed {
        let mut host = holding(PNG12, "image/png");
        let reply = fetch(&mut host, "GET", file, &[ALLOWED]);
        assert_eq!(
            (reply.status, reply.text()),
            (404, "image not found"),
            "{file}"
        );
        assert_eq!(
            host.transcript,
            [Step::Respond(404)],
            "{file}: nobody asked"
        );
    }
}

#[test]
fn a_jpeg_serves_as_jpg_and_jpeg() {
    let jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF";
    let mut host = holding(jpeg, "image/jpeg");
    let hex = host.images.inputs[0].sha256_hex.clone();
    for extension in ["jpg", "jpeg"] {
        let reply = fetch(&mut host, "GET", &format!("{hex}.{extension}"), &[ALLOWED]);
        assert_eq!(reply.status, 200, "{extension}");
        assert_eq!(reply.header("content-type"), Some("image/jpeg"));
        assert_eq!(reply.body, jpeg);
    }
}

#[test]
fn a_store_that_cannot_answer_is_503() {
    let mut host = holding(PNG12, "image/png");
    host.images.unavailable = true;
    let reply = fetch(&mut host, "GET", &format!("{PNG_HEX}.png"), &[ALLOWED]);
    assert_eq!(
        (reply.status, reply.text()),
        (503, "image is temporarily unavailable")
    );
}

#[test]
fn if_none_match_is_answered_304_only_after_the_host_found_the_image() {
    let etag = format!("\"{PNG_HEX}\"");
    let file = format!("{PNG_HEX}.png");
    let mut host = holding(PNG12, "image/png");
    let reply = fetch(
        &mut host,
        "GET",
        &file,
        &[ALLOWED, ("if-none-match", &etag)],
    );
    assert_eq!(reply.status, 304);
    assert!(reply.body.is_empty());
    assert_eq!(reply.header("etag"), Some(etag.as_str()));
    // A non-reader naming the right tag learns nothing: 404.
    host.grants.clear();
    let reply = fetch(
        &mut host,
        "GET",
        &file,
        &[ALLOWED, ("if-none-match", &etag)],
    );
    assert_eq!(reply.status, 404);
    // Another tag: the bytes.
    let mut host = holding(PNG12, "image/png");
    let reply = fetch(
        &mut host,
        "GET",
        &file,
        &[ALLOWED, ("if-none-match", "\"other\"")],
    );
    assert_eq!(reply.status, 200);
}

#[test]
fn method_then_name_then_credentials() {
    let file = format!("{PNG_HEX}.png");
    let mut host = holding(PNG12, "image/png");
    let reply = fetch(&mut host, "POST", "bad", &[]);
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    // A bad name before credentials: 404, not 401.
    let reply = fetch(&mut host, "GET", "bad", &[]);
    assert_eq!(reply.status, 404);
    let reply = fetch(&mut host, "GET", &file, &[]);
    assert_eq!(reply.status, 401);
    assert!(reply.header("www-authenticate").is_some());
    let reply = fetch(&mut host, "GET", &file, &[("authorization", "Bearer down")]);
    assert_eq!(reply.status, 503);
    let reply = fetch(
        &mut host,
        "GET",
        &file,
        &[("authorization", "Bearer writer")],
    );
    assert_eq!(reply.status, 403);
    let reply = fetch(
        &mut host,
        "GET",
        &file,
        &[("authorization", "Bearer reader")],
    );
    assert_eq!(reply.status, 200);
    assert!(
        !host.transcript[..host.transcript.len() - 2]
            .iter()
            .any(|step| matches!(step, Step::ReadImage(_))),
        "only the reader's request was read: {:?}",
        host.transcript
    );
}

#[test]
fn the_stored_type_must_be_the_extensions() {
    // A host holding PNG bytes under a GIF's type (a store that lost track):
    // the `.png` URL is not found, so nothing is served under a wrong type.
    let mut host = holding(PNG12, "image/png");
    host.images.stored[0].2 = ImageType::Gif;
    host.images.stored[0].3 = Bytes::from_static(PNG12);
    let reply = fetch(&mut host, "GET", &format!("{PNG_HEX}.png"), &[ALLOWED]);
    assert_eq!(reply.status, 404);
}
