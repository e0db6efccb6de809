//! Images (SURFACE.md §8 "Reference store"), on either engine: one copy
//! of each image per repository, keyed by (repository, SHA-256), with its
//! type, size, uploader and time; and a link from each document it was
//! uploaded to. Each engine's transactions are its `images.rs`.

use bytes::Bytes;

/// An image `upload_image` checked, for [`Store::store_image`](super::Store::store_image).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewImage {
    /// Lowercase hex SHA-256 of [`bytes`](Self::bytes).
    pub sha256: String,
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`.
    pub media_type: &'static str,
    /// The bytes (at most 1 MiB).
    pub bytes: Bytes,
}

/// How an upload ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageOutcome {
    /// The image is kept for the repository (now, or it already was) and
    /// linked to the document.
    Stored,
    /// The document is archived: nothing written.
    Archived,
    /// The repository's images and this one would pass the quota: nothing
    /// written (an image the repository already holds costs nothing).
    QuotaExceeded,
    /// The caller may see the document but not write it (a read-only
    /// grant): nothing written.
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// An image a caller may load: the type it was stored as, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredImage {
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// `--image-quota-mib` as bytes.
pub fn quota_bytes(mib: u64) -> i64 {
    i64::try_from(mib.saturating_mul(1 << 20)).unwrap_or(i64::MAX)
}
