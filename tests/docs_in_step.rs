//! The README shows the drive loop that opens the crate docs
//! (`docs/embedding.md`): both are compiled as doc tests, and this keeps them
//! the same code, so the README never shows a loop the crate docs moved on
//! from.

use std::fs;

/// The first ```` ```rust ```` block of a Markdown file.
fn first_rust_block(path: &str) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text
        .find("```rust\n")
        .unwrap_or_else(|| panic!("{path}: no rust block"))
        + 8;
    let len = text[start..].find("```\n").expect("the block ends");
    text[start..start + len].to_owned()
}

#[test]
fn the_readme_shows_the_crate_docs_drive_loop() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = first_rust_block(&format!("{root}/README.md"));
    let crate_docs = first_rust_block(&format!("{root}/docs/embedding.md"));
    assert!(readme.contains("Outcome::Respond(response) => break response"));
    assert_eq!(readme, crate_docs);
}

#[test]
fn neither_drive_loop_hides_lines() {
    let root = env!("CARGO_MANIFEST_DIR");
    for path in ["README.md", "docs/embedding.md"] {
        let block = first_rust_block(&format!("{root}/{path}"));
        assert!(
            !block
                .lines()
                .any(|line| line == "#" || line.starts_with("# ")),
            "{path}: the drive loop hides a line from readers"
        );
    }
}
