//! A no-op update (SURFACE.md §5, on every engine): a plan equal to the
//! stored one answers `Updated` at the current revision, stores no
//! revision, and records its key, so that a retry replays it and the key
//! with another request conflicts.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use chopin_mcp_server::store::UpdateOutcome;
use engines::{Engine, change, read, seeded, update};

on_every_engine!(
    a_no_op_update_answers_the_current_revision_and_stores_none,
    a_no_op_update_records_its_key,
    a_no_op_update_still_checks_the_revision,
);

async fn a_no_op_update_answers_the_current_revision_and_stores_none(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let before = read(&store, "ann", "a").await;
    let same = change("a", 3, &before.source, "k1", "f1");
    let UpdateOutcome::Updated(made) = update(&store, "ann", &same).await else {
        panic!("not updated");
    };
    assert_eq!(made.document.revision, 3);
    assert_eq!(made.document.source, before.source);
    assert_eq!(made.url, "/documents/a");
    assert_eq!(read(&store, "ann", "a").await, before);
    // No revision was made: the next change is still made at 3, and is 4.
    let next = change("a", 3, "# Alpha, changed\n", "k2", "f2");
    let UpdateOutcome::Updated(changed) = update(&store, "ann", &next).await else {
        panic!("not updated");
    };
    assert_eq!(changed.document.revision, 4);
}

async fn a_no_op_update_records_its_key(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let same = change("a", 3, "# Alpha\n", "k1", "f1");
    let UpdateOutcome::Updated(made) = update(&store, "ann", &same).await else {
        panic!("not updated");
    };
    // Whatever happens to the document since, the retry replays.
    update(&store, "ann", &change("a", 3, "# Later\n", "k2", "f2")).await;
    assert_eq!(
        update(&store, "ann", &same).await,
        UpdateOutcome::Replayed(made)
    );
    assert_eq!(
        update(&store, "ann", &change("a", 4, "# Other\n", "k1", "f-other")).await,
        UpdateOutcome::Conflict
    );
}

async fn a_no_op_update_still_checks_the_revision(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        update(&store, "ann", &change("a", 2, "# Alpha\n", "k1", "f1")).await,
        UpdateOutcome::RevisionConflict { current: 3 }
    );
    // Refused: the key stays free.
    let UpdateOutcome::Updated(made) =
        update(&store, "ann", &change("a", 3, "# Alpha\n", "k1", "f2")).await
    else {
        panic!("not updated");
    };
    assert_eq!(made.document.revision, 3);
}
