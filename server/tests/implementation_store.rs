//! Implementation runs through the store (IMPLEMENTATION.md §4), on every
//! engine (`support/engines.rs`): a whole run claimed and reported to its
//! delivery, each answer the document's runs as stored; a claim while a
//! run is active answers that run; replays and key conflicts; a run's end
//! unlocking its version; `read_implementation`'s visibility; and
//! `update_document` answering `document-locked` while a run is active.

#[path = "support/pg.rs"]
mod pg;

#[macro_use]
#[path = "support/engines.rs"]
mod engines;

#[path = "support/implementation.rs"]
mod implementation;

use chopin_mcp::implementation::{PrState, Refusal, VersionState};
use chopin_mcp_server::store::{
    ClaimOutcome, GraphOutcome, Loaded, ReportOutcome, Store, UpdateOutcome,
};
use engines::{Engine, change, seeded, update};
use implementation::{
    CALLER, DOC, approved, block, call, claim, claim_a, complete, report, report_pr, start, verify,
};
use serde_json::{Value, json};

on_every_engine!(
    a_whole_run_is_claimed_reported_verified_and_delivered,
    a_claim_while_a_run_is_active_answers_that_run_and_stores_nothing,
    a_replayed_call_answers_the_current_runs_and_appends_nothing,
    a_key_is_unique_in_its_document_across_runs_and_callers,
    a_refused_call_stores_nothing,
    an_update_while_a_run_is_active_is_document_locked_after_its_replay_check,
    read_implementation_shows_only_documents_with_provenance_and_an_approved_graph,
    a_caller_without_a_grant_cannot_claim_report_or_read,
    a_claim_naming_another_repository_is_forbidden,
    bound_runs_refuse_another_callers_call_before_its_key,
    a_created_document_has_its_provenance_and_an_imported_one_gets_it_from_its_first_draft,
);

/// The document's `LIFE` from `doc`, parsed.
fn life(doc: &Loaded) -> Value {
    serde_json::from_slice(&doc.life_json().expect("the logs fold")).unwrap()
}

/// An accepted call's `LIFE`.
fn accepted(outcome: ReportOutcome) -> Value {
    match outcome {
        ReportOutcome::Accepted(doc) => life(&doc),
        other => panic!("not accepted: {other:?}"),
    }
}

/// The document's rows as the operator sees them.
async fn rows(store: &Store) -> Loaded {
    store.implementation_rows(DOC).await.unwrap().unwrap()
}

/// The seed with the fixture's graph approved and run `R1` claimed.
async fn claimed(engine: Engine) -> Option<Store> {
    let (store, _) = seeded(engine).await?;
    approved(&store).await;
    let started = claim(&store, "R1").await;
    assert!(
        matches!(started, ClaimOutcome::Started(ref run) if run.id == "R1"),
        "{started:?}"
    );
    Some(store)
}

async fn a_whole_run_is_claimed_reported_verified_and_delivered(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    assert_eq!(rows(&store).await.versions[0].state, VersionState::Locked);
    accepted(report(&store, "R1", "s1", start("foundation")).await);
    let blocked = accepted(report(&store, "R1", "b1", block("foundation", "CI.")).await);
    assert_eq!(
        blocked["activity"]["tasks"][0],
        json!({"id":"foundation","state":"blocked","blocker":"CI."})
    );
    accepted(report(&store, "R1", "s1b", start("foundation")).await);
    accepted(
        report(
            &store,
            "R1",
            "p1",
            report_pr("foundation", 1, PrState::Open),
        )
        .await,
    );
    accepted(report(&store, "R1", "c1", complete("foundation")).await);
    accepted(report(&store, "R1", "s2", start("delivery")).await);
    accepted(report(&store, "R1", "p2", report_pr("delivery", 2, PrState::Open)).await);
    accepted(report(&store, "R1", "c2", complete("delivery")).await);
    let both = ["foundation", "delivery"];
    let failed = accepted(report(&store, "R1", "v1", verify(false, &both, &["foundation"])).await);
    assert_eq!(failed["execution"], json!({"state":"active"}));
    assert_eq!(failed["activity"]["tasks"][0]["state"], "in_progress");
    assert_eq!(rows(&store).await.versions[0].state, VersionState::Locked);
    accepted(report(&store, "R1", "c1b", complete("foundation")).await);
    let passed = accepted(report(&store, "R1", "v2", verify(true, &both, &[])).await);
    assert_eq!(passed["execution"], json!({"state":"idle"}));
    assert_eq!(
        passed["history"][0]["outcome"],
        json!({"kind":"implemented"})
    );
    let doc = rows(&store).await;
    assert_eq!(doc.versions[0].state, VersionState::Approved, "unlocked");
    assert!(doc.runs[0].ended_at.is_some());
    accepted(
        report(
            &store,
            "R1",
            "m1",
            report_pr("foundation", 1, PrState::Merged),
        )
        .await,
    );
    let delivered = accepted(
        report(
            &store,
            "R1",
            "m2",
            report_pr("delivery", 2, PrState::Merged),
        )
        .await,
    );
    assert_eq!(
        delivered["history"][0]["outcome"],
        json!({"kind":"delivered"})
    );
    // Every event is stored, in order, and refolds to what was answered.
    let doc = rows(&store).await;
    assert_eq!(doc.runs[0].events.len(), 13);
    assert_eq!(life(&doc), delivered);
    assert_eq!(store.runs_check().await.unwrap(), (1, Vec::new()));
    // A passed version is not claimed again.
    assert_eq!(
        claim(&store, "R2").await,
        ClaimOutcome::Refused(Refusal::AlreadyVerified)
    );
}

