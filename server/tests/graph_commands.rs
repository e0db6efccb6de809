//! `chopin-mcp-server graph …` and `runs …` (IMPLEMENTATION.md §4): the
//! operator drafts and approves a document's graph, each refusal in §4's
//! order and limits printed with its code (exit 1, nothing stored), shows
//! versions and runs, and `runs check` refolds every stored log (exit 1
//! naming a log that does not fold). On a SQLite file a server set up, and
//! on PostgreSQL where one can be started here.

#[path = "support/pg.rs"]
mod pg;

#[path = "support/engines.rs"]
mod engines;

#[path = "support/implementation.rs"]
mod implementation;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use chopin_mcp::implementation::{Definition, Task};
use chopin_mcp_server::store::{Database, Setup, Store};
use engines::{change, doc, temp_db};
use implementation::{CALLER, DOC, claim, task, tasks};
use serde_json::{Value, json};

fn run(db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chopin-mcp-server"))
        .args(args)
        .args(["--db", db])
        .stdin(Stdio::null())
        .output()
        .expect("run the command")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A command that must succeed: its standard output.
fn ok(db: &str, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A command that must fail: its standard error.
fn refused(db: &str, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?}: {}",
        text(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    text(&out.stderr)
}

/// `definition` in a file of its own.
fn tasks_file(definition: &Definition) -> PathBuf {
    let path = temp_db("tasks").with_extension("json");
    std::fs::write(&path, serde_json::to_vec(definition).unwrap()).unwrap();
    path
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A set-up database with the seed's documents (`a` at revision 3, in
/// `acme/plans`, `ann` granted it).
async fn seeded_file() -> (Store, String) {
    let file = temp_db("graph");
    let database = Database::File(file.clone());
    let store = Store::open(&database).await.unwrap();
    store
        .setup(&Setup {
            import: vec![
                doc("a", "acme/plans", "Alpha"),
                doc("b", "acme/plans", "Beta"),
            ],
            grants: vec![(CALLER.to_owned(), vec!["acme/plans".to_owned()])],
            ..Setup::default()
        })
        .await
        .unwrap();
    (store, file.to_str().unwrap().to_owned())
}

/// `graph draft a --plan-revision 3 --tasks FILE` with provenance, plus
/// `extra`.
fn draft_args<'a>(file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "graph",
        "draft",
        DOC,
        "--plan-revision",
        "3",
        "--tasks",
        file,
        "--base-branch",
        "main",
        "--base-commit",
        "0123abcd",
    ];
    args.extend_from_slice(extra);
    args
}

fn version(line: &str) -> Value {
    serde_json::from_str(line.trim_end()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graph_is_drafted_edited_approved_and_shown() {
    let (_store, db) = seeded_file().await;
    let file = tasks_file(&tasks());
    let drafted = version(&ok(&db, &draft_args(path(&file), &[])));
    assert_eq!(
        (
            &drafted["number"],
            &drafted["revision"],
            &drafted["planRevision"],
            &drafted["state"]
        ),
        (&json!(1), &json!(1), &json!(3), &json!("draft"))
    );
    assert_eq!(
        drafted["definition"],
        serde_json::to_value(tasks()).unwrap()
    );
    // An edit names the draft's revision.
    let edited = version(&ok(
        &db,
        &draft_args(path(&file), &["--graph-revision", "1"]),
    ));
    assert_eq!(
        (&edited["number"], &edited["revision"]),
        (&json!(1), &json!(2))
    );
    assert!(
        refused(
            &db,
            &["graph", "approve", DOC, "--version", "1", "--revision", "1"]
        )
        .contains("graph: refused: not-draft")
    );
    let approved = version(&ok(
        &db,
        &["graph", "approve", DOC, "--version", "1", "--revision", "2"],
    ));
    assert_eq!(approved["state"], "approved");
    assert!(
        refused(
            &db,
            &["graph", "approve", DOC, "--version", "1", "--revision", "2"]
        )
        .contains("graph: refused: not-draft")
    );
    // A new version after the approved one; showing both.
    let next = version(&ok(
        &db,
        &draft_args(path(&file), &["--graph-revision", "2"]),
    ));
    assert_eq!((&next["number"], &next["revision"]), (&json!(2), &json!(1)));
    let shown: Vec<Value> = ok(&db, &["graph", "show", DOC])
        .lines()
        .map(version)
        .collect();
    assert_eq!(shown.len(), 2);
    assert_eq!(
        (&shown[0]["state"], &shown[1]["state"]),
        (&json!("approved"), &json!("draft"))
    );
    ok(
        &db,
        &["graph", "approve", DOC, "--version", "2", "--revision", "1"],
    );
    let shown: Vec<Value> = ok(&db, &["graph", "show", DOC])
        .lines()
        .map(version)
        .collect();
    assert_eq!(
        (&shown[0]["state"], &shown[1]["state"]),
        (&json!("superseded"), &json!("approved"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drafts_are_refused_in_order_and_store_nothing() {
    let (_store, db) = seeded_file().await;
    let good = tasks_file(&tasks());
    let good = path(&good);
    assert!(
        refused(
            &db,
            &[
                "graph",
                "draft",
                DOC,
                "--plan-revision",
                "3",
                "--tasks",
                good
            ]
        )
        .contains("no provenance: give --base-branch and --base-commit")
    );
    let stale = refused(
        &db,
        &[
            "graph",
            "draft",
            DOC,
            "--plan-revision",
            "2",
            "--tasks",
            good,
            "--base-branch",
            "main",
            "--base-commit",
            "c",
        ],
    );
    assert!(stale.contains("graph: refused: stale-plan"), "{stale}");
    assert!(
        refused(&db, &draft_args(good, &["--graph-revision", "1"]))
            .contains("graph: refused: stale-graph")
    );
    let bad = |definition: Definition| {
        let file = tasks_file(&definition);
        refused(&db, &draft_args(path(&file), &[]))
    };
    let with = |edit: &dyn Fn(&mut Vec<Task>)| {
        let mut definition = tasks();
        edit(&mut definition.tasks);
        definition
    };
    let cases: Vec<(&str, Definition)> = vec![
        ("task", with(&|t| t[0].title = "x".repeat(121))),
        ("task", with(&|t| t[1].id = " ".into())),
        (
            "task",
            with(&|t| *t = (0..201).map(|n| task(&format!("t{n}"), &[])).collect()),
        ),
        ("duplicate", with(&|t| t[1].id = "foundation".into())),
        ("acceptance", with(&|t| t[0].acceptance.truncate(1))),
        ("missing", with(&|t| t[1].depends_on = vec!["nope".into()])),
        ("self", with(&|t| t[1].depends_on = vec!["delivery".into()])),
        (
            "cycle",
            with(&|t| {
                t.push(task("x", &["y"]));
                t.push(task("y", &["x"]));
            }),
        ),
        ("root", with(&|t| t.clear())),
    ];
    for (code, definition) in cases {
        let message = bad(definition);
        assert!(
            message.contains(&format!("graph: refused: {code}")),
            "{code}: {message}"
        );
    }
    let not_json = temp_db("not-json").with_extension("json");
    std::fs::write(&not_json, br#"{"tasks":[{"id":"a"}]}"#).unwrap();
    assert!(refused(&db, &draft_args(path(&not_json), &[])).contains("graph: refused: task"));
    assert!(
        refused(
            &db,
            &[
                "graph",
                "draft",
                "nope",
                "--plan-revision",
                "3",
                "--tasks",
                good
            ]
        )
        .contains("graph: no document nope")
    );
    assert_eq!(ok(&db, &["graph", "show", DOC]), "", "nothing stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_version_and_a_moved_plan_refuse_drafts_and_approvals() {
    let (store, db) = seeded_file().await;
    let file = tasks_file(&tasks());
    ok(&db, &draft_args(path(&file), &[]));
    // The plan moves on after the draft: approving it is stale.
    store
        .update(CALLER, &change(DOC, 3, "# Moved\n", "u", "f"))
        .await
        .unwrap();
    assert!(
        refused(
            &db,
            &["graph", "approve", DOC, "--version", "1", "--revision", "1"]
        )
        .contains("graph: refused: stale-plan")
    );
    let redraft = [
        "graph",
        "draft",
        DOC,
        "--plan-revision",
        "4",
        "--graph-revision",
        "1",
        "--tasks",
        path(&file),
    ];
    ok(&db, &redraft);
    ok(
        &db,
        &["graph", "approve", DOC, "--version", "1", "--revision", "2"],
    );
    let mut claimant = implementation::claim_a("R1");
    claimant.request = chopin_mcp::implementation::ClaimRequest {
        plan_revision: 4,
        graph_version: 1,
        graph_revision: 2,
    };
    let started = store.claim(CALLER, &claimant).await.unwrap();
    assert!(
        matches!(started, chopin_mcp_server::store::ClaimOutcome::Started(_)),
        "{started:?}"
    );
    let next = [
        "graph",
        "draft",
        DOC,
        "--plan-revision",
        "4",
        "--graph-revision",
        "2",
        "--tasks",
        path(&file),
    ];
    assert!(refused(&db, &next).contains("graph: refused: locked"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_show_prints_the_runs_and_runs_check_refolds_every_log() {
    let (store, db) = seeded_file().await;
    let file = tasks_file(&tasks());
    ok(&db, &draft_args(path(&file), &[]));
    ok(
        &db,
        &["graph", "approve", DOC, "--version", "1", "--revision", "1"],
    );
    claim(&store, "R1").await;
    implementation::report(&store, "R1", "s1", implementation::start("foundation")).await;
    let life = version(&ok(&db, &["runs", "show", DOC]));
    assert_eq!(life["execution"], json!({"state":"active"}));
    assert_eq!(life["activity"]["tasks"][0]["state"], "in_progress");
    let out = run(&db, &["runs", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("checked 1 runs: every log folds"));
    // A stored event changed behind the store's back no longer folds.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE implementation_events SET body = '{\"kind\":\"start_task\"}'",
        [],
    )
    .unwrap();
    drop(conn);
    let out = run(&db, &["runs", "check"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "a R1 invalid-lifecycle\n");
    assert!(text(&out.stderr).contains("1 of 1 runs do not fold"));
    assert!(refused(&db, &["runs", "show", DOC]).contains("does not fold"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_commands_work_on_postgres() {
    let Some(cluster) = pg::shared() else {
        return;
    };
    let url = cluster.database();
    let store = Store::open(&Database::Postgres(url.clone())).await.unwrap();
    store
        .setup(&Setup {
            import: vec![doc("a", "acme/plans", "Alpha")],
            grants: vec![(CALLER.to_owned(), vec!["acme/plans".to_owned()])],
            ..Setup::default()
        })
        .await
        .unwrap();
    let file = tasks_file(&tasks());
    ok(&url, &draft_args(path(&file), &[]));
    assert!(
        refused(
            &url,
            &["graph", "approve", DOC, "--version", "1", "--revision", "9"]
        )
        .contains("graph: refused: not-draft")
    );
    ok(
        &url,
        &["graph", "approve", DOC, "--version", "1", "--revision", "1"],
    );
    claim(&store, "R1").await;
    assert_eq!(
        version(&ok(&url, &["runs", "show", DOC]))["execution"]["state"],
        "active"
    );
    ok(&url, &["runs", "check"]);
    assert!(
        refused(&url, &draft_args(path(&file), &["--graph-revision", "1"]))
            .contains("graph: refused: locked")
    );
}

#[test]
fn a_database_of_another_schema_version_is_refused_and_left_alone() {
    let db = temp_db("old-schema");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 2).unwrap();
    drop(conn);
    let db = db.to_str().unwrap();
    for args in [&["graph", "show", DOC][..], &["runs", "check"][..]] {
        let message = refused(db, args);
        assert!(
            message.contains("schema version 2, older than this server's"),
            "{args:?}: {message}"
        );
    }
    let missing = temp_db("missing");
    assert!(refused(missing.to_str().unwrap(), &["runs", "check"]).contains("no database at"));
    assert!(!missing.exists(), "a missing file is never created");
}
