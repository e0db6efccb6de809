//! `ListDocuments::answer_borrowed`: summaries borrowed from the host's own
//! buffers answer a list with the same bytes as owned ones, in both eras,
//! escapes included.

use chopin_mcp::{
    BodyChunks, DocumentSummary, DocumentSummaryRef, Endpoint, Header, Outcome, RequestParts,
};

const LEGACY: &[u8] = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"}}}"#;
const MODERN: &[u8] = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"githubnext/chopin"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn summaries() -> Vec<DocumentSummary> {
    let mut summaries: Vec<DocumentSummary> = (0..150)
        .map(|i| DocumentSummary {
            archived_at: None,
            description: None,
            id: format!("00000000-0000-4000-8000-{i:012}"),
            title: format!("Plan {i:03}"),
        })
        .collect();
    // Every escape the writer knows, and text on both sides of them.
    summaries.push(DocumentSummary {
        archived_at: None,
        description: None,
        id: "quotes\"and\\slashes".into(),
        title: "tab\there, newline\nthere, \u{1}\u{1f} controls, é and 🎼".into(),
    });
    summaries.push(DocumentSummary {
        archived_at: None,
        description: None,
        id: String::new(),
        title: "\"".into(),
    });
    summaries
}

/// The same summaries, borrowed.
fn borrow(owned: &[DocumentSummary]) -> Vec<DocumentSummaryRef<'_>> {
    owned
        .iter()
        .map(|s| DocumentSummaryRef {
            archived_at: None,
            description: None,
            id: &s.id,
            title: &s.title,
        })
        .collect()
}

/// The response body to a list answered by `answer`.
fn listed(
    body: &[u8],
    version: &str,
    answer: impl FnOnce(chopin_mcp::ListDocuments<String>) -> Outcome<String>,
) -> Vec<u8> {
    let endpoint = Endpoint::new(chopin_mcp::Config::new()).unwrap();
    let mut headers = vec![
        Header::new("authorization", b"Bearer allowed"),
        Header::new("content-type", b"application/json"),
        Header::new("accept", b"application/json, text/event-stream"),
        Header::new("mcp-protocol-version", version.as_bytes()),
    ];
    if version == "2026-07-28" {
        headers.push(Header::new("mcp-method", b"tools/call"));
        headers.push(Header::new("mcp-name", b"list_documents"));
    }
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let chunks: BodyChunks = std::iter::once(bytes::Bytes::copy_from_slice(body)).collect();
    let mut outcome = endpoint.handle(&parts, chunks);
    let mut answer = Some(answer);
    loop {
        outcome = match outcome {
            Outcome::Authenticate(auth) => auth.answer(Some("octocat".to_owned())),
            Outcome::List(list) => (answer.take().expect("one list effect"))(list),
            Outcome::Respond(response) => {
                assert_eq!(response.status(), 200);
                return response.body().to_vec();
            }
            other => panic!("unexpected outcome {other:?}"),
        };
    }
}

#[test]
fn borrowed_summaries_answer_the_same_bytes_as_owned_ones() {
    let owned = summaries();
    let borrowed = borrow(&owned);
    for (body, version) in [(LEGACY, "2025-06-18"), (MODERN, "2026-07-28")] {
        let a = listed(body, version, |list| list.answer(&owned));
        let b = listed(body, version, |list| list.answer_borrowed(&borrowed));
        assert_eq!(String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
        // Both copies of the listing are the summaries, as JSON.
        let reply: serde_json::Value = serde_json::from_slice(&a).unwrap();
        let listing = serde_json::json!({ "documents": owned });
        assert_eq!(reply["result"]["structuredContent"], listing);
        let copy = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(copy).unwrap(),
            listing
        );
        let text = String::from_utf8(a).unwrap();
        assert!(
            text.contains(r#"{"id":"quotes\"and\\slashes","title":"tab\there"#),
            "{text}"
        );
        assert!(
            text.contains(r#"{\"id\":\"quotes\\\"and\\\\slashes\""#),
            "{text}"
        );
    }
    // An empty list too.
    let a = listed(LEGACY, "2025-06-18", |list| list.answer(&[]));
    let b = listed(LEGACY, "2025-06-18", |list| list.answer_borrowed(&[]));
    assert_eq!(a, b);
}

#[test]
fn both_copies_of_a_listing_are_serde_json_s_compact_bytes_with_or_without_escapes() {
    let plain: Vec<DocumentSummary> = summaries().into_iter().take(150).collect();
    let mut one_escaped = plain.clone();
    one_escaped.insert(75, summaries().pop().unwrap());
    for owned in [plain, one_escaped] {
        let compact = serde_json::to_string(&serde_json::json!({ "documents": owned })).unwrap();
        let borrowed = borrow(&owned);
        for (body, version) in [(LEGACY, "2025-06-18"), (MODERN, "2026-07-28")] {
            for reply in [
                listed(body, version, |list| list.answer(&owned)),
                listed(body, version, |list| list.answer_borrowed(&borrowed)),
            ] {
                let text = String::from_utf8(reply).unwrap();
                let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(value["result"]["content"][0]["text"], compact.as_str());
                assert!(
                    text.contains(&format!("\"structuredContent\":{compact}")),
                    "{text}"
                );
            }
        }
    }
}
