//! A connection and its list statement ([`LIST`]), stepped through
//! SQLite's C interface.
//!
//! A list reads two text columns of every row, a hundred rows or more. Through
//! rusqlite each column is four calls into SQLite (`Row::get_ref` asks the
//! column count, then the value's type, its text and its length) and a row is
//! a trip through rusqlite's row iterator; here a column is three calls
//! (type, text, length) and the statement is stepped directly. In the store
//! bench (`server/benches/store.rs`) that is the difference BENCHMARKS.md
//! records for `list_summaries_100`. Everything else on a connection goes
//! through rusqlite: the list is the one statement whose per-row cost
//! multiplies.

use std::ffi::{CStr, c_int};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use rusqlite::types::Type;
use rusqlite::{Connection, ffi};

use super::LIST;

/// A connection and, once it has listed, its prepared list statement. Reads
/// and writes use the connection as a [`Connection`] (`Deref`).
pub(super) struct Handle {
    /// Declared before `conn`, so finalized before the connection closes
    /// (a connection with an unfinalized statement cannot close).
    list: Option<ListStatement>,
    conn: Connection,
}

impl Handle {
    pub(super) fn new(conn: Connection) -> Handle {
        Handle { list: None, conn }
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
            list => list.insert(ListStatement::prepare(&self.conn, LIST)?),
        };
        statement.run(&self.conn, params, text, ends)
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
struct ListStatement {
    raw: NonNull<ffi::sqlite3_stmt>,
}

// SAFETY: SQLite lets a statement be used from any thread, one thread at a
// time, in the "multi-thread" mode rusqlite opens connections in (its
// `Connection` is `Send` on the same ground). The statement lives in its
// connection's `Handle` and is used only through `&mut Handle`.
unsafe impl Send for ListStatement {}

impl ListStatement {
    fn prepare(conn: &Connection, sql: &'static str) -> rusqlite::Result<ListStatement> {
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
        Ok(ListStatement { raw })
    }

    fn run(
        &mut self,
        conn: &Connection,
        params: [&str; 2],
        text: &mut Vec<u8>,
        ends: &mut Vec<(usize, usize)>,
    ) -> rusqlite::Result<()> {
        let stmt = self.raw.as_ptr();
        // Reset (ending the read) and unbound however this returns: the
        // parameters point into `params`, which do not outlive the call.
        let _reset = Reset(stmt);
        for (index, value) in (1..).zip(params) {
            // SAFETY: `value` stays alive and unchanged until `_reset`
            // clears the binding (SQLITE_STATIC: SQLite does not copy it).
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
        loop {
            // SAFETY: a prepared statement of `conn`, bound above.
            match unsafe { ffi::sqlite3_step(stmt) } {
                ffi::SQLITE_ROW => {
                    append_text(stmt, 0, text)?;
                    let first_end = text.len();
                    append_text(stmt, 1, text)?;
                    ends.push((first_end, text.len()));
                }
                ffi::SQLITE_DONE => return Ok(()),
                rc => return Err(error_of(conn, rc)),
            }
        }
    }
}

impl Drop for ListStatement {
    fn drop(&mut self) {
        // SAFETY: ours, finalized once; its connection is still open (see
        // `Handle::list`).
        unsafe { ffi::sqlite3_finalize(self.raw.as_ptr()) };
    }
}

/// Resets a statement and clears its bindings when dropped.
struct Reset(*mut ffi::sqlite3_stmt);

impl Drop for Reset {
    fn drop(&mut self) {
        // SAFETY: a live statement; both calls are valid in any state.
        unsafe {
            ffi::sqlite3_reset(self.0);
            ffi::sqlite3_clear_bindings(self.0);
        }
    }
}

/// Appends column `index` of the current row, which must be TEXT (what
/// rusqlite's `ValueRef::Text` would be; no conversion), as its bytes, not
/// yet checked to be UTF-8.
fn append_text(
    stmt: *mut ffi::sqlite3_stmt,
    index: c_int,
    out: &mut Vec<u8>,
) -> rusqlite::Result<()> {
    // SAFETY: `stmt` is on a row and `index` is one of its two columns; the
    // text pointer is valid for `length` bytes until the next step, and is
    // copied before that. The type is asked first, so the text is not
    // converted from another type.
    unsafe {
        let kind = ffi::sqlite3_column_type(stmt, index);
        if kind != ffi::SQLITE_TEXT {
            return Err(rusqlite::Error::InvalidColumnType(
                index as usize,
                String::new(),
                type_of(kind),
            ));
        }
        let bytes = ffi::sqlite3_column_text(stmt, index);
        let length = ffi::sqlite3_column_bytes(stmt, index);
        // Null for a TEXT value only when SQLite ran out of memory.
        if bytes.is_null() {
            return Err(failure(ffi::SQLITE_NOMEM, None));
        }
        out.extend_from_slice(std::slice::from_raw_parts(bytes, length as usize));
    }
    Ok(())
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
