//! Both servers over real sockets: the MCP exchange, HTTP-level
//! refusals, event streams, slow clients and crash durability. Every check
//! runs against both `chopin-mcp-server` (tokio) and
//! `chopin-mcp-blocking` (std::net).
// Timing a slow client needs the clock the crate's core may not read.
#![allow(clippy::disallowed_methods)]

#[path = "interop/harness.rs"]
mod support;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use support::{DOC_ID, DOC_TITLE, SERVERS, Server, TOKEN, read_all, status, temp_path};

#[test]
fn initialize_and_tools_list_answer() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let init = server.post(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            Some(TOKEN),
        );
        assert_eq!(status(&init), 200, "{name}: {init}");
        assert!(
            init.contains(r#""protocolVersion":"2025-06-18""#),
            "{name}: {init}"
        );
        let tools = server.post(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            Some(TOKEN),
        );
        assert!(
            tools.contains(r#""name":"list_documents""#),
            "{name}: {tools}"
        );
        assert!(
            tools.contains(r#""name":"read_document""#),
            "{name}: {tools}"
        );
    }
}

#[test]
fn list_and_read_reach_the_store() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let list = server.call("list_documents", r#"{"repository":"githubnext/chopin"}"#);
        assert!(
            list.contains(&format!(r#"{{"id":"{DOC_ID}","title":"{DOC_TITLE}"}}"#)),
            "{name}: {list}"
        );
        let read = server.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert_eq!(status(&read), 200, "{name}: {read}");
        assert!(read.contains(r#""revision":2"#), "{name}: {read}");
        let absent = server.call("read_document", r#"{"id":"no-such-document"}"#);
        assert!(
            absent.contains(r#""result":{"content":[],"isError":true}"#),
            "{name}: {absent}"
        );
    }
}

#[test]
fn a_request_without_the_token_gets_401() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let refused = server.post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None);
        assert_eq!(status(&refused), 401, "{name}: {refused}");
        assert!(
            refused.contains("www-authenticate: Bearer"),
            "{name}: {refused}"
        );
        let wrong = server.post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, Some("guess"));
        assert_eq!(status(&wrong), 401, "{name}: {wrong}");
    }
}

#[test]
fn other_methods_get_405_and_other_paths_404() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let put = server.raw(b"PUT /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
        assert_eq!(status(&put), 405, "{name}: {put}");
        assert!(put.contains("allow: GET, POST"), "{name}: {put}");
        let other =
            server.raw(b"GET /other HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
        assert_eq!(status(&other), 404, "{name}: {other}");
    }
}

#[test]
fn a_foreign_host_is_refused() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let rebound = server.raw(
            b"POST /mcp HTTP/1.1\r\nhost: evil.example\r\nauthorization: Bearer allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        assert_eq!(status(&rebound), 403, "{name}: {rebound}");
    }
}

#[test]
fn a_chunked_body_over_the_budget_gets_413_before_it_ends() {
    // Read-only servers budget 65536 bytes; creating ones 786432; with
    // upload_image (the default) 1463640.
    for (name, extra, budget) in SERVERS.iter().flat_map(|name| {
        [
            (*name, &["--read-only"][..], 65_536),
            (*name, &["--image-quota-mib", "0"][..], 786_432),
            (*name, &[][..], 1_463_640),
        ]
    }) {
        let server = Server::seeded_with(name, extra);
        let mut stream = server.connect();
        let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\n\
                    content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
        // Exactly the budget, then the one byte that crosses it, and no end:
        // the answer must come without the rest of the body.
        let filler = vec![b' '; budget];
        stream
            .write_all(format!("{budget:x}\r\n").as_bytes())
            .unwrap();
        stream.write_all(&filler).unwrap();
        stream.write_all(b"\r\n1\r\n{").unwrap();
        let response = read_all(&mut stream);
        assert_eq!(status(&response), 413, "{name}: {response}");
        assert!(
            response.ends_with("request too large"),
            "{name}: {response}"
        );
    }
}

#[test]
fn pipelined_requests_sent_a_byte_at_a_time_are_all_answered() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let ping = |id: u32, close: &str| {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            format!(
                "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\n\
                 content-length: {}\r\n{close}\r\n{body}",
                body.len()
            )
        };
        let bytes = format!("\r\n{}{}", ping(1, ""), ping(2, "connection: close\r\n"));
        let mut stream = server.connect();
        stream.set_nodelay(true).unwrap();
        for byte in bytes.as_bytes() {
            stream.write_all(std::slice::from_ref(byte)).unwrap();
        }
        let answers = read_all(&mut stream);
        assert_eq!(
            answers.matches("HTTP/1.1 200 OK").count(),
            2,
            "{name}: {answers}"
        );
        assert!(
            answers.contains(r#""id":1,"result":{}"#),
            "{name}: {answers}"
        );
        assert!(
            answers.ends_with(r#""id":2,"result":{}}"#),
            "{name}: {answers}"
        );
    }
}

#[test]
fn a_chunked_body_within_the_budget_is_served() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let body = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
        let (a, b) = body.split_at(10);
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\n\
             transfer-encoding: chunked\r\nconnection: close\r\n\r\n\
             {:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
            a.len(),
            b.len()
        );
        let response = server.raw(request.as_bytes());
        assert_eq!(status(&response), 200, "{name}: {response}");
        assert!(
            response.ends_with(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#),
            "{name}: {response}"
        );
    }
}

