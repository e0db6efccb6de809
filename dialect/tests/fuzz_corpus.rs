//! Replays the committed seeds of the `dialect` fuzz target
//! (`dialect/fuzz/`) through the body the target runs, so CI exercises it.
//! (`dialect_diff`'s seeds are replayed by `tests/dialect_differential.rs`
//! and `tests/dialect_micromark.rs`.)

use std::fs;
use std::path::Path;

#[test]
fn dialect_seeds_keep_their_invariants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/dialect");
    let mut count = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        chopin_dialect::fuzz::dialect(&fs::read(entry.unwrap().path()).unwrap());
        count += 1;
    }
    assert!(count > 0, "no seeds in {}", dir.display());
}
