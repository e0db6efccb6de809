//! Replays the committed seeds of the `fold` fuzz target
//! (`fuzz/seeds/fold/`) through the body the target runs
//! (`chopin_mcp::implementation::fuzz::fold_log`), so CI exercises it.

use std::fs;
use std::path::Path;

#[test]
fn fold_seeds_keep_their_invariants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/fold");
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        chopin_mcp::implementation::fuzz::fold_log(&fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count >= 5, "seeds missing");
}

#[test]
fn the_seed_logs_fold_as_named() {
    use chopin_mcp::implementation::{Event, Phase, Refusal, fold};
    let read = |name: &str| -> Vec<Result<Event, Refusal>> {
        let bytes = fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fuzz/seeds/fold")
                .join(name),
        )
        .unwrap();
        bytes[1..]
            .split(|&b| b == b'\n')
            .map(Event::from_json)
            .collect()
    };
    let run = chopin_mcp::implementation::Run {
        id: "R".into(),
        user: "u".into(),
        client: chopin_mcp::implementation::Client {
            name: "n".into(),
            version: "v".into(),
        },
        session: "s".into(),
        plan_revision: 1,
        graph_version: 1,
        graph_revision: 1,
        repository: "githubnext/chopin".into(),
        branch: "b".into(),
        commit: "c".into(),
        started_at: "t".into(),
    };
    let tasks = chopin_mcp::implementation::Definition::from_json(
        br#"{"tasks":[{"id":"foundation","title":"T","context":"C","goal":"G","acceptance":["A","B"],"dependsOn":[]},{"id":"delivery","title":"T","context":"C","goal":"G","acceptance":["A","B"],"dependsOn":["foundation"]}]}"#,
    )
    .unwrap()
    .tasks;
    let delivered: Vec<Event> = read("delivered").into_iter().map(Result::unwrap).collect();
    assert_eq!(
        fold(&run, &tasks, &delivered).unwrap().phase(),
        Phase::Delivered
    );
    let revision: Vec<Event> = read("revision").into_iter().map(Result::unwrap).collect();
    assert_eq!(
        fold(&run, &tasks, &revision).unwrap_err(),
        Refusal::InvalidLifecycle
    );
    assert_eq!(
        fold(&run, &tasks, &revision[..2]).unwrap().phase(),
        Phase::RevisionRequested
    );
}
