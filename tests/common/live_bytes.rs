//! A global allocator that tracks the bytes this thread holds allocated,
//! for the tests that show nothing is kept between exchanges. A test binary
//! opts in with `#[path = "common/live_bytes.rs"] mod live_bytes;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Live;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    // `try_with`: the thread's slot may be gone while it exits.
    let _ = LIVE.try_with(|live| live.set(live.get() + bytes));
}

unsafe impl GlobalAlloc for Live {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Live = Live;

/// The bytes this thread holds allocated now (allocated minus freed since
/// it started).
pub fn live() -> isize {
    LIVE.with(Cell::get)
}
