//! A SQLite store has several reads in progress at once, in memory as on a
//! file, and a create commits while they are: four threads (the fewest
//! reader connections a store has) each open a read transaction and wait
//! inside it until all four are inside; then a create commits without
//! waiting for them, and they end. A store whose reads took turns (one
//! connection behind a lock, as the in-memory store once was) never has
//! four inside at once. Nothing is timed: what never happens fails the test
//! at the deadline of `support/sqlite_shape.rs`.

#[path = "support/sqlite_shape.rs"]
mod shape;

use std::sync::{Arc, Condvar, Mutex, mpsc};

use chopin_mcp_server::store::CreateOutcome;

/// Reads in progress at once: at most the fewest readers a store has.
const READS: usize = 4;

/// How many reads are inside their transactions, and whether they may end.
#[derive(Default)]
struct Inside {
    count: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Inside {
    /// One more read inside; waits until the test lets the reads end.
    fn enter_and_wait(&self) {
        let mut state = self.count.lock().unwrap();
        state.0 += 1;
        self.changed.notify_all();
        let _state = self
            .changed
            .wait_timeout_while(state, shape::DEADLINE, |(_, ended)| !*ended)
            .unwrap();
    }

    /// Waits until `reads` are inside at once; how many were at the deadline.
    fn wait_for(&self, reads: usize) -> usize {
        let state = self.count.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, shape::DEADLINE, |(count, _)| *count < reads)
            .unwrap();
        state.0
    }

    fn end(&self) {
        self.count.lock().unwrap().1 = true;
        self.changed.notify_all();
    }
}

#[test]
fn four_reads_are_in_progress_at_once_and_a_create_commits_beside_them() {
    for (kind, store) in shape::stores("readers-at-once") {
        let inside = Arc::new(Inside::default());
        let (done, finished) = mpsc::channel();
        for _ in 0..READS {
            let (store, inside, done) = (Arc::clone(&store), Arc::clone(&inside), done.clone());
            std::thread::spawn(move || {
                let _ = done.send(store.in_read_transaction(|| inside.enter_and_wait()));
            });
        }
        assert_eq!(
            inside.wait_for(READS),
            READS,
            "{kind}: reads in progress at once"
        );

        let outcome = shape::on_another_thread(
            &store,
            &format!("{kind}: a create beside {READS} open reads"),
            |store| store.create("all", "b", &shape::draft("k")).unwrap(),
        );
        assert!(
            matches!(outcome, CreateOutcome::New(_)),
            "{kind}: {outcome:?}"
        );

        inside.end();
        for _ in 0..READS {
            shape::within(&finished, &format!("{kind}: a read ending")).unwrap();
        }
        assert_eq!(shape::listed(&store), ["a", "b"], "{kind}");
    }
}
