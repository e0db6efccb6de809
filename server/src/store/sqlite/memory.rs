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

use std::collections::BTreeMap;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use rusqlite::ffi;

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
        xOpen: Some(open),
        xDelete: Some(delete),
        xAccess: Some(access),
        xFullPathname: Some(full_pathname),
        xDlOpen: Some(dl_open),
        xDlError: Some(dl_error),
        xDlSym: Some(dl_sym),
        xDlClose: Some(dl_close),
        xRandomness: Some(randomness),
        xSleep: Some(sleep),
        xCurrentTime: Some(current_time),
        xGetLastError: Some(get_last_error),
        xCurrentTimeInt64: Some(current_time_int64),
        xSetSystemCall: None,
        xGetSystemCall: None,
        xNextSystemCall: None,
    }
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
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

/// The WAL index: regions mapped by SQLite, and its locks.
#[derive(Default)]
struct Shm {
    regions: Mutex<Regions>,
    /// Per lock: how many handles hold it shared, or `-1` while one holds
    /// it exclusive.
    locks: [AtomicI32; ffi::SQLITE_SHM_NLOCK as usize],
}

#[derive(Default)]
struct Regions {
    mapped: Vec<Region>,
    /// Handles that have mapped the regions and not unmapped them.
    handles: usize,
}

/// A zeroed allocation SQLite reads and writes through the pointer it was
/// given (from several connections, each with its own atomics and barriers).
struct Region {
    memory: NonNull<u8>,
    layout: std::alloc::Layout,
}

// SAFETY: the region is plain memory; SQLite synchronizes what it writes
// there itself (the WAL index's locks, barriers and checksums).
unsafe impl Send for Region {}

