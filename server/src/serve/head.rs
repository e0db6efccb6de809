//! Where a request head ends, found as the crate's
//! [`HeadScanner`](chopin_mcp::http1::HeadScanner) finds it, at the cost of
//! a search for line feeds.
//!
//! The crate's scanner looks at every byte of what was read for `\n\n`, and
//! then again for `\r\n\r\n`: about two comparisons a byte of the head and
//! of the body read with it, on every request. [`HeadScan`] asks `memchr`
//! for each line feed (a vector search) and looks behind each one for the
//! blank line: the same answer for the same bytes, read as they arrive
//! (a client sending its head a byte at a time still costs linear time).
//! Past [`MAX_HEAD_BYTES`] without a blank line it hands the bytes to the
//! crate's scanner, whose refusal (431) is the one the server answers.

use chopin_mcp::http1::{self, HttpError, MAX_HEAD_BYTES};

/// Finds the blank line that ends a request head in a buffer that grows as
/// bytes arrive, looking at each byte once.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct HeadScan {
    /// How much of the buffer was looked at.
    scanned: usize,
}

impl HeadScan {
    /// `Ok(true)` once `buf` holds a blank line (`\r\n\r\n` or `\n\n`) in
    /// its first `MAX_HEAD_BYTES + 4` bytes, `Ok(false)` to read more, or
    /// the crate's 431 once the head outgrows [`MAX_HEAD_BYTES`]: what
    /// [`http1::HeadScanner::scan`] answers. `buf` must only grow between
    /// calls.
    pub(super) fn scan(&mut self, buf: &[u8]) -> Result<bool, HttpError> {
        let end = buf.len().min(MAX_HEAD_BYTES + 4);
        // A terminator split across reads ends in the new bytes; its start
        // is looked at behind them.
        let from = self.scanned.min(end);
        self.scanned = buf.len();
        let found = memchr::memchr_iter(b'\n', &buf[from..end]).any(|at| {
            let at = from + at;
            (at >= 1 && buf[at - 1] == b'\n') || (at >= 3 && &buf[at - 3..at] == b"\r\n\r")
        });
        if found {
            Ok(true)
        } else if buf.len() >= MAX_HEAD_BYTES {
            // No blank line where one may be: the crate's scanner refuses
            // the head, with its own answer.
            http1::HeadScanner::new().scan(buf)
        } else {
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` to both scanners in pieces of `step` bytes: they answer
    /// alike after every piece.
    fn agree(bytes: &[u8], step: usize) {
        let (mut ours, mut theirs) = (HeadScan::default(), http1::HeadScanner::new());
        let mut end = 0;
        while end < bytes.len() {
            end = (end + step).min(bytes.len());
            let (a, b) = (ours.scan(&bytes[..end]), theirs.scan(&bytes[..end]));
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{step}-byte pieces, at {end}: {bytes:?}"),
                (Err(a), Err(b)) => assert_eq!(a.status(), b.status()),
                (a, b) => panic!("at {end}: ours {:?}, the crate's {:?}", a.ok(), b.ok()),
            }
        }
    }

    #[test]
    fn the_head_ends_where_the_crates_scanner_says_in_any_pieces() {
        let heads: [&[u8]; 9] = [
            b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}",
            b"GET / HTTP/1.1\n\n",
            b"GET / HTTP/1.1\r\nhost: x\r\n",
            b"GET / HTTP/1.1\r\nhost: x\n\r\n",
            b"GET / HTTP/1.1\r\n\r\r\n\n",
            b"\n\n",
            b"\r\n\r\n",
            b"GET / HTTP/1.1\r\nx: a\rb\r\n\rc\r\n",
            b"",
        ];
        for head in heads {
            for step in 1..=head.len().max(1) {
                agree(head, step);
            }
        }
    }

    #[test]
    fn a_head_too_large_is_the_crates_431_and_one_just_in_time_is_whole() {
        let mut long = b"GET / HTTP/1.1\r\nx: ".to_vec();
        long.resize(MAX_HEAD_BYTES + 100, b'a');
        for step in [1000, 4096, MAX_HEAD_BYTES + 100] {
            agree(&long, step);
        }
        let err = HeadScan::default().scan(&long).unwrap_err();
        assert_eq!(err.status(), 431);
        // A blank line ending at the last byte looked at is found; one
        // byte later, not.
        for cut in [MAX_HEAD_BYTES, MAX_HEAD_BYTES + 4] {
            let mut edge = long[..cut].to_vec();
            edge.extend_from_slice(b"\r\n\r\n");
            for step in [1, 7, 4096] {
                agree(&edge, step);
            }
        }
    }
}
