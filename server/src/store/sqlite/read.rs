//! Reads on SQLite: list, read and the readiness query, each on a reader
//! connection (never the writer, so a read never waits for a create).
//! [`Sqlite::list_summaries`] and [`Sqlite::read_into`] step their
//! statements through SQLite's C interface ([`super::handle`]); the others
//! go through rusqlite.

use chopin_mcp::{Document, DocumentSummary, DocumentSummaryRef};
use rusqlite::{Connection, OptionalExtension, params};

use super::{OnRuntime, Sqlite};
use crate::store::{Listing, StoreError, document_id, revision_of, url_of};

/// The readiness query: it reads the schema, so a database that lost its
/// tables is not ready.
const READY: &str = "SELECT count(*) FROM tokens";

/// `list`: the live summaries of repository ?2 that `caller` (?1) may see.
/// SQLite compares TEXT with BINARY collation: byte-wise.
///
/// The grant depends on the repository alone, so it is checked once, as
/// the index seek's key: `repository = CASE WHEN granted THEN ?2 END` seeks
/// `NULL` (no rows) without a grant. As a condition beside the seek, SQLite
/// evaluates it (cached, but still five opcodes) for every row. And it is
/// two lookups of the `grants` key (`*`, then the repository), not one with
/// `repository = '*' OR repository = ...`: SQLite runs that OR as an `IN`
/// over an ephemeral table, created, filled and dropped by every statement
/// (two zeroed pages: about 25,000 instructions of a read's 31,000 in
/// SQLite, `benches/history/host-floor.md`).
///
/// `archived_at IS NULL` is the seek's second key (the index is
/// `(repository, archived_at, title, id)`): the live documents, in title and
/// id order, from the index alone. A list that finds nothing asks [`GRANTED`]
/// whether the repository is empty or forbidden: a second statement for
/// empty answers only.
///
/// [`Sqlite::list`] runs it through rusqlite; [`Sqlite::list_summaries`]
/// (what the servers answer with) steps it through SQLite's C interface,
/// prepared once per connection ([`super::handle`]).
pub(super) const LIST: &str = "SELECT d.id, d.title FROM documents d
    WHERE d.repository = CASE
      WHEN EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = ?2)
      THEN ?2 END
      AND d.archived_at IS NULL
    ORDER BY d.title, d.id";

/// `list` with `includeArchived` (SURFACE.md §2): [`LIST`] without the
/// `archived_at IS NULL` key, each row with its `archived_at` (NULL when
/// live). Rare, so run through rusqlite ([`Sqlite::list`]).
pub(super) const LIST_ALL: &str = "SELECT d.id, d.title, d.archived_at FROM documents d
    WHERE d.repository = CASE
      WHEN EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = ?2)
      THEN ?2 END
    ORDER BY d.title, d.id";

/// Whether `caller` (?1) has a grant for repository ?2.
const GRANTED: &str =
    "SELECT EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
    OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = ?2)";

/// `read`: document ?2 if `caller` (?1) may see it (the grant's two
/// lookups as in [`LIST`]), archived or not (SURFACE.md §3), with its
/// brief: the one it was created with, none for an imported document (whose
/// `brief` column holds the schema's default); and its `archived_at`.
/// Constant text, so each connection prepares it once (`prepare_cached`).
pub(super) const READ: &str = "SELECT d.id, d.title, d.source, d.revision,
      CASE WHEN d.created_by IS NULL THEN NULL ELSE d.brief END, d.archived_at
    FROM documents d
    WHERE d.id = ?2
      AND (EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = '*')
        OR EXISTS (SELECT 1 FROM grants g WHERE g.caller = ?1 AND g.repository = d.repository))";

