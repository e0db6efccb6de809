//! The projections of IMPLEMENTATION.md §2.3, byte for byte: `PROGRESS`
//! with and without `events`, `HIST` (at most the 20 latest ended runs,
//! oldest first, no events), `LIFE`, `IMPL`, and the claim's answer, each
//! compact JSON in schema order with absent members left out.

mod common;

use chopin_mcp::implementation::{
    Active, Claimed, DocumentHead, Ended, Implementation, Life, MAX_HISTORY, PrState,
    RepositoryHead, fold, to_json,
};
use common::implementation::{
    A, Host, complete, fixture_tasks, pr, report_pr, revise, start, verify,
};

const RUN: &str = r#"{"id":"01K2XQ7Z00000000000000RUN1","user":"allowed","client":{"name":"Codex","version":"1.2.3"},"session":"01K2XQ7Z0000000000000SESS1","planRevision":3,"graphVersion":1,"graphRevision":1,"repository":"githubnext/chopin","branch":"tq/017","commit":"deadbeef","startedAt":"2026-12-05T16:00:00.000Z"}"#;

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

#[test]
fn an_idle_document_shows_execution_and_history_only() {
    let host = Host::fixture();
    assert_eq!(
        text(host.life_json()),
        r#"{"execution":{"state":"idle"},"history":[]}"#
    );
}

#[test]
fn life_shows_the_active_runs_progress_with_its_events() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host.on_run("k1", start("foundation")).unwrap();
    host.on_run("k2", report_pr("foundation", &pr(1), PrState::Open))
        .unwrap();
    let expected = concat!(
        r#"{"execution":{"state":"active"},"activity":{"tasks":["#,
        r#"{"id":"foundation","state":"in_progress","pullRequest":{"url":"https://github.com/githubnext/chopin/pull/1","state":"open"}},"#,
        r#"{"id":"delivery","state":"queued"}],"#,
        r#""events":[{"kind":"start_task","idempotencyKey":"k1","taskId":"foundation"},"#,
        r#"{"kind":"report_pr","idempotencyKey":"k2","taskId":"foundation","url":"https://github.com/githubnext/chopin/pull/1","state":"open"}]},"#,
        r#""history":[]}"#
    );
    assert_eq!(text(host.life_json()), expected);
}

#[test]
fn history_shows_ended_runs_without_events_and_with_their_outcome() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host.on_run("r", revise("Rethink.")).unwrap();
    let expected = format!(
        concat!(
            r#"{{"execution":{{"state":"idle"}},"history":[{{"run":{run},"#,
            r#""progress":{{"tasks":[{{"id":"foundation","state":"queued"}},{{"id":"delivery","state":"queued"}}]}},"#,
            r#""outcome":{{"kind":"revision_requested","reason":"Rethink."}}}}]}}"#
        ),
        run = RUN
    );
    assert_eq!(text(host.life_json()), expected);
}

