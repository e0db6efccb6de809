//! Link reference definitions at the start of paragraphs.

use crate::text::{decode_text, destination_byte, normalize_label, skip_ws_one_line};

/// A paragraph's lines joined by line feeds, for reading link reference
/// definitions off its start in one pass.
pub(crate) struct ParagraphText {
    buf: String,
    /// Buffer offset of the end of each line.
    ends: Vec<usize>,
}

impl ParagraphText {
    pub(crate) fn new(src: &str, lines: &[(usize, usize)]) -> Self {
        let mut buf = String::new();
        let mut ends = Vec::with_capacity(lines.len());
        for (n, &(s, e)) in lines.iter().enumerate() {
            if n > 0 {
                buf.push('\n');
            }
            buf.push_str(src.get(s..e).unwrap_or(""));
            ends.push(buf.len());
        }
        ParagraphText { buf, ends }
    }

    /// Reads definitions from the start: (normalized label, URL, lines used)
    /// for each, in order.
    pub(crate) fn definitions(&self) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        let mut lines_done = 0;
        while let Some((label, url, end)) = parse_definition(&self.buf, at) {
            // `end` is the end of the definition's last line.
            let last_line = self.ends.partition_point(|&e| e < end);
            out.push((label, url, last_line + 1 - lines_done));
            lines_done = last_line + 1;
            at = end + 1;
            if at >= self.buf.len() {
                break;
            }
        }
        out
    }
}

/// One link reference definition starting at `at` in `buf`: its normalized
/// label, decoded URL and the end of its last line.
fn parse_definition(buf: &str, at: usize) -> Option<(String, String, usize)> {
    let bytes = buf.as_bytes();
    // `[^label]:` lines reach here only when they are no footnote definition.
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    // Label: at most 999 characters, no unescaped brackets.
    let mut j = at + 1;
    loop {
        match bytes.get(j) {
            None | Some(b'[') => return None,
            Some(b']') => break,
            Some(b'\\') if j + 1 < bytes.len() => j += 2,
            _ => j += 1,
        }
        if j - at > 4000 {
            return None;
        }
    }
    let label = &buf[at + 1..j];
    if label.trim_matches([' ', '\t', '\n']).is_empty() || label.chars().count() > 999 {
        return None;
    }
    if bytes.get(j + 1) != Some(&b':') {
        return None;
    }
    let skip = |k: usize| skip_ws_one_line(bytes, k);
    let mut k = skip(j + 2);
    let url;
    if bytes.get(k) == Some(&b'<') {
        let s = k + 1;
        let mut m = s;
        loop {
            match bytes.get(m) {
                None | Some(b'\n' | b'<') => return None,
                Some(b'>') => break,
                Some(b'\\') if bytes.get(m + 1).is_some_and(u8::is_ascii_punctuation) => m += 2,
                _ => m += 1,
            }
        }
        url = decode_text(&buf[s..m]);
        k = m + 1;
    } else {
        let s = k;
        let mut depth = 0usize;
        while k < bytes.len() && destination_byte(bytes[k]) {
            if bytes[k] == b'\\' && bytes.get(k + 1).is_some_and(u8::is_ascii_punctuation) {
                k += 2;
                continue;
            }
            if bytes[k] == b'(' {
                depth += 1;
            } else if bytes[k] == b')' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            k += 1;
        }
        if k == s || depth != 0 {
            return None;
        }
        url = decode_text(&buf[s..k]);
    }
    let rest_blank = |from: usize| {
        let mut m = from;
        while m < bytes.len() && matches!(bytes[m], b' ' | b'\t') {
            m += 1;
        }
        (m >= bytes.len() || bytes[m] == b'\n').then_some(m)
    };
    // Optional title, which may not contain a blank line.
    let t = skip(k);
    if t > k && matches!(bytes.get(t), Some(b'"' | b'\'' | b'(')) {
        let close = match bytes[t] {
            b'(' => b')',
            c => c,
        };
        let mut m = t + 1;
        let mut ok = false;
        while m < bytes.len() {
            if bytes[m] == b'\\' && bytes.get(m + 1).is_some_and(u8::is_ascii_punctuation) {
                m += 2;
                continue;
            }
            if bytes[m] == close {
                ok = true;
                break;
            }
            if bytes[m] == b'\n' && bytes.get(m + 1) == Some(&b'\n') {
                break;
            }
            m += 1;
        }
        if ok {
            if let Some(e) = rest_blank(m + 1) {
                return Some((normalize_label(label), url, e));
            }
        }
    }
    let e = rest_blank(k)?;
    Some((normalize_label(label), url, e))
}
