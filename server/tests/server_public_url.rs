//! `--public-url` (SURFACE.md §3): every `url` a create, read or update
//! answers is `<public-url>/documents/<id>` (without the flag,
//! `/documents/<id>`), on both servers; a read or an update named by that
//! URL finds the document; a malformed value is refused at start.

#[path = "interop/harness.rs"]
mod support;

use serde_json::{Value, json};
use support::{DOC_ID, SERVERS, Server, draft, run};

const PUBLIC: &str = "https://plans.example.com/mcp-host";

/// The `structuredContent` of a successful result.
fn success(response: &str) -> Value {
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let reply: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{response}"));
    assert!(reply["result"]["isError"].is_null(), "{reply}");
    reply["result"]["structuredContent"].clone()
}

fn urls(server: &Server) -> (String, String, String) {
    let created = success(&server.call(
        "create_document",
        &draft("public-1", "Public", "# Public\n").to_string(),
    ));
    let id = created["id"].as_str().unwrap().to_owned();
    let read = success(&server.call("read_document", &json!({"id": id}).to_string()));
    let updated = success(
        &server.call(
            "update_document",
            &json!({"id": read["url"], "revision": 0, "plan": "# Public, again\n",
                "idempotencyKey": "public-u1"})
            .to_string(),
        ),
    );
    assert_eq!(updated["revision"], 1);
    let by_url = success(&server.call("read_document", &json!({"id": read["url"]}).to_string()));
    assert_eq!(by_url["id"], json!(id));
    (
        created["url"].as_str().unwrap().to_owned(),
        read["url"].as_str().unwrap().to_owned(),
        updated["url"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn every_url_is_under_the_public_url() {
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--public-url", &format!("{PUBLIC}/")]);
        let (created, read, updated) = urls(&server);
        let id = created.rsplit('/').next().unwrap().to_owned();
        let expected = format!("{PUBLIC}/documents/{id}");
        assert_eq!(
            (&created, &read, &updated),
            (&expected, &expected, &expected),
            "{name}"
        );
        let seed = success(&server.call("read_document", &json!({"id": DOC_ID}).to_string()));
        assert_eq!(
            seed["url"],
            format!("{PUBLIC}/documents/{DOC_ID}"),
            "{name}"
        );
    }
}

#[test]
fn without_it_every_url_is_a_path() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let (created, read, updated) = urls(&server);
        let id = created.rsplit('/').next().unwrap().to_owned();
        let expected = format!("/documents/{id}");
        assert_eq!(
            (&created, &read, &updated),
            (&expected, &expected, &expected),
            "{name}"
        );
    }
}

#[test]
fn a_malformed_public_url_is_refused_at_start() {
    for value in [
        "plans.example.com",
        "ftp://x/",
        "https://",
        "https://x/?q=1",
        "https://x/#a",
    ] {
        let (code, output) = run("chopin-mcp-server", &["--memory", "--public-url", value]);
        assert_eq!(code, Some(2), "{value}: {output}");
        assert!(output.contains("--public-url"), "{value}: {output}");
    }
}
