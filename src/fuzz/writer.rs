//! The string writer against `serde_json`, on any UTF-8 text (run by the
//! `message` target): the text as a JSON string, escaped once and inside a
//! string, and as the strings of a document written into a tool result (the
//! strings the text copy finds plain copied into `structuredContent`).

use crate::Document;
use crate::json::{Level, WriteJson, write_string};
use crate::tools::{Frame, write_text_result};

/// Checks the writer on `text`.
pub(super) fn check(text: &str) {
    let mut once = Vec::new();
    write_string(&mut once, text);
    let expected = serde_json::to_vec(text).unwrap_or_default();
    assert_eq!(once, expected, "{text:?}");
    let mut twice = Vec::new();
    text.write_json(&mut twice, Level::InString);
    let contents = std::str::from_utf8(&expected).unwrap_or_default();
    let again = serde_json::to_vec(contents).unwrap_or_default();
    assert_eq!(
        twice,
        again
            .get(1..again.len().saturating_sub(1))
            .unwrap_or_default(),
        "{text:?}"
    );
    // The text cut in two at a character boundary: one part plain or not,
    // the other the same or not.
    let middle = (0..=text.len() / 2)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or_default();
    let (head, tail) = text.split_at(middle);
    let document = Document {
        id: head.to_owned(),
        title: tail.to_owned(),
        description: Some(text.to_owned()),
        archived_at: None,
        brief: None,
        source: text.to_owned(),
        revision: text.len() as u64,
        url: Some("/documents/1".to_owned()),
    };
    check_document(&document, text);
    // Without a url (the document then ends after its revision, and the
    // text copy's end is joined to what follows it), and with the other
    // optional strings in turn.
    let bare = Document {
        description: None,
        url: None,
        ..document.clone()
    };
    check_document(&bare, text);
    check_document(
        &Document {
            archived_at: Some(text.to_owned()),
            ..bare.clone()
        },
        text,
    );
    check_document(
        &Document {
            url: Some(text.to_owned()),
            ..bare
        },
        text,
    );
    // A source of more than 128 bytes, whose blocks' masks the text copy
    // keeps in the larger room.
    if !text.is_empty() && text.len() <= 128 {
        let source = text.repeat(128 / text.len() + 1);
        check_document(&Document { source, ..document }, text);
    }
}

/// Checks a tool result holding `document` against `serde_json`.
fn check_document(document: &Document, text: &str) {
    let mut out = Vec::new();
    write_text_result(&mut out, Frame::Legacy, document, false);
    let compact = serde_json::to_string(document).unwrap_or_default();
    let text_copy = serde_json::to_string(&compact).unwrap_or_default();
    let expected = format!(
        r#"{{"content":[{{"type":"text","text":{text_copy}}}],"structuredContent":{compact}}}"#
    );
    assert_eq!(out, expected.as_bytes(), "{text:?}");
    // A read's answer: the frame's opening joined to the document's, in
    // either era, as the generic writer writes it.
    let mut read = Vec::new();
    document.write_result(&mut read, Frame::Legacy);
    assert_eq!(read, out, "{text:?}");
    let modern = Frame::Modern {
        server_info: br#""io.modelcontextprotocol/serverInfo":{"name":"x"}"#,
    };
    let (mut read, mut generic) = (Vec::new(), Vec::new());
    document.write_result(&mut read, modern);
    write_text_result(&mut generic, modern, document, false);
    assert_eq!(read, generic, "{text:?}");
}

#[cfg(test)]
mod tests {
    /// Sources around the sizes whose masks a document keeps (up to 127
    /// bytes in one room, up to 8 KiB in the other, more looked at again),
    /// with the bytes to escape anywhere in their blocks.
    #[test]
    fn documents_of_every_size_are_written_exactly() {
        let line = |step: usize| format!("- step {step}: \"run\" it\tthen \\ check é😀\n");
        let long: String = (0..400).map(line).collect();
        for len in (0..200).chain([4095, 4096, 8191, 8192, 8193, 8200, long.len()]) {
            let end = (0..=len.min(long.len()))
                .rev()
                .find(|&end| long.is_char_boundary(end))
                .unwrap_or_default();
            super::check(&long[..end]);
            let start = (long.len() - end..)
                .find(|&start| long.is_char_boundary(start))
                .unwrap_or_default();
            super::check(&long[start..]);
        }
    }
}