#[test]
fn bad_chunk_framing_gets_400() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let response = server.raw(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\n\
              transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        );
        assert_eq!(status(&response), 400, "{name}: {response}");
    }
}

#[test]
fn an_oversized_head_gets_431() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let mut stream = server.connect();
        let request = format!(
            "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nx-padding: {}\r\n\r\n",
            "a".repeat(64 * 1024)
        );
        // Written from another thread: the server answers (and may close)
        // before taking it all.
        let mut writer = stream.try_clone().unwrap();
        let sending = std::thread::spawn(move || {
            let _ = writer.write_all(request.as_bytes());
        });
        let response = read_all(&mut stream);
        let _ = sending.join();
        assert_eq!(status(&response), 431, "{name}: {response}");
    }
}

#[test]
fn a_head_with_more_than_64_headers_gets_431() {
    // `host` and `connection` plus padding headers: 64 in all is served,
    // 65 is refused.
    let head = |count: usize| {
        let padding: String = (0..count - 2).map(|i| format!("x-h{i}: v\r\n")).collect();
        format!("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n{padding}\r\n")
    };
    for name in SERVERS {
        let server = Server::seeded(name);
        let served = server.raw(head(64).as_bytes());
        assert_eq!(status(&served), 200, "{name}: {served}");
        let refused = server.raw(head(65).as_bytes());
        assert_eq!(status(&refused), 431, "{name}: {refused}");
        let far_over = server.raw(head(150).as_bytes());
        assert_eq!(status(&far_over), 431, "{name}: {far_over}");
    }
}

#[test]
fn a_get_holds_several_event_streams_open() {
    for name in SERVERS {
        let server = Server::seeded(name);
        let streams: Vec<_> = (0..3)
            .map(|_| {
                let mut stream = server.connect();
                stream
                    .write_all(
                        b"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer allowed\r\naccept: text/event-stream\r\n\r\n",
                    )
                    .unwrap();
                stream
            })
            .collect();
        for mut stream in streams {
            let seen = read_until(&mut stream, ": keep-alive\n\n");
            assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{name}: {seen}");
            assert!(
                seen.contains("content-type: text/event-stream\r\n"),
                "{name}: {seen}"
            );
        }
        // The streams stay open while other requests are served.
        let ping = server.post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, Some(TOKEN));
        assert_eq!(status(&ping), 200, "{name}: {ping}");
    }
}

