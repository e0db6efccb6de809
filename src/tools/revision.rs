//! `update_document`'s `revision` (LIFECYCLE.md §2): a JSON number read as
//! JavaScript reads it (the nearest IEEE double), that is then a safe
//! integer ≥ 0. `4`, `4.0`, `4e0` and `4.0000000000000001` are 4, `-0` and
//! `-1e-400` are 0; `-1`, `1.5`, `1e400` and 2^53 are refused, and anything
//! but a number.
//!
//! The number may be as long as the body allows. It is first reduced, in
//! one pass, to an equivalent spelling of bounded length: its first
//! [`KEPT`] significant digits, one more digit `1` when any digit after
//! them is not zero, and the decimal exponent those digits need. A double's
//! rounding is decided by comparing the number with the halfway points
//! between doubles, each of which has at most 767 significant digits; two
//! numbers that agree on their first [`KEPT`] digits and on whether
//! anything non-zero follows are on the same side of every one of them, so
//! the reduced spelling has the same nearest double. The standard library
//! then parses that spelling, rounding to nearest as JavaScript does.

/// The largest revision: JavaScript's `Number.MAX_SAFE_INTEGER`.
pub(crate) const MAX_REVISION: u64 = (1 << 53) - 1;

/// Significant digits kept: more than the 767 a halfway point can have.
const KEPT: usize = 800;

/// Beyond this decimal exponent, a number of at most `KEPT + 1` digits is
/// far outside a double's range either way (overflow, or zero).
const MAX_EXPONENT: i64 = 100_000;

/// The revision `text` (a validated JSON value) names, if it names one.
pub(crate) fn revision(text: &str) -> Option<u64> {
    read(text).0
}

/// [`revision`] and the steps it took: the bytes of `text` it walked, and
/// those of the reduced spelling it parsed (for the linear-time tests).
pub(crate) fn read(text: &str) -> (Option<u64>, usize) {
    let Some(reduced) = reduce(text) else {
        return (None, 0);
    };
    let steps = text.len() + reduced.len();
    let Ok(value) = reduced.parse::<f64>() else {
        return (None, steps);
    };
    // `-0.0 >= 0.0`, and casts to 0.
    let safe = value >= 0.0 && value <= MAX_REVISION as f64 && value.fract() == 0.0;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (safe.then_some(value as u64), steps)
}

