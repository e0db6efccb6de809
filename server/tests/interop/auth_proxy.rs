//! A loopback proxy that adds `authorization: Bearer <token>` to every request
//! and forwards everything else byte for byte, for clients that cannot send
//! credentials (the conformance suite). Host, Origin and every other header
//! reach the server unchanged, so Host/Origin checks see what the client sent.
//!
//! One request per connection: the proxy adds `connection: close` to the
//! request and to the response head, so a client never reuses a socket and
//! no request framing has to be parsed beyond the heads.
#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// A running proxy; stops accepting when dropped.
pub struct AuthProxy {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl AuthProxy {
    /// Listens on an ephemeral loopback port and forwards to `upstream`.
    pub fn start(upstream: SocketAddr, token: &str) -> AuthProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let header = format!("authorization: Bearer {token}\r\nconnection: close\r\n");
        thread::spawn(move || {
            for client in listener.incoming() {
                if stopping.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = client else { continue };
                let header = header.clone();
                thread::spawn(move || {
                    let _ = forward(client, upstream, &header);
                });
            }
        });
        AuthProxy { addr, stop }
    }

    /// `http://ADDR/mcp` through the proxy.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for AuthProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Reads up to the end of the head (`\r\n\r\n`); returns (head, bytes after it).
fn read_head(stream: &mut TcpStream) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok((buffer, rest));
        }
        if buffer.len() > 64 * 1024 {
            return Err(io::Error::other("head too large"));
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// The head with `authorization`, `connection` and `keep-alive` lines dropped
/// and `added` inserted after the first line.
fn rewrite_head(head: &[u8], added: &str) -> Vec<u8> {
    let text = &head[..head.len() - 2]; // keep each line's own CRLF
    let mut out = Vec::with_capacity(head.len() + added.len());
    for (index, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let name = line
            .split(|&b| b == b':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if index > 0 && matches!(&name[..], b"authorization" | b"connection" | b"keep-alive") {
            continue;
        }
        out.extend_from_slice(line);
        if index == 0 {
            out.extend_from_slice(added.as_bytes());
        }
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn forward(mut client: TcpStream, upstream: SocketAddr, header: &str) -> io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(60)))?;
    let (head, rest) = read_head(&mut client)?;
    let mut server = TcpStream::connect(upstream)?;
    server.set_read_timeout(Some(Duration::from_secs(60)))?;
    server.write_all(&rewrite_head(&head, header))?;
    server.write_all(&rest)?;

    // The rest of the request body, as it comes.
    let mut from_client = client.try_clone()?;
    let mut to_server = server.try_clone()?;
    thread::spawn(move || {
        let _ = io::copy(&mut from_client, &mut to_server);
    });

    // The response: its head with `connection: close`, then every byte.
    let result = (|| {
        let (head, rest) = read_head(&mut server)?;
        client.write_all(&rewrite_head(&head, "connection: close\r\n"))?;
        client.write_all(&rest)?;
        io::copy(&mut server, &mut client).map(drop)
    })();
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
    result
}