#[test]
fn a_slow_client_does_not_stall_another() {
    for name in SERVERS {
        let server = Server::seeded(name);
        // Half a head, then silence.
        let mut slow = server.connect();
        slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthori")
            .unwrap();
        let started = Instant::now();
        let read = server.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert_eq!(status(&read), 200, "{name}: {read}");
        assert!(started.elapsed() < Duration::from_secs(2), "{name}");
        // The silent client is let go once the head timeout passes.
        let answer = read_all(&mut slow);
        assert!(
            answer.is_empty() || status(&answer) == 408,
            "{name}: {answer}"
        );
        assert!(started.elapsed() < Duration::from_secs(15), "{name}");
    }
}

#[test]
fn an_imported_document_survives_kill_9() {
    for name in SERVERS {
        let db = temp_path("durable", "db");
        let db = db.to_str().unwrap();
        let import = support::import_file();
        let first = Server::on_db(name, db, &["--import", import.to_str().unwrap()]);
        let read = first.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert!(read.contains(DOC_TITLE), "{name}: {read}");
        first.kill();
        let second = Server::on_db(name, db, &[]);
        let again = second.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert!(again.contains(DOC_TITLE), "{name}: {again}");
    }
}

#[test]
fn a_created_document_survives_kill_9_right_after_the_response() {
    let draft = r##"{"idempotencyKey":"durable-1","repository":"githubnext/chopin","baseBranch":"main","baseCommit":"0123456789abcdef","title":"Durable plan","brief":{"goal":"Survive a crash.","constraints":[],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"plan":"# Durable\n\n<Callout type=\"note\">\nStill here.\n</Callout>\n"}"##;
    for name in SERVERS {
        let db = temp_path("created", "db");
        let db = db.to_str().unwrap();
        let first = Server::on_db(name, db, &[]);
        let created = first.call("create_document", draft);
        assert_eq!(status(&created), 200, "{name}: {created}");
        let body: serde_json::Value =
            serde_json::from_str(created.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        let document = &body["result"]["structuredContent"];
        let id = document["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {body}"))
            .to_owned();
        // SIGKILL as soon as the response is in: no shutdown path runs.
        first.kill();
        let second = Server::on_db(name, db, &[]);
        let read = second.call("read_document", &format!(r#"{{"id":"{id}"}}"#));
        let read: serde_json::Value =
            serde_json::from_str(read.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(
            read["result"]["structuredContent"]["source"], document["source"],
            "{name}"
        );
        assert_eq!(read["result"]["structuredContent"]["revision"], 0, "{name}");
    }
}

#[test]
fn a_store_failure_gets_a_generic_500() {
    for name in SERVERS {
        let db = temp_path("broken", "db");
        let import = support::import_file();
        let import = ["--import", import.to_str().unwrap()];
        let server = Server::on_db(name, db.to_str().unwrap(), &import);
        // Break the database under the running server.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("DROP TABLE documents").unwrap();
        let read = server.call("read_document", &format!(r#"{{"id":"{DOC_ID}"}}"#));
        assert_eq!(status(&read), 500, "{name}: {read}");
        assert!(
            read.ends_with("\r\n\r\ninternal server error"),
            "{name}: {read}"
        );
        assert!(!read.contains(DOC_TITLE), "{name}: {read}");
    }
}

#[test]
fn a_first_run_seeds_a_sample_and_prints_a_token_that_works() {
    for name in SERVERS {
        let db = temp_path("first-run", "db");
        let server = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = server.banner.join("\n");
        let token = banner
            .split(r#"{"type":"http","url":"http://"#)
            .nth(1)
            .and_then(|rest| rest.split(r#""Authorization":"Bearer "#).nth(1))
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{name}: no client configuration in {banner}"));
        assert_eq!(token.len(), 64, "{name}: {token}");
        let list = server.post(&list_sample(), Some(token));
        assert!(
            list.contains(r#""title":"Keep the reading position offline""#),
            "{name}: {list}"
        );
    }
}

fn list_sample() -> String {
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_documents","arguments":{"repository":"example/plans"}}}"#.to_owned()
}

/// Reads until `marker` has arrived (or the connection ends).
fn read_until(stream: &mut std::net::TcpStream, marker: &str) -> String {
    let mut seen = Vec::new();
    let mut byte = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains(marker) {
        match stream.read(&mut byte) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&byte[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}
