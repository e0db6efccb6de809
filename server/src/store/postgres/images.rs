//! Images on PostgreSQL (SURFACE.md §8 "Reference store"). An upload is
//! one statement in a transaction of its own, sent with its `BEGIN; SET
//! LOCAL statement_timeout` and `COMMIT` in one round trip, answered only
//! after `COMMIT` returned; a read is one statement on the read pool.
//!
//! The upload shares the document's row (`FOR SHARE`: an archive racing it
//! waits, and it sees the archive's outcome when it came first). Its quota
//! is judged from the statement's snapshot: uploads of different new images
//! to one repository at the same instant, through different documents, may
//! each pass it once (by at most their own sizes); an image the repository
//! already holds is never stored twice (its key).

use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

use super::Postgres;
use super::query::{Deadline, in_transaction};
use crate::store::{ImageOutcome, NewImage, StoreError, StoredImage, document_id};

/// `store_image`: $1 caller, $2 document id, $3 digest, $4 type, $5 size,
/// $6 bytes, $7 quota. One row when the caller may see the document:
/// whether it is archived, whether the image fits (held already, or within
/// the quota), whether the caller may write it; the image kept and linked
/// when it may, the document is live and the image fits.
const STORE: &str = "WITH doc AS (
    SELECT d.id, d.repository, d.archived_at IS NOT NULL AS archived,
      EXISTS (SELECT 1 FROM grants w WHERE w.caller = $1 AND w.may_write
      AND (w.repository = '*' OR w.repository = d.repository)) AS writable FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
    FOR SHARE OF d
), state AS (
    SELECT doc.id, doc.repository, doc.archived, doc.writable,
        EXISTS (SELECT 1 FROM images i
          WHERE i.repository = doc.repository AND i.sha256 = $3) AS held,
        (SELECT coalesce(sum(i.size), 0) FROM images i
          WHERE i.repository = doc.repository) AS used
    FROM doc
), kept AS (
    INSERT INTO images (repository, sha256, media_type, size, bytes, uploaded_by)
    SELECT s.repository, $3, $4, $5, $6, $1 FROM state s
    WHERE s.writable AND NOT s.archived AND NOT s.held AND s.used + $5 <= $7
    ON CONFLICT DO NOTHING
), linked AS (
    INSERT INTO document_images (document_id, sha256, linked_by)
    SELECT s.id, $3, $1 FROM state s
    WHERE s.writable AND NOT s.archived AND (s.held OR s.used + $5 <= $7)
    ON CONFLICT DO NOTHING
)
SELECT s.archived, s.held OR s.used + $5 <= $7, s.writable FROM state s";

/// `read_image`: $1 caller, $2 digest. The image through a document the
/// caller may see (archived too): type and bytes.
const READ: &str = "SELECT i.media_type, i.bytes FROM document_images l
    JOIN documents d ON d.id = l.document_id
    JOIN images i ON i.repository = d.repository AND i.sha256 = l.sha256
    WHERE l.sha256 = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
    LIMIT 1";

impl Postgres {
    /// See [`crate::store::Store::store_image`].
    pub async fn store_image(
        &self,
        caller: &str,
        locator: &str,
        image: &NewImage,
        quota: i64,
    ) -> Result<ImageOutcome, StoreError> {
        let id = document_id(locator);
        let id = id.as_bytes();
        let size = i64::try_from(image.bytes.len()).unwrap_or(i64::MAX);
        let bytes = &image.bytes[..];
        let params: [(&(dyn ToSql + Sync), Type); 7] = [
            (&caller, Type::TEXT),
            (&id, Type::BYTEA),
            (&image.sha256, Type::TEXT),
            (&image.media_type, Type::TEXT),
            (&size, Type::INT8),
            (&bytes, Type::BYTEA),
            (&quota, Type::INT8),
        ];
        let Some(row) = self.one(true, STORE, &params).await? else {
            return Ok(ImageOutcome::Unavailable);
        };
        Ok(if !row.try_get::<_, bool>(2)? {
            ImageOutcome::Forbidden
        } else if row.try_get(0)? {
            ImageOutcome::Archived
        } else if row.try_get(1)? {
            ImageOutcome::Stored
        } else {
            ImageOutcome::QuotaExceeded
        })
    }

    /// See [`crate::store::Store::read_image`].
    pub async fn read_image(
        &self,
        caller: &str,
        sha256: &str,
    ) -> Result<Option<StoredImage>, StoreError> {
        let params: [(&(dyn ToSql + Sync), Type); 2] =
            [(&caller, Type::TEXT), (&sha256, Type::TEXT)];
        let Some(row) = self.one(false, READ, &params).await? else {
            return Ok(None);
        };
        Ok(Some(StoredImage {
            media_type: row.try_get(0)?,
            bytes: row.try_get(1)?,
        }))
    }

    /// `statement` with `params` in a transaction of its own on the write
    /// pool (`write`) or the read pool, under the request's deadline: its
    /// row, if any.
    async fn one(
        &self,
        write: bool,
        statement: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Option<Row>, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let pool = if write { &self.write } else { &self.read };
        let client = self.client(pool, &deadline).await?;
        let work = in_transaction(
            &client,
            &deadline,
            client.query_typed_opt(statement, params),
        );
        let outcome = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, outcome)
    }
}