impl Sqlite {
    /// See [`crate::store::Store::list`].
    pub fn list(
        &self,
        caller: &str,
        repository: &str,
        include_archived: bool,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        self.reading(|conn| {
            let mut statement =
                conn.prepare_cached(if include_archived { LIST_ALL } else { LIST })?;
            let rows = statement.query_map(params![caller, repository], |row| {
                Ok(DocumentSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    description: None,
                    archived_at: if include_archived { row.get(2)? } else { None },
                })
            })?;
            let documents: Vec<DocumentSummary> = rows.collect::<Result<_, _>>()?;
            let empty = documents.is_empty();
            listing(conn, caller, repository, documents, empty)
        })
    }

    /// [`Sqlite::list`] of the live documents into one buffer: the
    /// summaries' text read from each row as it comes (no `String` per field), for answering with
    /// `Summaries::borrowed`.
    pub fn list_summaries(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Listing<Summaries>, StoreError> {
        self.reading(|conn| {
            let mut text = Vec::with_capacity(4096);
            let mut ends = Vec::with_capacity(128);
            conn.list_into([caller, repository], &mut text, &mut ends)?;
            // UTF-8 checked once for the whole buffer, and each field's
            // end checked to be a character boundary: every field is then
            // UTF-8 (a character split between a title and the next id is
            // caught at the title's end).
            let invalid = || StoreError::Invalid("a stored summary is not UTF-8".to_owned());
            let text = String::from_utf8(text).map_err(|_| invalid())?;
            if !ends.iter().all(|&(id_end, title_end)| {
                text.is_char_boundary(id_end) && text.is_char_boundary(title_end)
            }) {
                return Err(invalid());
            }
            let empty = ends.is_empty();
            listing(conn, caller, repository, Summaries { text, ends }, empty)
        })
    }

    /// See [`crate::store::Store::read`].
    pub fn read(&self, caller: &str, locator: &str) -> Result<Option<Document>, StoreError> {
        let id = document_id(locator);
        self.reading(|conn| {
            let mut statement = conn.prepare_cached(READ)?;
            Ok(statement
                .query_row(params![caller, &*id], document_row)
                .optional()?)
        })
    }

    /// [`Sqlite::read`] into `document`, reusing its buffers: `true` with
    /// the document there, `false` (and `document` untouched) when it is
    /// missing or the caller may not see it. Stepped through SQLite's C
    /// interface (`handle`); the same answers and failures as
    /// [`Sqlite::read`].
    pub fn read_into(
        &self,
        caller: &str,
        locator: &str,
        document: &mut Document,
    ) -> Result<bool, StoreError> {
        let id = document_id(locator);
        self.reading(|conn| Ok(conn.read_into([caller, &id], document)?))
    }

    /// See [`crate::store::Store::ready`]: one trivial query on a reader connection.
    pub fn ready(&self) -> Result<(), StoreError> {
        self.reading(|conn| {
            conn.prepare_cached(READY)?.query_row([], |_| Ok(()))?;
            Ok(())
        })
    }

    /// Test hook, not for servers: runs `inside` on a reader connection
    /// in an open read transaction (its snapshot taken), as a list or a read
    /// holds one while it steps; then ends it.
    #[doc(hidden)]
    pub fn in_read_transaction<T>(&self, inside: impl FnOnce() -> T) -> Result<T, StoreError> {
        self.reading(|conn| {
            let tx = conn.transaction()?;
            tx.query_row("SELECT count(*) FROM documents", [], |_| Ok(()))?;
            let answer = inside();
            tx.commit()?;
            Ok(answer)
        })
    }
}

/// A list's summaries as one text buffer: each id then its title, and where
/// each of them ends.
#[derive(Debug, Default)]
pub struct Summaries {
    text: String,
    /// Per summary, the end of its id and the end of its title in `text`.
    ends: Vec<(usize, usize)>,
}

impl Summaries {
    /// The summaries, in order, borrowed from the buffer.
    pub fn borrowed(&self) -> Vec<DocumentSummaryRef<'_>> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&(id_end, title_end)| {
                let summary = DocumentSummaryRef {
                    id: &self.text[start..id_end],
                    title: &self.text[id_end..title_end],
                    description: None,
                    archived_at: None,
                };
                start = title_end;
                summary
            })
            .collect()
    }
}

/// A [`READ`] row.
fn document_row(row: &rusqlite::Row<'_>) -> Result<Document, rusqlite::Error> {
    let brief: Option<String> = row.get(4)?;
    let id: String = row.get(0)?;
    Ok(Document {
        url: Some(url_of(&id)),
        id,
        title: row.get(1)?,
        description: None,
        archived_at: row.get(5)?,
        brief: brief
            .map(|json| serde_json::from_str(&json))
            .transpose()
            .map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    4,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?,
        source: row.get(2)?,
        revision: revision_of(row.get(3)?),
    })
}

/// A list's `found` as its answer: an `empty` one may be of a repository
/// the caller has no grant for ([`GRANTED`]).
fn listing<T>(
    conn: &Connection,
    caller: &str,
    repository: &str,
    found: T,
    empty: bool,
) -> Result<Listing<T>, StoreError> {
    if !empty {
        return Ok(Listing::Listed(found));
    }
    let granted: bool = conn
        .prepare_cached(GRANTED)?
        .query_row(params![caller, repository], |row| row.get(0))?;
    Ok(if granted {
        Listing::Listed(found)
    } else {
        Listing::Forbidden
    })
}

impl OnRuntime<'_> {
    /// See [`Sqlite::ready`]: inline.
    pub(in crate::store) async fn ready(self) -> Result<(), StoreError> {
        self.0.ready()
    }

    /// See [`Sqlite::list`]: inline.
    pub(in crate::store) async fn list(
        self,
        caller: &str,
        repository: &str,
        include_archived: bool,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        // One indexed SELECT on a reader connection: run inline.
        self.0.list(caller, repository, include_archived)
    }

    /// See [`Sqlite::read`]: inline.
    pub(in crate::store) async fn read(
        self,
        caller: &str,
        id: &str,
    ) -> Result<Option<Document>, StoreError> {
        self.0.read(caller, id)
    }
}
