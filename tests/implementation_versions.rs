//! Graph version transitions (IMPLEMENTATION.md §1.1 and §4's `graph
//! draft` / `graph approve`): draft, edit, approve, lock, unlock, with
//! `stale-plan`, `stale-graph`, `locked` and `not-draft`.

mod common;

use chopin_mcp::implementation::{
    Definition, GraphVersion, Refusal, VersionState, approve, draft, lock, unlock,
};
use common::implementation::{fixture_tasks, task};

fn definition() -> Definition {
    Definition {
        tasks: fixture_tasks(),
    }
}

fn at(number: u64, revision: u64, plan: u64, state: VersionState) -> GraphVersion {
    GraphVersion {
        number,
        revision,
        plan_revision: plan,
        state,
        definition: definition(),
    }
}

fn refusal<T>(result: Result<T, impl Into<Refusal>>) -> Refusal {
    match result {
        Ok(_) => panic!("accepted"),
        Err(refusal) => refusal.into(),
    }
}

#[test]
fn the_first_draft_is_version_1_revision_1() {
    let version = draft(None, 3, 3, None, definition()).unwrap();
    assert_eq!(
        (
            version.number,
            version.revision,
            version.plan_revision,
            version.state
        ),
        (1, 1, 3, VersionState::Draft)
    );
    assert_eq!(
        refusal(draft(None, 3, 3, Some(1), definition())),
        Refusal::StaleGraph
    );
}

#[test]
fn editing_a_draft_needs_its_revision_and_takes_the_current_plan() {
    let current = at(2, 4, 3, VersionState::Draft);
    let edited = draft(Some(&current), 5, 5, Some(4), definition()).unwrap();
    assert_eq!(
        (
            edited.number,
            edited.revision,
            edited.plan_revision,
            edited.state
        ),
        (2, 5, 5, VersionState::Draft)
    );
    assert_eq!(
        refusal(draft(Some(&current), 5, 5, Some(3), definition())),
        Refusal::StaleGraph
    );
    assert_eq!(
        refusal(draft(Some(&current), 5, 5, None, definition())),
        Refusal::StaleGraph
    );
}

#[test]
fn drafting_after_an_approved_version_starts_the_next_number() {
    let approved = at(1, 2, 3, VersionState::Approved);
    let next = draft(Some(&approved), 3, 3, None, definition()).unwrap();
    assert_eq!((next.number, next.revision), (2, 1));
    let named = draft(Some(&approved), 3, 3, Some(2), definition()).unwrap();
    assert_eq!((named.number, named.revision), (2, 1));
    assert_eq!(
        refusal(draft(Some(&approved), 3, 3, Some(1), definition())),
        Refusal::StaleGraph
    );
}

#[test]
fn draft_refuses_stale_plan_then_stale_graph_then_locked_then_the_definition() {
    let locked = at(1, 1, 3, VersionState::Locked);
    let cyclic = Definition {
        tasks: vec![task("a", &["a"])],
    };
    assert_eq!(
        refusal(draft(Some(&locked), 3, 2, Some(9), cyclic.clone())),
        Refusal::StalePlan
    );
    assert_eq!(
        refusal(draft(Some(&locked), 3, 3, Some(9), cyclic.clone())),
        Refusal::StaleGraph
    );
    assert_eq!(
        refusal(draft(Some(&locked), 3, 3, None, cyclic.clone())),
        Refusal::Locked
    );
    let approved = at(1, 1, 3, VersionState::Approved);
    let refused = draft(Some(&approved), 3, 3, None, cyclic).unwrap_err();
    assert_eq!(
        (refused.refusal, refused.task),
        (Refusal::SelfDependency, Some(0))
    );
}

#[test]
fn approve_takes_the_latest_draft_at_its_exact_reference_on_the_current_plan() {
    let current = at(2, 3, 4, VersionState::Draft);
    let approved = approve(Some(&current), 4, 2, 3).unwrap();
    assert_eq!(approved.state, VersionState::Approved);
    assert_eq!((approved.number, approved.revision), (2, 3));
    for (number, revision) in [(2, 2), (1, 3), (3, 1)] {
        assert_eq!(
            approve(Some(&current), 4, number, revision),
            Err(Refusal::NotDraft)
        );
    }
    assert_eq!(approve(None, 4, 1, 1), Err(Refusal::NotDraft));
    assert_eq!(
        approve(Some(&at(2, 3, 4, VersionState::Approved)), 4, 2, 3),
        Err(Refusal::NotDraft)
    );
    assert_eq!(approve(Some(&current), 5, 2, 3), Err(Refusal::StalePlan));
}

#[test]
fn lock_takes_an_approved_version_and_unlock_releases_a_locked_one() {
    assert_eq!(
        lock(&at(1, 1, 3, VersionState::Approved)),
        Ok(VersionState::Locked)
    );
    for state in [
        VersionState::Draft,
        VersionState::Locked,
        VersionState::Superseded,
    ] {
        assert_eq!(lock(&at(1, 1, 3, state)), Err(Refusal::NotApproved));
    }
    assert_eq!(
        unlock(&at(1, 1, 3, VersionState::Locked)),
        VersionState::Approved
    );
    assert_eq!(
        unlock(&at(1, 1, 3, VersionState::Superseded)),
        VersionState::Superseded
    );
}

#[test]
fn a_version_is_written_as_version_in_schema_order() {
    let version = at(1, 1, 3, VersionState::Approved);
    let json = serde_json::to_string(&Definition {
        tasks: vec![task("a", &[])],
    })
    .unwrap();
    assert_eq!(
        json,
        r#"{"tasks":[{"id":"a","title":"Task a","context":"Context.","goal":"Goal.","acceptance":["First.","Second."],"dependsOn":[]}]}"#
    );
    let json = serde_json::to_string(&version).unwrap();
    assert!(
        json.starts_with(r#"{"number":1,"revision":1,"planRevision":3,"state":"approved","definition":{"tasks":[{"id":"foundation""#),
        "{json}"
    );
}
