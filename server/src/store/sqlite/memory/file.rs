//! A file's methods in the in-memory VFS: its bytes read, written,
//! truncated and sized behind a reader-writer lock, and the database
//! lock's levels counted per file as the unix VFS counts them per inode.

use std::ffi::{c_int, c_void};
use std::sync::{Arc, MutexGuard};

use rusqlite::ffi;

use super::shm::shm_detach;
use super::{File, FileLock, Handle, files, handle};

pub(super) fn read_data(file: &File) -> std::sync::RwLockReadGuard<'_, Vec<u8>> {
    // A poisoned lock only means a thread panicked holding it; no write
    // below leaves the bytes half-changed in a way SQLite would not see as
    // an incomplete write (which it recovers from, as from a crash).
    file.data.read().unwrap_or_else(|e| e.into_inner())
}

fn write_data(file: &File) -> std::sync::RwLockWriteGuard<'_, Vec<u8>> {
    file.data.write().unwrap_or_else(|e| e.into_inner())
}

fn file_lock(file: &File) -> MutexGuard<'_, FileLock> {
    file.lock.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes each handle it opened once, after which the
    // memory is not a handle any more.
    let mut handle = unsafe { file.cast::<Handle>().read() };
    shm_detach(&mut handle, false);
    unlock_to(&mut handle, ffi::SQLITE_LOCK_NONE);
    if let Some(name) = &handle.name {
        let mut files = files();
        if let Some(named) = files.get_mut(name) {
            // The name may be another file's by now (deleted and made
            // again): count only this one's handles.
            if Arc::ptr_eq(&named.file, &handle.file) {
                named.handles -= 1;
                if named.handles == 0 {
                    files.remove(name);
                }
            }
        }
    }
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    out: *mut c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite's open handle, and a buffer of `amount` bytes.
    let (handle, out) = unsafe {
        (
            handle(file),
            std::slice::from_raw_parts_mut(out.cast::<u8>(), usize::try_from(amount).unwrap_or(0)),
        )
    };
    let data = read_data(&handle.file);
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let available = (data.len() - start).min(out.len());
    out[..available].copy_from_slice(&data[start..start + available]);
    if available < out.len() {
        // SQLite requires the rest zeroed on a short read.
        out[available..].fill(0);
        return ffi::SQLITE_IOERR_SHORT_READ;
    }
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    bytes: *const c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite's open handle, and `amount` bytes to write.
    let (handle, bytes) = unsafe {
        (
            handle(file),
            std::slice::from_raw_parts(bytes.cast::<u8>(), usize::try_from(amount).unwrap_or(0)),
        )
    };
    let Some(end) = usize::try_from(offset)
        .ok()
        .and_then(|start| start.checked_add(bytes.len()))
    else {
        return ffi::SQLITE_FULL;
    };
    let mut data = write_data(&handle.file);
    let len = data.len();
    if len < end {
        if data.try_reserve(end - len).is_err() {
            return ffi::SQLITE_FULL;
        }
        data.resize(end, 0);
    }
    data[end - bytes.len()..end].copy_from_slice(bytes);
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn truncate(
    file: *mut ffi::sqlite3_file,
    size: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite's open handle.
    let handle = unsafe { handle(file) };
    let Ok(size) = usize::try_from(size) else {
        return ffi::SQLITE_IOERR_TRUNCATE;
    };
    let mut data = write_data(&handle.file);
    let len = data.len();
    if size > len && data.try_reserve(size - len).is_err() {
        return ffi::SQLITE_FULL;
    }
    data.resize(size, 0);
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn sync(_file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    // Memory: written is as durable as it gets.
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn file_size(
    file: *mut ffi::sqlite3_file,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite's open handle and out-parameter.
    unsafe {
        let len = read_data(&handle(file).file).len();
        *out = ffi::sqlite3_int64::try_from(len).unwrap_or(ffi::sqlite3_int64::MAX);
    }
    ffi::SQLITE_OK
}

/// Raises this handle's lock to `level`, as the unix VFS does between the
/// connections of one process: `SQLITE_BUSY` where another handle's lock
/// is in the way. An exclusive lock wanted while others read takes the
/// pending lock first (no new reader comes in), and is asked for again.
pub(super) unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    use ffi::{
        SQLITE_LOCK_EXCLUSIVE, SQLITE_LOCK_NONE, SQLITE_LOCK_PENDING, SQLITE_LOCK_RESERVED,
        SQLITE_LOCK_SHARED,
    };
    // SAFETY: SQLite's open handle.
    let handle = unsafe { handle(file) };
    if handle.lock >= level {
        return ffi::SQLITE_OK;
    }
    let mut state = file_lock(&handle.file);
    // Another handle holds a lock this one does not, and it is pending or
    // stronger, or this one wants more than shared.
    if state.level != handle.lock
        && (state.level >= SQLITE_LOCK_PENDING || level > SQLITE_LOCK_SHARED)
    {
        return ffi::SQLITE_BUSY;
    }
    match level {
        SQLITE_LOCK_SHARED => {
            // From none: `state.level` is none, shared or reserved here.
            if state.level == SQLITE_LOCK_NONE {
                state.level = SQLITE_LOCK_SHARED;
            }
            state.shared += 1;
        }
        SQLITE_LOCK_RESERVED => {
            // This handle holds the shared lock, and the file's level is
            // it.
            state.level = SQLITE_LOCK_RESERVED;
        }
        _ => {
            // Exclusive (SQLite asks for pending only through it): others
            // reading keep it pending.
            if state.shared > 1 {
                state.level = SQLITE_LOCK_PENDING;
                handle.lock = SQLITE_LOCK_PENDING;
                return ffi::SQLITE_BUSY;
            }
            state.level = SQLITE_LOCK_EXCLUSIVE;
        }
    }
    handle.lock = level;
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    // SAFETY: SQLite's open handle.
    unlock_to(unsafe { handle(file) }, level);
    ffi::SQLITE_OK
}

/// Lowers this handle's lock to `level` (shared or none).
fn unlock_to(handle: &mut Handle, level: c_int) {
    if handle.lock <= level {
        return;
    }
    let mut state = file_lock(&handle.file);
    if handle.lock > ffi::SQLITE_LOCK_SHARED {
        // The file's level was this handle's.
        state.level = ffi::SQLITE_LOCK_SHARED;
    }
    if level == ffi::SQLITE_LOCK_NONE {
        state.shared -= 1;
        if state.shared == 0 {
            state.level = ffi::SQLITE_LOCK_NONE;
        }
    }
    handle.lock = level;
}

pub(super) unsafe extern "C" fn check_reserved_lock(
    file: *mut ffi::sqlite3_file,
    out: *mut c_int,
) -> c_int {
    // SAFETY: SQLite's open handle and out-parameter.
    unsafe {
        let reserved = file_lock(&handle(file).file).level > ffi::SQLITE_LOCK_SHARED;
        *out = c_int::from(reserved);
    }
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn file_control(
    _file: *mut ffi::sqlite3_file,
    _op: c_int,
    _arg: *mut c_void,
) -> c_int {
    ffi::SQLITE_NOTFOUND
}

pub(super) unsafe extern "C" fn sector_size(_file: *mut ffi::sqlite3_file) -> c_int {
    4096
}

pub(super) unsafe extern "C" fn device_characteristics(_file: *mut ffi::sqlite3_file) -> c_int {
    // A write never changes bytes it was not given, and a file grows only
    // once its new bytes are there.
    ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE
        | ffi::SQLITE_IOCAP_SAFE_APPEND
        | ffi::SQLITE_IOCAP_SEQUENTIAL
}