async fn a_claim_while_a_run_is_active_answers_that_run_and_stores_nothing(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    let mut stale = claim_a("R2");
    stale.request.plan_revision = 1;
    for asked in [claim_a("R2"), stale] {
        match store.claim(CALLER, &asked).await.unwrap() {
            ClaimOutcome::Active(run) => assert_eq!(run.id, "R1"),
            other => panic!("not active: {other:?}"),
        }
    }
    assert_eq!(rows(&store).await.runs.len(), 1);
}

async fn a_replayed_call_answers_the_current_runs_and_appends_nothing(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    let first = accepted(report(&store, "R1", "k1", start("foundation")).await);
    match report(&store, "R1", "k1", start("foundation")).await {
        ReportOutcome::Replayed(doc) => assert_eq!(life(&doc), first),
        other => panic!("not replayed: {other:?}"),
    }
    assert_eq!(rows(&store).await.runs[0].events.len(), 1);
}

async fn a_key_is_unique_in_its_document_across_runs_and_callers(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    accepted(report(&store, "R1", "k1", start("foundation")).await);
    let conflict = ReportOutcome::Refused(Refusal::IdempotencyConflict);
    assert_eq!(
        report(&store, "R1", "k1", start("delivery")).await,
        conflict
    );
    assert_eq!(
        report(&store, "R2", "k1", start("foundation")).await,
        conflict
    );
    let by_root = store
        .report("root", &call("R1", "k1", start("foundation")))
        .await
        .unwrap();
    assert_eq!(by_root, conflict);
    assert_eq!(rows(&store).await.runs[0].events.len(), 1);
}

async fn a_refused_call_stores_nothing(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    assert_eq!(
        report(&store, "R1", "k", start("delivery")).await,
        ReportOutcome::Refused(Refusal::Dependency)
    );
    assert_eq!(
        report(&store, "nope", "k", start("foundation")).await,
        ReportOutcome::Refused(Refusal::Run)
    );
    assert!(rows(&store).await.runs[0].events.is_empty());
    // The key was not taken: it is free for a call that is accepted.
    accepted(report(&store, "R1", "k", start("foundation")).await);
}

async fn an_update_while_a_run_is_active_is_document_locked_after_its_replay_check(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    approved(&store).await;
    // An update applied before the claim (revision 3 → 4) would make the
    // graph stale; apply one to another document instead, then replay it.
    let before = change("b", 3, "# Before\n", "u1", "f1");
    assert!(matches!(
        update(&store, CALLER, &before).await,
        UpdateOutcome::Updated(_)
    ));
    assert!(matches!(
        claim(&store, "R1").await,
        ClaimOutcome::Started(_)
    ));
    let locked = change(DOC, 3, "# Changed\n", "u2", "f2");
    assert_eq!(update(&store, CALLER, &locked).await, UpdateOutcome::Locked);
    // A no-op update (the same plan) is locked too.
    let same = change(
        DOC,
        3,
        &engines::read(&store, CALLER, DOC).await.source,
        "u3",
        "f3",
    );
    assert_eq!(update(&store, CALLER, &same).await, UpdateOutcome::Locked);
    assert_eq!(
        engines::read(&store, CALLER, DOC).await.revision,
        3,
        "nothing stored"
    );
    // Another document is not locked; a replay is answered before the lock.
    assert!(matches!(
        update(&store, CALLER, &before).await,
        UpdateOutcome::Replayed(_)
    ));
    // Once the run ends, the document takes updates again.
    report(
        &store,
        "R1",
        "r",
        chopin_mcp::implementation::Command::RequestRevision {
            reason: "Rethink.".into(),
        },
    )
    .await;
    assert!(matches!(
        update(&store, CALLER, &locked).await,
        UpdateOutcome::Updated(_)
    ));
}

