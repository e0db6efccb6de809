//! Offsets to 1-based lines and columns (DIALECT.md §1.2).
//!
//! `\n`, `\r\n` and `\r` each end one line; columns count Unicode scalar
//! values from the start of the line, a tab counting as 1.

/// Line starts of a text, for turning byte offsets into lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last located (offset, column): issues arrive mostly in order, so
    /// counting columns resumes from there instead of from the line start
    /// (many issues on one long line stay linear).
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text` once, in linear time.
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' => {
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    starts.push(i + 1);
                }
                _ => {}
            }
            i += 1;
        }
        LineIndex {
            text,
            starts,
            last: std::cell::Cell::new((0, 1)),
        }
    }

    /// Byte offsets where lines start (the first is 0).
    pub(crate) fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// The 1-based line and column of a byte offset (clamped to the text,
    /// and moved back to a character boundary).
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let (last_offset, last_column) = self.last.get();
        let column = if last_offset >= start && last_offset <= offset {
            last_column + self.text[last_offset..offset].chars().count()
        } else {
            self.text[start..offset].chars().count() + 1
        };
        self.last.set((offset, column));
        (line, column)
    }
}
