//! Which document a read's or a write tool's `id` names (LIFECYCLE.md §1,
//! SURFACE.md §3, `store::document_id`): an id as it is, the canonical
//! URL's path, or an absolute `http`/`https` URL with any host and any path
//! before `/documents/` (a `--public-url` with a path), whose one path
//! segment after `/documents/` is percent-decoded; anything else (a query, a fragment,
//! more segments, a malformed escape) is taken as an id, exactly as sent.
//! One pass over the locator, whatever its shape.

use chopin_mcp_server::store::document_id;

#[test]
fn ids_are_taken_as_they_are() {
    for id in [
        "f401c8d6-3717-4f1d-8473-cfdd0af894e4",
        "01JD2X7K4M8Q3R5T6V7W8X9Y0Z",
        " spaced ",
        "%41",
        "",
        "documents/a",
    ] {
        assert_eq!(document_id(id), id);
    }
}

#[test]
fn the_canonical_path_and_absolute_urls_name_their_segment() {
    for (locator, id) in [
        ("/documents/a", "a"),
        ("http://localhost:8080/documents/a", "a"),
        (
            "https://plans.example.com/documents/01JD2X7K4M8Q3R5T6V7W8X9Y0Z",
            "01JD2X7K4M8Q3R5T6V7W8X9Y0Z",
        ),
        ("HTTPS://Plans.Example/documents/b", "b"),
        ("hTtP://user:pw@[::1]:3000/documents/c", "c"),
        ("http://h/documents/%41%2fb", "A/b"),
        ("/documents/%C3%A9t%c3%a9", "été"),
        ("/documents/a%20b", "a b"),
        ("/documents/é", "é"),
        // The segment as it is: nothing trimmed (no such id is minted).
        ("/documents/a ", "a "),
        // A public URL with a path: the last `/documents/` names it.
        ("https://host/other/documents/a", "a"),
        ("https://host/documents/x/documents/b", "b"),
    ] {
        assert_eq!(document_id(locator), id, "{locator}");
    }
}

#[test]
fn anything_else_is_taken_as_an_id() {
    for locator in [
        "/documents/",
        "/documents/a/",
        "/documents/a/b",
        "/documents/a?x=1",
        "/documents/a#top",
        "/documents//a",
        "/Documents/a",
        "/docs/a",
        "http://",
        "http:///documents/a",
        "https://host?q/documents/a",
        "https://host#f/documents/a",
        "https://host",
        "https://host/documents",
        "https://host/other/documents/a/b",
        "https://host/p?q=/documents/a",
        "ftp://host/documents/a",
        "http:/host/documents/a",
        "/documents/%",
        "/documents/%4",
        "/documents/%zz",
        "/documents/%C3",
        "/documents/%FF",
        " /documents/a",
    ] {
        assert_eq!(document_id(locator), locator, "{locator}");
    }
}

#[test]
fn a_decoded_id_is_a_copy_and_the_others_are_borrowed() {
    use std::borrow::Cow;
    assert!(matches!(document_id("/documents/a"), Cow::Borrowed("a")));
    assert!(matches!(document_id("a"), Cow::Borrowed("a")));
    assert!(matches!(document_id("/documents/%61"), Cow::Owned(_)));
}

#[test]
fn long_and_adversarial_locators_are_read_in_one_pass() {
    // Shapes that would cost a quadratic reader: many escapes, many
    // slashes, a long host, a scheme-like prefix repeated. Each is read in
    // one pass (the function is a few forward scans), so a million bytes
    // take no time to speak of; their answers are checked.
    let n = 1 << 20;
    let escapes = format!("/documents/{}", "%41".repeat(n / 3));
    assert_eq!(document_id(&escapes).len(), n / 3);
    let slashes = format!("/documents/{}", "/".repeat(n));
    assert_eq!(document_id(&slashes), slashes);
    let host = format!("https://{}/documents/x", "h".repeat(n));
    assert_eq!(document_id(&host), "x");
    let schemes = "http://".repeat(n / 7);
    assert_eq!(document_id(&schemes), schemes);
    let bad_escape = format!("/documents/{}%", "%41".repeat(n / 3));
    assert_eq!(document_id(&bad_escape), bad_escape);
}