impl Region {
    fn zeroed(size: usize) -> Option<Region> {
        let layout = std::alloc::Layout::from_size_align(size, 8).ok()?;
        if layout.size() == 0 {
            return None;
        }
        // SAFETY: a layout of non-zero size.
        let memory = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(Region { memory, layout })
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout, freed once.
        unsafe { std::alloc::dealloc(self.memory.as_ptr(), self.layout) };
    }
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

// --- the VFS -------------------------------------------------------------

unsafe extern "C" fn open(
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

unsafe extern "C" fn delete(
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

unsafe extern "C" fn access(
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

unsafe extern "C" fn full_pathname(
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

unsafe extern "C" fn dl_open(vfs: *mut ffi::sqlite3_vfs, name: *const c_char) -> *mut c_void {
    // SAFETY: the default VFS and its method, with the caller's arguments.
    unsafe {
        let default = default(vfs);
        match (*default).xDlOpen {
            Some(f) => f(default, name),
            None => std::ptr::null_mut(),
        }
    }
}

unsafe extern "C" fn dl_error(vfs: *mut ffi::sqlite3_vfs, size: c_int, message: *mut c_char) {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        if let Some(f) = (*default).xDlError {
            f(default, size, message);
        }
    }
}

type DlSymbol = Option<unsafe extern "C" fn(*mut ffi::sqlite3_vfs, *mut c_void, *const c_char)>;

unsafe extern "C" fn dl_sym(
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

unsafe extern "C" fn dl_close(vfs: *mut ffi::sqlite3_vfs, library: *mut c_void) {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        if let Some(f) = (*default).xDlClose {
            f(default, library);
        }
    }
}

unsafe extern "C" fn randomness(
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

unsafe extern "C" fn sleep(vfs: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xSleep {
            Some(f) => f(default, microseconds),
            None => 0,
        }
    }
}

unsafe extern "C" fn current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: as `dl_open`.
    unsafe {
        let default = default(vfs);
        match (*default).xCurrentTime {
            Some(f) => f(default, out),
            None => ffi::SQLITE_ERROR,
        }
    }
}

unsafe extern "C" fn get_last_error(
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

unsafe extern "C" fn current_time_int64(
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

// --- a file ----------------------------------------------------------------

fn read_data(file: &File) -> std::sync::RwLockReadGuard<'_, Vec<u8>> {
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

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
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

unsafe extern "C" fn read(
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

unsafe extern "C" fn write(
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

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
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

unsafe extern "C" fn sync(_file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    // Memory: written is as durable as it gets.
    ffi::SQLITE_OK
}

unsafe extern "C" fn file_size(
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
unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
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

unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
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

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    // SAFETY: SQLite's open handle and out-parameter.
    unsafe {
        let reserved = file_lock(&handle(file).file).level > ffi::SQLITE_LOCK_SHARED;
        *out = c_int::from(reserved);
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn file_control(
    _file: *mut ffi::sqlite3_file,
    _op: c_int,
    _arg: *mut c_void,
) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn sector_size(_file: *mut ffi::sqlite3_file) -> c_int {
    4096
}

unsafe extern "C" fn device_characteristics(_file: *mut ffi::sqlite3_file) -> c_int {
    // A write never changes bytes it was not given, and a file grows only
    // once its new bytes are there.
    ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE
        | ffi::SQLITE_IOCAP_SAFE_APPEND
        | ffi::SQLITE_IOCAP_SEQUENTIAL
}

// --- the WAL index -----------------------------------------------------------

fn regions(shm: &Shm) -> MutexGuard<'_, Regions> {
    shm.regions.lock().unwrap_or_else(|e| e.into_inner())
}

unsafe extern "C" fn shm_map(
    file: *mut ffi::sqlite3_file,
    index: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    // SAFETY: SQLite's open handle and out-parameter.
    let (handle, out) = unsafe { (handle(file), &mut *out) };
    *out = std::ptr::null_mut();
    let (Ok(index), Ok(size)) = (usize::try_from(index), usize::try_from(size)) else {
        return ffi::SQLITE_IOERR_SHMMAP;
    };
    let mut regions = regions(&handle.file.shm);
    if !handle.shm_mapped {
        handle.shm_mapped = true;
        regions.handles += 1;
    }
    while regions.mapped.len() <= index {
        if extend == 0 {
            // Not there yet, and not to be made: null.
            return ffi::SQLITE_OK;
        }
        let Some(region) = Region::zeroed(size) else {
            return ffi::SQLITE_NOMEM;
        };
        regions.mapped.push(region);
    }
    let region = &regions.mapped[index];
    // SQLite asks for one size of region throughout.
    if region.layout.size() != size {
        return ffi::SQLITE_IOERR_SHMMAP;
    }
    *out = region.memory.as_ptr().cast();
    ffi::SQLITE_OK
}

/// Takes or releases WAL-index locks `offset..offset + count` for this
/// handle, without waiting: `SQLITE_BUSY` where another handle holds one
/// in the way (shared beside exclusive, exclusive beside anything).
unsafe extern "C" fn shm_lock(
    file: *mut ffi::sqlite3_file,
    offset: c_int,
    count: c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: SQLite's open handle.
    let handle = unsafe { handle(file) };
    let (Ok(offset), Ok(count)) = (u32::try_from(offset), u32::try_from(count)) else {
        return ffi::SQLITE_IOERR_SHMLOCK;
    };
    let end = offset + count;
    if count == 0 || end > ffi::SQLITE_SHM_NLOCK as u32 || !handle.shm_mapped {
        return ffi::SQLITE_IOERR_SHMLOCK;
    }
    let mask = ((1u32 << end) - (1u32 << offset)) as u16;
    let locks = &handle.file.shm.locks;
    if flags & ffi::SQLITE_SHM_UNLOCK != 0 {
        release(handle, mask);
        return ffi::SQLITE_OK;
    }
    if flags & ffi::SQLITE_SHM_SHARED != 0 {
        if handle.shm_shared & mask == mask {
            return ffi::SQLITE_OK;
        }
        // SQLite takes shared locks one at a time.
        let slot = &locks[offset as usize];
        let mut held = slot.load(Ordering::Relaxed);
        loop {
            if held < 0 {
                return ffi::SQLITE_BUSY;
            }
            match slot.compare_exchange_weak(held, held + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => held = now,
            }
        }
        handle.shm_shared |= mask;
        return ffi::SQLITE_OK;
    }
    // Exclusive: all of them or none.
    let wanted = &locks[offset as usize..end as usize];
    for (taken, lock) in wanted.iter().enumerate() {
        if lock
            .compare_exchange(0, -1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            for earlier in &wanted[..taken] {
                earlier.store(0, Ordering::Release);
            }
            return ffi::SQLITE_BUSY;
        }
    }
    handle.shm_exclusive |= mask;
    ffi::SQLITE_OK
}

/// Releases the WAL-index locks of `mask` this handle holds.
fn release(handle: &mut Handle, mask: u16) {
    let locks = &handle.file.shm.locks;
    for (slot, lock) in locks.iter().enumerate() {
        let bit = 1u16 << slot;
        if mask & bit == 0 {
            continue;
        }
        if handle.shm_shared & bit != 0 {
            lock.fetch_sub(1, Ordering::Release);
        } else if handle.shm_exclusive & bit != 0 {
            lock.store(0, Ordering::Release);
        }
    }
    handle.shm_shared &= !mask;
    handle.shm_exclusive &= !mask;
}

unsafe extern "C" fn shm_barrier(_file: *mut ffi::sqlite3_file) {
    std::sync::atomic::fence(Ordering::SeqCst);
}

unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    // SAFETY: SQLite's open handle.
    shm_detach(unsafe { handle(file) }, delete != 0);
    ffi::SQLITE_OK
}

/// Drops this handle's WAL-index locks and mapping; the last handle to
/// unmap with `delete` frees the regions (the next to map starts from
/// zeroed memory, and SQLite rebuilds the index from the WAL, as it does
/// for a deleted `-shm` file).
fn shm_detach(handle: &mut Handle, delete: bool) {
    if !handle.shm_mapped {
        return;
    }
    release(handle, u16::MAX);
    handle.shm_mapped = false;
    let mut regions = regions(&handle.file.shm);
    regions.handles -= 1;
    if delete && regions.handles == 0 {
        regions.mapped.clear();
    }
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
