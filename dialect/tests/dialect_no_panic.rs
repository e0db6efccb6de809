//! No input may panic: deterministic random inputs (bytes from a skewed
//! alphabet of syntax characters, multi-byte and astral characters, line
//! endings) go through the whole pipeline.

use chopin_dialect::SequentialIds;
use chopin_dialect::check;

const ALPHABET: &[&str] = &[
    "<", ">", "/", "{", "}", "\"", "'", "=", "[", "]", "(", ")", "!", "^", "*", "_", "~", "`", "$",
    "&", "#", ";", "\\", "|", "-", ":", ".", " ", "\t", "\n", "\r", "\r\n", "a", "B", "1", "é",
    "😀", "𝔘", "\u{a0}", "\u{feff}", "\u{200b}", "\u{2028}", "Callout", "Research", "id", "x", "0",
];

#[test]
fn random_inputs_never_panic() {
    run(0x2545_f491_4f6c_dd1d, 20_000, 64);
}

/// A longer run for local hunting: `cargo test --test dialect_no_panic --
/// --ignored`.
#[test]
#[ignore]
fn many_random_inputs_never_panic() {
    for seed in 1..=20u64 {
        run(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 50_000, 200);
    }
}

fn run(seed: u64, cases: usize, max_len: usize) {
    let mut state = seed | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    let mut outcomes = [0usize; 2];
    for _ in 0..cases {
        let len = next() % max_len;
        let mut plan = String::new();
        for _ in 0..len {
            plan.push_str(ALPHABET[next() % ALPHABET.len()]);
        }
        let report = check(&plan, &SequentialIds::new(0));
        for issue in &report.issues {
            if let Some(offset) = issue.offset {
                assert!(offset <= plan.len(), "{plan:?}: {issue:?}");
                assert!(plan.is_char_boundary(offset), "{plan:?}: {issue:?}");
            }
        }
        outcomes[usize::from(report.issues.first().is_some_and(|i| i.code == "parse"))] += 1;
    }
    // Both outcomes occur, so the generator exercises the parser and the validator.
    assert!(outcomes[0] > 100 && outcomes[1] > 100, "{outcomes:?}");
}
