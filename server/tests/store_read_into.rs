//! SQLite's read into reused buffers (`Sqlite::read_into`, what the servers
//! answer `read_document` with, stepped through SQLite's C interface) gives
//! the same documents as `Sqlite::read` (through rusqlite): the same grants,
//! every field whole whatever the buffers held before, the document left as
//! it was when nothing is found, the same failures for values a document
//! cannot be; and each read sees the last commit.

use chopin_mcp::Document;
use chopin_mcp_server::store::{CreateOutcome, Draft, Imported, Setup, Sqlite};

fn doc(id: &str, repository: &str, title: &str, source: &str, revision: u64) -> Imported {
    Imported {
        id: id.to_owned(),
        repository: repository.to_owned(),
        title: title.to_owned(),
        source: source.to_owned(),
        revision,
    }
}

fn scratch() -> Document {
    Document {
        archived_at: None,
        description: None,
        url: None,
        id: String::new(),
        title: String::new(),
        brief: None,
        source: String::new(),
        revision: 0,
    }
}

/// `read_into` on `document` as an `Option`, as `read` answers.
fn read_into(store: &Sqlite, caller: &str, id: &str, document: &mut Document) -> Option<Document> {
    store
        .read_into(caller, id, document)
        .unwrap()
        .then(|| document.clone())
}

#[path = "support/store_files.rs"]
mod store_files;

/// This file's name for its databases (see `store_files`).
const PREFIX: &str = "read-into";

#[test]
fn read_into_matches_read_for_every_grant_in_memory() {
    reads_match(&Sqlite::memory().unwrap());
}

#[test]
fn read_into_matches_read_for_every_grant_in_a_file() {
    reads_match(&Sqlite::open(&store_files::fresh_file(PREFIX, "grants")).unwrap());
}

fn reads_match(store: &Sqlite) {
    let long = "# Long\n".to_owned() + &"A line of a longer plan.\n".repeat(400);
    store
        .setup(&Setup {
            grants: vec![
                ("all".to_owned(), vec!["*".to_owned()]),
                ("one".to_owned(), vec!["o/r".to_owned()]),
                ("none".to_owned(), vec!["o/else".to_owned()]),
            ],
            import: vec![
                doc(
                    "long",
                    "o/r",
                    "A long title, longer than the others",
                    &long,
                    7,
                ),
                doc("s", "o/r", "S", "# S\n", 0),
                doc(
                    "e",
                    "o/r",
                    "\"quoted\" \\ tab\t é 🎼",
                    "# É 🎼\n\u{0}nul\n",
                    3,
                ),
                doc("x", "o/other", "Elsewhere", "# Elsewhere\n", 1),
            ],
            ..Setup::default()
        })
        .unwrap();
    // A created document has the brief it was created with; an archived
    // one is read by neither.
    let created = store
        .create("all", "with-brief", &draft("o/r", "k1"))
        .unwrap();
    assert!(matches!(created, CreateOutcome::New(_)), "{created:?}");
    store.create("all", "gone", &draft("o/r", "k2")).unwrap();
    store
        .archive("all", "gone", std::time::SystemTime::UNIX_EPOCH)
        .unwrap();
    // One scratch document for every read, as a server thread keeps one:
    // a short document after a long one has nothing of the long one left,
    // a document without a brief after one with one has none.
    let mut document = scratch();
    for caller in ["all", "one", "none", "stranger"] {
        for id in [
            "long",
            "with-brief",
            "s",
            "e",
            "x",
            "missing",
            "LONG",
            "gone",
        ] {
            let expected = store.read(caller, id).unwrap();
            assert_eq!(
                read_into(store, caller, id, &mut document),
                expected,
                "{caller} {id}"
            );
        }
    }
    assert_eq!(
        read_into(store, "all", "long", &mut document)
            .unwrap()
            .source,
        long
    );
    let short = read_into(store, "all", "s", &mut document).unwrap();
    assert_eq!(
        (
            short.id.as_str(),
            short.title.as_str(),
            short.source.as_str(),
            short.revision
        ),
        ("s", "S", "# S\n", 0)
    );
    // Nothing found: the document is left as the last read left it.
    assert!(!store.read_into("one", "x", &mut document).unwrap());
    assert_eq!(document, short);
    let with_brief = read_into(store, "all", "with-brief", &mut document).unwrap();
    assert_eq!(
        with_brief.brief.map(|b| b.goal),
        Some("Read it back.".to_owned())
    );
    assert_eq!(
        read_into(store, "all", "s", &mut document).unwrap().brief,
        None
    );
}

