//! upload_image and `/images/<file>` through both servers (SURFACE.md §8):
//! a PNG uploaded to a document comes back from its path, byte for byte,
//! with §8's headers, to a caller who may read the document; a caller who
//! may not, and an unknown digest, get the same 404; `--image-quota-mib`
//! bounds what a repository holds (0: the tool is not offered); a
//! read-only server offers no upload.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "support/pg.rs"]
mod pg;
#[path = "interop/harness.rs"]
mod support;

use std::io::{Read, Write};

use serde_json::Value;
use support::{DOC_ID, SERVERS, Server, TOKEN};

/// PNG12 (SURFACE.md §12) and its path.
const PNG12: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d";
const PNG12_PATH: &str =
    "/images/218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86.png";

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The result of `upload_image` of `bytes` as `mime` to the seed document.
fn upload(server: &Server, bytes: &[u8], mime: &str) -> Value {
    let arguments = serde_json::json!({"id": DOC_ID, "data": base64(bytes), "mimeType": mime});
    let response = server.call("upload_image", &arguments.to_string());
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let reply: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"));
    reply["result"].clone()
}

/// `GET target` with `token`: status, head (lower-case names), body bytes.
fn get(server: &Server, target: &str, token: Option<&str>) -> (u16, String, Vec<u8>) {
    let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
    let mut stream = server.connect();
    let request = format!(
        "GET {target} HTTP/1.1\r\nhost: {}\r\n{auth}connection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head")
        + 4;
    let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    (status, head, raw[at..].to_vec())
}

#[test]
fn an_uploaded_png_is_served_to_readers_from_its_path() {
    for name in SERVERS {
        let server =
            Server::seeded_with(name, &["--token", "other=bob", "--grant", "bob=acme/plans"]);
        let result = upload(&server, PNG12, "image/png");
        assert_eq!(
            result["structuredContent"],
            serde_json::json!({"path": PNG12_PATH, "markdown": format!("![]({PNG12_PATH})")}),
            "{name}"
        );
        // The same bytes again: the same path.
        assert_eq!(upload(&server, PNG12, "image/png"), result, "{name}");

        let (status, head, body) = get(&server, PNG12_PATH, Some(TOKEN));
        assert_eq!(status, 200, "{name}: {head}");
        assert_eq!(body, PNG12, "{name}");
        for line in [
            "content-type: image/png",
            "cache-control: private, max-age=31536000, immutable",
            "x-content-type-options: nosniff",
            "content-security-policy: default-src 'none'; sandbox",
            "content-disposition: inline",
            "etag: \"218ad85a233eff829618a6865ab681222b734c62d35a32b3eabd5c37d8945f86\"",
        ] {
            assert!(
                head.contains(&format!("\r\n{line}\r\n")),
                "{name}: {line} in {head}"
            );
        }
        // A caller who may not read the document, an unknown digest: alike.
        let stranger = get(&server, PNG12_PATH, Some("other"));
        let unknown = get(
            &server,
            &format!("/images/{}.png", "0".repeat(64)),
            Some(TOKEN),
        );
        assert_eq!(
            (stranger.0, &stranger.2[..]),
            (404, &b"image not found"[..]),
            "{name}"
        );
        assert_eq!(
            (unknown.0, &unknown.2[..]),
            (404, &b"image not found"[..]),
            "{name}"
        );
        assert_eq!(get(&server, PNG12_PATH, None).0, 401, "{name}");
        let jpg = PNG12_PATH.replace(".png", ".jpg");
        assert_eq!(get(&server, &jpg, Some(TOKEN)).0, 404, "{name}");
    }
}

#[test]
fn the_quota_bounds_a_repository_and_zero_offers_no_upload() {
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--image-quota-mib", "1"]);
        let mut big = PNG12.to_vec();
        big.resize(700_000, 1);
        assert!(upload(&server, &big, "image/png")["structuredContent"]["path"].is_string());
        big[20] = 2;
        assert_eq!(
            upload(&server, &big, "image/png")["structuredContent"],
            serde_json::json!({"code": "too-large"}),
            "{name}"
        );

        let server = Server::seeded_with(name, &["--image-quota-mib", "0"]);
        let response = server.call(
            "upload_image",
            &serde_json::json!({"id": DOC_ID, "data": "iVBORw0KGgoAAAAN", "mimeType": "image/png"})
                .to_string(),
        );
        assert!(response.contains("tool not found"), "{name}: {response}");
        let server = Server::seeded_with(name, &["--read-only"]);
        let response = server.call(
            "upload_image",
            &serde_json::json!({"id": DOC_ID, "data": "iVBORw0KGgoAAAAN", "mimeType": "image/png"})
                .to_string(),
        );
        assert!(response.contains("tool not found"), "{name}: {response}");
    }
}

#[test]
fn an_upload_is_logged_and_counted_under_its_tool() {
    let import = support::import_file();
    let args = support::db_args("--memory", &["--import", import.to_str().unwrap()]);
    let server = Server::start_capturing("chopin-mcp-server", &args, &[("RUST_LOG", "info")]);
    upload(&server, PNG12, "image/png");
    let lines = server.request_lines(1);
    let line = lines.last().unwrap();
    assert!(line.contains("tool=upload_image"), "{line}");
    assert!(line.contains("upload=stored"), "{line}");
}
