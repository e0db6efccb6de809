//! Bodies of the dialect's fuzz targets (`dialect/fuzz/`), kept in the crate
//! so that every build type-checks them and `cargo test` replays the
//! committed seeds through them (`tests/fuzz_corpus.rs`). Not part of the
//! public API.

use crate::{Issue, SequentialIds, check};

/// `dialect`: any plan parses or fails with exactly one `parse` issue; issue
/// offsets lie inside the plan; the canonical plan is the submitted one plus
/// 32 bytes per minted id, re-checks with the same issues, and is a fixed
/// point.
pub fn dialect(data: &[u8]) {
    let Ok(plan) = std::str::from_utf8(data) else {
        return;
    };
    let report = check(plan, &SequentialIds::new(1));
    for issue in &report.issues {
        assert!(
            issue.offset.is_none_or(|offset| offset <= plan.len()),
            "offset outside the plan"
        );
        assert_eq!(issue.offset.is_some(), issue.line.is_some());
    }
    if report.issues.iter().any(|issue| issue.code == "parse") {
        assert_eq!(report.issues.len(), 1, "a parse failure is the only issue");
        assert_eq!(report.canonical, plan);
        return;
    }
    assert_eq!(report.canonical.len(), plan.len() + 32 * report.minted);
    let again = check(&report.canonical, &SequentialIds::new(1_000));
    assert_eq!(again.minted, 0, "the canonical plan is not a fixed point");
    assert_eq!(again.canonical, report.canonical);
    let codes = |issues: &[Issue]| issues.iter().map(|issue| issue.code).collect::<Vec<_>>();
    // Same tree plus ids: the canonical plan has the same issues, except
    // that its length alone may cross the limit.
    if !codes(&report.issues).contains(&"source-too-large") {
        assert_eq!(codes(&again.issues), codes(&report.issues));
    }
}
