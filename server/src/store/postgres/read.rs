//! Reads on PostgreSQL: list, read and the readiness query, each one
//! simple-query message on the read pool (never the write pool, so a read
//! never waits for a connection a create holds), under the request's
//! deadline. List and read call the PL/pgSQL functions the set-up makes
//! (`schema::FUNCTIONS`).

use chopin_mcp::{Document, DocumentSummary};

use super::Postgres;
use super::query::{Deadline, Literal, bounded, hex_text};
use crate::store::documents::brief_of;
use crate::store::{Listing, StoreError, document_id, revision_of, url_of};

/// `list` as a simple query (see [`super::query`]): `bytea` columns as hex, in
/// byte order of title, then id; one row of NULLs when forbidden.
const LIST: &str = "SELECT encode(id, 'hex'), encode(title, 'hex'), archived_at
    FROM chopin_list_v3($1, $2, false) ORDER BY title, id";

/// [`LIST`] with the archived documents too (`includeArchived`).
const LIST_ALL: &str = "SELECT encode(id, 'hex'), encode(title, 'hex'), archived_at
    FROM chopin_list_v3($1, $2, true) ORDER BY title, id";

/// `read` as a simple query (the brief and `archived_at` are text already).
const READ: &str = "SELECT encode(id, 'hex'), encode(title, 'hex'), encode(source, 'hex'),
    revision, brief, archived_at FROM chopin_read_v3($1, $2)";

impl Postgres {
    /// See [`crate::store::Store::list`].
    pub async fn list(
        &self,
        caller: &str,
        repository: &str,
        include_archived: bool,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let params = [Literal::Text(caller), Literal::Text(repository)];
        let statement = if include_archived { LIST_ALL } else { LIST };
        let work = bounded(&client, &deadline, statement, &params);
        let rows = tokio::time::timeout_at(deadline.backstop(), work).await;
        let rows = self.settle(client, rows)?;
        if let [only] = rows.as_slice() {
            if only.try_get(0)?.is_none() {
                return Ok(Listing::Forbidden);
            }
        }
        rows.iter()
            .map(|row| {
                Ok(DocumentSummary {
                    id: hex_text(row, 0)?,
                    title: hex_text(row, 1)?,
                    description: None,
                    archived_at: row.try_get(2)?.map(str::to_owned),
                })
            })
            .collect::<Result<_, _>>()
            .map(Listing::Listed)
    }

    /// See [`crate::store::Store::read`].
    pub async fn read(&self, caller: &str, locator: &str) -> Result<Option<Document>, StoreError> {
        let id = document_id(locator);
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let params = [Literal::Text(caller), Literal::Bytes(id.as_bytes())];
        let work = bounded(&client, &deadline, READ, &params);
        let rows = tokio::time::timeout_at(deadline.backstop(), work).await;
        let rows = self.settle(client, rows)?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let revision: i64 = row
            .try_get(3)?
            .and_then(|text| text.parse().ok())
            .ok_or_else(|| StoreError::Invalid("a stored revision is not a number".to_owned()))?;
        let id = hex_text(row, 0)?;
        Ok(Some(Document {
            url: Some(url_of(&id)),
            id,
            title: hex_text(row, 1)?,
            description: None,
            archived_at: row.try_get(5)?.map(str::to_owned),
            brief: brief_of(row.try_get(4)?)?,
            source: hex_text(row, 2)?,
            revision: revision_of(revision),
        }))
    }

    /// See [`crate::store::Store::ready`]: one trivial query on the read pool,
    /// under the same deadline as a request.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let work = bounded(&client, &deadline, "SELECT count(*) FROM tokens", &[]);
        let answered = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, answered).map(drop)
    }
}
