//! The endpoint's own heap allocations per exchange, counted by a global
//! allocator around the endpoint's calls only (never the host's work): a
//! read is answered with one allocation, the response's body; a list of 100
//! summaries with at most two. A change that allocates more on these paths
//! fails here, whatever the machine's speed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use chopin_mcp::{Config, Endpoint, RequestParts, SequentialIds};

#[path = "../examples/cycles/exchange.rs"]
mod exchange;

use exchange::{ALLOWED, INITIALIZE, LIST, READ, TOOLS};

/// Counts the allocations (and growing reallocations) this thread makes
/// while its counter is on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn tally() {
    // `try_with`: the allocator runs during thread teardown too.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|count| count.set(count.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        tally();
        // SAFETY: the caller's contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        tally();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        tally();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Counts the endpoint's allocations: on around each call into it.
struct Counted(usize);

impl exchange::Around for Counted {
    fn around<T>(&mut self, call: impl FnOnce() -> T) -> T {
        COUNT.with(|count| count.set(0));
        COUNTING.with(|on| on.set(true));
        let value = call();
        COUNTING.with(|on| on.set(false));
        self.0 += COUNT.with(Cell::get);
        value
    }
}

/// One exchange, after an uncounted first one (whatever is made once per
/// thread or process, none should be, is not a request's cost): the
/// endpoint's allocations, and the response's status.
fn allocations(authorization: &[u8], body: &'static str) -> (usize, u16) {
    let endpoint = Endpoint::new(Config::new().id_source(SequentialIds::new(0))).unwrap();
    let (document, summaries) = (exchange::document(), exchange::summaries());
    let headers = exchange::headers(authorization);
    let parts = RequestParts::new("POST", "/mcp", &headers);
    let host = (&document, &summaries[..]);
    exchange::exchange(&endpoint, &parts, body, host, &mut exchange::Plain).unwrap();
    let mut counted = Counted(0);
    let (status, _) = exchange::exchange(&endpoint, &parts, body, host, &mut counted).unwrap();
    (counted.0, status)
}

#[test]
fn a_read_allocates_only_its_response_body() {
    assert_eq!(allocations(ALLOWED, READ), (1, 200));
}

#[test]
fn a_list_of_100_summaries_allocates_at_most_twice() {
    let (count, status) = allocations(ALLOWED, LIST);
    assert_eq!(status, 200);
    assert!(count <= 2, "{count} allocations");
}

#[test]
fn tools_list_allocates_at_most_twice() {
    // The kept `authorization` buffer, grown once to the list's exact size.
    let (count, status) = allocations(ALLOWED, TOOLS);
    assert_eq!(status, 200);
    assert!(count <= 2, "{count} allocations");
}

#[test]
fn initialize_allocates_only_its_response_body() {
    assert_eq!(allocations(ALLOWED, INITIALIZE), (1, 200));
}

#[test]
fn a_refused_token_allocates_only_the_kept_credentials() {
    // The 401's body is static; the one allocation is the copy of the
    // `authorization` value the authenticate effect hands the host.
    assert_eq!(allocations(b"Bearer wrong", READ), (1, 401));
    // Without credentials nothing is kept: no allocation at all.
    assert_eq!(allocations(b"", READ), (0, 401));
}
