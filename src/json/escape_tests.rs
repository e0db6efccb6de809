//! The writer ([`escape`](super::escape), through `write_string` and
//! [`WriteJson`]) against `serde_json` (escaped once) and against escaping
//! twice (escaped inside a string), wherever the bytes to escape fall: every
//! ASCII byte at every position of texts of every length up to 64 and some
//! longer, specials at the edges of sixteen-byte blocks, runs of nothing but
//! specials, and characters of two to four bytes across block edges.

use super::{
    BETWEEN, BETWEEN_TEXT, Joined, Level, Literal, Masks, WriteJson, write_contents,
    write_contents_keeping, write_contents_kept, write_string,
};

/// Checks `text` at both levels: once as `serde_json` writes it, twice as
/// the once-escaped contents escaped again.
fn check(text: &str) {
    let mut once = b"x".to_vec();
    write_string(&mut once, text);
    let expected = serde_json::to_vec(text).unwrap();
    assert_eq!(once[1..], expected, "{text:?}");
    let mut twice = b"x".to_vec();
    text.write_json(&mut twice, Level::InString);
    let contents = std::str::from_utf8(&expected).unwrap();
    let again = serde_json::to_vec(contents).unwrap();
    assert_eq!(twice[1..], again[1..again.len() - 1], "{text:?}");
    check_kept::<1>(text);
    check_kept::<2>(text);
    check_kept::<8>(text);
}

/// Checks `text` written inside a string keeping its masks in `N` of them
/// (room for all, some or none of its blocks), then once from them, against
/// [`write_contents`] at each level.
fn check_kept<const N: usize>(text: &str) {
    let mut masks = Masks::<N>::new();
    let (mut kept, mut fresh) = (b"x".to_vec(), b"x".to_vec());
    let plain = write_contents_keeping(&mut kept, text, Level::InString, &mut masks);
    assert_eq!(plain, write_contents(&mut fresh, text, Level::InString));
    assert_eq!(kept, fresh, "{text:?}");
    let (mut kept, mut fresh) = (b"x".to_vec(), b"x".to_vec());
    write_contents_kept(&mut kept, text, Level::Plain, &mut masks);
    write_contents(&mut fresh, text, Level::Plain);
    assert_eq!(kept, fresh, "{text:?} {N}");
}

/// `len` bytes of `a`, with `special` put at `at`.
fn with_at(len: usize, at: usize, special: char) -> String {
    let mut text = "a".repeat(at);
    text.push(special);
    text.push_str(&"a".repeat(len - at - 1));
    text
}

#[test]
fn every_ascii_byte_at_every_position_is_written_as_serde_json_writes_it() {
    let lengths = (1..=64).chain([79, 80, 81, 127, 128, 129, 200]);
    for len in lengths {
        for at in 0..len {
            for byte in 0..0x80u8 {
                check(&with_at(len, at, char::from(byte)));
            }
        }
    }
}

#[test]
fn texts_without_specials_and_with_nothing_but_specials_are_written_exactly() {
    let specials: String = (0..0x20u8).map(char::from).chain(['"', '\\']).collect();
    for len in 0..=300 {
        check(&"a".repeat(len));
        let only: String = specials.chars().cycle().take(len).collect();
        check(&only);
        check(&"\n".repeat(len));
        check(&"\"".repeat(len));
        check(&"\u{1f}".repeat(len));
    }
}

#[test]
fn specials_at_block_edges_and_in_pairs_are_written_exactly() {
    let edges = [0, 1, 7, 8, 14, 15, 16, 17, 23, 24, 30, 31, 32, 33, 47, 48];
    for len in [16, 17, 31, 32, 33, 40, 48, 49, 63, 64, 65, 100] {
        for &first in edges.iter().filter(|&&at| at < len) {
            for second in 0..len {
                for (a, b) in [('\n', '"'), ('\\', '\u{0}'), ('\u{1f}', '\t'), ('"', '"')] {
                    let mut text: Vec<char> = vec!['a'; len];
                    text[first] = a;
                    text[second] = b;
                    check(&text.iter().collect::<String>());
                    // The same counted from the end, where the last block
                    // overlaps the one before.
                    text.reverse();
                    check(&text.iter().collect::<String>());
                }
            }
        }
    }
}

#[test]
fn blocks_with_any_number_of_the_longest_escapes_fit_their_room() {
    // A block's escapes are written into room at the reply's end: up to
    // sixteen of `\u00xx` (seven bytes inside a string), at the block's
    // start, its end or spread, in a reply with no room to spare or some.
    for len in [16, 17, 24, 31, 32, 33, 48] {
        for count in 0..=16.min(len) {
            let mut front = vec!['a'; len];
            let mut back = vec!['a'; len];
            let mut spread = vec!['a'; len];
            for at in 0..count {
                front[at] = '\u{1}';
                back[len - 1 - at] = '\u{1f}';
                spread[at * len / count.max(1)] = if at % 2 == 0 { '\u{2}' } else { '"' };
            }
            for text in [front, back, spread] {
                let text: String = text.into_iter().collect();
                check(&text);
                for room in [0, 1, 127, 128] {
                    let mut out = Vec::with_capacity(room + 3);
                    out.extend_from_slice(b"abc");
                    text.write_json(&mut out, Level::InString);
                    let once = serde_json::to_string(&text).unwrap();
                    let twice = serde_json::to_string(&once).unwrap();
                    assert_eq!(out[3..], twice.as_bytes()[1..twice.len() - 1], "{text:?}");
                }
            }
        }
    }
}

