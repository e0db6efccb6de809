//! The store's archive and restore (LIFECYCLE.md §4, SURFACE.md §2–§3), on
//! every engine (`support/engines.rs`): an archived document is out of
//! plain lists, listed with its time when archived documents are asked for,
//! read with its time, and refuses updates and renames until restored; archiving keeps the
//! first time (the host's, RFC 3339 UTC with milliseconds); restoring a
//! live document answers restored; nothing is lost either way; documents
//! the caller cannot see are unavailable; documents named by id or URL.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

use std::time::{Duration, SystemTime};

use chopin_mcp::DocumentSummary;
use chopin_mcp_server::store::{
    ArchiveOutcome, Listing, RestoreOutcome, Store, UpdateOutcome, timestamp,
};
use engines::{Engine, change, ids, read, seeded, update};

on_every_engine!(
    an_archived_document_leaves_plain_lists_and_is_read_with_its_time,
    a_list_with_archived_documents_gives_their_times,
    archiving_an_archived_document_answers_its_first_time,
    restoring_a_live_document_answers_restored,
    an_archived_document_keeps_its_plan_revision_and_keys,
    archive_and_restore_of_a_document_the_caller_cannot_see_are_unavailable,
    archive_and_restore_name_their_document_by_id_or_canonical_url,
);

/// 2026-08-23T12:34:56Z and `millis`.
fn at(millis: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(1_787_488_496_000 + millis)
}

fn archived(id: &str, title: &str, archived_at: &str) -> ArchiveOutcome {
    ArchiveOutcome::Archived {
        id: id.to_owned(),
        title: title.to_owned(),
        archived_at: archived_at.to_owned(),
    }
}

fn restored(id: &str, title: &str) -> RestoreOutcome {
    RestoreOutcome::Restored {
        id: id.to_owned(),
        title: title.to_owned(),
    }
}

async fn archive(store: &Store, caller: &str, locator: &str, now: SystemTime) -> ArchiveOutcome {
    store.archive(caller, locator, now).await.unwrap()
}

async fn restore(store: &Store, caller: &str, locator: &str) -> RestoreOutcome {
    store.restore(caller, locator).await.unwrap()
}

#[test]
fn times_are_written_as_rfc_3339_utc_with_milliseconds() {
    for (since_epoch, written) in [
        (0, "1970-01-01T00:00:00.000Z"),
        (1_787_488_496_000, "2026-08-23T12:34:56.000Z"),
        (1_787_488_496_007, "2026-08-23T12:34:56.007Z"),
        (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
        (951_868_800_000, "2000-03-01T00:00:00.000Z"),
        (253_402_300_799_000, "9999-12-31T23:59:59.000Z"),
    ] {
        let time = SystemTime::UNIX_EPOCH + Duration::from_millis(since_epoch);
        assert_eq!(timestamp(time), written, "{since_epoch}");
    }
    // Sub-millisecond parts are cut, not rounded.
    let time = SystemTime::UNIX_EPOCH + Duration::from_micros(1_999);
    assert_eq!(timestamp(time), "1970-01-01T00:00:00.001Z");
}

async fn an_archived_document_leaves_plain_lists_and_is_read_with_its_time(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        archive(&store, "ann", "a", at(0)).await,
        archived("a", "Alpha", "2026-08-23T12:34:56.000Z")
    );
    assert_eq!(ids(&store, "ann", "acme/plans").await, ["c", "b"]);
    for caller in ["ann", "root"] {
        let document = read(&store, caller, "a").await;
        assert_eq!(
            document.archived_at.as_deref(),
            Some("2026-08-23T12:34:56.000Z")
        );
        assert_eq!(document.title, "Alpha");
    }
    assert_eq!(store.read("nobody", "a").await.unwrap(), None);
    // A repository whose documents are all archived is an empty list.
    archive(&store, "root", "s", at(1)).await;
    assert!(ids(&store, "root", "acme/secret").await.is_empty());
    assert_eq!(restore(&store, "ann", "a").await, restored("a", "Alpha"));
    assert_eq!(ids(&store, "ann", "acme/plans").await, ["a", "c", "b"]);
    assert_eq!(read(&store, "ann", "a").await.archived_at, None);
}

