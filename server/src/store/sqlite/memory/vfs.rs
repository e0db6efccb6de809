//! The in-memory VFS's own methods: opening, deleting and finding its
//! files by name; the rest (libraries, randomness, sleeping, the clock)
//! handed to the default VFS.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use rusqlite::ffi;

use super::file::read_data;
use super::{File, Handle, IO_METHODS, Named, files, name_bytes};

pub(super) unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite's file to open; without methods, SQLite does not close
    // it when the open fails.
    unsafe { (*file).pMethods = std::ptr::null() };
    let (file_of_name, name) = match name_bytes(name) {
        None => (Arc::new(File::default()), None),
        Some(name) => {
            let mut files = files();
            match files.get_mut(name) {
                Some(_) if flags & ffi::SQLITE_OPEN_EXCLUSIVE != 0 => return ffi::SQLITE_CANTOPEN,
                Some(named) => {
                    named.handles += 1;
                    (Arc::clone(&named.file), Some(Box::from(name)))
                }
                None if flags & ffi::SQLITE_OPEN_CREATE == 0 => return ffi::SQLITE_CANTOPEN,
                None => {
                    let new = Arc::new(File::default());
                    files.insert(
                        Box::from(name),
                        Named {
                            file: Arc::clone(&new),
                            handles: 1,
                        },
                    );
                    (new, Some(Box::from(name)))
                }
            }
        }
    };
    let handle = Handle {
        base: ffi::sqlite3_file {
            pMethods: &IO_METHODS,
        },
        file: file_of_name,
        name,
        lock: ffi::SQLITE_LOCK_NONE,
        shm_shared: 0,
        shm_exclusive: 0,
        shm_mapped: false,
    };
    // SAFETY: SQLite gives `szOsFile` bytes, aligned for any type, for the
    // handle; it calls `close` (which drops it) once `pMethods` is set.
    unsafe {
        file.cast::<Handle>().write(handle);
        if !out_flags.is_null() {
            *out_flags = flags;
        }
    }
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn delete(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _sync: c_int,
) -> c_int {
    // Open handles keep the file (as an unlinked file is kept); the name is
    // free at once.
    if let Some(name) = name_bytes(name) {
        files().remove(name);
    }
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn access(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _flags: c_int,
    out: *mut c_int,
) -> c_int {
    // As the unix VFS answers for a regular file: it exists when it has
    // bytes; every file is readable and writable.
    let exists = name_bytes(name).is_some_and(|name| {
        files()
            .get(name)
            .is_some_and(|named| !read_data(&named.file).is_empty())
    });
    // SAFETY: SQLite's out-parameter.
    unsafe { *out = c_int::from(exists) };
    ffi::SQLITE_OK
}

pub(super) unsafe extern "C" fn full_pathname(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    size: c_int,
    out: *mut c_char,
) -> c_int {
    let Some(name) = name_bytes(name) else {
        return ffi::SQLITE_CANTOPEN;
    };
    if name.len() >= usize::try_from(size).unwrap_or(0) {
        return ffi::SQLITE_CANTOPEN;
    }
    // SAFETY: `out` has room for `size` bytes, more than the name and its
    // NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(name.as_ptr(), out.cast::<u8>(), name.len());
        *out.add(name.len()) = 0;
    }
    ffi::SQLITE_OK
}

/// The default VFS, kept in the registered one's `pAppData`.
///
/// # Safety
///
/// `vfs` is the VFS `register` made.
unsafe fn default(vfs: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    // SAFETY: see above.
    unsafe { (*vfs).pAppData.cast() }
}

pub(super) unsafe extern "C" fn dl_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
) -> *mut c_void {
    // SAFETY: the default VFS and its method, with the caller's arguments.
    unsafe {
        let default = default(vfs);
        match (*default).xDlOpen {
            Some(f) => f(default, name),
            None => std::ptr::null_mut(),
        }
    }
}

pub(super) unsafe extern "C" fn dl_error(
    vfs: *mut ffi::sqlite3_vfs,
    size: c_int,
    message: *mut c_char,
) {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        if let Some(f) = (*default).xDlError {
            f(default, size, message);
        }
    }
}

type DlSymbol = Option<unsafe extern "C" fn(*mut ffi::sqlite3_vfs, *mut c_void, *const c_char)>;

pub(super) unsafe extern "C" fn dl_sym(
    vfs: *mut ffi::sqlite3_vfs,
    library: *mut c_void,
    symbol: *const c_char,
) -> DlSymbol {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        (*default).xDlSym.and_then(|f| f(default, library, symbol))
    }
}

pub(super) unsafe extern "C" fn dl_close(vfs: *mut ffi::sqlite3_vfs, library: *mut c_void) {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        if let Some(f) = (*default).xDlClose {
            f(default, library);
        }
    }
}

pub(super) unsafe extern "C" fn randomness(
    vfs: *mut ffi::sqlite3_vfs,
    size: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xRandomness {
            Some(f) => f(default, size, out),
            None => 0,
        }
    }
}

pub(super) unsafe extern "C" fn sleep(vfs: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xSleep {
            Some(f) => f(default, microseconds),
            None => 0,
        }
    }
}

pub(super) unsafe extern "C" fn current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xCurrentTime {
            Some(f) => f(default, out),
            None => ffi::SQLITE_ERROR,
        }
    }
}

pub(super) unsafe extern "C" fn get_last_error(
    vfs: *mut ffi::sqlite3_vfs,
    size: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xGetLastError {
            Some(f) => f(default, size, out),
            None => 0,
        }
    }
}

pub(super) unsafe extern "C" fn current_time_int64(
    vfs: *mut ffi::sqlite3_vfs,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xCurrentTimeInt64 {
            Some(f) => f(default, out),
            None => ffi::SQLITE_ERROR,
        }
    }
}
