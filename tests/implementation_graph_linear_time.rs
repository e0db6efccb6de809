//! A graph definition is checked in linear time (IMPLEMENTATION.md §4's
//! `graph draft`): each family of definitions is checked at three sizes,
//! each about double the last in bytes, and the check's own work counter
//! (a task or a dependency looked at, each pass, and every edge Kahn's
//! algorithm follows) must grow by at most a constant factor close to 2 per
//! doubling. No wall-clock assertions.

mod common;

use chopin_mcp::implementation::{Definition, Refusal, Task};
use chopin_test_support::linear;
use common::implementation::task;

fn assert_linear(
    family: &str,
    sizes: [usize; 3],
    expect: Option<Refusal>,
    make: impl Fn(usize) -> Vec<Task>,
) {
    linear::assert_linear(
        family,
        sizes,
        |n| serde_json::to_string(&Definition { tasks: make(n) }).unwrap(),
        |json| {
            let definition = Definition::from_json(json.as_bytes()).unwrap();
            let (verdict, steps) = definition.check_steps();
            assert_eq!(verdict.err().map(|r| r.refusal), expect, "{family}");
            steps
        },
    );
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("t{i}")).collect()
}

#[test]
fn chains_are_checked_in_linear_time() {
    assert_linear("a chain", [50, 100, 200], None, |n| {
        let ids = ids(n);
        (0..n)
            .map(|i| {
                let needs: Vec<&str> = ids[i.saturating_sub(1)..i]
                    .iter()
                    .map(String::as_str)
                    .collect();
                task(&ids[i], &needs)
            })
            .collect()
    });
}

#[test]
fn dense_graphs_are_checked_in_linear_time_of_their_edges() {
    // Each task needs every earlier one: n²/2 edges.
    assert_linear("every earlier task", [71, 100, 141], None, |n| {
        let ids = ids(n);
        (0..n)
            .map(|i| {
                let needs: Vec<&str> = ids[..i].iter().map(String::as_str).collect();
                task(&ids[i], &needs)
            })
            .collect()
    });
    assert_linear(
        "a cycle through every task",
        [71, 100, 141],
        Some(Refusal::Cycle),
        |n| {
            let ids = ids(n);
            (0..n)
                .map(|i| {
                    let mut needs: Vec<&str> = ids[..i].iter().map(String::as_str).collect();
                    if i == 0 {
                        needs.push(&ids[n - 1]);
                    }
                    task(&ids[i], &needs)
                })
                .collect()
        },
    );
}

#[test]
fn long_dependency_lists_are_checked_in_linear_time() {
    // One task naming many unknown tasks, each once: refused as missing.
    assert_linear(
        "many unknown dependencies",
        [10_000, 20_000, 40_000],
        Some(Refusal::Missing),
        |n| {
            let names = ids(n);
            let needs: Vec<&str> = names.iter().map(|name| &name[..]).collect();
            let mut named = task("x", &needs);
            named.id = "root".into();
            vec![task("a", &[]), named]
        },
    );
    // The same name repeated: refused as duplicate at the second.
    assert_linear(
        "a repeated dependency at the end",
        [10_000, 20_000, 40_000],
        Some(Refusal::Duplicate),
        |n| {
            let mut names = ids(n);
            names.push(names[0].clone());
            let needs: Vec<&str> = names.iter().map(String::as_str).collect();
            vec![task("a", &[]), task("b", &needs)]
        },
    );
}
