//! Endpoints by number: each thread's table of the endpoints its
//! JavaScript environment made, which the callbacks address by index and
//! generation.

use std::cell::RefCell;

use crate::{Core, Misuse};

thread_local! {
    /// The endpoints of this thread's JavaScript environment (a worker has
    /// its own).
    static CORES: RefCell<Cores> = RefCell::new(Cores::default());
}

#[derive(Default)]
struct Cores {
    /// Each entry's generation (bumped when it is freed) and endpoint.
    entries: Vec<(u16, Option<Core>)>,
    free: Vec<u16>,
}

/// Keeps `core`; its number is its index and the index's generation, so a
/// stale number never reaches a later endpoint.
pub(crate) fn add(core: Core) -> Result<u32, Misuse> {
    CORES.with(|cores| {
        let mut cores = cores.borrow_mut();
        let index = match cores.free.pop() {
            Some(index) => index,
            None => {
                let index = u16::try_from(cores.entries.len())
                    .map_err(|_| Misuse("too many endpoints in one thread".into()))?;
                cores.entries.push((0, None));
                index
            }
        };
        let entry = &mut cores.entries[usize::from(index)];
        entry.1 = Some(core);
        Ok(u32::from(entry.0) << 16 | u32::from(index))
    })
}

/// Drops endpoint `id` (its owner was collected).
pub(crate) fn remove(id: u32) {
    // During the thread's teardown the table may be gone already.
    let _ = CORES.try_with(|cores| {
        let mut cores = cores.borrow_mut();
        let index = (id & 0xFFFF) as u16;
        if let Some(entry) = cores.entries.get_mut(usize::from(index))
            && u32::from(entry.0) == id >> 16
            && entry.1.is_some()
        {
            entry.1 = None;
            entry.0 = entry.0.wrapping_add(1);
            cores.free.push(index);
        }
    });
}

/// Runs `f` on endpoint `id`.
pub(crate) fn with<R>(id: u32, f: impl FnOnce(&mut Core) -> R) -> Result<R, Misuse> {
    CORES.with(|cores| {
        let mut cores = cores.borrow_mut();
        match cores.entries.get_mut((id & 0xFFFF) as usize) {
            Some((generation, Some(core))) if u32::from(*generation) == id >> 16 => Ok(f(core)),
            _ => Err(Misuse(format!("endpoint {id} is gone"))),
        }
    })
}
