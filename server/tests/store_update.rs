//! The store's update (LIFECYCLE.md §2), on every engine (`support/
//! engines.rs`): a compare-and-set of the revision that stores the plan as
//! the next revision and keeps the one it replaced; idempotent by caller +
//! key among updates (only an applied update records its key; a replay
//! answers the document as that update left it, whatever happened since);
//! its answers in the order of the duty (unavailable, replayed or conflict,
//! archived, revision conflict, updated); documents named by id or URL; and
//! racers on one store (a replica's pool) applying once.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::{Duration, SystemTime};

use chopin_mcp::Document;
use chopin_mcp_server::store::{CreateOutcome, Revised, Store, Update, UpdateOutcome};
use engines::{Engine, change, create, draft, draft_brief, read, seeded, update};

on_every_engine!(
    an_update_stores_the_next_revision_and_keeps_the_plan_it_replaced,
    a_retried_update_replays_the_document_as_that_update_left_it,
    a_key_reused_for_another_update_conflicts,
    update_keys_belong_to_their_caller_and_are_apart_from_create_keys,
    an_update_at_another_revision_names_the_current_one_and_records_nothing,
    an_update_of_an_archived_document_is_archived_and_records_nothing,
    an_update_of_a_document_the_caller_cannot_see_is_unavailable,
    a_replay_is_answered_before_archived_and_revision_conflicts,
    an_update_names_its_document_by_id_or_canonical_url,
    an_update_answers_the_brief_the_document_was_created_with,
    any_text_round_trips_through_an_update,
    racing_updates_of_one_key_apply_once_and_every_racer_gets_the_same_answer,
    racing_updates_with_different_keys_apply_one_and_name_its_revision,
    racing_updates_of_one_key_on_two_documents_apply_one_and_conflict_the_rest,
);

/// Document `id` of the seed as imported (revision 3, no brief).
fn seed(id: &str, title: &str) -> Document {
    Document {
        archived_at: None,
        description: None,
        url: Some(format!("/documents/{id}")),
        id: id.to_owned(),
        title: title.to_owned(),
        brief: None,
        source: format!("# {title}\n"),
        revision: 3,
    }
}

/// `update` answered `Updated`: the document it answered.
async fn updated(store: &Store, caller: &str, change: &Update) -> Revised {
    match update(store, caller, change).await {
        UpdateOutcome::Updated(revised) => revised,
        other => panic!("not updated: {other:?}"),
    }
}

async fn an_update_stores_the_next_revision_and_keeps_the_plan_it_replaced(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = change("a", 3, "# Alpha, revised\n", "k1", "f1");
    let made = updated(&store, "ann", &first).await;
    let expected = Document {
        source: "# Alpha, revised\n".to_owned(),
        revision: 4,
        ..seed("a", "Alpha")
    };
    assert_eq!(made.document, expected);
    assert_eq!(made.url, "/documents/a");
    assert_eq!(read(&store, "ann", "a").await, expected);
    // The next revision replaces it in turn.
    let second = updated(
        &store,
        "ann",
        &change("a", 4, "# Alpha, again\n", "k2", "f2"),
    )
    .await;
    assert_eq!(second.document.revision, 5);
    assert_eq!(read(&store, "ann", "a").await.source, "# Alpha, again\n");
    // Revision 4's plan was kept: the first update's replay answers it.
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made)
    );
    // Nothing else changed.
    assert_eq!(read(&store, "ann", "b").await, seed("b", "Zeta"));
}

async fn a_retried_update_replays_the_document_as_that_update_left_it(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = change("a", 3, "# Alpha, revised\n", "k1", "f1");
    let made = updated(&store, "ann", &first).await;
    // At once: the same answer.
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made.clone())
    );
    // After a rename, a later update and an archive: still revision 4, its
    // plan and the title then.
    store.rename("ann", "a", "Renamed").await.unwrap();
    updated(&store, "ann", &change("a", 4, "# Later\n", "k2", "f2")).await;
    store
        .archive("ann", "a", SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made)
    );
    // Applied once: the document is at the later revision.
    store.restore("ann", "a").await.unwrap();
    let now = read(&store, "ann", "a").await;
    assert_eq!(
        (now.title.as_str(), now.source.as_str(), now.revision),
        ("Renamed", "# Later\n", 5)
    );
}

async fn a_key_reused_for_another_update_conflicts(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    updated(&store, "ann", &change("a", 3, "# One\n", "k1", "f1")).await;
    // Another request (another fingerprint) under the key: of the same
    // document at its new revision, or of another document.
    for other in [
        change("a", 4, "# Two\n", "k1", "f2"),
        change("b", 3, "# Two\n", "k1", "f3"),
    ] {
        assert_eq!(update(&store, "ann", &other).await, UpdateOutcome::Conflict);
    }
    assert_eq!(read(&store, "ann", "a").await.revision, 4);
    assert_eq!(read(&store, "ann", "b").await, seed("b", "Zeta"));
}