#[test]
fn history_keeps_the_20_latest_ended_runs_oldest_first() {
    let mut host = Host::fixture();
    for n in 0..25 {
        host.claim(A).unwrap();
        host.on_run(&format!("r{n}"), revise(&format!("reason {n}")))
            .unwrap();
    }
    let life = host.life();
    let history = life["history"].as_array().unwrap();
    assert_eq!(history.len(), MAX_HISTORY);
    let reasons: Vec<_> = history
        .iter()
        .map(|hist| hist["outcome"]["reason"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<_> = (5..25).map(|n| format!("reason {n}")).collect();
    assert_eq!(reasons, expected);
}

#[test]
fn verification_follows_the_tasks_in_schema_order() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    for (task, n) in [("foundation", 1), ("delivery", 2)] {
        host.on_run(&format!("s{n}"), start(task)).unwrap();
        host.on_run(&format!("p{n}"), report_pr(task, &pr(n), PrState::Open))
            .unwrap();
        host.on_run(&format!("c{n}"), complete(task, "Done."))
            .unwrap();
    }
    host.on_run(
        "v",
        verify(false, &["foundation", "delivery"], &["delivery"]),
    )
    .unwrap();
    let written = text(host.life_json());
    let verification = r#""verification":{"passed":false,"summary":"Reviewed.","reviewerMethod":"Read the diffs.","evidence":[{"taskId":"foundation","evidence":["foundation works."]},{"taskId":"delivery","evidence":["delivery works."]}],"tasksNeedingWork":["delivery"]}},"history":[]}"#;
    assert!(written.ends_with(verification), "{written}");
}

#[test]
fn implementation_shows_the_document_graph_and_the_active_run() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    host.on_run("k1", start("foundation")).unwrap();
    let (run, log) = &host.runs[0];
    let tasks = fixture_tasks();
    let state = fold(run, &tasks, log).unwrap();
    let brief = chopin_mcp::Brief {
        goal: "Ship it.".into(),
        constraints: vec!["Small.".into()],
        settled_decisions: Vec::new(),
        open_questions: Vec::new(),
        repository_findings: Vec::new(),
    };
    let document = DocumentHead {
        id: "D",
        title: "Plan",
        brief: Some(&brief),
        source: "# Plan\n",
        revision: 3,
        archived_at: None,
    };
    let repository = RepositoryHead {
        name: "githubnext/chopin",
        base_branch: "main",
        base_commit: "abc123",
    };
    let graph = &host.versions[0];
    let view = Implementation {
        document,
        repository,
        graph,
        active: Some(Active {
            run,
            state: &state,
            events: log,
        }),
        ended: &[],
    };
    let written = text(to_json(&view));
    let head = concat!(
        r##"{"document":{"id":"D","title":"Plan","brief":{"goal":"Ship it.","constraints":["Small."],"settledDecisions":[],"openQuestions":[],"repositoryFindings":[]},"source":"# Plan\n","revision":3},"##,
        r#""repository":{"name":"githubnext/chopin","baseBranch":"main","baseCommit":"abc123"},"#,
        r#""graph":{"number":1,"revision":1,"planRevision":3,"state":"locked","definition":{"tasks":[{"id":"foundation","#
    );
    assert!(written.starts_with(head), "{written}");
    let tail = format!(
        concat!(
            r#"]}}}},"execution":{{"state":"active","run":{run}}},"#,
            r#""activity":{{"tasks":[{{"id":"foundation","state":"in_progress"}},{{"id":"delivery","state":"queued"}}],"#,
            r#""events":[{{"kind":"start_task","idempotencyKey":"k1","taskId":"foundation"}}]}},"history":[]}}"#
        ),
        run = RUN
    );
    assert!(written.ends_with(&tail), "{written}");

    // Idle and archived, without a brief: no run, no activity.
    let archived = DocumentHead::<chopin_mcp::Brief> {
        id: "D",
        title: "Plan",
        brief: None,
        source: "# Plan\n",
        revision: 3,
        archived_at: Some("2026-12-05T17:00:00.000Z"),
    };
    let ended = [Ended { run, state: &state }];
    let idle = text(to_json(&Implementation {
        document: archived,
        repository,
        graph,
        active: None,
        ended: &ended,
    }));
    assert!(idle.starts_with(r##"{"document":{"id":"D","title":"Plan","source":"# Plan\n","revision":3,"archivedAt":"2026-12-05T17:00:00.000Z"},"##));
    assert!(idle.contains(r#""execution":{"state":"idle"},"history":[{"run":"#));
    assert!(!idle.contains("activity"));
    assert!(!idle.contains("events"));
}

#[test]
fn life_never_shows_the_run_itself_outside_history() {
    let mut host = Host::fixture();
    host.claim(A).unwrap();
    let life = host.life_json();
    assert!(!text(life).contains("01K2XQ7Z00000000000000RUN1"));
    let (run, log) = &host.runs[0];
    let state = fold(run, &fixture_tasks(), log).unwrap();
    let only = Life {
        active: Some(Active {
            run,
            state: &state,
            events: log,
        }),
        ended: &[],
    };
    assert_eq!(
        text(to_json(&only)),
        r#"{"execution":{"state":"active"},"activity":{"tasks":[{"id":"foundation","state":"queued"},{"id":"delivery","state":"queued"}],"events":[]},"history":[]}"#
    );
}

#[test]
fn the_claims_answer_names_started_or_active_and_the_run() {
    let mut host = Host::fixture();
    let (_, run) = host.claim(A).unwrap();
    assert_eq!(
        text(to_json(&Claimed {
            started: true,
            run: &run
        })),
        format!(r#"{{"state":"started","run":{RUN}}}"#)
    );
    assert_eq!(
        text(to_json(&Claimed {
            started: false,
            run: &run
        })),
        format!(r#"{{"state":"active","run":{RUN}}}"#)
    );
}