#[test]
fn characters_of_several_bytes_across_block_edges_are_kept_whole() {
    for wide in ['é', '€', '😀', '\u{7f}', '\u{2028}', '\u{ffff}'] {
        for len in 1..=70 {
            for at in 0..len {
                check(&with_at(len, at, wide));
                // Next to a special, on either side.
                let mut text = with_at(len, at, wide);
                text.insert(at, '"');
                check(&text);
                text.push('\n');
                check(&text);
            }
        }
    }
}

#[test]
fn long_markdown_is_written_exactly() {
    let mut text = String::from("# Plan\n\n");
    for step in 0..400 {
        text.push_str(&format!(
            "- Step {step}: \"quote\" \\ back\tslash é😀 {}\r\n",
            "x".repeat(step % 37)
        ));
    }
    check(&text);
    // More blocks than the most masks a document keeps.
    check_kept::<512>(&text);
    for cut in [1, 15, 16, 17, 4095, 4096, 4097] {
        let end = (0..=cut.min(text.len()))
            .rev()
            .find(|&end| text.is_char_boundary(end))
            .unwrap();
        check(&text[..end]);
        let start = (text.len() - end..)
            .find(|&start| text.is_char_boundary(start))
            .unwrap();
        check(&text[start..]);
    }
}

#[test]
fn strings_are_escaped_as_json_stringify_does_at_both_levels() {
    let text = "a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}/\u{2028}é😀";
    let mut plain = Vec::new();
    write_string(&mut plain, text);
    assert_eq!(plain, serde_json::to_vec(text).unwrap());
    assert_eq!(
        std::str::from_utf8(&plain).unwrap(),
        "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}/\u{2028}é😀\""
    );
    let mut nested = Vec::new();
    text.write_json(&mut nested, Level::InString);
    let wrapped = format!("\"{}\"", std::str::from_utf8(&nested).unwrap());
    let once: String = serde_json::from_str(&wrapped).unwrap();
    assert_eq!(once.as_bytes(), plain.as_slice());
}

#[test]
fn numbers_are_written_as_their_decimal_digits() {
    let mut samples = vec![0, 1, 9, 10, 99, 100, 4_294_967_296, u64::MAX - 1, u64::MAX];
    samples.extend((0..20).map(|power| 10u64.pow(power)));
    samples.extend((1..20).map(|power| 10u64.pow(power) - 1));
    for number in samples {
        for level in [Level::Plain, Level::InString] {
            let mut out = b"x".to_vec();
            number.write_json(&mut out, level);
            assert_eq!(out, format!("x{number}").as_bytes());
        }
    }
}

#[test]
fn escaping_agrees_with_serde_json_wherever_the_specials_fall() {
    let alphabet = [
        'a', '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', 'é', '😀', '\u{7f}',
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for len in 0..48 {
        for _ in 0..20 {
            let text: String = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            let mut out = Vec::new();
            write_string(&mut out, &text);
            assert_eq!(out, serde_json::to_vec(&text).unwrap(), "{text:?}");
            // Escaped twice: the once-escaped string's contents, escaped.
            let mut nested = Vec::new();
            text.write_json(&mut nested, Level::InString);
            let once = std::str::from_utf8(&out).unwrap();
            let twice = serde_json::to_vec(once).unwrap();
            assert_eq!(nested, twice[1..twice.len() - 1], "{text:?}");
        }
    }
}

#[test]
fn literals_are_written_as_they_are_and_escaped_once_more() {
    for text in [r#"{"id":""#, r#"","archivedAt":""#, "}", r#"\"x"#] {
        let literal = Literal::new(text);
        let mut plain = b"a".to_vec();
        literal.write(&mut plain, Level::Plain);
        assert_eq!(plain, format!("a{text}").as_bytes());
        let mut nested = b"a".to_vec();
        literal.write(&mut nested, Level::InString);
        let twice = serde_json::to_string(text).unwrap();
        assert_eq!(
            nested,
            format!("a{}", &twice[1..twice.len() - 1]).as_bytes()
        );
    }
}

#[test]
fn joined_pieces_are_written_one_after_the_other() {
    for pieces in [
        &["}", BETWEEN_TEXT, r#"{"id":""#][..],
        &[BETWEEN_TEXT, r#"{"id":""#],
        &["", "}"],
        &[],
    ] {
        let joined: Joined = Joined::new(pieces);
        let mut out = b"a".to_vec();
        joined.write(&mut out);
        assert_eq!(out, format!("a{}", pieces.concat()).as_bytes());
    }
    let mut between = Vec::new();
    BETWEEN.write(&mut between, Level::Plain);
    assert_eq!(between, br#""}],"structuredContent":"#);
}

#[test]
fn is_plain_finds_every_byte_to_escape_at_every_position() {
    let naive = |bytes: &[u8]| !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
    for len in 0..40 {
        let text = vec![b'a'; len];
        assert!(super::is_plain(&text), "{len}");
        for at in 0..len {
            for special in [0u8, 0x1f, b'"', b'\\', b' ', 0x7f, 0xc3, 0xff] {
                let mut text = text.clone();
                text[at] = special;
                assert_eq!(super::is_plain(&text), naive(&text), "{len} {at} {special}");
            }
        }
    }
}
