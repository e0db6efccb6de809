//! Writing to a connection: a response's head and body ([`send`]), a
//! refused head's answer ([`refuse`]), `100 Continue`, bytes whole unless
//! the shutdown begins ([`write_all`]), and the gentle close ([`linger`]).

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::time::Duration;

use chopin_mcp::Header;
use chopin_mcp::http1;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::read::{BUFFER_KEPT, Conn, Next};
use crate::{record, wire};

/// Writes the head in `conn.out` and `body` after it; `keep`: the
/// connection carries on, `read_whole`: nothing of the request is left
/// unread, `head_only`: the request was a `HEAD`, whose response is its
/// head only (RFC 9110 §9.3.2).
pub(super) async fn send(
    conn: &mut Conn,
    body: &[u8],
    keep: bool,
    read_whole: bool,
    head_only: bool,
) -> Next {
    let body = wire::behind_head(&mut conn.out, body, head_only);
    let written = write_both(&mut conn.stream, &conn.out, body).await;
    conn.out.clear();
    if conn.out.capacity() > BUFFER_KEPT {
        conn.out = Vec::new();
    }
    match written {
        Err(_) => Next::Gone,
        Ok(()) if keep => Next::KeepAlive,
        Ok(()) if read_whole && conn.read.is_empty() => Next::Gone,
        Ok(()) => Next::Close,
    }
}

/// Writes `head`, then `body`, both from where they are: vectored writes
/// until the head is out, then the rest of the body.
pub(super) async fn write_both(
    stream: &mut TcpStream,
    mut head: &[u8],
    mut body: &[u8],
) -> io::Result<()> {
    while !head.is_empty() {
        let written = stream
            .write_vectored(&[IoSlice::new(head), IoSlice::new(body)])
            .await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        wire::advance(&mut head, &mut body, written);
    }
    stream.write_all(body).await
}

/// Answers a head the adapter refused (400, 431, 501) and closes.
pub(super) async fn refuse(conn: &mut Conn, refused: http1::HttpError) -> Next {
    record::refused_head(refused.status()); // ops
    let date = wire::date();
    let response = refused.response();
    let date = [Header::new("date", &date)];
    http1::write_head_with(&response, false, &date, &mut conn.out);
    match send(conn, response.body(), false, false, false).await {
        Next::Gone => Next::Gone,
        _ => Next::Close,
    }
}

pub(super) async fn write_continue(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await
}

/// Closes gently: stop writing, then read and drop what the client still
/// sends for a moment (256 KiB, one second at most). Closing with unread
/// bytes would make the kernel reset the connection, which can destroy the
/// response (413, 431) before the client reads it.
pub(super) async fn linger(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let drain = async {
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < 256 * 1024 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(read) => drained += read,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
}

/// Writes `bytes` whole; false if the client went away or the shutdown
/// began first.
pub(super) async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    stop: &mut Pin<&mut impl std::future::Future<Output = ()>>,
) -> bool {
    tokio::select! {
        written = stream.write_all(bytes) => written.is_ok(),
        () = stop.as_mut() => false,
    }
}
