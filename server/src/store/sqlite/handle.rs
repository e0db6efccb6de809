//! A connection and its two read statements, [`LIST`] and [`READ`], stepped
//! through SQLite's C interface.
//!
//! A list reads two text columns of every row, a hundred rows or more. Through
//! rusqlite each column is four calls into SQLite (`Row::get_ref` asks the
//! column count, then the value's type, its text and its length) and a row is
//! a trip through rusqlite's row iterator; here a column is fetched once as
//! its value, which is asked its type, text and length, and the statement is
//! stepped directly. A read is one
//! row, but it is the request served most: through rusqlite it also looks its
//! statement up in the connection's cache by its text (a hash of the whole
//! SQL and an LRU move, each time) and allocates a `String` per column; here
//! the statement is the handle's own and the columns are copied into a
//! document whose buffers are reused. In the store bench
//! (`server/benches/store.rs`) that is the difference `benches/history/host-floor.md` records
//! for `list_summaries_100` and `read_into`. Everything else on a connection
//! (creates, set-up, health) goes through rusqlite.

use std::ffi::{CStr, c_int};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use chopin_mcp::{Brief, Document};
use rusqlite::types::Type;
use rusqlite::{Connection, ffi};

use super::read::{LIST, READ};
use crate::store::{revision_of, write_url};

/// A connection and, once it has listed or read, its prepared statements.
/// Everything else uses the connection as a [`Connection`] (`Deref`).
pub(super) struct Handle {
    /// Declared before `conn`, so finalized before the connection closes
    /// (a connection with an unfinalized statement cannot close).
    list: Option<Statement>,
    read: Option<Statement>,
    conn: Connection,
}

impl Handle {
    pub(super) fn new(conn: Connection) -> Handle {
        // What `append_text` relies on: a connection without a mutex.
        // SAFETY: the live connection's handle.
        debug_assert!(
            unsafe { ffi::sqlite3_db_mutex(conn.handle()) }.is_null(),
            "a connection opened without SQLITE_OPEN_NOMUTEX"
        );
        Handle {
            list: None,
            read: None,
            conn,
        }
    }

    /// Runs [`READ`] for `[caller, id]`: on a row, its columns replace
    /// `document`'s (its buffers reused; a brief parsed from the column's
    /// text, none without one) and the answer is `true`;
    /// without one, `document` is left as it was and the answer is `false`.
    /// The same failures as rusqlite's `query_row` with `String`s and an
    /// `i64`: a column of another type, text that is not UTF-8.
    pub(super) fn read_into(
        &mut self,
        params: [&str; 2],
        document: &mut Document,
    ) -> rusqlite::Result<bool> {
        let statement = match &mut self.read {
            Some(statement) => statement,
            read => read.insert(Statement::prepare(&self.conn, READ)?),
        };
        let stmt = statement.bind(&self.conn, params)?;
        // SAFETY: a prepared statement of `conn`, bound above.
        match unsafe { ffi::sqlite3_step(stmt.0) } {
            ffi::SQLITE_ROW => {
                // Each column into its field's own buffer, checked as
                // rusqlite checks a `String` (a failed column leaves its
                // field empty; the document is the caller's scratch).
                for (index, field) in [&mut document.id, &mut document.title, &mut document.source]
                    .into_iter()
                    .enumerate()
                {
                    let mut bytes = std::mem::take(field).into_bytes();
                    bytes.clear();
                    append_text(stmt.0, index as c_int, &mut bytes)?;
                    *field = String::from_utf8(bytes).map_err(|e| {
                        rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(e))
                    })?;
                }
                document.revision = revision_of(integer(stmt.0, 3)?);
                document.brief = brief(stmt.0, 4)?;
                document.archived_at = optional_text(stmt.0, 5)?;
                document.description = None;
                // The URL's buffer is kept, as the text fields' are.
                let mut url = document.url.take().unwrap_or_default();
                write_url(&mut url, &document.id);
                document.url = Some(url);
                Ok(true)
            }
            ffi::SQLITE_DONE => Ok(false),
            rc => Err(error_of(&self.conn, rc)),
        }
    }

    /// Runs [`LIST`] for `[caller, repository]` and appends each row's two
    /// columns (id, title) to `text`, pushing the end of each to `ends`.
    /// Prepared on the first call, kept for the next ones.
    pub(super) fn list_into(
        &mut self,
        params: [&str; 2],
        text: &mut Vec<u8>,
        ends: &mut Vec<(usize, usize)>,
    ) -> rusqlite::Result<()> {
        let statement = match &mut self.list {
            Some(statement) => statement,
            list => list.insert(Statement::prepare(&self.conn, LIST)?),
        };
        let stmt = statement.bind(&self.conn, params)?;
        loop {
            // SAFETY: a prepared statement of `conn`, bound above.
            match unsafe { ffi::sqlite3_step(stmt.0) } {
                ffi::SQLITE_ROW => {
                    append_text(stmt.0, 0, text)?;
                    let first_end = text.len();
                    append_text(stmt.0, 1, text)?;
                    ends.push((first_end, text.len()));
                }
                ffi::SQLITE_DONE => return Ok(()),
                rc => return Err(error_of(&self.conn, rc)),
            }
        }
    }
}

