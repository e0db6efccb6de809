//! What writes replace stays in the store, and an operator reads it with
//! the SQL `docs/scaling.md` shows ("A document's history, archived
//! documents"): the queries are taken from the document as written and run
//! on a SQLite file, on PostgreSQL and through PgBouncer, after updates,
//! renames, an archive and an import. Their answers: every replaced plan
//! with its revision, time and caller; every replaced title (a rename to
//! the same title keeps none); who made each revision; the archived
//! documents of a repository; and the pruning statements keep each
//! document's ten newest.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::{Duration, SystemTime};

use chopin_mcp_server::store::{Database, Imported, Setup, UpdateOutcome};
use engines::{Engine, change, fresh, update};

/// The id and repository the documented queries name.
const ID: &str = "01JD2X7K4M8Q3R5T6V7W8X9Y0Z";
const REPOSITORY: &str = "example/plans";

/// The SQL block after `<!-- operator-sql: NAME -->` in docs/scaling.md.
fn documented(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scaling.md");
    let text = std::fs::read_to_string(path).unwrap();
    let marker = format!("<!-- operator-sql: {name} -->\n```sql\n");
    let start = text
        .find(&marker)
        .unwrap_or_else(|| panic!("docs/scaling.md has no {name:?} query"))
        + marker.len();
    let len = text[start..].find("```\n").expect("the block ends");
    text[start..start + len].to_owned()
}

/// Each statement's rows, each row's columns as text (NULL: `None`).
type Answers = Vec<Vec<Vec<Option<String>>>>;

/// Runs `sql` (statements separated by `;`) on the database, as an
/// operator's `sqlite3` or `psql` would.
async fn run(database: &Database, sql: &str) -> Answers {
    match database {
        Database::File(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            let mut batch = rusqlite::Batch::new(&conn, sql);
            let mut answers = Vec::new();
            while let Some(mut statement) = batch.next().unwrap() {
                let columns = statement.column_count();
                let mut rows = statement.raw_query();
                let mut answer = Vec::new();
                while let Some(row) = rows.next().unwrap() {
                    answer.push(
                        (0..columns)
                            .map(|c| match row.get_ref(c).unwrap() {
                                rusqlite::types::ValueRef::Null => None,
                                rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
                                rusqlite::types::ValueRef::Text(t) => {
                                    Some(String::from_utf8(t.to_vec()).unwrap())
                                }
                                other => panic!("{other:?}"),
                            })
                            .collect(),
                    );
                }
                answers.push(answer);
            }
            answers
        }
        Database::Postgres(url) => {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            let mut answers = vec![Vec::new()];
            for message in client.simple_query(sql).await.unwrap() {
                match message {
                    tokio_postgres::SimpleQueryMessage::Row(row) => {
                        let row = (0..row.len())
                            .map(|c| row.get(c).map(str::to_owned))
                            .collect();
                        answers.last_mut().unwrap().push(row);
                    }
                    tokio_postgres::SimpleQueryMessage::CommandComplete(_) => {
                        answers.push(Vec::new())
                    }
                    _ => {}
                }
            }
            answers.pop();
            answers
        }
        Database::Memory => unreachable!("an operator cannot reach a private memory database"),
    }
}

/// Column `column` of every row of `answer`.
fn column(answer: &[Vec<Option<String>>], column: usize) -> Vec<Option<&str>> {
    answer.iter().map(|row| row[column].as_deref()).collect()
}

