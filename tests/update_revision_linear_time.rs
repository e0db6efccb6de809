//! update_document's revision is read in linear time however it is spelled
//! (LIFECYCLE.md §2): each adversarial spelling is read at three sizes, each
//! double the last, and the reader's steps (the bytes it walked, then those
//! of the bounded spelling it hands to the float parser) must grow by at
//! most a constant factor close to 2 per doubling. No wall-clock
//! assertions. The reading itself is held to JavaScript's on each shape.

use chopin_mcp::fuzz::revision_steps;

use chopin_test_support::linear;

fn assert_linear(family: &str, make: impl Fn(usize) -> String) {
    linear::assert_linear(family, [50_000, 100_000, 200_000], make, |text| {
        let (_, steps) = revision_steps(text);
        // Every byte is walked once; the float parser sees a bounded text.
        assert!(
            steps >= text.len() && steps <= text.len() + 840,
            "{family}: {steps} steps for {} bytes",
            text.len()
        );
        steps as u64
    });
}

#[test]
fn long_spellings_are_read_in_linear_time() {
    assert_linear("long integer", |n| format!("4{}", "0".repeat(n)));
    assert_linear("long fraction of zeros", |n| format!("4.{}", "0".repeat(n)));
    assert_linear("a far digit", |n| format!("4.{}1", "0".repeat(n)));
    assert_linear("leading zeros after the point", |n| {
        format!("0.{}4e{}", "0".repeat(n), n + 1)
    });
    assert_linear("many digits scaled down", |n| {
        format!("{}e-{}", "4".repeat(n), n - 1)
    });
    assert_linear("nines", |n| format!("3.{}", "9".repeat(n)));
    assert_linear("long exponent", |n| format!("4e{}", "0".repeat(n)));
    assert_linear("negative zero", |n| format!("-0.{}", "0".repeat(n)));
}

#[test]
fn long_spellings_read_as_javascript_reads_them() {
    let n = 200_000;
    for (text, expected) in [
        (format!("4.{}", "0".repeat(n)), Some(4)),
        (format!("4.{}1", "0".repeat(n)), Some(4)),
        (format!("0.{}4e{}", "0".repeat(n), n + 1), Some(4)),
        (format!("4{}e-{n}", "0".repeat(n)), Some(4)),
        (format!("3.{}", "9".repeat(n)), Some(4)),
        (format!("4e{}", "0".repeat(n)), Some(4)),
        (format!("-0.{}", "0".repeat(n)), Some(0)),
        (format!("-0.{}1", "0".repeat(n)), Some(0)),
        (format!("-0.{}1e{}", "0".repeat(n), n + 1), None),
        (format!("4{}", "0".repeat(n)), None),
        (format!("{}e-{}", "4".repeat(n), n - 1), None),
    ] {
        assert_eq!(revision_steps(&text).0, expected, "{:.40}…", text);
    }
}
