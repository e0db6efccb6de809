//! The house's doors open one way: the workspace's import graph (read as
//! `chopin_test_support::doors` says) has no circle but the exchange state
//! machine's, inside `src/exchange/`. A new circle anywhere fails here with
//! the files and the names that tie it.

use std::path::Path;

use chopin_test_support::doors;

/// Where a circle may stand: the exchange (the pipeline, the effects that
/// carry its continuation, and the eras' framing that resumes it).
fn allowed(circle: &[String]) -> bool {
    circle.iter().all(|file| file.starts_with("src/exchange/"))
}

#[test]
fn the_only_circle_is_the_exchange_state_machine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = doors::read_workspace(&root);
    assert!(
        files.iter().any(|f| f.path == "src/exchange/dispatch.rs")
            && files.iter().any(|f| f.path == "dialect/src/lib.rs")
            && files.iter().any(|f| f.path == "server/src/main.rs"),
        "the workspace was not read from {}",
        root.display()
    );
    let edges = doors::edges(&files);
    let circles = doors::circles(&edges);
    let unexpected: Vec<String> = circles
        .iter()
        .filter(|circle| !allowed(circle))
        .map(|circle| doors::describe(circle, &edges))
        .collect();
    assert!(
        unexpected.is_empty(),
        "circles outside src/exchange/:\n{}",
        unexpected.join("\n")
    );
    // The exchange's circle is one, and legacy and modern framing stay peers.
    assert!(circles.len() <= 1, "{circles:?}");
    for pair in [
        ("src/exchange/legacy.rs", "src/exchange/modern.rs"),
        ("src/exchange/modern.rs", "src/exchange/legacy.rs"),
    ] {
        let key = (pair.0.to_owned(), pair.1.to_owned());
        assert!(!edges.contains_key(&key), "{} reaches {}", pair.0, pair.1);
    }
}

/// The rules of implementation runs are a leaf every host calls inside its
/// own transaction: they reach nothing of the crate outside their module
/// (no exchange, no tools), so no host's path can change what they decide.
#[test]
fn the_implementation_rules_are_a_leaf() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = doors::read_workspace(&root);
    assert!(
        files
            .iter()
            .any(|f| f.path == "src/implementation/state.rs"),
        "the rules were not read"
    );
    let edges = doors::edges(&files);
    let outward: Vec<String> = edges
        .keys()
        .filter(|(from, to)| {
            from.starts_with("src/implementation/") && !to.starts_with("src/implementation/")
        })
        .map(|(from, to)| format!("{from} reaches {to}"))
        .collect();
    assert!(outward.is_empty(), "{}", outward.join("\n"));
}