async fn a_list_with_archived_documents_gives_their_times(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    archive(&store, "ann", "c", at(5)).await;
    let summary = |id: &str, title: &str, archived_at: Option<&str>| DocumentSummary {
        id: id.to_owned(),
        title: title.to_owned(),
        description: None,
        archived_at: archived_at.map(str::to_owned),
    };
    assert_eq!(
        store.list("ann", "acme/plans", true).await.unwrap(),
        Listing::Listed(vec![
            summary("a", "Alpha", None),
            summary("c", "Alpha", Some("2026-08-23T12:34:56.005Z")),
            summary("b", "Zeta", None),
        ])
    );
    assert_eq!(
        store.list("ann", "acme/plans", false).await.unwrap(),
        Listing::Listed(vec![
            summary("a", "Alpha", None),
            summary("b", "Zeta", None)
        ])
    );
    assert_eq!(
        store.list("ann", "acme/secret", true).await.unwrap(),
        Listing::Forbidden
    );
    // Every document archived: still listed when asked for.
    archive(&store, "root", "s", at(6)).await;
    let Listing::Listed(all) = store.list("root", "acme/secret", true).await.unwrap() else {
        panic!("root may list acme/secret");
    };
    assert_eq!(all.len(), 1);
}

async fn archiving_an_archived_document_answers_its_first_time(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = archive(&store, "ann", "a", at(7)).await;
    assert_eq!(first, archived("a", "Alpha", "2026-08-23T12:34:56.007Z"));
    assert_eq!(archive(&store, "root", "a", at(60_000)).await, first);
    // Restored and archived again: the new time.
    restore(&store, "ann", "a").await;
    assert_eq!(
        archive(&store, "ann", "a", at(60_000)).await,
        archived("a", "Alpha", "2026-08-23T12:35:56.000Z")
    );
}

async fn restoring_a_live_document_answers_restored(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(restore(&store, "ann", "b").await, restored("b", "Zeta"));
    assert_eq!(restore(&store, "ann", "b").await, restored("b", "Zeta"));
    assert_eq!(read(&store, "ann", "b").await.revision, 3);
}

async fn an_archived_document_keeps_its_plan_revision_and_keys(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let first = change("a", 3, "# One\n", "k1", "f1");
    let UpdateOutcome::Updated(made) = update(&store, "ann", &first).await else {
        panic!("not updated");
    };
    archive(&store, "ann", "a", at(0)).await;
    restore(&store, "ann", "a").await;
    assert_eq!(read(&store, "ann", "a").await, made.document);
    assert_eq!(
        update(&store, "ann", &first).await,
        UpdateOutcome::Replayed(made)
    );
}

async fn archive_and_restore_of_a_document_the_caller_cannot_see_are_unavailable(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    for (caller, id) in [("ann", "s"), ("ann", "missing"), ("nobody", "a")] {
        assert_eq!(
            archive(&store, caller, id, at(0)).await,
            ArchiveOutcome::Unavailable,
            "{caller} {id}"
        );
        assert_eq!(
            restore(&store, caller, id).await,
            RestoreOutcome::Unavailable,
            "{caller} {id}"
        );
    }
    assert_eq!(read(&store, "root", "s").await.title, "Hidden");
    // Archived by someone who may: still unavailable to the others.
    archive(&store, "root", "s", at(0)).await;
    assert_eq!(
        restore(&store, "ann", "s").await,
        RestoreOutcome::Unavailable
    );
    assert_eq!(store.read("ann", "s").await.unwrap(), None);
    assert!(read(&store, "root", "s").await.archived_at.is_some());
}

async fn archive_and_restore_name_their_document_by_id_or_canonical_url(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        archive(&store, "ann", "https://plans.example/documents/b", at(0)).await,
        archived("b", "Zeta", "2026-08-23T12:34:56.000Z")
    );
    assert_eq!(
        restore(&store, "ann", "/documents/b").await,
        restored("b", "Zeta")
    );
    assert_eq!(read(&store, "ann", "b").await.title, "Zeta");
}
