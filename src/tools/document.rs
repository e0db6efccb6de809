//! A document written as a tool result's value: member by member, at
//! either level, and twice (its text copy, then `structuredContent`) with
//! what the first write found carried into the second.

use super::{Document, Frame, member_hint};
use crate::json::{self, Joined, Level, Literal, WriteJson};

// The bits of a document's strings, as `Document::write_level` reports them.
const ID: u8 = 1;
const TITLE: u8 = 2;
const DESCRIPTION: u8 = 4;
const ARCHIVED_AT: u8 = 8;
const SOURCE: u8 = 16;
const URL: u8 = 32;

/// A document's opening, up to its id's contents.
const OPEN_ID: Literal = Literal::new(r#"{"id":""#);
/// A document's end after a string (its url).
const CLOSE_STRING: Literal = Literal::new(r#""}"#);

impl Document {
    /// Writes the document's members at `level`, from its id's contents to
    /// its last value (its opening, [`OPEN_ID`], and its end are the
    /// caller's, which may join them to what is around): in answer order,
    /// each optional one only when there is one, written member by member without
    /// a slice of them made first (a read writes it three times: the hint,
    /// the text, `structuredContent`). What lies between two values — the
    /// quotes, the comma, the next name — is one [`Literal`] for each pair a
    /// document can have, so that a member costs one fixed-size store and
    /// its value.
    ///
    /// A string whose bit is set in `plain` is known to hold nothing to
    /// escape and is copied as it is. Returns the bits of the strings that
    /// held nothing to escape.
    ///
    /// The source is escaped as `source` says: afresh, keeping its blocks'
    /// masks (the text copy), or from the masks kept (`structuredContent`).
    ///
    /// Always in line: at each call the level, the plain bits and how the
    /// source is escaped are constants, so that the level's pieces are
    /// picked and the checks of the other cases folded away when it
    /// compiles (a call of its own cost a read 123 instructions).
    #[inline(always)]
    fn write_level<const N: usize>(
        &self,
        out: &mut Vec<u8>,
        level: Level,
        plain: u8,
        source: SourceMasks<'_, N>,
    ) -> u8 {
        const TITLE_KEY: Literal = Literal::new(r#"","title":""#);
        const DESCRIPTION_KEY: Literal = Literal::new(r#"","description":""#);
        const ARCHIVED_AT_KEY: Literal = Literal::new(r#"","archivedAt":""#);
        const BRIEF: Literal = Literal::new(r#"","brief":"#);
        const SOURCE_KEY: Literal = Literal::new(r#"","source":""#);
        const SOURCE_AFTER_BRIEF: Literal = Literal::new(r#","source":""#);
        const REVISION: Literal = Literal::new(r#"","revision":"#);
        const URL_KEY: Literal = Literal::new(r#","url":""#);
        let mut found = 0;
        let mut contents = |out: &mut Vec<u8>, text: &str, bit: u8| {
            if plain & bit != 0 {
                out.extend_from_slice(text.as_bytes());
            } else if json::write_contents(out, text, level) {
                found |= bit;
            }
        };
        contents(out, &self.id, ID);
        TITLE_KEY.write(out, level);
        contents(out, &self.title, TITLE);
        if let Some(description) = &self.description {
            DESCRIPTION_KEY.write(out, level);
            contents(out, description, DESCRIPTION);
        }
        if let Some(archived_at) = &self.archived_at {
            ARCHIVED_AT_KEY.write(out, level);
            contents(out, archived_at, ARCHIVED_AT);
        }
        match &self.brief {
            Some(brief) => {
                BRIEF.write(out, level);
                brief.write_json(out, level);
                SOURCE_AFTER_BRIEF.write(out, level);
            }
            None => SOURCE_KEY.write(out, level),
        }
        let source_plain = if plain & SOURCE != 0 {
            out.extend_from_slice(self.source.as_bytes());
            false
        } else {
            match source {
                SourceMasks::Fresh => json::write_contents(out, &self.source, level),
                SourceMasks::Keep(masks) => {
                    json::write_contents_keeping(out, &self.source, level, masks)
                }
                SourceMasks::Kept(masks) => {
                    json::write_contents_kept(out, &self.source, level, masks);
                    false
                }
            }
        };
        REVISION.write(out, level);
        json::decimal(out, self.revision);
        if let Some(url) = &self.url {
            URL_KEY.write(out, level);
            contents(out, url, URL);
        }
        found | if source_plain { SOURCE } else { 0 }
    }
}

/// How [`Document::write_level`] escapes the source.
enum SourceMasks<'a, const N: usize> {
    /// Afresh.
    Fresh,
    /// Keeping its blocks' masks.
    Keep(&'a mut json::Masks<N>),
    /// From the masks kept at the other level.
    Kept(&'a mut json::Masks<N>),
}

impl Document {
    /// [`WriteJson::write_twice`] with room for `N` of the source's masks.
    fn write_twice_masked<const N: usize>(&self, out: &mut Vec<u8>, opened: bool) {
        let mut masks = json::Masks::<N>::new();
        if !opened {
            OPEN_ID.write(out, Level::InString);
        }
        let plain = self.write_level(out, Level::InString, 0, SourceMasks::Keep(&mut masks));
        // The text copy's end, what lies between the two copies and the
        // second's opening, stored as one piece where they fit.
        const CLOSE_BETWEEN_OPEN: Joined = Joined::new(&["}", json::BETWEEN_TEXT, r#"{"id":""#]);
        const BETWEEN_OPEN: Joined = Joined::new(&[json::BETWEEN_TEXT, r#"{"id":""#]);
        match self.url {
            Some(_) => {
                CLOSE_STRING.write(out, Level::InString);
                BETWEEN_OPEN.write(out);
            }
            None => CLOSE_BETWEEN_OPEN.write(out),
        }
        self.write_level(out, Level::Plain, plain, SourceMasks::Kept(&mut masks));
        self.close(out, Level::Plain);
    }

    /// Writes what ends the document at `level` (after its last member).
    #[inline]
    fn close(&self, out: &mut Vec<u8>, level: Level) {
        match self.url {
            Some(_) => CLOSE_STRING.write(out, level),
            None => out.push(b'}'),
        }
    }
}

impl Document {
    /// [`WriteJson::write_twice`], its opening already written (`opened`).
    #[inline(always)]
    fn write_twice_opened(&self, out: &mut Vec<u8>, opened: bool) {
        // A short source's masks in two words; a long one's up to 8 KiB
        // (the blocks after those are looked at again).
        if self.source.len() < 16 * 8 {
            self.write_twice_masked::<8>(out, opened);
        } else {
            self.write_twice_masked::<512>(out, opened);
        }
    }

    /// [`write_text_result`](super::write_text_result) of the document (a
    /// read's answer, never an error): the frame's opening and the
    /// document's in its text stored as one piece. Always in line in
    /// `read::write_result` (the writer check calls it too, and as a call
    /// of its own it cost a read 19 instructions).
    #[inline(always)]
    pub(crate) fn write_result(&self, out: &mut Vec<u8>, frame: Frame<'_>) {
        const LEGACY: Joined<48> = Joined::new(&[super::result::LEGACY_TEXT, r#"{\"id\":\""#]);
        const MODERN: Joined<80> = Joined::new(&[super::result::MODERN_TEXT, r#"{\"id\":\""#]);
        super::result::reserve_for(out, self.len_hint());
        match frame {
            Frame::Legacy => LEGACY.write(out),
            Frame::Modern { .. } => MODERN.write(out),
        }
        self.write_twice_opened(out, true);
        frame.close(out);
    }
}

impl WriteJson for Document {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        OPEN_ID.write(out, level);
        self.write_level::<1>(out, level, 0, SourceMasks::Fresh);
        self.close(out, level);
    }

    /// The strings found plain in the text are copied as they are into
    /// `structuredContent`, not looked at again; the source's blocks are
    /// escaped there from the masks the text found.
    fn write_twice(&self, out: &mut Vec<u8>) {
        self.write_twice_opened(out, false);
    }

    fn len_hint(&self) -> usize {
        // As the members' hints add up (`member_hint`: each string's
        // length and a quarter, the names and syntax), summed once.
        let optional = |text: &Option<String>, name: &str| {
            text.as_ref()
                .map_or((0, 0), |text| (text.len(), name.len() + 10))
        };
        let (description, description_name) = optional(&self.description, "description");
        let (archived_at, archived_at_name) = optional(&self.archived_at, "archivedAt");
        let (url, url_name) = optional(&self.url, "url");
        let text =
            self.id.len() + self.title.len() + self.source.len() + description + archived_at + url;
        let brief = self
            .brief
            .as_ref()
            .map_or(0, |brief| member_hint("brief", brief));
        // The fixed members' names and syntax, and the revision's twenty digits.
        const FIXED: usize = 2 + (2 + 10) + (5 + 10) + (6 + 10) + (8 + 6 + 20);
        FIXED + text + text / 4 + description_name + archived_at_name + url_name + brief
    }
}
