//! Line scanners of the block phase: pure functions over one line's bytes
//! (markers, fences, headings, table rows), each linear in what it reads.

pub(super) fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// End of the line starting at `start` (before its line ending) and the start
/// of the next line.
pub(crate) fn line_bounds(src: &[u8], start: usize) -> (usize, usize) {
    let mut i = start;
    while i < src.len() {
        match src[i] {
            b'\n' => return (i, i + 1),
            b'\r' => {
                let next = if src.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                return (i, next);
            }
            _ => i += 1,
        }
    }
    (i, i)
}

/// Skips spaces and tabs from `pos` (at virtual column `col`); returns the new
/// position and column. Tabs advance to the next multiple of 4.
pub(super) fn skip_ws(src: &[u8], mut pos: usize, mut col: usize, end: usize) -> (usize, usize) {
    while pos < end && is_space(src[pos]) {
        col = if src[pos] == b'\t' {
            col + 4 - col % 4
        } else {
            col + 1
        };
        pos += 1;
    }
    (pos, col)
}

/// Pairs every `{` with its matching `}` by counting braces only.
pub(super) fn brace_pairs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut open = Vec::new();
    let mut pairs = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'{' {
            open.push(i);
        } else if b == b'}' {
            if let Some(o) = open.pop() {
                pairs.push((o, i));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

pub(super) struct Marker {
    pub(super) ordered: bool,
    pub(super) marker: u8,
    pub(super) number: u64,
    pub(super) after: usize,
}

pub(super) fn list_marker(bytes: &[u8], p: usize, end: usize) -> Option<Marker> {
    let c = *bytes.get(p)?;
    if matches!(c, b'-' | b'+' | b'*') {
        let after = p + 1;
        if after < end && !is_space(bytes[after]) {
            return None;
        }
        return Some(Marker {
            ordered: false,
            marker: c,
            number: 0,
            after,
        });
    }
    let digits = bytes[p..end]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let d = *bytes.get(p + digits)?;
    if d != b'.' && d != b')' {
        return None;
    }
    let after = p + digits + 1;
    if after < end && !is_space(bytes[after]) {
        return None;
    }
    let number = std::str::from_utf8(&bytes[p..p + digits])
        .ok()?
        .parse()
        .ok()?;
    Some(Marker {
        ordered: true,
        marker: d,
        number,
        after,
    })
}

/// The longest suffix of `[start, end)` made of one thematic-break marker and
/// spaces: (suffix start, marker, position of its third marker from the end).
pub(super) fn thematic_suffix(bytes: &[u8], start: usize, end: usize) -> (usize, u8, usize) {
    let mut marker = 0u8;
    let mut count = 0;
    let mut third = 0;
    let mut i = end;
    while i > start {
        let b = bytes[i - 1];
        if is_space(b) {
            i -= 1;
            continue;
        }
        if marker == 0 {
            // The first marker from the end decides; anything else (a NUL
            // included, which must not pass for the unset marker) ends it.
            if !matches!(b, b'*' | b'-' | b'_') {
                break;
            }
            marker = b;
        }
        if b != marker {
            break;
        }
        count += 1;
        if count == 3 {
            third = i - 1;
        }
        i -= 1;
    }
    if count < 3 {
        return (usize::MAX, 0, 0);
    }
    (i, marker, third)
}

pub(super) fn setext_underline(bytes: &[u8], p: usize, end: usize) -> Option<u8> {
    let c = *bytes.get(p)?;
    if c != b'=' && c != b'-' {
        return None;
    }
    let run = bytes[p..end].iter().take_while(|&&b| b == c).count();
    if !bytes[p + run..end].iter().all(|&b| is_space(b)) {
        return None;
    }
    Some(if c == b'=' { 1 } else { 2 })
}

pub(super) fn trim_end(bytes: &[u8], s: usize, mut e: usize) -> usize {
    while e > s && is_space(bytes[e - 1]) {
        e -= 1;
    }
    e
}

/// An ATX heading at `p`: depth and the content range.
pub(super) fn atx_heading(bytes: &[u8], p: usize, end: usize) -> Option<(u8, usize, usize)> {
    let hashes = bytes[p..end].iter().take_while(|&&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let after = p + hashes;
    if after < end && !is_space(bytes[after]) {
        return None;
    }
    let (cs, _) = skip_ws(bytes, after, 0, end);
    let mut ce = trim_end(bytes, cs, end);
    // Closing sequence: `#`s preceded by a space or tab (or the whole content).
    let mut k = ce;
    while k > cs && bytes[k - 1] == b'#' {
        k -= 1;
    }
    if k < ce && (k == cs || is_space(bytes[k - 1])) {
        ce = trim_end(bytes, cs, k);
    }
    Some((hashes as u8, cs, ce))
}

/// A code or math fence at `p`: the character, the run length and where the info starts.
pub(super) fn fence_open(bytes: &[u8], p: usize, end: usize) -> Option<(u8, usize, usize)> {
    let c = *bytes.get(p)?;
    let min = match c {
        b'`' | b'~' => 3,
        b'$' => 2,
        _ => return None,
    };
    let run = bytes[p..end].iter().take_while(|&&b| b == c).count();
    if run < min {
        return None;
    }
    let info = p + run;
    if (c == b'`' || c == b'$') && bytes[info..end].contains(&c) {
        return None;
    }
    Some((c, run, info))
}

/// `[^label]:` at `p`: the label (raw) and the position after the colon.
pub(super) fn footnote_label(bytes: &[u8], p: usize, end: usize) -> Option<(usize, usize)> {
    let mut i = p + 2;
    let limit = (p + 2 + 999 * 4).min(end);
    while i < limit {
        match bytes[i] {
            b']' => {
                if i == p + 2 || bytes.get(i + 1) != Some(&b':') {
                    return None;
                }
                return Some((i, i + 2));
            }
            b'\\' if i + 1 < end && matches!(bytes[i + 1], b'[' | b']' | b'\\') => i += 2,
            b'[' | b' ' | b'\t' => return None,
            _ => i += 1,
        }
    }
    None
}

/// A table delimiter row: the number of cells.
pub(super) fn delimiter_row(bytes: &[u8], p: usize, end: usize) -> Option<usize> {
    let line = &bytes[p..trim_end(bytes, p, end)];
    if !line.contains(&b'|') && !line.contains(&b'-') {
        return None;
    }
    let mut cells = 0;
    let inner: &[u8] = {
        let mut s = line;
        if s.first() == Some(&b'|') {
            s = &s[1..];
        }
        if s.last() == Some(&b'|') {
            s = &s[..s.len() - 1];
        }
        s
    };
    for part in inner.split(|&b| b == b'|') {
        let t: &[u8] = {
            let a = part
                .iter()
                .position(|&b| !is_space(b))
                .unwrap_or(part.len());
            let z = part
                .iter()
                .rposition(|&b| !is_space(b))
                .map_or(a, |z| z + 1);
            &part[a..z]
        };
        let t = t.strip_prefix(b":").unwrap_or(t);
        let t = t.strip_suffix(b":").unwrap_or(t);
        if t.is_empty() || !t.iter().all(|&b| b == b'-') {
            return None;
        }
        cells += 1;
    }
    // A row of one cell needs no pipe (`a\n-:` is a table in micromark and
    // markdown-rs); a lone dash run was a setext underline already.
    Some(cells)
}

/// Splits a table row into cells: (cell start, content start, content end).
/// An escaped pipe does not split; body rows keep every cell they have.
pub(crate) fn split_row(bytes: &[u8], s: usize, e: usize) -> Vec<(usize, usize, usize)> {
    let e = trim_end(bytes, s, e);
    let mut cells = Vec::new();
    let mut i = s;
    if bytes.get(i) == Some(&b'|') {
        i += 1;
    }
    let mut cell_start = s;
    let mut content = i;
    let mut ended_with_pipe = false;
    loop {
        if i >= e {
            if content < e || !ended_with_pipe {
                let (cs, _) = skip_ws(bytes, content.min(e), 0, e);
                cells.push((cell_start, cs, trim_end(bytes, cs, e)));
            }
            break;
        }
        match bytes[i] {
            b'\\' if i + 1 < e => i += 2,
            b'|' => {
                let (cs, _) = skip_ws(bytes, content, 0, i);
                cells.push((cell_start, cs, trim_end(bytes, cs, i)));
                cell_start = i;
                content = i + 1;
                i += 1;
                ended_with_pipe = i >= e;
            }
            _ => i += 1,
        }
    }
    cells
}

pub(super) fn label_str(src: &str, s: usize, e: usize) -> &str {
    src.get(s..e).unwrap_or("")
}