impl Deref for Handle {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl DerefMut for Handle {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

/// A prepared statement of the [`Handle`]'s connection, owned here and
/// finalized when dropped.
struct Statement {
    raw: NonNull<ffi::sqlite3_stmt>,
}

// SAFETY: SQLite lets a statement be used from any thread, one thread at a
// time, in the "multi-thread" mode rusqlite opens connections in (its
// `Connection` is `Send` on the same ground). The statement lives in its
// connection's `Handle` and is used only through `&mut Handle`.
unsafe impl Send for Statement {}

impl Statement {
    fn prepare(conn: &Connection, sql: &'static str) -> rusqlite::Result<Statement> {
        let length = c_int::try_from(sql.len()).map_err(|_| failure(ffi::SQLITE_TOOBIG, None))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: the handle is the live connection's; `sql` is `length`
        // bytes; SQLite writes the statement (or null) to `raw`.
        let rc = unsafe {
            ffi::sqlite3_prepare_v3(
                conn.handle(),
                sql.as_ptr().cast(),
                length,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut raw,
                std::ptr::null_mut(),
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(error_of(conn, rc));
        }
        // Null only for SQL that holds no statement.
        let raw = NonNull::new(raw).ok_or_else(|| failure(ffi::SQLITE_MISUSE, None))?;
        Ok(Statement { raw })
    }

    /// Binds `params` (without a copy) as ?1 and ?2, for stepping until the
    /// guard it answers is dropped: that resets the statement (ending its
    /// read) and clears the bindings, which point into `params` and must not
    /// outlive them.
    fn bind<'p>(&mut self, conn: &Connection, params: [&'p str; 2]) -> rusqlite::Result<Bound<'p>> {
        let stmt = self.raw.as_ptr();
        let bound = Bound(stmt, std::marker::PhantomData);
        for (index, value) in (1..).zip(params) {
            // SAFETY: `value` stays alive and unchanged until `bound` clears
            // the binding (SQLITE_STATIC: SQLite does not copy it).
            let rc = unsafe {
                ffi::sqlite3_bind_text64(
                    stmt,
                    index,
                    value.as_ptr().cast(),
                    value.len() as u64,
                    ffi::SQLITE_STATIC(),
                    ffi::SQLITE_UTF8 as u8,
                )
            };
            if rc != ffi::SQLITE_OK {
                return Err(error_of(conn, rc));
            }
        }
        Ok(bound)
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        // SAFETY: ours, finalized once; its connection is still open (see
        // `Handle`'s fields).
        unsafe { ffi::sqlite3_finalize(self.raw.as_ptr()) };
    }
}

/// A bound statement, borrowing its parameters; resets the statement and
/// clears its bindings when dropped.
struct Bound<'p>(*mut ffi::sqlite3_stmt, std::marker::PhantomData<&'p str>);

impl Drop for Bound<'_> {
    fn drop(&mut self) {
        // SAFETY: a live statement; both calls are valid in any state.
        unsafe {
            ffi::sqlite3_reset(self.0);
            ffi::sqlite3_clear_bindings(self.0);
        }
    }
}

/// Column `index` of the current row, which must be INTEGER (what
/// rusqlite's `i64` accepts; no conversion).
fn integer(stmt: *mut ffi::sqlite3_stmt, index: c_int) -> rusqlite::Result<i64> {
    // SAFETY: `stmt` is on a row and `index` is one of its columns.
    unsafe {
        let kind = ffi::sqlite3_column_type(stmt, index);
        if kind != ffi::SQLITE_INTEGER {
            return Err(wrong_type(index, kind));
        }
        Ok(ffi::sqlite3_column_int64(stmt, index))
    }
}

