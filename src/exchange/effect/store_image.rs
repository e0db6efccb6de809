//! The upload effect.

use std::fmt;

use bytes::Bytes;

use super::{Pending, Reply};
use crate::exchange::dispatch::Dispatch;
use crate::exchange::outcome::Outcome;
use crate::image::{self, ImageType};
use crate::tools::upload::{self, StoreImageAnswer, Upload};

/// The upload effect: keep [`bytes`](Self::bytes), an image of type
/// [`image_type`](Self::image_type), for the document
/// [`locator`](Self::locator) names, on behalf of [`caller`](Self::caller)
/// (SURFACE.md §8).
///
/// Every check is done: the type is one of the four, the bytes carry its
/// signature, are at most 1 MiB, and [`sha256`](Self::sha256) is their
/// digest. The answer's result names [`path`](Self::path), the core's,
/// never one the host makes up: keep the image where that path will find it
/// ([`Endpoint::image`](crate::Endpoint::image) asks by digest and type).
/// Keeping the same bytes again answers [`StoreImageAnswer::Stored`].
pub struct StoreImage<C> {
    pending: Pending<C>,
    upload: Box<Upload>,
}

impl<C> StoreImage<C> {
    pub(crate) fn new(dispatch: Dispatch<C>, id: Reply, upload: Box<Upload>) -> Self {
        StoreImage {
            pending: Pending::new(dispatch, id),
            upload,
        }
    }

    /// The authenticated caller.
    pub fn caller(&self) -> &C {
        self.pending.caller()
    }

    /// The document's locator exactly as sent: an id, or its canonical URL.
    pub fn locator(&self) -> &str {
        &self.upload.locator
    }

    /// The image's type, as its `mimeType` named it and its signature showed.
    pub fn image_type(&self) -> ImageType {
        self.upload.kind
    }

    /// The decoded bytes (at most 1 MiB), shared: cloning them copies
    /// nothing.
    pub fn bytes(&self) -> Bytes {
        self.upload.bytes.clone()
    }

    /// The SHA-256 of [`bytes`](Self::bytes).
    pub fn sha256(&self) -> [u8; 32] {
        self.upload.sha256
    }

    /// [`sha256`](Self::sha256) as 64 lowercase hex digits.
    pub fn sha256_hex(&self) -> String {
        image::hex(&self.upload.sha256)
    }

    /// Where the image is served: `/images/<sha256_hex>.<extension>`.
    pub fn path(&self) -> String {
        image::path(&self.upload.sha256, self.upload.kind)
    }

    /// Answers with what the host did.
    pub fn answer(self, answer: StoreImageAnswer) -> Outcome<C> {
        let path = self.path();
        self.pending
            .answer(|out, frame| upload::write_result(out, frame, &path, answer))
    }
}

impl<C> fmt::Debug for StoreImage<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreImage")
            .field("locator", &self.upload.locator)
            .field("image_type", &self.upload.kind)
            .field("len", &self.upload.bytes.len())
            .field("sha256", &self.sha256_hex())
            .finish_non_exhaustive()
    }
}
