//! A plan's whole life over HTTP (LIFECYCLE.md): `update_document`,
//! `rename_document`, `archive_document` and `restore_document` end to end,
//! with list's denial and read's brief, on every store each server serves —
//! SQLite in memory and in a file (both servers), PostgreSQL direct and
//! behind PgBouncer in transaction mode (`chopin-mcp-server`). Every answer
//! of the reference store is asked for: updated, replayed, idempotency and
//! revision conflicts, a plan with issues (nothing stored, the key still
//! free), ids and both URL forms as locators, a trimmed rename, archive and
//! restore (twice each), what an archived document looks like to lists,
//! reads, the document URL and the other writes, and what a caller without
//! a grant is told.
#![allow(clippy::disallowed_methods)] // two archives a few milliseconds apart

#[path = "interop/harness.rs"]
mod support;

#[path = "support/pg.rs"]
mod pg;

#[path = "support/calls.rs"]
mod calls;

use std::net::SocketAddr;

use calls::{
    archive_body, content, error_content, get_authorized, list_body, post, post_as, read_body,
    rename_body, restore_body, result, success, tool_call, update_body,
};
use serde_json::{Value, json};
use support::{SERVERS, Server, draft, status, temp_path};

/// A second caller, who may see `acme/plans` only.
const OTHER: &str = "other-token";
const EXTRA: [&str; 4] = ["--token", "other-token=ann", "--grant", "ann=acme/plans"];

fn call(addr: SocketAddr, body: &str) -> String {
    let response = post(addr, body);
    assert_eq!(status(&response), 200, "{body}\n{response}");
    response
}

fn updated(addr: SocketAddr, id: &str, revision: u64, plan: &str, key: &str) -> Value {
    let response = call(addr, &update_body(id, revision, plan, key));
    success(&response).unwrap_or_else(|| panic!("not updated: {response}"))
}

fn refused(addr: SocketAddr, body: &str) -> Value {
    let response = call(addr, body);
    error_content(&response).unwrap_or_else(|| panic!("not an error result: {response}"))
}