/// The documented history, archive and prune queries on `engine`.
async fn operators_read_and_prune_history(engine: Engine) {
    let Some((store, database)) = fresh(engine).await else {
        return;
    };
    let imported = |id: &str, title: &str, source: &str, revision| Imported {
        id: id.to_owned(),
        repository: REPOSITORY.to_owned(),
        title: title.to_owned(),
        source: source.to_owned(),
        revision,
    };
    store
        .setup(&Setup {
            grants: vec![("ann".to_owned(), vec![REPOSITORY.to_owned()])],
            import: vec![
                imported(ID, "First", "# v0\n", 0),
                imported("other", "Other", "# o\n", 0),
            ],
            ..Setup::default()
        })
        .await
        .unwrap();
    // Twelve updates, three renames (one to the title it has), an
    // archive, and an import that replaces the plan and title.
    for revision in 0..12 {
        let key = format!("k{revision}");
        let plan = format!("# v{}\n", revision + 1);
        let outcome = update(&store, "ann", &change(ID, revision, &plan, &key, &key)).await;
        assert!(matches!(outcome, UpdateOutcome::Updated(_)), "{outcome:?}");
    }
    for title in ["Second", "Second", "Third"] {
        store.rename("ann", ID, title).await.unwrap();
    }
    let archived_at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_787_488_496_000);
    store.archive("ann", "other", archived_at).await.unwrap();
    store
        .import(&[imported(ID, "Imported", "# imported\n", 12)])
        .await
        .unwrap();

    let history = run(&database, &documented(history_query(engine))).await;
    let [plans, titles, updates] = history.as_slice() else {
        panic!("three answers: {history:?}");
    };
    let sources: Vec<String> = (0..=12).map(|n| format!("# v{n}\n")).collect();
    let revisions: Vec<String> = (0..=12).map(|n| n.to_string()).collect();
    assert_eq!(
        column(plans, 0),
        revisions
            .iter()
            .map(|r| Some(r.as_str()))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        column(plans, 3),
        sources.iter().map(|s| Some(s.as_str())).collect::<Vec<_>>()
    );
    // Replaced by ann's updates, then by the import.
    let mut by = vec![Some("ann"); 12];
    by.push(None);
    assert_eq!(column(plans, 2), by);
    assert!(column(plans, 1).iter().all(Option::is_some), "{plans:?}");
    assert_eq!(
        column(titles, 0),
        [Some("First"), Some("Second"), Some("Third")]
    );
    assert_eq!(column(titles, 2), [Some("ann"), Some("ann"), None]);
    assert_eq!(
        column(updates, 0),
        revisions[1..]
            .iter()
            .map(|r| Some(r.as_str()))
            .collect::<Vec<_>>()
    );
    assert!(column(updates, 1).iter().all(|c| *c == Some("ann")));
    assert_eq!(column(updates, 3)[11], Some("First"));

    let archived = run(&database, &documented(archived_query(engine))).await;
    assert_eq!(
        archived,
        [vec![vec![
            Some("other".to_owned()),
            Some("Other".to_owned()),
            Some("2026-08-23T12:34:56.000Z".to_owned()),
            Some("ann".to_owned()),
        ]]]
    );

    run(&database, &documented("prune")).await;
    let history = run(&database, &documented(history_query(engine))).await;
    // The ten newest replaced plans; all three titles.
    assert_eq!(column(&history[0], 0).first(), Some(&Some("3")));
    assert_eq!(history[0].len(), 10);
    assert_eq!(history[1].len(), 3);
    // The store reads on: the current document, and the newest update's
    // replay (its plan is the current one).
    let now = store.read("ann", ID).await.unwrap().unwrap();
    assert_eq!((now.title.as_str(), now.revision), ("Imported", 12));
    let replay = update(&store, "ann", &change(ID, 11, "# v12\n", "k11", "k11")).await;
    assert!(matches!(replay, UpdateOutcome::Replayed(_)), "{replay:?}");
}

fn history_query(engine: Engine) -> &'static str {
    match engine {
        Engine::File => "sqlite history",
        _ => "postgres history",
    }
}

fn archived_query(engine: Engine) -> &'static str {
    match engine {
        Engine::File => "sqlite archived",
        _ => "postgres archived",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_read_and_prune_history_on_a_sqlite_file() {
    operators_read_and_prune_history(Engine::File).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_read_and_prune_history_on_postgres() {
    operators_read_and_prune_history(Engine::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_read_and_prune_history_through_pgbouncer() {
    operators_read_and_prune_history(Engine::Pgbouncer).await;
}
