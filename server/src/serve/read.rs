//! A connection's state and its reading: the socket and buffers
//! ([`Conn`]), what a request left the connection fit for ([`Next`]), what
//! it waits on besides the socket ([`Waits`]), and reading a request head
//! within [`HEAD_TIMEOUT`] or more of a body into its buffer.

use std::pin::Pin;
use std::time::Duration;

use chopin_mcp::http1;

use super::head::HeadScan;
use super::known::Known;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// How long a client may take to send a request head before the connection
/// is closed: a slow or stalled client holds a task, never a thread.
pub(super) const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection's socket and buffers: bytes read and not yet used (the rest
/// of a head, body bytes, pipelined requests), and the response being
/// written; and the static token its requests were last accepted with.
pub(super) struct Conn {
    pub(super) stream: TcpStream,
    pub(super) read: Vec<u8>,
    pub(super) out: Vec<u8>,
    /// The static token last accepted on the connection.
    pub(super) known: Known,
}

/// The room a read is given at least.
pub(super) const READ_ROOM: usize = 4096;
/// A buffer grown past this (a large head, body or document) is let go
/// after its request rather than kept for the connection's life.
pub(super) const BUFFER_KEPT: usize = 64 * 1024;

/// What the connection waits on besides its socket: the shutdown signal,
/// and the head deadline's timer.
pub(super) struct Waits<'a, S: std::future::Future<Output = ()>> {
    pub(super) stop: Pin<&'a mut S>,
    pub(super) check: Pin<&'a mut tokio::time::Sleep>,
}

/// What a request left its connection fit for.
pub(super) enum Next {
    /// The next request.
    KeepAlive,
    /// Nothing: the client left, its head was too slow, the shutdown began
    /// while it was idle, or its last response was a `connection: close`
    /// with nothing left unread. Dropping the socket closes it.
    Gone,
    /// Closing after a response that left bytes unread (a body refused
    /// before its end, a refused head): lingered over, so that the client
    /// reads the response before the close resets the connection.
    Close,
    /// An event stream, its head written: held until it ends, and at the
    /// OAuth token's expiry (seconds since the epoch) if it was opened with
    /// one (AUTH.md §2).
    Stream(Option<u64>),
}

/// Reads until `conn.read` begins with a whole head: false if the client
/// left, or did not finish the head within [`HEAD_TIMEOUT`] of the wait's
/// start (closed without an answer, as an idle connection is), or the
/// shutdown began first.
pub(super) async fn read_head<S: std::future::Future<Output = ()>>(
    conn: &mut Conn,
    mut waits: Waits<'_, S>,
) -> Result<bool, http1::HttpError> {
    if conn.read.capacity() > BUFFER_KEPT && conn.read.len() < READ_ROOM {
        conn.read.shrink_to(READ_ROOM);
    }
    // Looks at each byte once, so a client sending its head a byte at a time
    // costs linear time; the head is parsed once, when it is complete.
    let mut scanner = HeadScan::default();
    let mut since = None;
    loop {
        // Empty lines before a request line are allowed (RFC 9112 §2.2):
        // dropped, so that the blank line the scanner looks for is the one
        // that ends a head.
        let blank = conn
            .read
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        if blank > 0 {
            conn.read.drain(..blank);
            scanner = HeadScan::default();
        }
        if scanner.scan(&conn.read)? {
            return Ok(true);
        }
        let since = *since.get_or_insert_with(tokio::time::Instant::now);
        conn.read.reserve(READ_ROOM);
        tokio::select! {
            biased;
            read = conn.stream.read_buf(&mut conn.read) => match read {
                Ok(0) | Err(_) => return Ok(false),
                Ok(_) => {}
            },
            () = waits.stop.as_mut() => return Ok(false),
            () = waits.check.as_mut() => {
                let deadline = since + HEAD_TIMEOUT;
                if deadline <= tokio::time::Instant::now() {
                    return Ok(false);
                }
                waits.check.as_mut().reset(deadline);
            }
        }
    }
}

/// Reads more of a body: false if the client left.
pub(super) async fn read_more(conn: &mut Conn) -> bool {
    conn.read.reserve(READ_ROOM);
    matches!(conn.stream.read_buf(&mut conn.read).await, Ok(n) if n > 0)
}
