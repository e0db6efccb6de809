//! The store's rename (LIFECYCLE.md §3), on every engine (`support/
//! engines.rs`): the title replaced (the old one kept), the revision not;
//! the same title answered and nothing changed; the last rename winning;
//! titles not unique; archived and unseen documents refused; documents
//! named by id only (SURFACE.md §6: a URL names none).

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::SystemTime;

use chopin_mcp_server::store::{RenameOutcome, Store, UpdateOutcome};
use engines::{Engine, change, ids, read, seeded, update};

on_every_engine!(
    a_rename_replaces_the_title_and_keeps_the_revision,
    renaming_to_the_same_title_answers_renamed,
    the_last_rename_wins,
    titles_need_not_be_unique,
    a_rename_of_an_archived_document_is_archived,
    a_rename_of_a_document_the_caller_cannot_see_is_unavailable,
    a_rename_names_its_document_by_id_only,
    an_update_replayed_after_a_rename_answers_the_title_it_had,
);

fn renamed(id: &str, title: &str) -> RenameOutcome {
    RenameOutcome::Renamed {
        id: id.to_owned(),
        title: title.to_owned(),
    }
}

async fn rename(store: &Store, caller: &str, locator: &str, title: &str) -> RenameOutcome {
    store.rename(caller, locator, title).await.unwrap()
}

async fn a_rename_replaces_the_title_and_keeps_the_revision(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        rename(&store, "ann", "b", "Aardvark").await,
        renamed("b", "Aardvark")
    );
    let now = read(&store, "ann", "b").await;
    assert_eq!(
        (now.title.as_str(), now.source.as_str(), now.revision),
        ("Aardvark", "# Zeta\n", 3)
    );
    // Lists follow the new title's order.
    assert_eq!(ids(&store, "ann", "acme/plans").await, ["b", "a", "c"]);
    // The revision guard of an update is unaffected.
    let next = update(&store, "ann", &change("b", 3, "# Next\n", "k", "f")).await;
    assert!(matches!(next, UpdateOutcome::Updated(_)), "{next:?}");
}

async fn renaming_to_the_same_title_answers_renamed(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        rename(&store, "ann", "a", "Alpha").await,
        renamed("a", "Alpha")
    );
    let now = read(&store, "ann", "a").await;
    assert_eq!((now.title.as_str(), now.revision), ("Alpha", 3));
}

async fn the_last_rename_wins(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let racers: Vec<_> = (0..12)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move { store.rename("ann", "a", &format!("Title {n}")).await })
        })
        .collect();
    let mut answered = Vec::new();
    for racer in racers {
        match racer.await.unwrap().unwrap() {
            RenameOutcome::Renamed { id, title } => {
                assert_eq!(id, "a");
                answered.push(title);
            }
            other => panic!("{other:?}"),
        }
    }
    // No guard: every rename applied, in some order; one of them is last.
    let title = read(&store, "ann", "a").await.title;
    assert!(answered.contains(&title), "{title}");
    assert_eq!(read(&store, "ann", "a").await.revision, 3);
}

async fn titles_need_not_be_unique(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    // `a` and `c` are both Alpha already; `b` becomes one too.
    assert_eq!(
        rename(&store, "ann", "b", "Alpha").await,
        renamed("b", "Alpha")
    );
    assert_eq!(ids(&store, "ann", "acme/plans").await, ["a", "b", "c"]);
}

async fn a_rename_of_an_archived_document_is_archived(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    store
        .archive("ann", "a", SystemTime::UNIX_EPOCH)
        .await
        .unwrap();
    assert_eq!(
        rename(&store, "ann", "a", "Hidden away").await,
        RenameOutcome::Archived
    );
    store.restore("ann", "a").await.unwrap();
    assert_eq!(read(&store, "ann", "a").await.title, "Alpha");
}

async fn a_rename_of_a_document_the_caller_cannot_see_is_unavailable(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for (caller, id) in [("ann", "s"), ("ann", "missing"), ("nobody", "a")] {
        assert_eq!(
            rename(&store, caller, id, "Mine").await,
            RenameOutcome::Unavailable,
            "{caller} {id}"
        );
    }
    assert_eq!(read(&store, "root", "s").await.title, "Hidden");
    assert_eq!(read(&store, "root", "a").await.title, "Alpha");
}

async fn a_rename_names_its_document_by_id_only(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for locator in [
        "/documents/c",
        "https://plans.example/documents/c",
        "http://[::1]:3000/documents/%63",
    ] {
        assert_eq!(
            rename(&store, "ann", locator, "By URL").await,
            RenameOutcome::Unavailable,
            "{locator}"
        );
    }
    assert_eq!(read(&store, "ann", "c").await.title, "Alpha");
    assert_eq!(
        rename(&store, "ann", "c", "Three").await,
        renamed("c", "Three")
    );
    assert_eq!(read(&store, "ann", "c").await.title, "Three");
}

async fn an_update_replayed_after_a_rename_answers_the_title_it_had(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = change("a", 3, "# One\n", "k1", "f1");
    let UpdateOutcome::Updated(made) = update(&store, "ann", &first).await else {
        panic!("not updated");
    };
    rename(&store, "ann", "a", "Renamed").await;
    let UpdateOutcome::Replayed(again) = update(&store, "ann", &first).await else {
        panic!("not replayed");
    };
    assert_eq!(again.document.title, "Alpha");
    assert_eq!(again, made);
}