/// The bounded spelling of the JSON number `text` (`-? digits (. digits)?
/// ([eE] [+-]? digits)?`, already validated): `-`, the kept digits (with
/// the sticky `1`), `e` and the exponent; `None` when `text` is not a
/// number.
fn reduce(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let mut at = usize::from(negative);
    if !bytes.get(at).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut digits = String::with_capacity(KEPT + 24);
    if negative {
        digits.push('-');
    }
    let sign = digits.len();
    // The value is `digits × 10^exponent`, up to what is dropped.
    let mut exponent: i64 = 0;
    let mut dropped = false;
    let mut fraction = false;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'0'..=b'9' => {
                let kept = digits.len() - sign;
                if kept == 0 && byte == b'0' {
                    // A leading zero: only its place counts, after the point.
                    exponent -= i64::from(fraction);
                } else if kept < KEPT {
                    digits.push(char::from(byte));
                    exponent -= i64::from(fraction);
                } else {
                    dropped |= byte != b'0';
                    exponent += i64::from(!fraction);
                }
            }
            b'.' => fraction = true,
            _ => break,
        }
        at += 1;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        let negative_exponent = bytes.get(at) == Some(&b'-');
        at += usize::from(matches!(bytes.get(at), Some(b'+' | b'-')));
        let mut written: i64 = 0;
        for byte in bytes.iter().skip(at).take_while(|b| b.is_ascii_digit()) {
            written = (written * 10 + i64::from(byte - b'0')).min(MAX_EXPONENT * 10);
        }
        exponent += if negative_exponent { -written } else { written };
    }
    if digits.len() == sign {
        // All zeros: zero, whatever the exponent.
        digits.push('0');
        exponent = 0;
    }
    if dropped {
        digits.push('1');
        exponent -= 1;
    }
    let exponent = exponent.clamp(-MAX_EXPONENT, MAX_EXPONENT);
    digits.push('e');
    digits.push_str(&exponent.to_string());
    Some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_read_as_javascript_reads_numbers() {
        for (text, expected) in [
            ("4", 4),
            ("4.0", 4),
            ("4e0", 4),
            ("40E-1", 4),
            ("0.4e+1", 4),
            ("4.0000000000000001", 4),
            ("-0", 0),
            ("-0.0e5", 0),
            ("-1e-400", 0),
            ("0", 0),
            ("0e99999999999999999999", 0),
            ("9007199254740991", MAX_REVISION),
            ("9007199254740991.4", MAX_REVISION),
            ("900719925474099.1e1", MAX_REVISION),
        ] {
            assert_eq!(revision(text), Some(expected), "{text}");
        }
        for text in [
            "-1",
            "1.5",
            "\"4\"",
            "null",
            "true",
            "[4]",
            "{}",
            "1e400",
            "-1e400",
            "1e16",
            "9007199254740992",
            "9007199254740993",
            "-4",
            "4.5e0",
        ] {
            assert_eq!(revision(text), None, "{text}");
        }
    }

    /// The reduced spelling has the nearest double of the whole number:
    /// long spellings on either side of halfway points, checked against
    /// the standard library's parse of the whole text.
    #[test]
    fn the_reduced_spelling_rounds_as_the_whole_number() {
        let zeros = |n: usize| "0".repeat(n);
        let mut cases = vec![
            // 2^53 + 1 is halfway between two doubles: ties go to even.
            "9007199254740993".to_owned(),
            format!("9007199254740993.{}1", zeros(900)),
            format!("9007199254740992.{}1", zeros(900)),
            format!("4503599627370496.5{}", zeros(900)),
            format!("4503599627370496.5{}1", zeros(900)),
            format!("4503599627370497.5{}", zeros(900)),
            format!("4.{}1", zeros(2000)),
            format!("3.{}", "9".repeat(2000)),
            format!("0.{}4e{}", zeros(1500), 1501),
            "4e-2000".to_owned(),
            format!("4{}e-2000", zeros(2000)),
            format!("{}e-{}", "1".repeat(1200), 1199),
            format!("-0.{}1", zeros(3000)),
            format!("1{}", zeros(400)),
        ];
        // 2^-1075, halfway between 0 and the least subnormal, written out
        // in full (5^1075 × 10^-1075, 752 digits): ties go to even (0), and
        // anything above it, however far down, rounds up.
        let half = (0..1075).fold(vec![1u8], |digits, _| {
            let mut carry = 0;
            let mut next: Vec<u8> = digits
                .iter()
                .rev()
                .map(|d| {
                    let v = d * 5 + carry;
                    carry = v / 10;
                    v % 10
                })
                .collect();
            if carry > 0 {
                next.push(carry);
            }
            next.reverse();
            next
        });
        let half: String = half.iter().map(|d| char::from(b'0' + d)).collect();
        assert_eq!(half.len(), 752);
        cases.push(format!("{half}e-1075"));
        cases.push(format!("{half}{}1e-{}", zeros(300), 1075 + 301));
        cases.push(format!("-{half}{}1e-{}", zeros(300), 1075 + 301));
        assert_eq!(format!("{half}e-1075").parse::<f64>().unwrap(), 0.0);
        assert!(
            format!("{half}{}1e-1376", zeros(300))
                .parse::<f64>()
                .unwrap()
                > 0.0
        );
        for text in &cases {
            let whole: f64 = text.parse().unwrap();
            let reduced: f64 = reduce(text).unwrap().parse().unwrap();
            assert_eq!(whole.to_bits(), reduced.to_bits(), "{text:.60}");
            assert!(reduce(text).unwrap().len() <= KEPT + 10);
        }
    }
}
