//! The claim's checks (IMPLEMENTATION.md §2.4 StartImplementation) after
//! the host's own, in their order: active(run), `already-verified`,
//! `stale-plan`, `missing`, `stale-graph`, `not-approved`, `stale-plan`,
//! `run`, started; and §5's case 10.

mod common;

use chopin_mcp::implementation::{
    Claim, ClaimRequest, Claimable, Definition, GraphVersion, PrState, Refusal, VersionState,
    claim, verified,
};
use common::implementation::{
    A, Host, complete, fixture_tasks, pr, report_pr, revise, start, verify,
};

fn version(number: u64, revision: u64, plan_revision: u64, state: VersionState) -> GraphVersion {
    GraphVersion {
        number,
        revision,
        plan_revision,
        state,
        definition: Definition {
            tasks: fixture_tasks(),
        },
    }
}

fn claimable(latest: Option<&GraphVersion>, verified: bool) -> Claimable<'_> {
    Claimable {
        plan_revision: 3,
        active: None,
        latest,
        latest_verified: verified,
    }
}

fn request(plan_revision: u64, graph_version: u64, graph_revision: u64) -> ClaimRequest {
    ClaimRequest {
        plan_revision,
        graph_version,
        graph_revision,
    }
}

#[test]
fn case_10_each_stale_reference_gets_its_code() {
    let approved = version(1, 1, 3, VersionState::Approved);
    let on = |request| claim(claimable(Some(&approved), false), request);
    assert_eq!(on(request(3, 2, 1)), Err(Refusal::Run));
    assert_eq!(on(request(3, 1, 2)), Err(Refusal::StaleGraph));
    assert_eq!(on(request(2, 1, 1)), Err(Refusal::StalePlan));
    let draft = version(2, 1, 3, VersionState::Draft);
    assert_eq!(
        claim(claimable(Some(&draft), false), A),
        Err(Refusal::NotApproved)
    );
    assert_eq!(claim(claimable(None, false), A), Err(Refusal::Missing));
    assert_eq!(on(A), Ok(Claim::Start));
}

#[test]
fn an_active_run_is_answered_whatever_the_revisions() {
    let mut host = Host::fixture();
    let (_, run) = host.claim(A).unwrap();
    let locked = version(1, 1, 3, VersionState::Locked);
    let document = Claimable {
        plan_revision: 3,
        active: Some(&run),
        latest: Some(&locked),
        latest_verified: true,
    };
    assert_eq!(claim(document, request(9, 9, 9)), Ok(Claim::Active(&run)));
    // Through the host: the same run, not started again.
    let (started, again) = host.claim(request(3, 1, 9)).unwrap();
    assert!(!started);
    assert_eq!(again, run);
}

#[test]
fn each_check_comes_before_the_next() {
    let approved = version(1, 1, 3, VersionState::Approved);
    let draft_elsewhere = version(1, 1, 2, VersionState::Draft);
    let approved_elsewhere = version(1, 1, 2, VersionState::Approved);
    // already-verified before stale-plan.
    assert_eq!(
        claim(claimable(Some(&approved), true), request(2, 5, 5)),
        Err(Refusal::AlreadyVerified)
    );
    // stale-plan (the plan's revision) before missing.
    assert_eq!(
        claim(claimable(None, false), request(2, 1, 1)),
        Err(Refusal::StalePlan)
    );
    // No version: nothing verified, missing.
    assert_eq!(
        claim(claimable(None, true), request(3, 1, 1)),
        Err(Refusal::Missing)
    );
    // stale-graph before not-approved.
    assert_eq!(
        claim(claimable(Some(&draft_elsewhere), false), request(3, 1, 2)),
        Err(Refusal::StaleGraph)
    );
    // not-approved before the version's stale-plan.
    assert_eq!(
        claim(claimable(Some(&draft_elsewhere), false), request(3, 1, 1)),
        Err(Refusal::NotApproved)
    );
    // The version's stale-plan before run.
    assert_eq!(
        claim(
            claimable(Some(&approved_elsewhere), false),
            request(3, 7, 1)
        ),
        Err(Refusal::StalePlan)
    );
    assert_eq!(
        claim(claimable(Some(&approved), false), request(3, 7, 1)),
        Err(Refusal::Run)
    );
}

#[test]
fn a_version_is_verified_by_a_passed_run_on_it_only() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host.on_run("r", revise("Rethink.")).unwrap();
    let states = host.states();
    let runs = || host.runs.iter().map(|(run, _)| run).zip(&states);
    assert!(!verified(1, runs()), "a revision request verifies nothing");
    host.claim(A).unwrap();
    for (key, command) in [
        ("s1", start("foundation")),
        ("p1", report_pr("foundation", &pr(1), PrState::Open)),
        ("c1", complete("foundation", "Done.")),
        ("s2", start("delivery")),
        ("p2", report_pr("delivery", &pr(2), PrState::Open)),
        ("c2", complete("delivery", "Done.")),
        ("v", verify(true, &["foundation", "delivery"], &[])),
    ] {
        host.on_run(key, command).unwrap();
    }
    let states = host.states();
    let runs = || host.runs.iter().map(|(run, _)| run).zip(&states);
    assert!(verified(1, runs()));
    assert!(!verified(2, runs()), "another version");
}

#[test]
fn a_claim_locks_the_version_and_a_run_end_unlocks_it() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    assert_eq!(host.latest().unwrap().state, VersionState::Locked);
    host.on_run("r", revise("Rethink.")).unwrap();
    assert_eq!(host.latest().unwrap().state, VersionState::Approved);
    // A revision-requested version is claimable again.
    let (started, _) = host.claim(A).unwrap();
    assert!(started);
}
