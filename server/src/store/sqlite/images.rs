//! Images on SQLite (SURFACE.md §8 "Reference store"). An upload is one
//! `BEGIN IMMEDIATE` transaction on the writer connection (the file's write
//! lock held from the first look to the commit, so racing uploads to one
//! repository take turns and its quota holds exactly), answered only after
//! it committed and was synced. A read is one SELECT on a reader
//! connection.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{OnRuntime, Sqlite};
use crate::store::{ImageOutcome, NewImage, StoreError, StoredImage, document_id};

/// The document ?2 if `caller` (?1) may see it, archived or not: id,
/// repository, whether archived, whether the caller may write it.
const FIND: &str = "SELECT d.id, d.repository, d.archived_at IS NOT NULL,
      EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*' AND g.may_write)
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1
          AND g.repository = d.repository AND g.may_write)
    FROM documents d
    WHERE d.id = ?2
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))";

/// Whether repository ?1 holds image ?2, and the bytes its images take.
const HELD: &str = "SELECT
    EXISTS (SELECT 1 FROM images WHERE repository = ?1 AND sha256 = ?2),
    (SELECT coalesce(sum(size), 0) FROM images WHERE repository = ?1)";

/// `read_image`: image ?2 through a document `caller` (?1) may see (archived
/// too): its type and bytes.
const READ: &str = "SELECT i.media_type, i.bytes FROM document_images l
    JOIN documents d ON d.id = l.document_id
    JOIN images i ON i.repository = d.repository AND i.sha256 = l.sha256
    WHERE l.sha256 = ?2
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))
    LIMIT 1";

impl Sqlite {
    /// See [`crate::store::Store::store_image`]. Blocks for the commit's
    /// fsync.
    pub fn store_image(
        &self,
        caller: &str,
        locator: &str,
        image: &NewImage,
        quota: i64,
    ) -> Result<ImageOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found = tx
            .prepare_cached(FIND)?
            .query_row(params![caller, document_id(locator)], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, bool>(2)?,
                    row.get::<_, bool>(3)?,
                ))
            })
            .optional()?;
        let Some((id, repository, archived, writable)) = found else {
            return Ok(ImageOutcome::Unavailable);
        };
        if !writable {
            return Ok(ImageOutcome::Forbidden);
        }
        if archived {
            return Ok(ImageOutcome::Archived);
        }
        let (held, used): (bool, i64) = tx
            .prepare_cached(HELD)?
            .query_row(params![repository, image.sha256], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?;
        let size = i64::try_from(image.bytes.len()).unwrap_or(i64::MAX);
        if !held {
            if used.saturating_add(size) > quota {
                return Ok(ImageOutcome::QuotaExceeded);
            }
            tx.execute(
                concat!(
                    "INSERT INTO images
                       (repository, sha256, media_type, size, bytes, uploaded_by, uploaded_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ",
                    now!(),
                    ")"
                ),
                params![
                    repository,
                    image.sha256,
                    image.media_type,
                    size,
                    &image.bytes[..],
                    caller
                ],
            )?;
        }
        let linked = tx.execute(
            concat!(
                "INSERT OR IGNORE INTO document_images (document_id, sha256, linked_by, linked_at)
                 VALUES (?1, ?2, ?3, ",
                now!(),
                ")"
            ),
            params![id, image.sha256, caller],
        )?;
        if !held || linked > 0 {
            tx.commit()?;
        }
        Ok(ImageOutcome::Stored)
    }

    /// See [`crate::store::Store::read_image`].
    pub fn read_image(
        &self,
        caller: &str,
        sha256: &str,
    ) -> Result<Option<StoredImage>, StoreError> {
        self.reading(|conn| {
            Ok(conn
                .prepare_cached(READ)?
                .query_row(params![caller, sha256], |row| {
                    Ok(StoredImage {
                        media_type: row.get(0)?,
                        bytes: row.get(1)?,
                    })
                })
                .optional()?)
        })
    }
}

impl OnRuntime<'_> {
    /// See [`Sqlite::store_image`]: off the runtime.
    pub(in crate::store) async fn store_image(
        self,
        caller: &str,
        locator: &str,
        image: &NewImage,
        quota: i64,
    ) -> Result<ImageOutcome, StoreError> {
        let (caller, locator, image) = (caller.to_owned(), locator.to_owned(), image.clone());
        self.blocking(move |store| store.store_image(&caller, &locator, &image, quota))
            .await
    }

    /// See [`Sqlite::read_image`]: inline (one indexed SELECT on a reader).
    pub(in crate::store) async fn read_image(
        self,
        caller: &str,
        sha256: &str,
    ) -> Result<Option<StoredImage>, StoreError> {
        self.0.read_image(caller, sha256)
    }
}
