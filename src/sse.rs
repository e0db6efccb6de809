//! Server-sent events framing (the `text/event-stream` format of the HTML
//! standard), for the `GET` stream and for one-event POST replies.

/// A comment line that keeps an idle event stream open through proxies.
/// Send it every 15 seconds or so.
pub fn keep_alive() -> &'static [u8] {
    b": keep-alive\n\n"
}

/// Appends one event to `out`: an optional `event:` line, then `data` split
/// into one `data:` line per line of it (`\r\n`, `\r` and `\n` all end a line,
/// as the event-stream parser reads them), then the blank line that ends it.
///
/// `event` must not contain line breaks; any it has are replaced by spaces so
/// that the frame stays well-formed.
pub fn event(out: &mut Vec<u8>, event: Option<&str>, data: &[u8]) {
    if let Some(name) = event {
        out.extend_from_slice(b"event: ");
        out.extend(
            name.bytes()
                .map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
        );
        out.push(b'\n');
    }
    let mut rest = data;
    loop {
        let end = rest.iter().position(|&b| b == b'\r' || b == b'\n');
        let line = &rest[..end.unwrap_or(rest.len())];
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
        match end {
            None => break,
            Some(index) => {
                let skip = if rest[index..].starts_with(b"\r\n") {
                    2
                } else {
                    1
                };
                rest = &rest[index + skip..];
            }
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lines_are_split_at_every_line_ending() {
        let mut out = Vec::new();
        event(&mut out, Some("message"), b"a\r\nb\rc\nd");
        assert_eq!(
            out,
            b"event: message\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
        );
    }

    #[test]
    fn an_empty_payload_is_one_empty_data_line() {
        let mut out = Vec::new();
        event(&mut out, None, b"");
        assert_eq!(out, b"data: \n\n");
    }
}
