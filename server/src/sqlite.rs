//! Process-wide SQLite settings, applied once before the first connection.

/// Turns off SQLite's allocation statistics: with them on (the default),
/// every `sqlite3_malloc` and `sqlite3_free` takes a process-wide mutex,
/// which the request threads then contend for. Nothing here reads the
/// statistics (`sqlite3_memory_used`, a soft heap limit).
///
/// Must run before SQLite is first used; later it has no effect.
pub fn configure() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_config is safe to call before sqlite3_initialize,
        // with no connection open; `Once` keeps it to one thread, once. If
        // SQLite is already initialized it returns SQLITE_MISUSE and
        // changes nothing, which is harmless.
        unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::os::raw::c_int,
            );
        }
    });
}
