//! A database of schema version 1 (made and written as version 1 servers
//! did: `support/schema_v1.rs`) started by the server binaries: migrated to
//! version 4 in place at start, the banner says so (once: a later start
//! has nothing to migrate), and over HTTP every document, token, grant and
//! create idempotency record still answers, the write tools work on the old
//! documents — on a SQLite file through both servers, and on PostgreSQL
//! (direct and through PgBouncer) by replicas starting at once, exactly one
//! of which migrates. The store's own migration tests are
//! `store_schema_migration.rs`.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

#[path = "support/schema_v1.rs"]
mod schema_v1;

use std::net::SocketAddr;

use calls::{at_once, error_content, post_as, success, tool_call, update_body};
use schema_v1::CONTENT;
use serde_json::{Value, json};
use support::{SERVERS, Server, temp_path};

/// What the banner of the start that migrated says.
const MIGRATED: &str = "database of schema version 1 migrated in place to version 4";

fn token_of(caller: &str) -> &'static str {
    CONTENT
        .tokens
        .iter()
        .find(|(_, c)| *c == caller)
        .map(|(token, _)| *token)
        .unwrap()
}

fn list(addr: SocketAddr, caller: &str, repository: &str) -> String {
    let body = tool_call("list_documents", &json!({"repository": repository}));
    post_as(addr, token_of(caller), &body)
}

fn read(addr: SocketAddr, caller: &str, id: &str) -> Option<Value> {
    let body = tool_call("read_document", &json!({"id": id}));
    success(&post_as(addr, token_of(caller), &body))
}

/// Everything the version 1 database held answers over HTTP through the
/// server at `addr`, its stored tokens included, and the write tools work
/// on what it held.
fn everything_is_there(addr: SocketAddr) {
    let titles: Vec<Value> =
        success(&list(addr, "ann", "acme/plans")).expect("a list")["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["title"].clone())
            .collect();
    assert_eq!(titles, ["Alpha", "Created in version 1", "Zeta"]);
    // ann's grant is acme/plans alone: the other repository is denied,
    // its document unseen; root's `*` sees it.
    assert_eq!(
        error_content(&list(addr, "ann", "acme/secret")),
        Some(json!({"code": "repository-forbidden"}))
    );
    assert_eq!(read(addr, "ann", "s"), None);
    for (id, _, title, source, revision) in CONTENT.imported {
        assert_eq!(
            read(addr, "root", id),
            Some(
                json!({"id": id, "title": title, "source": source, "revision": revision,
                        "url": format!("/documents/{id}")})
            )
        );
    }
    let c = &CONTENT.created;
    let brief: Value = serde_json::from_str(c.brief).unwrap();
    assert_eq!(
        read(addr, "ann", c.id),
        Some(json!({"id": c.id, "title": c.title, "brief": brief,
                    "source": c.source, "revision": 0,
                    "url": format!("/documents/{}", c.id)}))
    );
    // The creation's idempotency record is there: its key with this
    // request is a conflict (version 1 kept the request's fingerprint), not
    // a second document.
    let again = tool_call(
        "create_document",
        &json!({"idempotencyKey": c.key, "repository": c.repository,
                "baseBranch": "main", "baseCommit": "0123456789abcdef0123456789abcdef01234567",
                "title": c.title, "brief": brief, "plan": c.source}),
    );
    assert_eq!(
        error_content(&post_as(addr, token_of(c.caller), &again)),
        Some(json!({"code": "idempotency-conflict"}))
    );
    // The write tools on the old documents.
    let revised = success(&post_as(
        addr,
        token_of("ann"),
        &update_body("a", 3, "# Alpha\n\nRevised.\n", "after-migration"),
    ))
    .expect("updated");
    assert_eq!(revised["revision"], 4);
    let archived = tool_call("archive_document", &json!({"id": "b"}));
    assert!(success(&post_as(addr, token_of("ann"), &archived)).is_some());
    let titles: Vec<Value> = success(&list(addr, "ann", "acme/plans")).unwrap()["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].clone())
        .collect();
    assert_eq!(titles, ["Alpha", "Created in version 1"]);
}

#[test]
fn a_version_1_sqlite_file_is_migrated_at_start_by_either_server() {
    for name in SERVERS {
        let db = temp_path("schema-v1", "db");
        schema_v1::sqlite(&db);
        let server = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = server.banner.join("\n");
        assert!(banner.contains(MIGRATED), "{name}: {banner}");
        assert!(
            banner.contains("stored tokens: 2 (callers: ann, root;"),
            "{name}: {banner}"
        );
        assert!(!banner.contains("new database"), "{name}: {banner}");
        everything_is_there(server.addr);
        drop(server);
        // A later start has nothing to migrate, and finds what was written.
        let later = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = later.banner.join("\n");
        assert!(!banner.contains(MIGRATED), "{name}: {banner}");
        assert_eq!(read(later.addr, "ann", "a").unwrap()["revision"], 4);
    }
}

fn replicas_start_at_once_on_version_1(through_pgbouncer: bool) {
    let Some(cluster) = pg::shared() else { return };
    let name = cluster.new_database();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(schema_v1::postgres(&cluster.url(&name)));
    let Some(url) = pg::shared_url(&name, through_pgbouncer) else {
        return;
    };
    let replicas = at_once(4, |_| Server::start("chopin-mcp-server", &["--db", &url]));
    let migrated = replicas
        .iter()
        .filter(|r| r.banner.join("\n").contains(MIGRATED))
        .count();
    assert_eq!(
        migrated,
        1,
        "{:#?}",
        replicas.iter().map(|r| &r.banner).collect::<Vec<_>>()
    );
    for replica in &replicas {
        assert_eq!(read(replica.addr, "root", "s").unwrap()["revision"], 7);
    }
    everything_is_there(replicas[1].addr);
    // What one replica wrote, every other one reads.
    for replica in &replicas {
        assert_eq!(read(replica.addr, "ann", "a").unwrap()["revision"], 4);
    }
    let versions = cluster
        .psql(&name, "SELECT version FROM chopin_schema ORDER BY version")
        .unwrap();
    assert_eq!(versions, "1\n4");
}

#[test]
fn replicas_starting_at_once_on_a_version_1_postgres_database_migrate_it_once() {
    replicas_start_at_once_on_version_1(false);
}

#[test]
fn replicas_starting_at_once_through_pgbouncer_on_version_1_migrate_it_once() {
    replicas_start_at_once_on_version_1(true);
}
