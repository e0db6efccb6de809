//! Logs: request lines and other events (store errors, warnings) on stderr,
//! as text or JSON, batched by a writer thread.
//!
//! A request line is written by [`RequestLine`], by hand: its fields are
//! labels from closed sets ([`labels`](crate::labels)), numbers, or the caller
//! name the token table maps a token to, never a token, a header value, a
//! path the client chose, or anything from a body (titles, sources, plans).
//! The bytes are those `tracing_subscriber`'s formatters write for the same
//! event (same timestamp, level, target and field order, same JSON keys),
//! at a tenth of the cost (`benches/history/host-floor.md`). Other
//! events go through `tracing` as before. `RUST_LOG` decides for both:
//! [`requests_enabled`] asks the installed filter about the request target.
//!
//! This module knows nothing of metrics; [`record`](crate::record) writes a
//! request's line and counts it.
// The host owns the clock.
#![allow(clippy::disallowed_methods)]

use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use crate::options::LogFormat;

/// The target of request lines (`RUST_LOG=chopin_mcp_server::request=off`
/// silences them alone).
pub const REQUEST_TARGET: &str = "chopin_mcp_server::request";
/// The target of store errors.
pub const STORE_TARGET: &str = "chopin_mcp_server::store";

/// Flushes the log lines still queued when dropped: keep it until exit.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard(Option<std::thread::JoinHandle<()>>);

impl Drop for LogGuard {
    fn drop(&mut self) {
        flush_thread();
        BATCH.stop.store(true, Ordering::Release);
        BATCH.wake.notify_all();
        if let Some(writer) = self.0.take() {
            let _ = writer.join();
        }
    }
}

/// Log lines waiting for the writer thread.
struct Batch {
    lines: Mutex<Vec<u8>>,
    /// The writer waits on it for lines; writers wait on it for room.
    wake: Condvar,
    stop: AtomicBool,
}

static BATCH: Batch = Batch {
    lines: Mutex::new(Vec::new()),
    wake: Condvar::new(),
    stop: AtomicBool::new(false),
};

/// Set when there is no writer thread.
static DIRECT: AtomicBool = AtomicBool::new(false);
/// Set when lines are JSON objects (`--log-format json`).
static JSON: AtomicBool = AtomicBool::new(false);

/// How long a line may wait before the writer thread writes it.
const BATCH_EVERY: Duration = Duration::from_millis(10);
/// Past this many queued bytes a request waits for the writer: lines are
/// never dropped.
const BATCH_LIMIT: usize = 4 << 20;

