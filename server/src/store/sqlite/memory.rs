//! The in-memory database's files: a SQLite VFS, `chopin-mcp-memory`, whose
//! files are buffers in this process and whose shared memory (the WAL
//! index) is memory of this process too, so that an in-memory database runs
//! in WAL mode with the file store's shape: one writer connection and reader
//! connections that never wait for it, nor it for them, nothing on disk.
//!
//! SQLite's own ways of sharing one in-memory database between connections
//! do not give that (BENCHMARKS.md, "The in-memory store"): the `memdb` VFS
//! (a name starting with `/`) has no shared memory, so no WAL, and its lock
//! refuses every new reader while a write transaction is open; a shared
//! cache (`mode=memory&cache=shared`) locks tables (a reader of a table a
//! write transaction changed fails with `SQLITE_LOCKED`, unless it reads
//! uncommitted data) and runs every connection's statements under one
//! mutex.
//!
//! What SQLite asks of a VFS for WAL is what the unix VFS does within one
//! process, and that is what this does:
//! - a file is a byte buffer behind a reader-writer lock, known by its name
//!   while a handle is open on it (the name is removed when the last handle
//!   closes, or when SQLite deletes the file);
//! - the database file's lock levels (shared, reserved, pending, exclusive)
//!   are counted per file, as the unix VFS counts them per inode; in WAL
//!   mode every connection holds a shared lock for its life, and only the
//!   last one to close takes the exclusive lock (to checkpoint);
//! - the WAL index is regions of zeroed memory mapped once and kept at
//!   their address until the last connection unmaps them; its eight locks
//!   are atomic counters (readers count up, an exclusive holder is `-1`),
//!   taken without blocking: a lock held by another connection is
//!   `SQLITE_BUSY`, which SQLite retries.
//!
//! Randomness, sleeping and the clock are the default VFS's.
//!
//! Here: the VFS's registration, its tables of methods and the state they
//! share (the named files, a file, a handle); the VFS's own methods
//! (`memory/vfs.rs`), a file's (`memory/file.rs`) and the WAL index's
//! (`memory/shm.rs`).

use std::collections::BTreeMap;
use std::ffi::{CStr, c_char, c_int};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use rusqlite::ffi;

mod file;
mod shm;
mod vfs;

use shm::Shm;

/// The VFS's name, for `sqlite3_open_v2`.
pub(super) const VFS: &str = "chopin-mcp-memory";
const VFS_C: &CStr = c"chopin-mcp-memory";

/// The longest file name SQLite may give this VFS.
const MAX_PATHNAME: c_int = 512;

/// A name no other in-memory database of this process has (registering the
/// VFS first, once).
pub(super) fn database_name() -> Result<String, rusqlite::Error> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    register()?;
    Ok(format!(
        "/chopin-mcp-memory/{}",
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Registers the VFS with SQLite, once (not as the default).
fn register() -> Result<(), rusqlite::Error> {
    static REGISTERED: OnceLock<c_int> = OnceLock::new();
    let rc = *REGISTERED.get_or_init(|| {
        // SAFETY: the default VFS, if any, lives as long as SQLite; the
        // registered VFS is leaked, so it lives as long too (SQLite keeps a
        // pointer to it and links it into its list).
        unsafe {
            let default = ffi::sqlite3_vfs_find(std::ptr::null());
            if default.is_null() {
                return ffi::SQLITE_ERROR;
            }
            ffi::sqlite3_vfs_register(Box::leak(Box::new(vfs(default))), 0)
        }
    });
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some("could not register the in-memory VFS".to_owned()),
        ))
    }
}

fn vfs(default: *mut ffi::sqlite3_vfs) -> ffi::sqlite3_vfs {
    ffi::sqlite3_vfs {
        iVersion: 2,
        szOsFile: std::mem::size_of::<Handle>() as c_int,
        mxPathname: MAX_PATHNAME,
        pNext: std::ptr::null_mut(),
        zName: VFS_C.as_ptr(),
        pAppData: default.cast(),
        xOpen: Some(vfs::open),
        xDelete: Some(vfs::delete),
        xAccess: Some(vfs::access),
        xFullPathname: Some(vfs::full_pathname),
        xDlOpen: Some(vfs::dl_open),
        xDlError: Some(vfs::dl_error),
        xDlSym: Some(vfs::dl_sym),
        xDlClose: Some(vfs::dl_close),
        xRandomness: Some(vfs::randomness),
        xSleep: Some(vfs::sleep),
        xCurrentTime: Some(vfs::current_time),
        xGetLastError: Some(vfs::get_last_error),
        xCurrentTimeInt64: Some(vfs::current_time_int64),
        xSetSystemCall: None,
        xGetSystemCall: None,
        xNextSystemCall: None,
    }
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(file::close),
    xRead: Some(file::read),
    xWrite: Some(file::write),
    xTruncate: Some(file::truncate),
    xSync: Some(file::sync),
    xFileSize: Some(file::file_size),
    xLock: Some(file::lock),
    xUnlock: Some(file::unlock),
    xCheckReservedLock: Some(file::check_reserved_lock),
    xFileControl: Some(file::file_control),
    xSectorSize: Some(file::sector_size),
    xDeviceCharacteristics: Some(file::device_characteristics),
    xShmMap: Some(shm::shm_map),
    xShmLock: Some(shm::shm_lock),
    xShmBarrier: Some(shm::shm_barrier),
    xShmUnmap: Some(shm::shm_unmap),
    xFetch: None,
    xUnfetch: None,
};

