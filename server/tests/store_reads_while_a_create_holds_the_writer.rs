//! A SQLite store answers reads and lists while a create holds its writer,
//! in memory as on a file. The create stops inside its transaction, its
//! document inserted and not yet committed, until the test has read: the
//! reads run on reader connections of their own (WAL), see the last commit
//! and not the insert, and see the document once the create commits.
//! Nothing is timed: a read that waited for the writer would never answer,
//! and fails the test at the deadline of `support/sqlite_shape.rs`.

#[path = "support/sqlite_shape.rs"]
mod shape;

use std::sync::{Arc, mpsc};

use chopin_mcp::Document;
use chopin_mcp_server::store::CreateOutcome;

#[test]
fn reads_and_lists_answer_while_a_create_holds_the_writer() {
    for (kind, store) in shape::stores("held-writer") {
        let (holding, held) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let creating = {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                store.create_before_commit("all", "b", &shape::draft("k"), || {
                    holding.send(()).unwrap();
                    released.recv().unwrap();
                })
            })
        };
        shape::within(&held, &format!("{kind}: the create holding the writer"));

        let (read, listed, unborn) = shape::on_another_thread(
            &store,
            &format!("{kind}: reads while the create holds the writer"),
            |store| {
                let mut document = Document {
                    archived_at: None,
                    description: None,
                    url: None,
                    id: String::new(),
                    title: String::new(),
                    brief: None,
                    source: String::new(),
                    revision: 0,
                };
                let found = store.read_into("all", "a", &mut document).unwrap();
                let unborn = store.read("all", "b").unwrap();
                (found.then_some(document), shape::listed(store), unborn)
            },
        );
        let read = read.unwrap_or_else(|| panic!("{kind}: document a not read"));
        assert_eq!(
            (read.id.as_str(), read.title.as_str()),
            ("a", "Alpha"),
            "{kind}"
        );
        assert_eq!(listed, ["a"], "{kind}: the last commit, not the insert");
        assert_eq!(unborn, None, "{kind}: the uncommitted document");

        release.send(()).unwrap();
        let outcome = creating.join().unwrap().unwrap();
        assert!(
            matches!(outcome, CreateOutcome::New(_)),
            "{kind}: {outcome:?}"
        );
        assert_eq!(shape::listed(&store), ["a", "b"], "{kind}: once committed");
        assert!(store.read("all", "b").unwrap().is_some(), "{kind}");
    }
}
