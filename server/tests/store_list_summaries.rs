//! SQLite's list into one buffer (`Sqlite::list_summaries`, what the servers
//! answer `list_documents` with, stepped through SQLite's C interface) gives
//! the same summaries as `Sqlite::list` (through rusqlite): the same grants,
//! the same byte-wise order, any text, the same failures for values a
//! summary cannot be, on a file's reader connections and on the one
//! connection of a memory database; and each list sees the last commit.

use chopin_mcp_server::store::{Imported, Listing, Setup, Sqlite};

fn doc(id: &str, repository: &str, title: &str) -> Imported {
    Imported {
        id: id.to_owned(),
        repository: repository.to_owned(),
        title: title.to_owned(),
        source: format!("# {title}\n"),
        revision: 0,
    }
}

/// The summaries `list_summaries` gives; `None`: forbidden.
fn listed(store: &Sqlite, caller: &str, repository: &str) -> Option<Vec<(String, String)>> {
    match store.list_summaries(caller, repository).unwrap() {
        Listing::Listed(summaries) => Some(
            summaries
                .borrowed()
                .iter()
                .map(|s| (s.id.to_owned(), s.title.to_owned()))
                .collect(),
        ),
        Listing::Forbidden => None,
    }
}

/// The summaries `list` gives; `None`: forbidden.
fn owned(store: &Sqlite, caller: &str, repository: &str) -> Option<Vec<(String, String)>> {
    match store.list(caller, repository, false).unwrap() {
        Listing::Listed(documents) => {
            Some(documents.into_iter().map(|s| (s.id, s.title)).collect())
        }
        Listing::Forbidden => None,
    }
}

/// `all`'s summaries of `o/r` from `list_summaries`, which must answer.
fn all_of_o_r(store: &Sqlite) -> usize {
    listed(store, "all", "o/r").expect("granted").len()
}

#[path = "support/store_files.rs"]
mod store_files;

/// This file's name for its databases (see `store_files`).
const PREFIX: &str = "summaries";

/// Both lists of `all`'s `o/r` fail.
fn both_fail(store: &Sqlite) {
    assert!(store.list("all", "o/r", false).is_err());
    assert!(store.list_summaries("all", "o/r").is_err());
}

#[test]
fn list_summaries_match_list_for_every_grant_in_memory() {
    summaries_match_list(&Sqlite::memory().unwrap());
}

#[test]
fn list_summaries_match_list_for_every_grant_in_a_file() {
    summaries_match_list(&Sqlite::open(&store_files::fresh_file(PREFIX, "grants")).unwrap());
}

fn summaries_match_list(store: &Sqlite) {
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
            let expected = owned(store, caller, repository);
            assert_eq!(
                listed(store, caller, repository),
                expected,
                "{caller} {repository}"
            );
        }
    }
    // Twice: the statement kept from the first list gives the same.
    assert_eq!(listed(store, "all", "o/r"), owned(store, "all", "o/r"));
    let all = listed(store, "all", "o/r").expect("granted");
    assert_eq!(all.len(), 124);
    // Byte-wise by title, then id: "" first, then "T 0" … (ids break ties).
    assert_eq!(all[0], ("e-3".to_owned(), String::new()));
    let fives: Vec<&str> = all
        .iter()
        .filter(|(_, title)| title == "T 5")
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(fives, ["e-4", "id-114"]);
    // A repository without a grant is forbidden, a granted one without
    // documents empty.
    assert_eq!(listed(store, "one", "o/other"), None);
    assert_eq!(listed(store, "none", "o/r"), None);
    assert_eq!(listed(store, "all", "o/missing"), Some(Vec::new()));
}

#[test]
fn a_stored_title_that_is_not_utf8_fails_the_list_as_it_fails_list() {
    let (store, path) = store_files::file_store(
        PREFIX,
        "utf8",
        vec![doc("a", "o/r", "fine"), doc("b", "o/r", "also fine")],
    );
    // Text that is not UTF-8 can only come from outside the server: split a
    // two-byte character between the id and the title, end another title in
    // half a character, and split one between a title and the next id.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch(
        "UPDATE documents SET id = CAST(x'61c3' AS TEXT), title = CAST(x'a9' AS TEXT) WHERE id = 'a';",
    )
    .unwrap();
    both_fail(&store);
    raw.execute_batch("UPDATE documents SET id = 'a', title = CAST(x'66c3' AS TEXT) WHERE title = CAST(x'a9' AS TEXT);")
        .unwrap();
    both_fail(&store);
    // A character split between one summary's title and the next one's id
    // (the list is ordered by title: "a…" before "zz").
    raw.execute_batch(
        "UPDATE documents SET title = CAST(x'61c3' AS TEXT) WHERE id = 'a';
         UPDATE documents SET id = CAST(x'a9' AS TEXT), title = 'zz' WHERE id = 'b';",
    )
    .unwrap();
    both_fail(&store);
    raw.execute_batch(
        "UPDATE documents SET id = 'b', title = 'also fine' WHERE id = CAST(x'a9' AS TEXT);
         UPDATE documents SET title = 'fine again' WHERE id = 'a';",
    )
    .unwrap();
    assert_eq!(all_of_o_r(&store), 2);
}

#[test]
fn a_stored_value_that_is_not_text_fails_the_list_as_it_fails_list() {
    let (store, path) = store_files::file_store(
        PREFIX,
        "types",
        vec![doc("a", "o/r", "fine"), doc("b", "o/r", "also fine")],
    );
    // A blob keeps its type in a TEXT column (a number would be converted):
    // written from outside the server, as a title and as an id.
    let raw = rusqlite::Connection::open(&path).unwrap();
    raw.execute_batch("UPDATE documents SET title = x'6869' WHERE id = 'a';")
        .unwrap();
    both_fail(&store);
    raw.execute_batch(
        "UPDATE documents SET title = 'fine' WHERE id = 'a';
         UPDATE documents SET id = x'62' WHERE id = 'b';",
    )
    .unwrap();
    both_fail(&store);
    // SQLite lets a TEXT PRIMARY KEY be NULL.
    raw.execute_batch("UPDATE documents SET id = NULL WHERE id = x'62';")
        .unwrap();
    both_fail(&store);
    // The failed list left its statement ready for the next one.
    raw.execute_batch("UPDATE documents SET id = 'b' WHERE id IS NULL;")
        .unwrap();
    assert_eq!(listed(&store, "all", "o/r"), owned(&store, "all", "o/r"));
    assert_eq!(all_of_o_r(&store), 2);
}

#[test]
fn each_list_sees_what_was_committed_before_it() {
    let (store, path) = store_files::file_store(PREFIX, "commits", vec![doc("a", "o/r", "first")]);
    assert_eq!(all_of_o_r(&store), 1);
    // Another connection (another process, a replica) commits between
    // lists: the list statement kept from the first holds no snapshot.
    let raw = rusqlite::Connection::open(&path).unwrap();
    for n in 2..=4 {
        raw.execute(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES (?1, 'o/r', ?1, '# t', 0)",
            [format!("id-{n}")],
        )
        .unwrap();
        let listed = listed(&store, "all", "o/r");
        assert_eq!(listed.as_ref().map(Vec::len), Some(n), "{listed:?}");
        assert_eq!(listed, owned(&store, "all", "o/r"));
    }
}