/// Appends whole lines to the batch (or, without a writer thread, writes
/// them to stderr).
fn append(bytes: &[u8]) {
    if DIRECT.load(Ordering::Relaxed) {
        let _ = std::io::stderr().write_all(bytes);
        return;
    }
    let mut lines = BATCH.lines.lock().unwrap_or_else(|e| e.into_inner());
    while lines.len() > BATCH_LIMIT && !BATCH.stop.load(Ordering::Acquire) {
        BATCH.wake.notify_all();
        lines = BATCH
            .wake
            .wait_timeout(lines, BATCH_EVERY)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    lines.extend_from_slice(bytes);
}

/// The subscriber's writer: appends a formatted line to the batch.
#[derive(Clone, Copy)]
struct BatchWriter;

impl std::io::Write for BatchWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        append(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the batch to stderr every [`BATCH_EVERY`] (or when woken), until
/// stopped; then writes what is left.
fn write_batches() {
    let mut out = Vec::new();
    let mut stderr = std::io::stderr();
    loop {
        {
            let mut lines = BATCH.lines.lock().unwrap_or_else(|e| e.into_inner());
            if lines.is_empty() && !BATCH.stop.load(Ordering::Acquire) {
                lines = BATCH
                    .wake
                    .wait_timeout(lines, BATCH_EVERY)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            std::mem::swap(&mut *lines, &mut out);
        }
        // Room again for requests waiting on a full batch.
        BATCH.wake.notify_all();
        if !out.is_empty() {
            let _ = stderr.write_all(&out);
            out.clear();
        }
        if BATCH.stop.load(Ordering::Acquire) && BATCH.lines.lock().is_ok_and(|l| l.is_empty()) {
            return;
        }
    }
}

/// Installs the subscriber: `RUST_LOG` (default `info`) filters, lines go to
/// stderr (stdout carries the banner) as text or JSON.
///
/// A request formats its line on its own thread, where lines wait until
/// 8 KiB of them do or the thread runs out of work ([`flush_thread`]); then
/// they join a shared batch (a lock held for a copy), and a writer thread
/// writes the batch every 10 ms in one system call. No line costs a system call or a thread wake-up
/// of its own, and none is dropped: past 4 MiB queued, requests wait for
/// the writer.
pub fn init(format: LogFormat) -> LogGuard {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env_lossy();
    let writer = std::thread::Builder::new()
        .name("log-writer".to_owned())
        .spawn(write_batches)
        .ok();
    // Without a writer thread, lines go straight to stderr.
    DIRECT.store(writer.is_none(), Ordering::Release);
    JSON.store(format == LogFormat::Json, Ordering::Release);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(|| BatchWriter);
    // An error here means a subscriber is already installed: keep it.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    LogGuard(writer)
}

/// Logs a store failure (the request itself is logged as a 500).
pub fn store_error(error: &dyn std::fmt::Display) {
    tracing::error!(target: STORE_TARGET, error = %error, "store error");
}

/// Whether request lines are written (the installed filter, `RUST_LOG`,
/// allows [`REQUEST_TARGET`] at `info`): ask once per request, up front.
#[inline]
pub fn requests_enabled() -> bool {
    tracing::enabled!(target: REQUEST_TARGET, Level::INFO)
}

/// A thread's request lines are handed to the shared batch once this many
/// bytes are waiting (about 40 lines), or when the thread has nothing else
/// to do ([`flush_thread`]).
const THREAD_BATCH: usize = 8 << 10;

/// A thread's request lines not yet in the shared batch; handed over when
/// the thread ends, too.
struct Pending(Vec<u8>);

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            append(&self.0);
        }
    }
}

thread_local! {
    /// Each thread's line buffer, lent to one [`RequestLine`] at a time.
    static LINE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    static PENDING: std::cell::RefCell<Pending> = const { std::cell::RefCell::new(Pending(Vec::new())) };
    /// The timestamp's text up to the second, and the second it is of.
    static SECOND: Cell<(u64, [u8; 19])> = const { Cell::new((u64::MAX, [0; 19])) };
}

/// One request line being written: `RequestLine::start()`, its fields in
/// order, then [`write`](Self::write). Field names are fixed identifiers;
/// a value is a label (written as is), a number, or [`text`](Self::text)
/// (escaped in JSON, as is in text, as `tracing`'s `%` fields are).
///
/// Text: `2026-12-01T22:12:07.663059Z  INFO chopin_mcp_server::request:
/// request name=value …`. JSON: `{"timestamp":…,"level":"INFO",
/// "message":"request","name":value,…,"target":"chopin_mcp_server::request"}`.
pub struct RequestLine {
    out: Vec<u8>,
    json: bool,
}

impl RequestLine {
    /// Starts a line stamped now.
    pub fn start() -> RequestLine {
        RequestLine::start_at(SystemTime::now())
    }

    /// Starts a line stamped `now`.
    pub fn start_at(now: SystemTime) -> RequestLine {
        let mut out = LINE.try_with(Cell::take).unwrap_or_default();
        out.clear();
        let json = JSON.load(Ordering::Relaxed);
        if json {
            out.extend_from_slice(b"{\"timestamp\":\"");
            timestamp(&mut out, now);
            out.extend_from_slice(b"\",\"level\":\"INFO\",\"message\":\"request\"");
        } else {
            timestamp(&mut out, now);
            out.extend_from_slice(b"  INFO ");
            out.extend_from_slice(REQUEST_TARGET.as_bytes());
            out.extend_from_slice(b": request");
        }
        RequestLine { out, json }
    }

    #[inline(always)]
    fn name(&mut self, name: &str) {
        if self.json {
            self.out.extend_from_slice(b",\"");
            self.out.extend_from_slice(name.as_bytes());
            self.out.extend_from_slice(b"\":");
        } else {
            self.out.push(b' ');
            self.out.extend_from_slice(name.as_bytes());
            self.out.push(b'=');
        }
    }

