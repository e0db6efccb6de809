//! The WAL index of the in-memory VFS: regions of zeroed memory mapped
//! once and kept at their address until the last connection unmaps them,
//! and its eight locks as atomic counters, taken without blocking.

use std::ffi::{c_int, c_void};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};

use rusqlite::ffi;

use super::{Handle, handle};

/// The WAL index: regions mapped by SQLite, and its locks.
#[derive(Default)]
pub(super) struct Shm {
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

fn regions(shm: &Shm) -> MutexGuard<'_, Regions> {
    shm.regions.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) unsafe extern "C" fn shm_map(
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
pub(super) unsafe extern "C" fn shm_lock(
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

pub(super) unsafe extern "C" fn shm_barrier(_file: *mut ffi::sqlite3_file) {
    std::sync::atomic::fence(Ordering::SeqCst);
}

pub(super) unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    // SAFETY: SQLite's open handle.
    shm_detach(unsafe { handle(file) }, delete != 0);
    ffi::SQLITE_OK
}

/// Drops this handle's WAL-index locks and mapping; the last handle to
/// unmap with `delete` frees the regions (the next to map starts from
/// zeroed memory, and SQLite rebuilds the index from the WAL, as it does
/// for a deleted `-shm` file).
pub(super) fn shm_detach(handle: &mut Handle, delete: bool) {
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
