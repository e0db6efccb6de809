//! The store's read (SURFACE.md §3, on every engine): the locators the
//! write tools resolve (an id, `/documents/<id>`, an absolute
//! `…/documents/<id>`) name the document; every read gives its `url`; an
//! unseen one stays absent however it is named.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use engines::{Engine, read, seeded};

on_every_engine!(
    a_read_resolves_ids_paths_and_urls,
    an_unseen_document_is_absent_by_any_locator,
);

async fn a_read_resolves_ids_paths_and_urls(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let by_id = read(&store, "ann", "b").await;
    assert_eq!(by_id.url.as_deref(), Some("/documents/b"));
    assert_eq!(by_id.archived_at, None);
    for locator in [
        "/documents/b",
        "https://plans.example/documents/b",
        "HTTP://localhost:8080/documents/%62",
    ] {
        assert_eq!(read(&store, "ann", locator).await, by_id, "{locator}");
    }
    for locator in ["/documents/b/", "documents/b", "/documents/b?x=1"] {
        assert_eq!(store.read("ann", locator).await.unwrap(), None, "{locator}");
    }
}

async fn an_unseen_document_is_absent_by_any_locator(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for locator in ["s", "/documents/s", "https://plans.example/documents/s"] {
        assert_eq!(store.read("ann", locator).await.unwrap(), None, "{locator}");
        assert!(store.read("root", locator).await.unwrap().is_some());
    }
}
