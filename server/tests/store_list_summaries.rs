//! SQLite's list into one buffer (`Sqlite::list_summaries`, what the servers
//! answer `list_documents` with) gives the same summaries as `Sqlite::list`:
//! the same grants, the same byte-wise order, any text.

use chopin_mcp_server::store::{Imported, Setup, Sqlite};

fn doc(id: &str, repository: &str, title: &str) -> Imported {
    Imported {
        id: id.to_owned(),
        repository: repository.to_owned(),
        title: title.to_owned(),
        source: format!("# {title}\n"),
        revision: 0,
    }
}

fn listed(store: &Sqlite, caller: &str, repository: &str) -> Vec<(String, String)> {
    let summaries = store.list_summaries(caller, repository).unwrap();
    summaries
        .borrowed()
        .iter()
        .map(|s| (s.id.to_owned(), s.title.to_owned()))
        .collect()
}

fn owned(store: &Sqlite, caller: &str, repository: &str) -> Vec<(String, String)> {
    let documents = store.list(caller, repository).unwrap();
    documents.into_iter().map(|s| (s.id, s.title)).collect()
}

#[test]
fn list_summaries_match_list_for_every_grant() {
    let store = Sqlite::memory().unwrap();
    let mut import: Vec<Imported> = (0..120)
        .map(|i| doc(&format!("id-{i:03}"), "o/r", &format!("T {}", 119 - i)))
        .collect();
    import.extend([
        doc("e-1", "o/r", "\"quoted\" \\ tab\t"),
        doc("e-2", "o/r", "Zebra é 🎼"),
        doc("e-3", "o/r", ""),
        doc("e-4", "o/r", "T 5"),
        doc("x-1", "o/other", "Elsewhere"),
    ]);
    store
        .setup(&Setup {
            grants: vec![
                ("all".to_owned(), vec!["*".to_owned()]),
                ("one".to_owned(), vec!["o/r".to_owned()]),
                ("none".to_owned(), vec!["o/else".to_owned()]),
            ],
            import,
            ..Setup::default()
        })
        .unwrap();
    for caller in ["all", "one", "none", "stranger"] {
        for repository in ["o/r", "o/other", "o/missing"] {
            let expected = owned(&store, caller, repository);
            assert_eq!(
                listed(&store, caller, repository),
                expected,
                "{caller} {repository}"
            );
        }
    }
    let all = listed(&store, "all", "o/r");
    assert_eq!(all.len(), 124);
    // Byte-wise by title, then id: "" first, then "T 0" … (ids break ties).
    assert_eq!(all[0], ("e-3".to_owned(), String::new()));
    let fives: Vec<&str> = all
        .iter()
        .filter(|(_, title)| title == "T 5")
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(fives, ["e-4", "id-114"]);
    assert_eq!(listed(&store, "one", "o/other"), []);
    assert_eq!(listed(&store, "none", "o/r"), []);
}

#[test]
fn a_stored_title_that_is_not_utf8_fails_the_list_as_it_fails_list() {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("summaries-utf8-{}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let store = Sqlite::open(&path).unwrap();
    store
        .setup(&Setup {
            grants: vec![("all".to_owned(), vec!["*".to_owned()])],
            import: vec![doc("a", "o/r", "fine"), doc("b", "o/r", "also fine")],
            ..Setup::default()
        })
        .unwrap();
    // Text that is not UTF-8 can only come from outside the server: split a
    // two-byte character between the id and the title, end another title in
    // half a character, and split one between a title and the next id.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "UPDATE documents SET id = CAST(x'61c3' AS TEXT), title = CAST(x'a9' AS TEXT) WHERE id = 'a';",
    )
    .unwrap();
    assert!(store.list("all", "o/r").is_err());
    assert!(store.list_summaries("all", "o/r").is_err());
    raw.execute_batch("UPDATE documents SET id = 'a', title = CAST(x'66c3' AS TEXT) WHERE title = CAST(x'a9' AS TEXT);")
        .unwrap();
    assert!(store.list("all", "o/r").is_err());
    assert!(store.list_summaries("all", "o/r").is_err());
    // A character split between one summary's title and the next one's id
    // (the list is ordered by title: "a…" before "zz").
    raw.execute_batch(
        "UPDATE documents SET title = CAST(x'61c3' AS TEXT) WHERE id = 'a';
         UPDATE documents SET id = CAST(x'a9' AS TEXT), title = 'zz' WHERE id = 'b';",
    )
    .unwrap();
    assert!(store.list("all", "o/r").is_err());
    assert!(store.list_summaries("all", "o/r").is_err());
    raw.execute_batch(
        "UPDATE documents SET id = 'b', title = 'also fine' WHERE id = CAST(x'a9' AS TEXT);
         UPDATE documents SET title = 'fine again' WHERE id = 'a';",
    )
    .unwrap();
    assert_eq!(
        store.list_summaries("all", "o/r").unwrap().borrowed().len(),
        2
    );
}