    /// A value from a closed set of plain names (nothing to escape).
    #[inline(always)]
    pub fn label(&mut self, name: &str, value: &'static str) {
        self.name(name);
        if self.json {
            self.out.push(b'"');
            self.out.extend_from_slice(value.as_bytes());
            self.out.push(b'"');
        } else {
            self.out.extend_from_slice(value.as_bytes());
        }
    }

    /// Any text: a JSON string in JSON, the text itself in text lines.
    #[inline(always)]
    pub fn text(&mut self, name: &str, value: &str) {
        self.name(name);
        if self.json {
            // Writing into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut self.out, value);
        } else {
            self.out.extend_from_slice(value.as_bytes());
        }
    }

    /// A number.
    #[inline(always)]
    pub fn number(&mut self, name: &str, value: u64) {
        self.name(name);
        decimal(&mut self.out, value);
    }

    /// Ends the line and queues it for the writer thread.
    pub fn write(mut self) {
        if self.json {
            self.out.extend_from_slice(b",\"target\":\"");
            self.out.extend_from_slice(REQUEST_TARGET.as_bytes());
            self.out.extend_from_slice(b"\"}");
        }
        self.out.push(b'\n');
        let out = self.out;
        let queued = PENDING.try_with(|pending| {
            let mut pending = pending.borrow_mut();
            pending.0.extend_from_slice(&out);
            if pending.0.len() >= THREAD_BATCH {
                append(&pending.0);
                pending.0.clear();
            }
        });
        if queued.is_err() {
            // The thread is ending: straight to the batch.
            append(&out);
        }
        let _ = LINE.try_with(|line| line.set(out));
    }
}

/// Hands the calling thread's waiting request lines to the shared batch.
/// The workers call it whenever they run out of work (tokio's
/// `on_thread_park`), so a line waits for its thread at most as long as
/// the thread is busy with other requests, and at most `THREAD_BATCH`
/// bytes: no shared lock, and no cache line shared between the workers'
/// CPUs, is touched per request.
pub fn flush_thread() {
    let _ = PENDING.try_with(|pending| {
        if let Ok(mut pending) = pending.try_borrow_mut() {
            if !pending.0.is_empty() {
                append(&pending.0);
                pending.0.clear();
            }
        }
    });
}

/// Appends `value` in decimal.
#[inline(always)]
fn decimal(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends the time now as `tracing_subscriber` writes it (RFC 3339, UTC,
/// microseconds): `2026-12-01T22:12:07.663059Z`.
fn timestamp(out: &mut Vec<u8>, now: SystemTime) {
    let now = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = now.as_secs();
    let (of, mut text) = SECOND.with(Cell::get);
    if of != seconds {
        text = civil(seconds);
        SECOND.with(|second| second.set((seconds, text)));
    }
    out.extend_from_slice(&text);
    let micros = now.subsec_micros();
    let mut fraction = *b".000000Z";
    let mut rest = micros;
    for at in (1..7).rev() {
        fraction[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&fraction);
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix time (days to the civil date as in
/// Howard Hinnant's `civil_from_days`; years past 9999 are not written right,
/// nor are they reached).
fn civil(seconds: u64) -> [u8; 19] {
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut text = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for i in (at..at + width).rev() {
            text[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year.clamp(0, 9999) as u64);
    put(5, 2, month as u64);
    put(8, 2, day as u64);
    put(11, 2, of_day / 3_600);
    put(14, 2, of_day % 3_600 / 60);
    put(17, 2, of_day % 60);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_match_known_instants() {
        assert_eq!(&civil(0), b"1970-01-01T00:00:00");
        assert_eq!(&civil(951_782_400), b"2000-02-29T00:00:00");
        assert_eq!(&civil(1_709_251_199), b"2024-02-29T23:59:59");
        assert_eq!(&civil(1_798_761_600), b"2027-01-01T00:00:00");
        assert_eq!(&civil(4_107_542_399), b"2100-02-28T23:59:59");
        assert_eq!(&civil(4_107_542_400), b"2100-03-01T00:00:00");
    }

    #[test]
    fn decimals_are_written_whole() {
        for value in [0, 7, 10, 347, 1_000_000, u64::MAX] {
            let mut out = Vec::new();
            decimal(&mut out, value);
            assert_eq!(out, value.to_string().as_bytes());
        }
    }
}
