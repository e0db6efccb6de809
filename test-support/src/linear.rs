//! The linear-time check the parser tests share: an input family is read at
//! three sizes, and the parser's own step counter must grow by at most a
//! constant factor close to 2 per doubling of the input. No wall-clock
//! assertions.

/// Allowed growth per doubling (linear is 2; quadratic would be 4).
const MAX_RATIO: f64 = 2.3;

/// Builds `family` at each of `sizes` with `make`, counts the steps of each
/// with `steps` (which may assert a floor of its own), and asserts that the
/// steps per byte never grow faster than `MAX_RATIO` allows.
pub fn assert_linear(
    family: &str,
    sizes: [usize; 3],
    make: impl Fn(usize) -> String,
    steps: impl Fn(&str) -> u64,
) {
    let counted: Vec<(usize, u64)> = sizes
        .iter()
        .map(|&n| {
            let input = make(n);
            (input.len(), steps(&input))
        })
        .collect();
    for w in counted.windows(2) {
        let ((b0, s0), (b1, s1)) = (w[0], w[1]);
        let growth = (s1 as f64 / s0 as f64) / (b1 as f64 / b0 as f64);
        assert!(
            growth * 2.0 <= MAX_RATIO,
            "{family}: steps {s0} -> {s1} for bytes {b0} -> {b1} (super-linear)"
        );
    }
}