/// Column `index` of the current row as a brief: none for NULL, else TEXT
/// parsed as JSON where SQLite holds it (no copy of the text first).
fn brief(stmt: *mut ffi::sqlite3_stmt, index: c_int) -> rusqlite::Result<Option<Brief>> {
    // SAFETY: `stmt` is on a row and `index` is one of its columns; the
    // text (`length` bytes) is valid until the next step or reset, and is
    // parsed before that. The type is asked first, so nothing is converted.
    let json = unsafe {
        let value = ffi::sqlite3_column_value(stmt, index);
        match ffi::sqlite3_value_type(value) {
            ffi::SQLITE_NULL => return Ok(None),
            ffi::SQLITE_TEXT => {}
            kind => return Err(wrong_type(index, kind)),
        }
        let bytes = ffi::sqlite3_value_text(value);
        let length = ffi::sqlite3_value_bytes(value);
        if bytes.is_null() {
            return Err(failure(ffi::SQLITE_NOMEM, None));
        }
        std::slice::from_raw_parts(bytes, length as usize)
    };
    serde_json::from_slice(json).map(Some).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index as usize, Type::Text, Box::new(e))
    })
}

/// Column `index` of the current row: NULL as `None`, TEXT as its string
/// (as rusqlite reads an `Option<String>`; no conversion).
fn optional_text(stmt: *mut ffi::sqlite3_stmt, index: c_int) -> rusqlite::Result<Option<String>> {
    // SAFETY: `stmt` is on a row and `index` is one of its columns; the type
    // is asked first, so nothing is converted.
    let kind = unsafe { ffi::sqlite3_column_type(stmt, index) };
    if kind == ffi::SQLITE_NULL {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    append_text(stmt, index, &mut bytes)?;
    String::from_utf8(bytes).map(Some).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index as usize, Type::Text, Box::new(e))
    })
}

/// Appends column `index` of the current row, which must be TEXT (what
/// rusqlite's `ValueRef::Text` would be; no conversion), as its bytes, not
/// yet checked to be UTF-8.
///
/// The column is fetched once, as its value, and asked its type, text and
/// length: one call into the statement instead of three (each of
/// `sqlite3_column_type`, `_text` and `_bytes` finds the column again and
/// enters and leaves the connection's mutex). SQLite calls the value
/// "unprotected" and asks that such values be read only under the
/// connection's mutex; every connection here is opened in the
/// "multi-thread" mode (`SQLITE_OPEN_NOMUTEX`, as rusqlite's
/// `Connection::open` and [`Sqlite::memory`](super::Sqlite::memory) do),
/// where the connection has no mutex and SQLite documents protected and
/// unprotected values as the same, and it is used by one thread at a time
/// (`&mut Handle`).
#[inline]
fn append_text(
    stmt: *mut ffi::sqlite3_stmt,
    index: c_int,
    out: &mut Vec<u8>,
) -> rusqlite::Result<()> {
    // SAFETY: `stmt` is on a row and `index` is one of its columns; the
    // value, and the text pointer, are valid until the next step or reset,
    // and the text (`length` bytes) is copied before that. The type is asked
    // first, so the text is not converted from another type.
    unsafe {
        let value = ffi::sqlite3_column_value(stmt, index);
        let kind = ffi::sqlite3_value_type(value);
        if kind != ffi::SQLITE_TEXT {
            return Err(wrong_type(index, kind));
        }
        let bytes = ffi::sqlite3_value_text(value);
        let length = ffi::sqlite3_value_bytes(value);
        // Null for a TEXT value only when SQLite ran out of memory (the
        // statement's reset, when its `Bound` guard drops, clears that).
        if bytes.is_null() {
            return Err(failure(ffi::SQLITE_NOMEM, None));
        }
        out.extend_from_slice(std::slice::from_raw_parts(bytes, length as usize));
    }
    Ok(())
}

/// The error for column `index` of type `kind` where another type was asked
/// for, as rusqlite reports it; out of the way of the rows that are right.
#[cold]
fn wrong_type(index: c_int, kind: c_int) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnType(index as usize, String::new(), type_of(kind))
}

fn type_of(kind: c_int) -> Type {
    match kind {
        ffi::SQLITE_INTEGER => Type::Integer,
        ffi::SQLITE_FLOAT => Type::Real,
        ffi::SQLITE_BLOB => Type::Blob,
        ffi::SQLITE_TEXT => Type::Text,
        _ => Type::Null,
    }
}

/// The error `rc` with the connection's message, as rusqlite reports one.
fn error_of(conn: &Connection, rc: c_int) -> rusqlite::Error {
    // SAFETY: the live connection's handle; SQLite's message is a valid C
    // string until the next call on the connection, and is copied here.
    let message = unsafe {
        let message = ffi::sqlite3_errmsg(conn.handle());
        (!message.is_null()).then(|| CStr::from_ptr(message).to_string_lossy().into_owned())
    };
    failure(rc, message)
}

fn failure(rc: c_int, message: Option<String>) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), message)
}