/// A create in `repository` with a brief, under idempotency key `key`.
fn draft(repository: &str, key: &str) -> Draft {
    Draft {
        idempotency_key: key.to_owned(),
        fingerprint: key.to_owned(),
        repository: repository.to_owned(),
        title: "Created".to_owned(),
        source: "# Created\n".to_owned(),
        brief: r#"{"goal":"Read it back.","constraints":["é 🎼"],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]}"#.to_owned(),
        base: None,
    }
}

#[test]
fn a_stored_value_a_document_cannot_be_fails_read_into_as_it_fails_read() {
    let (store, path) = store_files::file_store(
        PREFIX,
        "types",
        vec![doc("a", "o/r", "fine", "# fine\n", 2)],
    );
    let raw = rusqlite::Connection::open(&path).unwrap();
    let mut document = scratch();
    // Written from outside the server: a blob title, a source that is not
    // UTF-8, then one that is a blob, a revision that is text, then one
    // that is a real number; after each, the good row again.
    for (broken, mend) in [
        (
            "UPDATE documents SET title = x'6869' WHERE id = 'a'",
            "UPDATE documents SET title = 'fine' WHERE id = 'a'",
        ),
        (
            "UPDATE documents SET source = CAST(x'66c3' AS TEXT) WHERE id = 'a'",
            "UPDATE documents SET source = '# fine\n' WHERE id = 'a'",
        ),
        (
            "UPDATE documents SET source = x'00ff' WHERE id = 'a'",
            "UPDATE documents SET source = '# fine
' WHERE id = 'a'",
        ),
        (
            "UPDATE documents SET revision = 'two' WHERE id = 'a'",
            "UPDATE documents SET revision = 2 WHERE id = 'a'",
        ),
        (
            "UPDATE documents SET revision = 2.5 WHERE id = 'a'",
            "UPDATE documents SET revision = 2 WHERE id = 'a'",
        ),
        // A created document's brief that is not one, then not text.
        (
            "UPDATE documents SET created_by = 'x', brief = '{\"goal\":' WHERE id = 'a'",
            "UPDATE documents SET created_by = NULL WHERE id = 'a'",
        ),
        (
            "UPDATE documents SET created_by = 'x', brief = x'7b7d' WHERE id = 'a'",
            "UPDATE documents SET created_by = NULL WHERE id = 'a'",
        ),
    ] {
        raw.execute_batch(broken).unwrap();
        assert!(store.read("all", "a").is_err(), "{broken}");
        assert!(
            store.read_into("all", "a", &mut document).is_err(),
            "{broken}"
        );
        raw.execute_batch(mend).unwrap();
        // The failed read left its statement ready for the next one.
        let expected = store.read("all", "a").unwrap();
        assert_eq!(expected.as_ref().map(|d| d.revision), Some(2));
        assert_eq!(
            read_into(&store, "all", "a", &mut document),
            expected,
            "after {broken}"
        );
    }
}

#[test]
fn each_read_into_sees_what_was_committed_before_it() {
    let (store, path) = store_files::file_store(
        PREFIX,
        "commits",
        vec![doc("a", "o/r", "first", "# a\n", 0)],
    );
    let mut document = scratch();
    assert!(store.read_into("all", "a", &mut document).unwrap());
    // Another connection (another process, a replica) commits between
    // reads: the read statement kept from the first holds no snapshot.
    let raw = rusqlite::Connection::open(&path).unwrap();
    for n in 1..=3u64 {
        raw.execute(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES (?1, 'o/r', ?1, '# t', ?2)",
            rusqlite::params![format!("id-{n}"), n],
        )
        .unwrap();
        raw.execute(
            "UPDATE documents SET title = ?1 WHERE id = 'a'",
            [format!("title {n}")],
        )
        .unwrap();
        let new = read_into(&store, "all", &format!("id-{n}"), &mut document).unwrap();
        assert_eq!(new.revision, n);
        assert_eq!(
            read_into(&store, "all", "a", &mut document).unwrap().title,
            format!("title {n}")
        );
    }
}
