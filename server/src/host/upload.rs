//! `upload_image` against the store (SURFACE.md §8), and the reads behind
//! `/images/<file>`.

use bytes::Bytes;
use chopin_mcp::{ImageAnswer, ImageType, ReadImage, StoreImage, StoreImageAnswer};

use super::{Caller, Done, Host};
use crate::labels::{UploadResult, Written};
use crate::store::{ImageOutcome, NewImage, Sqlite, StoreError, StoredImage};

impl Host {
    /// Keeps the image for the document's repository and links it to the
    /// document, within the repository's quota; answered once it committed.
    pub(super) async fn upload(&self, store: StoreImage<Caller>) -> Result<Done, StoreError> {
        let image = new_image(&store);
        let stored = (self.store)
            .store_image(store.caller(), store.locator(), &image, self.image_quota)
            .await?;
        Ok(answer(store, stored))
    }

    /// What an image URL's read effect finds in the store: the image, when
    /// the caller may see a document it is linked to.
    pub async fn read_image(&self, read: &ReadImage<Caller>) -> Result<ImageAnswer, StoreError> {
        let found = self
            .store
            .read_image(read.caller(), &read.sha256_hex())
            .await?;
        Ok(found_image(found))
    }

    /// [`Host::read_image`] on the calling thread, for the blocking server.
    pub fn read_image_blocking(&self, read: &ReadImage<Caller>) -> Result<ImageAnswer, StoreError> {
        match &self.store {
            crate::store::Store::Sqlite(store) => Ok(found_image(
                store.read_image(read.caller(), &read.sha256_hex())?,
            )),
            crate::store::Store::Postgres(_) => Err(StoreError::Invalid(
                "the blocking server has no PostgreSQL store".to_owned(),
            )),
        }
    }
}

/// [`Host::upload`] on the calling thread, for the blocking server.
pub(super) fn upload_blocking(
    sqlite: &Sqlite,
    quota: i64,
    store: StoreImage<Caller>,
) -> Result<Done, StoreError> {
    let image = new_image(&store);
    let stored = sqlite.store_image(store.caller(), store.locator(), &image, quota)?;
    Ok(answer(store, stored))
}

fn new_image(store: &StoreImage<Caller>) -> NewImage {
    NewImage {
        sha256: store.sha256_hex(),
        media_type: store.image_type().mime(),
        bytes: store.bytes(),
    }
}

/// A stored image as the endpoint's answer: a type this server never
/// stores (a row written by hand) is not found.
fn found_image(found: Option<StoredImage>) -> ImageAnswer {
    match found.and_then(|image| Some((ImageType::from_mime(&image.media_type)?, image.bytes))) {
        Some((kind, bytes)) => ImageAnswer::Found(kind, Bytes::from(bytes)),
        None => ImageAnswer::NotFound,
    }
}

/// Answers an upload with what the store did, and names the result. This
/// store answers `forbidden` only to a read-only grant's caller: a caller
/// without a grant sees no document.
fn answer(store: StoreImage<Caller>, stored: ImageOutcome) -> Done {
    let (result, answer) = match stored {
        ImageOutcome::Stored => (UploadResult::Stored, StoreImageAnswer::Stored),
        ImageOutcome::Archived => (UploadResult::Archived, StoreImageAnswer::Archived),
        ImageOutcome::QuotaExceeded => {
            (UploadResult::QuotaExceeded, StoreImageAnswer::QuotaExceeded)
        }
        ImageOutcome::Forbidden => (UploadResult::Forbidden, StoreImageAnswer::Forbidden),
        ImageOutcome::Unavailable => (UploadResult::Unavailable, StoreImageAnswer::Unavailable),
    };
    (Written::Upload(result), store.answer(answer))
}