async fn update_keys_belong_to_their_caller_and_are_apart_from_create_keys(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    // A create key is not an update key.
    let created = create(
        &store,
        "ann",
        "01NEW",
        &draft("k", "f-create", "acme/plans"),
    )
    .await;
    assert!(matches!(created, CreateOutcome::New(_)), "{created:?}");
    updated(&store, "ann", &change("a", 3, "# Ann\n", "k", "f-ann")).await;
    // Another caller's key is its own.
    let root = updated(&store, "root", &change("a", 4, "# Root\n", "k", "f-root")).await;
    assert_eq!(root.document.revision, 5);
}

async fn an_update_at_another_revision_names_the_current_one_and_records_nothing(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for stale in [0, 2, 4, u64::MAX] {
        assert_eq!(
            update(&store, "ann", &change("a", stale, "# Stale\n", "k1", "f1")).await,
            UpdateOutcome::RevisionConflict { current: 3 },
            "{stale}"
        );
    }
    assert_eq!(read(&store, "ann", "a").await, seed("a", "Alpha"));
    // The key was not used up: re-read, retried with it.
    let retried = updated(&store, "ann", &change("a", 3, "# Fresh\n", "k1", "f2")).await;
    assert_eq!(retried.document.revision, 4);
}

async fn an_update_of_an_archived_document_is_archived_and_records_nothing(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    store
        .archive("ann", "a", SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    let attempt = change("a", 3, "# While archived\n", "k1", "f1");
    assert_eq!(
        update(&store, "ann", &attempt).await,
        UpdateOutcome::Archived
    );
    // At any revision.
    assert_eq!(
        update(&store, "ann", &change("a", 9, "# x\n", "k2", "f2")).await,
        UpdateOutcome::Archived
    );
    store.restore("ann", "a").await.unwrap();
    assert_eq!(read(&store, "ann", "a").await, seed("a", "Alpha"));
    let after = updated(&store, "ann", &attempt).await;
    assert_eq!(after.document.revision, 4);
}

async fn an_update_of_a_document_the_caller_cannot_see_is_unavailable(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for (caller, id) in [
        ("ann", "s"),
        ("ann", "no-such-id"),
        ("nobody", "a"),
        ("ann", ""),
    ] {
        assert_eq!(
            update(&store, caller, &change(id, 3, "# No\n", "k", "f")).await,
            UpdateOutcome::Unavailable,
            "{caller} {id}"
        );
    }
    assert_eq!(read(&store, "root", "s").await, seed("s", "Hidden"));
    // Even a replay: a caller who lost the grant sees no document.
    let first = change("a", 3, "# Ann\n", "k1", "f1");
    updated(&store, "ann", &first).await;
    store
        .set_grants("ann", &["acme/other".to_owned()])
        .await
        .unwrap();
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Unavailable
    );
}

async fn a_replay_is_answered_before_archived_and_revision_conflicts(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = change("a", 3, "# One\n", "k1", "f1");
    let made = updated(&store, "ann", &first).await;
    updated(&store, "ann", &change("a", 4, "# Two\n", "k2", "f2")).await;
    store
        .archive("ann", "a", SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    // Archived, and at revision 5 (not 3): the key still decides.
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made)
    );
    assert_eq!(
        update(&store, "ann", &change("a", 3, "# Other\n", "k1", "f-other")).await,
        UpdateOutcome::Conflict
    );
}

async fn an_update_names_its_document_by_id_or_canonical_url(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let locators = [
        "/documents/a",
        "https://plans.example.com/documents/a",
        "HTTP://localhost:8080/documents/%61",
        "a",
    ];
    for (n, locator) in locators.into_iter().enumerate() {
        let revision = 3 + n as u64;
        let key = format!("k{n}");
        // A plan of its own each time: an equal one would be a no-op.
        let plan = format!("# x{n}\n");
        let made = updated(&store, "ann", &change(locator, revision, &plan, &key, &key)).await;
        assert_eq!(made.document.id, "a", "{locator}");
        assert_eq!(made.document.revision, revision + 1, "{locator}");
        assert_eq!(made.url, "/documents/a");
    }
    // Not one of the URL forms: taken as an id, which names nothing here.
    for locator in [
        "/documents/a?x=1",
        "/documents/a#top",
        "/documents/a/",
        "documents/a",
        "https:///documents/a",
        "ftp://host/documents/a",
    ] {
        assert_eq!(
            update(&store, "ann", &change(locator, 7, "# x\n", "k-url", "f")).await,
            UpdateOutcome::Unavailable,
            "{locator}"
        );
    }
}