/// The files that have a name, by name, with how many handles are open on
/// each.
static FILES: Mutex<BTreeMap<Box<[u8]>, Named>> = Mutex::new(BTreeMap::new());

struct Named {
    file: Arc<File>,
    handles: usize,
}

fn files() -> MutexGuard<'static, BTreeMap<Box<[u8]>, Named>> {
    // A poisoned lock only means a thread panicked while holding it; the
    // map itself is always whole.
    FILES.lock().unwrap_or_else(|e| e.into_inner())
}

/// One file: its bytes, its database lock and its shared memory (used only
/// for a database file in WAL mode).
#[derive(Default)]
struct File {
    data: RwLock<Vec<u8>>,
    lock: Mutex<FileLock>,
    shm: Shm,
}

/// The strongest lock any handle holds on a file, and how many handles hold
/// at least a shared one (the unix VFS's per-inode count).
#[derive(Default)]
struct FileLock {
    level: c_int,
    shared: usize,
}

/// SQLite's `sqlite3_file` for this VFS: the base SQLite reads first, then
/// the file and what this handle holds of it.
#[repr(C)]
struct Handle {
    base: ffi::sqlite3_file,
    file: Arc<File>,
    /// The name it is known by, or `None` for a temporary file.
    name: Option<Box<[u8]>>,
    /// The lock level this handle holds on the file.
    lock: c_int,
    /// The WAL-index locks this handle holds, shared and exclusive, by bit.
    shm_shared: u16,
    shm_exclusive: u16,
    /// Whether this handle has mapped the WAL index.
    shm_mapped: bool,
}

/// The handle behind SQLite's file pointer.
///
/// # Safety
///
/// `file` is a handle this VFS opened and has not closed; SQLite uses each
/// handle from one thread at a time.
unsafe fn handle<'a>(file: *mut ffi::sqlite3_file) -> &'a mut Handle {
    // SAFETY: see above; `Handle` begins with the `sqlite3_file`.
    unsafe { &mut *file.cast::<Handle>() }
}

fn name_bytes<'a>(name: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: SQLite passes a NUL-terminated name (or null for a
    // temporary file), valid for the call.
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{Connection, OpenFlags};

    fn connect(name: &str) -> Connection {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Connection::open_with_flags_and_vfs(name, flags, VFS).unwrap()
    }

    fn named(prefix: &str) -> usize {
        files()
            .keys()
            .filter(|name| name.starts_with(prefix.as_bytes()))
            .count()
    }

    #[test]
    fn a_database_and_its_wal_are_gone_when_the_last_connection_closes() {
        let name = database_name().unwrap();
        let writer = connect(&name);
        let mode: String = writer
            .query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        writer
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            .unwrap();
        let reader = connect(&name);
        let count: i64 = reader
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 1);
        // The database and its WAL.
        assert_eq!(named(&name), 2);
        drop(writer);
        assert!(named(&name) > 0, "a connection is still open");
        drop(reader);
        assert_eq!(named(&name), 0);
    }

    #[test]
    fn a_writer_commits_while_a_reader_keeps_its_snapshot() {
        let name = database_name().unwrap();
        let writer = connect(&name);
        writer
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            .unwrap();
        let reader = connect(&name);
        reader.execute_batch("BEGIN").unwrap();
        let count = |conn: &Connection| -> i64 {
            conn.query_row("SELECT count(*) FROM t", [], |row| row.get(0))
                .unwrap()
        };
        assert_eq!(count(&reader), 1);
        writer
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT")
            .unwrap();
        assert_eq!(count(&reader), 1, "the reader's snapshot");
        reader.execute_batch("COMMIT").unwrap();
        assert_eq!(count(&reader), 2);
    }
}
