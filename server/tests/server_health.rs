//! `/healthz` and `/readyz` on both servers: no authentication, bodies that
//! say the state only, 405 for other methods, 503 when the store does not
//! answer.

#[path = "interop/harness.rs"]
mod support;

use std::time::{Duration, Instant};

use support::{SERVERS, Server, status, temp_path};

fn get(server: &Server, path: &str) -> String {
    server.raw(format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").as_bytes())
}

fn body(response: &str) -> &str {
    response.split("\r\n\r\n").nth(1).unwrap_or_default()
}

#[test]
fn healthz_and_readyz_answer_ok_without_a_token() {
    for name in SERVERS {
        let server = Server::seeded(name);
        for path in ["/healthz", "/readyz"] {
            let response = get(&server, path);
            assert_eq!(status(&response), 200, "{name} {path}: {response}");
            assert_eq!(body(&response), "ok", "{name} {path}");
            assert!(
                response.contains("text/plain; charset=utf-8"),
                "{name} {path}: {response}"
            );
        }
    }
}

#[test]
fn other_methods_get_405_with_allow_get_and_other_paths_404() {
    for name in SERVERS {
        let server = Server::seeded(name);
        for method in ["POST", "DELETE", "PUT"] {
            for path in ["/healthz", "/readyz"] {
                let response = server.raw(
                    format!(
                        "{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    )
                    .as_bytes(),
                );
                assert_eq!(status(&response), 405, "{name} {method} {path}: {response}");
                assert!(
                    response.to_ascii_lowercase().contains("\r\nallow: get\r\n"),
                    "{name} {method} {path}: {response}"
                );
            }
        }
        for path in ["/health", "/healthz/x", "/readyz2", "/ready"] {
            let response = get(&server, path);
            assert_eq!(status(&response), 404, "{name} {path}: {response}");
            assert_eq!(body(&response), "not found", "{name} {path}");
        }
    }
}

/// Another process moves the table the readiness query reads away: the
/// query fails, so `/readyz` says 503 while `/healthz` stays 200; once the
/// table is back it is ready again. (Tied to today's query, which reads
/// `tokens`; a store readiness query that reads nothing needs another way
/// to fail here.)
#[test]
fn readyz_is_503_while_the_store_cannot_answer() {
    for name in SERVERS {
        let db = temp_path("health", "db");
        let db_arg = db.to_str().unwrap().to_owned();
        let server = Server::on_db(name, &db_arg, &[]);
        assert_eq!(status(&get(&server, "/readyz")), 200, "{name}");
        let lock = rusqlite::Connection::open(&db).expect("open the database");
        lock.execute_batch("ALTER TABLE tokens RENAME TO tokens_away")
            .expect("move the table away");
        let started = Instant::now();
        let response = get(&server, "/readyz");
        assert_eq!(status(&response), 503, "{name}: {response}");
        assert_eq!(body(&response), "not ready", "{name}");
        assert!(started.elapsed() < Duration::from_secs(3), "{name}");
        assert_eq!(status(&get(&server, "/healthz")), 200, "{name}");
        lock.execute_batch("ALTER TABLE tokens_away RENAME TO tokens")
            .expect("move the table back");
        drop(lock);
        let until = Instant::now() + Duration::from_secs(10);
        while status(&get(&server, "/readyz")) != 200 {
            assert!(Instant::now() < until, "{name}: never ready again");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
