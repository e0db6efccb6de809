//! The store's images (SURFACE.md §8 "Reference store"), on every engine
//! (`support/engines.rs`): one copy per repository and digest, linked to
//! each document it was uploaded to; read by a caller who may see one of
//! those documents (archived ones too), by no one else; an archived
//! document takes no image; a repository's quota counts each image once;
//! documents named by id or URL.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::SystemTime;

use bytes::Bytes;
use chopin_mcp_server::store::{ImageOutcome, NewImage, Store, StoredImage};
use engines::{Engine, seeded};
use sha2::{Digest, Sha256};

on_every_engine!(
    an_image_is_read_by_callers_who_may_see_a_document_it_belongs_to,
    the_same_bytes_are_kept_once_and_cost_the_quota_once,
    a_new_image_past_the_quota_is_refused_and_nothing_is_written,
    an_archived_document_takes_no_image_but_its_images_stay_readable,
    documents_the_caller_cannot_see_take_no_image,
);

const QUOTA: i64 = 64 << 20;

/// A PNG of `len` bytes (the signature, then `fill`).
fn png(len: usize, fill: u8) -> NewImage {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.resize(len, fill);
    let sha256 = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    NewImage {
        sha256,
        media_type: "image/png",
        bytes: Bytes::from(bytes),
    }
}

async fn upload(
    store: &Store,
    caller: &str,
    locator: &str,
    image: &NewImage,
    quota: i64,
) -> ImageOutcome {
    store
        .store_image(caller, locator, image, quota)
        .await
        .unwrap()
}

async fn read(store: &Store, caller: &str, image: &NewImage) -> Option<StoredImage> {
    store.read_image(caller, &image.sha256).await.unwrap()
}

fn stored(image: &NewImage) -> Option<StoredImage> {
    Some(StoredImage {
        media_type: image.media_type.to_owned(),
        bytes: image.bytes.to_vec(),
    })
}

async fn an_image_is_read_by_callers_who_may_see_a_document_it_belongs_to(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let image = png(100, 1);
    assert_eq!(
        upload(&store, "ann", "a", &image, QUOTA).await,
        ImageOutcome::Stored
    );
    assert_eq!(read(&store, "ann", &image).await, stored(&image));
    assert_eq!(read(&store, "root", &image).await, stored(&image));
    // A caller without a grant, and an unknown digest: alike.
    assert_eq!(read(&store, "bob", &image).await, None);
    assert_eq!(read(&store, "ann", &png(100, 2)).await, None);
    // Named by its URL.
    let other = png(50, 3);
    assert_eq!(
        upload(
            &store,
            "root",
            "https://chopin.test/documents/s",
            &other,
            QUOTA
        )
        .await,
        ImageOutcome::Stored
    );
    assert_eq!(read(&store, "root", &other).await, stored(&other));
    assert_eq!(
        read(&store, "ann", &other).await,
        None,
        "acme/secret is not ann's"
    );
}

async fn the_same_bytes_are_kept_once_and_cost_the_quota_once(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let image = png(100, 1);
    // A quota that holds the image exactly once.
    for locator in ["a", "a", "b", "/documents/c"] {
        assert_eq!(
            upload(&store, "ann", locator, &image, 100).await,
            ImageOutcome::Stored,
            "{locator}"
        );
    }
    assert_eq!(read(&store, "ann", &image).await, stored(&image));
}

async fn a_new_image_past_the_quota_is_refused_and_nothing_is_written(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = png(60, 1);
    let second = png(60, 2);
    assert_eq!(
        upload(&store, "ann", "a", &first, 100).await,
        ImageOutcome::Stored
    );
    assert_eq!(
        upload(&store, "ann", "b", &second, 100).await,
        ImageOutcome::QuotaExceeded
    );
    assert_eq!(read(&store, "ann", &second).await, None);
    // Another repository has a quota of its own.
    assert_eq!(
        upload(&store, "root", "s", &second, 100).await,
        ImageOutcome::Stored
    );
    // A quota of exactly what the two take.
    assert_eq!(
        upload(&store, "ann", "b", &second, 120).await,
        ImageOutcome::Stored
    );
    assert_eq!(read(&store, "ann", &second).await, stored(&second));
}

async fn an_archived_document_takes_no_image_but_its_images_stay_readable(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let kept = png(100, 1);
    assert_eq!(
        upload(&store, "ann", "a", &kept, QUOTA).await,
        ImageOutcome::Stored
    );
    store.archive("ann", "a", SystemTime::now()).await.unwrap();
    let refused = png(100, 2);
    assert_eq!(
        upload(&store, "ann", "a", &refused, QUOTA).await,
        ImageOutcome::Archived
    );
    assert_eq!(read(&store, "ann", &refused).await, None);
    assert_eq!(read(&store, "ann", &kept).await, stored(&kept));
}

async fn documents_the_caller_cannot_see_take_no_image(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let image = png(100, 1);
    for (caller, locator) in [("ann", "s"), ("bob", "a"), ("ann", "missing")] {
        assert_eq!(
            upload(&store, caller, locator, &image, QUOTA).await,
            ImageOutcome::Unavailable,
            "{caller} {locator}"
        );
    }
    assert_eq!(read(&store, "root", &image).await, None);
}
