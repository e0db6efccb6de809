//! A graph definition's checks (IMPLEMENTATION.md §1 and §4's `graph
//! draft`): `task`, `duplicate`, `acceptance`, `missing`, `self`, `cycle`,
//! `root`, in that order, with the limits (≤ 200 tasks, id ≤ 128, title ≤
//! 120, other texts ≤ 5000 scalar values, 2–8 criteria).

mod common;

use chopin_mcp::implementation::{Definition, GraphRefusal, Refusal, Task};
use common::implementation::task;

fn check(tasks: Vec<Task>) -> Result<(), GraphRefusal> {
    Definition { tasks }.check()
}

fn refused(tasks: Vec<Task>) -> (Refusal, Option<usize>) {
    let refusal = check(tasks).unwrap_err();
    (refusal.refusal, refusal.task)
}

#[test]
fn the_fixture_and_a_diamond_pass() {
    check(common::implementation::fixture_tasks()).unwrap();
    check(vec![
        task("a", &[]),
        task("b", &["a"]),
        task("c", &["a"]),
        task("d", &["c", "b"]),
    ])
    .unwrap();
}

#[test]
fn texts_blank_or_over_their_limits_are_task() {
    type Spoil = fn(&mut Task);
    let cases: Vec<(&str, Spoil)> = vec![
        ("blank id", |t| t.id = " \t".into()),
        ("empty id", |t| t.id = String::new()),
        ("id of 129", |t| t.id = "a".repeat(129)),
        ("title of 121", |t| t.title = "t".repeat(121)),
        ("blank title", |t| t.title = "\u{3000}".into()),
        ("context of 5001", |t| t.context = "c".repeat(5001)),
        ("blank goal", |t| t.goal = String::new()),
    ];
    for (name, spoil) in cases {
        let mut second = task("b", &["a"]);
        spoil(&mut second);
        assert_eq!(
            refused(vec![task("a", &[]), second]),
            (Refusal::Task, Some(1)),
            "{name}"
        );
    }
}

#[test]
fn limits_count_scalar_values() {
    let mut wide = task("😀", &[]);
    wide.id = "😀".repeat(128);
    wide.title = "é".repeat(120);
    wide.goal = "😀".repeat(5000);
    wide.acceptance = vec!["😀".repeat(5000); 8];
    check(vec![wide]).unwrap();
}

#[test]
fn more_than_200_tasks_are_task() {
    let tasks = |n: usize| -> Vec<Task> {
        (0..n)
            .map(|i| {
                if i == 0 {
                    task("t0", &[])
                } else {
                    task(&format!("t{i}"), &["t0"])
                }
            })
            .collect()
    };
    check(tasks(200)).unwrap();
    assert_eq!(refused(tasks(201)).0, Refusal::Task);
}

#[test]
fn a_repeated_id_or_dependency_is_duplicate() {
    assert_eq!(
        refused(vec![task("a", &[]), task("b", &[]), task("a", &[])]),
        (Refusal::Duplicate, Some(2))
    );
    assert_eq!(
        refused(vec![task("a", &[]), task("b", &["a", "a"])]),
        (Refusal::Duplicate, Some(1))
    );
    // The same dependency named by two tasks is fine.
    check(vec![task("a", &[]), task("b", &["a"]), task("c", &["a"])]).unwrap();
}

#[test]
fn acceptance_holds_two_to_eight_criteria_none_blank() {
    for (criteria, ok) in [
        (vec!["one"], false),
        (vec!["one", "two"], true),
        (vec!["c"; 8], true),
        (vec!["c"; 9], false),
        (vec!["one", " "], false),
    ] {
        let mut t = task("a", &[]);
        t.acceptance = criteria.iter().map(|c| (*c).into()).collect();
        assert_eq!(check(vec![t]).is_ok(), ok, "{criteria:?}");
    }
    let mut long = task("a", &[]);
    long.acceptance = vec!["c".into(), "c".repeat(5001)];
    assert_eq!(refused(vec![long]), (Refusal::Acceptance, Some(0)));
}

#[test]
fn unknown_self_and_circular_dependencies_are_refused() {
    assert_eq!(
        refused(vec![task("a", &[]), task("b", &["nope"])]),
        (Refusal::Missing, Some(1))
    );
    assert_eq!(
        refused(vec![task("a", &[]), task("b", &["b"])]),
        (Refusal::SelfDependency, Some(1))
    );
    assert_eq!(
        refused(vec![
            task("root", &[]),
            task("x", &["z"]),
            task("y", &["x"]),
            task("z", &["y"]),
            task("after", &["z"]),
        ]),
        (Refusal::Cycle, Some(1))
    );
}

#[test]
fn a_graph_without_a_root_is_refused() {
    assert_eq!(refused(Vec::new()), (Refusal::Root, None));
    // Every task depending on another is a cycle first.
    assert_eq!(
        refused(vec![task("a", &["b"]), task("b", &["a"])]).0,
        Refusal::Cycle
    );
}

#[test]
fn the_checks_run_in_the_specs_order() {
    // A malformed task anywhere is `task`, before an earlier duplicate.
    let mut bad = task("c", &["nope", "c"]);
    bad.title = String::new();
    assert_eq!(
        refused(vec![task("a", &[]), task("a", &[]), bad]),
        (Refusal::Task, Some(2))
    );
    // duplicate before acceptance, acceptance before missing, missing
    // before self, self before cycle.
    let mut few = task("b", &["nope"]);
    few.acceptance.pop();
    assert_eq!(
        refused(vec![few.clone(), task("a", &[]), task("a", &[])]).0,
        Refusal::Duplicate
    );
    assert_eq!(refused(vec![task("a", &["b"]), few]).0, Refusal::Acceptance);
    assert_eq!(
        refused(vec![task("a", &["a"]), task("b", &["nope"])]).0,
        Refusal::Missing
    );
    assert_eq!(
        refused(vec![
            task("a", &["b"]),
            task("b", &["a"]),
            task("c", &["c"])
        ])
        .0,
        Refusal::SelfDependency
    );
}

#[test]
fn the_tasks_file_is_read_with_exact_keys() {
    let file = br#"{"tasks":[{"id":"a","title":"A","context":"c","goal":"g","acceptance":["x","y"],"dependsOn":[]}]}"#;
    let definition = Definition::from_json(file).unwrap();
    assert_eq!(definition.tasks[0].id, "a");
    for bad in [
        &br#"{"tasks":[{"id":"a","title":"A","context":"c","goal":"g","acceptance":["x","y"]}]}"#[..],
        br#"{"tasks":[{"id":"a","title":"A","context":"c","goal":"g","acceptance":["x","y"],"dependsOn":[],"extra":1}]}"#,
        br#"{"tasks":[],"more":[]}"#,
        br#"{"tasks":{}}"#,
        br#"[]"#,
        b"not json",
    ] {
        assert_eq!(
            Definition::from_json(bad),
            Err(Refusal::Task),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}
