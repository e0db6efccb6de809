//! One keep-alive HTTP/1.1 connection to a test server: requests written
//! as clients send them (several may be written before their answers are
//! read), responses read by their `content-length`.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A keep-alive connection and what arrived on it past the last response
/// read.
pub struct KeepAlive {
    addr: SocketAddr,
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl KeepAlive {
    /// Connects to `addr` (30 s read timeout, no Nagle delay).
    pub fn open(addr: SocketAddr) -> KeepAlive {
        let stream = TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        KeepAlive {
            addr,
            stream,
            buffer: Vec::new(),
        }
    }

    /// Writes `POST /mcp` with `body` and the header lines `headers` (each
    /// ending in CRLF), without reading its answer.
    pub fn send(&mut self, headers: &str, body: &str) {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {}\r\n{headers}content-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        self.stream.write_all(request.as_bytes()).expect("send");
    }

    /// Reads the next response: its head and its body. Panics on one
    /// without a `content-length`, or when the server closes first.
    pub fn receive(&mut self) -> (String, String) {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if let Some(end) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
                let length: usize = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())?
                    })
                    .unwrap_or_else(|| panic!("no content-length: {head}"));
                let total = end + 4 + length;
                if self.buffer.len() >= total {
                    let body = String::from_utf8_lossy(&self.buffer[end + 4..total]).into_owned();
                    self.buffer.drain(..total);
                    return (head, body);
                }
            }
            let n = self.stream.read(&mut chunk).expect("a response");
            assert!(n > 0, "the server closed the connection");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// [`KeepAlive::send`], then [`KeepAlive::receive`].
    pub fn post(&mut self, headers: &str, body: &str) -> (String, String) {
        self.send(headers, body);
        self.receive()
    }
}