async fn read_implementation_shows_only_documents_with_provenance_and_an_approved_graph(
    engine: Engine,
) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    assert_eq!(
        store.read_implementation(CALLER, DOC).await.unwrap(),
        None,
        "no graph"
    );
    let drafted = store
        .graph_draft(&implementation::graph(implementation::tasks(), 3, None))
        .await
        .unwrap();
    assert!(matches!(
        drafted,
        chopin_mcp_server::store::GraphOutcome::Stored(_)
    ));
    assert_eq!(
        store.read_implementation(CALLER, DOC).await.unwrap(),
        None,
        "a draft"
    );
    store.graph_approve(DOC, 1, 1, "operator").await.unwrap();
    let shown = store
        .read_implementation(CALLER, DOC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(shown.base, Some(("main".into(), "0123abcd".into())));
    assert_eq!(shown.shown_version().unwrap().number, 1);
    claim(&store, "R1").await;
    let shown = store
        .read_implementation(CALLER, DOC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(shown.shown_version().unwrap().state, VersionState::Locked);
    // Archived documents are shown too, and keep taking reports.
    store
        .archive(CALLER, DOC, std::time::SystemTime::now())
        .await
        .unwrap();
    assert!(
        store
            .read_implementation(CALLER, DOC)
            .await
            .unwrap()
            .is_some()
    );
    accepted(report(&store, "R1", "k", start("foundation")).await);
    // Another document has no provenance: not shown.
    assert_eq!(store.read_implementation(CALLER, "b").await.unwrap(), None);
}

async fn a_caller_without_a_grant_cannot_claim_report_or_read(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    assert_eq!(
        store.claim("stranger", &claim_a("R2")).await.unwrap(),
        ClaimOutcome::Unavailable
    );
    assert_eq!(
        store
            .report("stranger", &call("R1", "k", start("foundation")))
            .await
            .unwrap(),
        ReportOutcome::Unavailable
    );
    assert_eq!(
        store.read_implementation("stranger", DOC).await.unwrap(),
        None
    );
    assert!(rows(&store).await.runs[0].events.is_empty());
}

async fn a_claim_naming_another_repository_is_forbidden(engine: Engine) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    approved(&store).await;
    let mut elsewhere = claim_a("R1");
    elsewhere.repository = "acme/other".into();
    assert_eq!(
        store.claim(CALLER, &elsewhere).await.unwrap(),
        ClaimOutcome::Forbidden
    );
    assert!(rows(&store).await.runs.is_empty());
}

async fn bound_runs_refuse_another_callers_call_before_its_key(engine: Engine) {
    let Some(store) = claimed(engine).await else {
        return;
    };
    accepted(report(&store, "R1", "k1", start("foundation")).await);
    let by_root = |key: &str, bound: bool| {
        let mut asked = call("R1", key, start("foundation"));
        asked.bound = bound;
        asked
    };
    // Bound: another caller learns nothing, not even that the key is used.
    for key in ["k1", "k2"] {
        assert_eq!(
            store.report("root", &by_root(key, true)).await.unwrap(),
            ReportOutcome::Refused(Refusal::Run),
            "{key}"
        );
    }
    assert_eq!(rows(&store).await.runs[0].events.len(), 1);
    // The claimer's own calls are bound calls like any.
    let mut own = call("R1", "k3", block("foundation", "CI."));
    own.bound = true;
    accepted(store.report(CALLER, &own).await.unwrap());
    // Unbound (the default), any caller with a grant reports on the run.
    accepted(store.report("root", &by_root("k2", false)).await.unwrap());
}

async fn a_created_document_has_its_provenance_and_an_imported_one_gets_it_from_its_first_draft(
    engine: Engine,
) {
    let Some((store, _)) = seeded(engine).await else {
        return;
    };
    let mut created = engines::draft("c-1", "f", "acme/plans");
    created.base = Some(("trunk".into(), "feedface".into()));
    let id = match engines::create(&store, CALLER, "NEW", &created).await {
        chopin_mcp_server::store::CreateOutcome::New(created) => created.document.id,
        other => panic!("not created: {other:?}"),
    };
    // No --base-branch/--base-commit needed: the creation recorded them.
    let mut draft = implementation::graph(implementation::tasks(), 0, None);
    draft.locator = id.clone();
    draft.base = None;
    let drafted = store.graph_draft(&draft).await.unwrap();
    assert!(matches!(drafted, GraphOutcome::Stored(_)), "{drafted:?}");
    store.graph_approve(&id, 1, 1, "operator").await.unwrap();
    let shown = store
        .read_implementation(CALLER, &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(shown.base, Some(("trunk".into(), "feedface".into())));
    // An imported document without provenance needs it on its first draft,
    // and keeps the first it was given.
    let mut draft = implementation::graph(implementation::tasks(), 3, None);
    draft.base = None;
    assert_eq!(
        store.graph_draft(&draft).await.unwrap(),
        GraphOutcome::NoProvenance
    );
    approved(&store).await;
    let mut again = implementation::graph(implementation::tasks(), 3, Some(1));
    again.base = Some(("other".into(), "0000".into()));
    store.graph_draft(&again).await.unwrap();
    assert_eq!(
        rows(&store).await.base,
        Some(("main".into(), "0123abcd".into()))
    );
}
