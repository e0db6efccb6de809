//! A database of schema version 3 (made and written as version 3 servers
//! did: `support/schema_v3.rs`) started by the server binaries with
//! `--grant-read reader=acme/plans`: brought to version 4 in place at
//! start, the banner says so (once: a later start has nothing to migrate),
//! and over HTTP its documents and stored tokens still answer, a grant it
//! held still writes (`ann`), and the caller the start made read-only
//! (`reader`, read and write in version 3) reads but gets
//! `repository-forbidden` on a write — on a SQLite file through both
//! servers, and on PostgreSQL (direct and through PgBouncer) by two
//! servers starting at once, which both come up, exactly one of them
//! migrating. The store's own tests are `store_schema_v3_migration.rs`.

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

#[path = "support/schema_v3.rs"]
mod schema_v3;

use std::net::SocketAddr;

use calls::{at_once, error_content, post_as, success, tool_call, update_body};
use schema_v3::token_of;
use serde_json::{Value, json};
use support::{SERVERS, Server, temp_path};

/// What the banner of the start that migrated says.
const MIGRATED: &str = "database of schema version 3 migrated in place to version 4";

/// The start's flag that makes `reader` read-only.
const GRANT_READ: [&str; 2] = ["--grant-read", "reader=acme/plans"];

fn read(addr: SocketAddr, caller: &str, id: &str) -> Option<Value> {
    success(&post_as(
        addr,
        token_of(caller),
        &tool_call("read_document", &json!({"id": id})),
    ))
}

fn titles(addr: SocketAddr, caller: &str) -> Vec<Value> {
    let body = tool_call("list_documents", &json!({"repository": "acme/plans"}));
    success(&post_as(addr, token_of(caller), &body)).expect("a list")["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].clone())
        .collect()
}

/// `reader`'s update of `a` at its revision: refused, nothing changed.
fn reader_is_forbidden(addr: SocketAddr) {
    let revision = read(addr, "reader", "a").expect("reader reads a")["revision"]
        .as_u64()
        .unwrap();
    let refused = post_as(
        addr,
        token_of("reader"),
        &update_body("a", revision, "# Not by reader\n", "reader-write"),
    );
    assert_eq!(
        error_content(&refused),
        Some(json!({"code": "repository-forbidden"})),
        "{refused}"
    );
    assert_eq!(read(addr, "root", "a").unwrap()["revision"], revision);
}

/// `ann`'s update of `a` from `revision`: applied.
fn ann_writes(addr: SocketAddr, revision: u64, key: &str) {
    let plan = format!("# Alpha\n\n{key}.\n");
    let written = success(&post_as(
        addr,
        token_of("ann"),
        &update_body("a", revision, &plan, key),
    ))
    .expect("ann's update applied");
    assert_eq!(written["revision"], revision + 1);
}

/// What the version 3 database held answers over HTTP at `addr`.
fn everything_is_there(addr: SocketAddr) {
    let expected = ["Alpha", "Created in version 3", "Zeta"];
    assert_eq!(titles(addr, "ann"), expected);
    assert_eq!(titles(addr, "reader"), expected);
    assert_eq!(read(addr, "ann", "s"), None);
    for (id, _, title, source, revision) in schema_v3::CONTENT.imported {
        let document = read(addr, "root", id).expect("root reads it");
        assert_eq!(
            (&document["title"], &document["source"]),
            (&json!(title), &json!(source))
        );
        assert!(
            document["revision"].as_i64() >= Some(revision),
            "{document}"
        );
    }
    let c = &schema_v3::CONTENT.created;
    let created = read(addr, "reader", c.id).expect("reader reads the created one");
    let brief: Value = serde_json::from_str(c.brief).unwrap();
    assert_eq!(created["brief"], brief);
}

#[test]
fn a_version_3_sqlite_file_is_brought_to_version_4_at_start_by_either_server() {
    for name in SERVERS {
        let db = temp_path("schema-v3", "db");
        schema_v3::sqlite(&db);
        let mut args = vec!["--db", db.to_str().unwrap()];
        args.extend(GRANT_READ);
        let server = Server::start(name, &args);
        let banner = server.banner.join("\n");
        assert!(banner.contains(MIGRATED), "{name}: {banner}");
        assert!(
            banner.contains("stored tokens: 3 (callers: ann, reader, root;"),
            "{name}: {banner}"
        );
        everything_is_there(server.addr);
        reader_is_forbidden(server.addr);
        ann_writes(server.addr, 3, "after-migration");
        drop(server);
        // A later start has nothing to migrate; the read-only grant stays.
        let later = Server::start(name, &["--db", db.to_str().unwrap()]);
        let banner = later.banner.join("\n");
        assert!(!banner.contains(MIGRATED), "{name}: {banner}");
        assert_eq!(read(later.addr, "ann", "a").unwrap()["revision"], 4);
        reader_is_forbidden(later.addr);
    }
}

fn two_servers_start_at_once_on_version_3(through_pgbouncer: bool) {
    let Some(cluster) = pg::shared() else { return };
    let name = cluster.new_database();
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(schema_v3::postgres(&cluster.url(&name)));
    let Some(url) = pg::shared_url(&name, through_pgbouncer) else {
        return;
    };
    let servers = at_once(2, |_| {
        Server::start(
            "chopin-mcp-server",
            &["--db", &url, GRANT_READ[0], GRANT_READ[1]],
        )
    });
    let migrated = servers
        .iter()
        .filter(|s| s.banner.join("\n").contains(MIGRATED))
        .count();
    assert_eq!(
        migrated,
        1,
        "{:#?}",
        servers.iter().map(|s| &s.banner).collect::<Vec<_>>()
    );
    for server in &servers {
        everything_is_there(server.addr);
        reader_is_forbidden(server.addr);
    }
    // What one wrote, the other reads.
    ann_writes(servers[0].addr, 3, "first");
    assert_eq!(read(servers[1].addr, "ann", "a").unwrap()["revision"], 4);
    ann_writes(servers[1].addr, 4, "second");
    assert_eq!(read(servers[0].addr, "reader", "a").unwrap()["revision"], 5);
    let versions = cluster
        .psql(&name, "SELECT version FROM chopin_schema ORDER BY version")
        .unwrap();
    assert_eq!(versions, "3\n4");
}

#[test]
fn two_servers_starting_at_once_on_a_version_3_postgres_database_both_come_up() {
    two_servers_start_at_once_on_version_3(false);
}

#[test]
fn two_servers_starting_at_once_through_pgbouncer_on_version_3_both_come_up() {
    two_servers_start_at_once_on_version_3(true);
}