async fn an_update_answers_the_brief_the_document_was_created_with(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    create(&store, "ann", "01NEW", &draft("c1", "f", "acme/plans")).await;
    let first = change("01NEW", 0, "# Revised\n", "k1", "f1");
    let made = updated(&store, "ann", &first).await;
    assert_eq!(made.document.brief, Some(draft_brief()));
    assert_eq!(made.document.title, "Draft");
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made.clone())
    );
    assert_eq!(read(&store, "ann", "01NEW").await, made.document);
    // An imported document has none.
    let imported = updated(&store, "ann", &change("a", 3, "# x\n", "k2", "f2")).await;
    assert_eq!(imported.document.brief, None);
}

async fn any_text_round_trips_through_an_update(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let plan = "# \0\r\n\ttext \u{202e} 🎹 \u{FFFD}\n";
    let odd = change("a", 3, plan, "k\0é", "f");
    let made = updated(&store, "ann", &odd).await;
    assert_eq!(read(&store, "ann", "a").await.source, plan);
    assert_eq!(
        update(&store, "ann", &odd).await,
        UpdateOutcome::Replayed(made)
    );
    // The key compares byte-wise: `k\0` is another key.
    let changed = format!("{plan}more\n");
    let other = updated(&store, "ann", &change("a", 4, &changed, "k\0", "f")).await;
    assert_eq!(other.document.revision, 5);
}

/// `count` updates at once, each `change(n)`, by `ann`; their answers.
async fn racing(
    store: &Store,
    count: usize,
    change: impl Fn(usize) -> Update,
) -> Vec<UpdateOutcome> {
    let racers: Vec<_> = (0..count)
        .map(|n| {
            let (store, change) = (store.clone(), change(n));
            tokio::spawn(async move { store.update("ann", &change).await.unwrap() })
        })
        .collect();
    let mut outcomes = Vec::new();
    for racer in racers {
        outcomes.push(racer.await.unwrap());
    }
    outcomes
}

async fn racing_updates_of_one_key_apply_once_and_every_racer_gets_the_same_answer(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let outcomes = racing(&store, 32, |_| change("a", 3, "# Raced\n", "race", "f")).await;
    let made: Vec<&Revised> = outcomes
        .iter()
        .filter_map(|o| match o {
            UpdateOutcome::Updated(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(made.len(), 1, "{outcomes:?}");
    for outcome in &outcomes {
        match outcome {
            UpdateOutcome::Updated(r) | UpdateOutcome::Replayed(r) => assert_eq!(r, made[0]),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(read(&store, "ann", "a").await.revision, 4);
}

async fn racing_updates_with_different_keys_apply_one_and_name_its_revision(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let outcomes = racing(&store, 8, |n| {
        let key = format!("k{n}");
        change("a", 3, &format!("# Racer {n}\n"), &key, &key)
    })
    .await;
    let made: Vec<&Revised> = outcomes
        .iter()
        .filter_map(|o| match o {
            UpdateOutcome::Updated(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(made.len(), 1, "{outcomes:?}");
    let conflicts = outcomes
        .iter()
        .filter(|o| **o == UpdateOutcome::RevisionConflict { current: 4 })
        .count();
    assert_eq!(conflicts, 7, "{outcomes:?}");
    assert_eq!(read(&store, "ann", "a").await, made[0].document);
}

async fn racing_updates_of_one_key_on_two_documents_apply_one_and_conflict_the_rest(
    engine: Engine,
) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let outcomes = racing(&store, 16, |n| {
        let id = if n % 2 == 0 { "a" } else { "b" };
        change(id, 3, &format!("# {id}\n"), "shared", id)
    })
    .await;
    let winner = outcomes
        .iter()
        .find_map(|o| match o {
            UpdateOutcome::Updated(r) => Some(r.clone()),
            _ => None,
        })
        .expect("one update applied");
    for outcome in &outcomes {
        match outcome {
            UpdateOutcome::Updated(r) | UpdateOutcome::Replayed(r) => assert_eq!(*r, winner),
            UpdateOutcome::Conflict => {}
            other => panic!("{other:?}"),
        }
    }
    let replays = outcomes
        .iter()
        .filter(|o| matches!(o, UpdateOutcome::Updated(_) | UpdateOutcome::Replayed(_)))
        .count();
    assert_eq!(replays, 8, "{outcomes:?}");
    let loser = if winner.document.id == "a" { "b" } else { "a" };
    assert_eq!(read(&store, "ann", loser).await.revision, 3);
    // Nothing waits on the loser's key afterwards: the store still writes.
    tokio::time::timeout(
        Duration::from_secs(10),
        store.rename("ann", loser, "Still writable"),
    )
    .await
    .unwrap()
    .unwrap();
}
