//! A scripted, possibly hostile, authorization server: a few lines of HTTP
//! on a loopback port answering each path as a test says.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the scripted AS answers for a path: status, extra headers, body;
/// `None`: hold the connection open without answering.
pub type Script = fn(&str, &str) -> Option<(u16, String, String)>;

/// A scripted AS on a loopback port; the paths it was asked for.
pub fn scripted(script: Script) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (seen, base) = (Arc::clone(&asked), issuer.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (seen, base) = (Arc::clone(&seen), base.clone());
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("").to_owned();
                seen.lock().unwrap().push(path.clone());
                match script(&base, &path) {
                    Some((status, headers, body)) => {
                        let reply = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = stream.write_all(reply.as_bytes());
                    }
                    None => std::thread::sleep(Duration::from_secs(30)),
                }
            });
        }
    });
    (issuer, asked)
}