fn listed(addr: SocketAddr) -> Vec<(String, String)> {
    let listed = content(&call(addr, &list_body())).expect("a list");
    listed["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().into(),
                d["title"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn read(addr: SocketAddr, id: &str) -> Option<Value> {
    success(&call(addr, &read_body(id)))
}

/// RFC 3339 in UTC with milliseconds: `2026-08-23T12:34:56.000Z`.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    let shape = "dddd-dd-ddTdd:dd:dd.dddZ";
    bytes.len() == shape.len()
        && shape.bytes().zip(bytes).all(|(want, &got)| match want {
            b'd' => got.is_ascii_digit(),
            _ => want == got,
        })
}

/// The whole life of one plan through the server at `addr` (token
/// `allowed` for `octocat`, who may see everything, and [`OTHER`] for
/// `ann`, who may see `acme/plans` only).
fn a_plans_life(addr: SocketAddr) {
    // Created with a brief: reads give it back.
    let plan = "# Launch\n\nShip it.\n";
    let created = success(&call(
        addr,
        &tool_call(
            "create_document",
            &draft("life-create", "Launch plan", plan),
        ),
    ))
    .expect("created");
    let id = created["id"].as_str().unwrap().to_owned();
    let brief = created["brief"].clone();
    assert_eq!(brief["goal"], "g", "{created}");
    assert_eq!(read(addr, &id).expect("read")["brief"], brief);

    // Updated: the next revision, canonical (a minted id), with the brief
    // and the URL; a retry replays it byte for byte.
    let revised = "# Launch\n\n<Callout type=\"note\">\nShip it on Monday.\n</Callout>\n";
    let first = updated(addr, &id, 0, revised, "life-u1");
    assert_eq!(first["revision"], 1, "{first}");
    assert_eq!(first["title"], "Launch plan");
    assert_eq!(first["brief"], brief);
    assert_eq!(first["url"], format!("/documents/{id}"));
    let source = first["source"].as_str().unwrap().to_owned();
    assert!(source.starts_with("# Launch\n\n<Callout id=\""), "{source}");
    let again = call(addr, &update_body(&id, 0, revised, "life-u1"));
    assert_eq!(success(&again), Some(first.clone()), "{again}");

    // The key with another request; another key at the old revision.
    assert_eq!(
        refused(addr, &update_body(&id, 0, "# Other\n", "life-u1")),
        json!({"code": "idempotency-conflict"})
    );
    assert_eq!(
        refused(addr, &update_body(&id, 0, "# Late\n", "life-u2")),
        json!({"code": "revision-conflict", "revision": 1})
    );

    // A plan with issues: answered with them, nothing stored, the key not
    // taken.
    let issues = refused(addr, &update_body(&id, 1, "<Chart />\n", "life-u3"));
    assert_eq!(issues["issues"][0]["code"], "unknown-component", "{issues}");
    let now = read(addr, &id).expect("read");
    assert_eq!(
        (&now["revision"], &now["source"]),
        (&json!(1), &json!(source))
    );

    // The document named by its URL, relative and absolute.
    let by_path = updated(
        addr,
        &format!("/documents/{id}"),
        1,
        "# Launch\n\nTwo.\n",
        "life-u3",
    );
    assert_eq!(
        (&by_path["id"], &by_path["revision"]),
        (&json!(id), &json!(2))
    );
    let absolute = format!("https://plans.example/documents/{id}");
    let by_url = updated(addr, &absolute, 2, "# Launch\n\nThree.\n", "life-u4");
    assert_eq!(by_url["revision"], 3);
    let now = read(addr, &id).expect("read");
    assert_eq!(
        now,
        json!({"id": id, "title": "Launch plan", "brief": brief,
               "source": "# Launch\n\nThree.\n", "revision": 3,
               "url": format!("/documents/{id}")})
    );

    // Renamed, trimmed; the same title again changes nothing; revisions
    // count plans, not titles.
    let renamed = success(&call(addr, &rename_body(&id, "  Launch, revised  "))).unwrap();
    assert_eq!(renamed, json!({"id": id, "title": "Launch, revised"}));
    let same = success(&call(addr, &rename_body(&id, "Launch, revised"))).unwrap();
    assert_eq!(same, renamed);
    // A rename names its document by id only (SURFACE.md §6).
    assert_eq!(
        refused(addr, &rename_body(&format!("/documents/{id}"), "By path")),
        json!({"code": "document-unavailable"})
    );
    // A plan equal to the stored one: updated, at the current revision.
    let no_op = updated(addr, &id, 3, "# Launch\n\nThree.\n", "life-noop");
    assert_eq!(no_op["revision"], 3);
    assert!(listed(addr).contains(&(id.clone(), "Launch, revised".to_owned())));
    assert_eq!(read(addr, &id).unwrap()["revision"], 3);

    // Archived: out of plain lists, read with its time (SURFACE.md §3, as
    // is its URL); the other writes say so; archiving again keeps the first
    // time; an update made before still replays.
    let archived = success(&call(addr, &archive_body(&id))).unwrap();
    let at = archived["archivedAt"].as_str().unwrap().to_owned();
    assert!(is_timestamp(&at), "{archived}");
    assert_eq!(
        archived,
        json!({"id": id, "title": "Launch, revised", "archivedAt": at})
    );
    assert!(!listed(addr).iter().any(|(listed, _)| *listed == id));
    let with_archived = tool_call(
        "list_documents",
        &json!({"repository": "githubnext/chopin", "includeArchived": true}),
    );
    let all = content(&call(addr, &with_archived)).expect("a list");
    assert!(
        all["documents"]
            .as_array()
            .unwrap()
            .contains(&json!({"id": id, "title": "Launch, revised", "archivedAt": at})),
        "{all}"
    );
    let archived_read = read(addr, &id).unwrap();
    assert_eq!(archived_read["archivedAt"], json!(at));
    assert_eq!(archived_read["source"], "# Launch\n\nThree.\n");
    assert_eq!(
        status(&get_authorized(addr, &format!("/documents/{id}"))),
        200
    );
    assert_eq!(
        refused(addr, &update_body(&id, 3, "# Launch\n\nFour.\n", "life-u5")),
        json!({"code": "document-archived"})
    );
    assert_eq!(
        refused(addr, &rename_body(&id, "Renamed while archived")),
        json!({"code": "document-archived"})
    );
    std::thread::sleep(std::time::Duration::from_millis(5));
    let twice = success(&call(addr, &archive_body(&id))).unwrap();
    assert_eq!(
        twice, archived,
        "archiving again keeps the first archivedAt"
    );
    assert_eq!(
        success(&call(addr, &update_body(&id, 0, revised, "life-u1"))),
        Some(first)
    );

    // Restored: back everywhere, as it was; restoring again is restored.
    let restored = success(&call(addr, &restore_body(&absolute))).unwrap();
    assert_eq!(restored, json!({"id": id, "title": "Launch, revised"}));
    assert_eq!(success(&call(addr, &restore_body(&id))).unwrap(), restored);
    assert!(listed(addr).contains(&(id.clone(), "Launch, revised".to_owned())));
    assert_eq!(read(addr, &id).unwrap()["source"], "# Launch\n\nThree.\n");
    let url = get_authorized(addr, &format!("/documents/{id}"));
    assert!(url.ends_with("\r\n\r\n# Launch\n\nThree.\n"), "{url}");
    // The update refused while archived was not recorded: its key is free.
    assert_eq!(
        updated(addr, &id, 3, "# Launch\n\nFour.\n", "life-u5")["revision"],
        4
    );

    // A document no one has, and one this caller may not see, are the
    // same `document-unavailable` (never forbidden).
    for body in [
        update_body("no-such-document", 0, "# X\n", "life-u6"),
        rename_body("no-such-document", "X"),
        archive_body("no-such-document"),
        restore_body("no-such-document"),
    ] {
        assert_eq!(
            refused(addr, &body),
            json!({"code": "document-unavailable"})
        );
    }
    for body in [
        update_body(&id, 4, "# X\n", "life-u7"),
        rename_body(&id, "X"),
        archive_body(&id),
        restore_body(&id),
    ] {
        let response = post_as(addr, OTHER, &body);
        assert_eq!(
            error_content(&response),
            Some(json!({"code": "document-unavailable"})),
            "{response}"
        );
    }
    let hidden = post_as(addr, OTHER, &read_body(&id));
    assert_eq!(
        result(&hidden),
        Some(json!({"content": [], "isError": true}))
    );

    // A list of a repository the caller has no grant for is denied; one it
    // has, without documents, is empty.
    let denied = post_as(addr, OTHER, &list_body());
    assert_eq!(
        error_content(&denied),
        Some(json!({"code": "repository-forbidden"})),
        "{denied}"
    );
    let empty = tool_call("list_documents", &json!({"repository": "acme/plans"}));
    assert_eq!(
        success(&post_as(addr, OTHER, &empty)),
        Some(json!({"documents": []}))
    );

    // Nothing of the above touched the other document.
    let seed = read(addr, support::DOC_ID).expect("the seed document");
    assert_eq!(seed["revision"], 2);
}

/// `name` on `db` (a path, a URL or `--memory`), with the seed document and
/// the second caller.
fn serve(name: &str, db: &str) -> Server {
    let import = support::import_file();
    let mut extra = EXTRA.to_vec();
    extra.extend(["--import", import.to_str().unwrap()]);
    Server::on_db(name, db, &extra)
}

#[test]
fn every_write_tool_works_end_to_end_on_sqlite_in_memory() {
    for name in SERVERS {
        let server = serve(name, "--memory");
        a_plans_life(server.addr);
    }
}

#[test]
fn every_write_tool_works_end_to_end_on_a_sqlite_file() {
    for name in SERVERS {
        let db = temp_path("lifecycle", "db");
        let server = serve(name, db.to_str().unwrap());
        a_plans_life(server.addr);
    }
}

#[test]
fn every_write_tool_works_end_to_end_on_postgres() {
    let Some(cluster) = pg::shared() else { return };
    let server = serve("chopin-mcp-server", &cluster.database());
    a_plans_life(server.addr);
}

#[test]
fn every_write_tool_works_end_to_end_through_pgbouncer() {
    let Some(cluster) = pg::shared() else { return };
    let Some(bouncer) = pg::shared_bouncer() else {
        return;
    };
    let url = bouncer.url(&cluster.new_database());
    let server = serve("chopin-mcp-server", &url);
    a_plans_life(server.addr);
}

#[test]
fn a_read_only_server_offers_no_write_tool_and_a_read_write_one_all_four() {
    let tools_list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for name in SERVERS {
        let server = Server::seeded_with(name, &["--read-only"]);
        let line = server.banner_line("mode: ").unwrap();
        assert_eq!(line, "read-only (no write tool is offered)", "{name}");
        let listed = result(&call(server.addr, tools_list)).unwrap();
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        // IMPLEMENTATION.md §2.1: a read-only server's implementation
        // tool is read_implementation alone.
        assert_eq!(
            names,
            ["list_documents", "read_document", "read_implementation"],
            "{name}"
        );
        for body in [
            update_body(support::DOC_ID, 2, "# X\n", "ro-1"),
            rename_body(support::DOC_ID, "X"),
            archive_body(support::DOC_ID),
            restore_body(support::DOC_ID),
        ] {
            let response = call(server.addr, &body);
            assert!(
                response.ends_with(r#""error":{"code":-32601,"message":"tool not found"}}"#),
                "{name}: {response}"
            );
        }
        assert_eq!(read(server.addr, support::DOC_ID).unwrap()["revision"], 2);
        let read_write = Server::seeded(name);
        let names = result(&call(read_write.addr, tools_list)).unwrap()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>();
        assert_eq!(
            names,
            [
                "list_documents",
                "read_document",
                "create_document",
                "update_document",
                "rename_document",
                "archive_document",
                "restore_document",
                "upload_image",
                "read_implementation",
                "start_implementation",
                "start_task",
                "block_task",
                "report_pr",
                "complete_task",
                "report_verification",
                "request_revision",
            ],
            "{name}"
        );
        let line = read_write.banner_line("mode: ").unwrap();
        assert_eq!(
            line,
            "read-write (offered: create_document, update_document, rename_document, \
             archive_document, restore_document, upload_image)",
            "{name}"
        );
    }
}
