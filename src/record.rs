//! The top-level members of `tools/call`'s `arguments` object, recorded by
//! the message reader (`crate::scan`) in the pass that validates them, so
//! that the tools read their arguments without walking the text again.
//!
//! A [`Record`] holds where each member's key and value lie in the object's
//! text, whether the key had escapes, and whether the value is a string
//! without escapes, in the order they came. [`Arguments::members`] reads it
//! exactly as [`json::members`] reads the text: the last occurrence wins,
//! escaped keys are compared after unescaping ([`find_key`]), and a lone
//! surrogate in a key makes the object unreadable. An object with more
//! members than a record holds, or longer than its offsets reach, is not
//! recorded, and is walked as before.

use crate::json::{self, Members, Raw, find_key};

/// The most members a record holds.
pub(crate) const CAPACITY: usize = 4;

/// [`Record::count`] of an object that was not recorded.
const NOT_RECORDED: u8 = u8::MAX;

/// Where one member lies, as offsets from the object's `{`: its key's
/// contents (between the quotes), then its value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    key: (u16, u16),
    value: (u16, u16),
}

/// The members of one object, as [`crate::scan`] found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// How many members were recorded, or [`NOT_RECORDED`].
    count: u8,
    /// Bit `i`: member `i`'s key holds an escape.
    escaped: u8,
    /// Bit `i`: member `i`'s value is a string without escapes.
    plain: u8,
    spans: [Span; CAPACITY],
}

impl Default for Record {
    fn default() -> Record {
        Record::NONE
    }
}

impl Record {
    /// No record: the object is read from its text.
    pub(crate) const NONE: Record = Record {
        count: NOT_RECORDED,
        escaped: 0,
        plain: 0,
        spans: [Span {
            key: (0, 0),
            value: (0, 0),
        }; CAPACITY],
    };

    /// A record of no members yet.
    pub(crate) const EMPTY: Record = Record {
        count: 0,
        ..Record::NONE
    };

    /// Starts recording an object's members: none yet. The spans are left
    /// as they are: only the first `count` are read.
    #[inline]
    pub(crate) fn start(&mut self) {
        (self.count, self.escaped, self.plain) = (0, 0, 0);
    }

    /// Records nothing: the object is read from its text.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.count = NOT_RECORDED;
    }

    /// Records the next member: its key's contents `key` and its value
    /// `value`, as offsets into the text from the object's `{` at `base`.
    /// A member past [`CAPACITY`], or one past the offsets' reach, leaves
    /// the object unrecorded.
    #[inline]
    pub(crate) fn push(
        &mut self,
        base: usize,
        key: (usize, usize),
        value: (usize, usize),
        escaped: bool,
        plain: bool,
    ) {
        let index = usize::from(self.count);
        // The value ends last: when its end is in reach, so is every offset
        // before it, and each fits in 16 bits.
        let in_reach = u16::try_from(value.1 - base).is_ok();
        let Some(slot) = self.spans.get_mut(index).filter(|_| in_reach) else {
            self.clear();
            return;
        };
        let offset = |at: usize| (at - base) as u16;
        *slot = Span {
            key: (offset(key.0), offset(key.1)),
            value: (offset(value.0), offset(value.1)),
        };
        self.escaped |= u8::from(escaped) << index;
        self.plain |= u8::from(plain) << index;
        self.count += 1;
    }

    /// Whether the record holds the object's members.
    pub(crate) fn is_recorded(&self) -> bool {
        self.count != NOT_RECORDED
    }
}

/// `tools/call`'s `arguments`: the object's text, and its members when the
/// message reader recorded them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arguments<'a> {
    raw: Raw<'a>,
    record: &'a Record,
}

impl<'a> Arguments<'a> {
    /// The object `raw`, with `record` its members as the message reader
    /// found them in `raw`'s text (or [`Record::NONE`]).
    pub(crate) fn new(raw: Raw<'a>, record: &'a Record) -> Arguments<'a> {
        Arguments { raw, record }
    }

    /// The object `raw`, its members read from its text.
    pub(crate) fn walked(raw: Raw<'a>) -> Arguments<'a> {
        Arguments::new(raw, &Record::NONE)
    }

    /// The object's text.
    pub(crate) fn raw(&self) -> Raw<'a> {
        self.raw
    }

    /// Whether the members were recorded (else they are read from the
    /// text).
    pub(crate) fn is_recorded(&self) -> bool {
        self.record.is_recorded()
    }

    /// The members named by `keys`, as [`json::members`] reads them from
    /// the text, and which of them are strings without escapes
    /// ([`Members::plain`]). In line: with the tool's keys known, their
    /// compares are a few word compares.
    #[inline(always)]
    pub(crate) fn members<const N: usize>(&self, keys: [&str; N]) -> Option<Members<'a, N>> {
        let record = self.record;
        if !record.is_recorded() {
            return json::members(self.raw, keys);
        }
        let text = self.raw.get();
        let mut members = Members {
            values: [None; N],
            other: false,
            plain: 0,
        };
        let count = usize::from(record.count);
        for (index, span) in record.spans.get(..count)?.iter().enumerate() {
            let key = usize::from(span.key.0)..usize::from(span.key.1);
            let found = if record.escaped & 1 << index != 0 {
                find_key(text.get(key)?, &keys)?
            } else {
                // Compared as bytes: a plain key needs no text of its own.
                let key = text.as_bytes().get(key)?;
                keys.iter().position(|known| known.as_bytes() == key)
            };
            let Some(found) = found else {
                members.other = true;
                continue;
            };
            let value = text.get(usize::from(span.value.0)..usize::from(span.value.1))?;
            *members.values.get_mut(found)? = Some(Raw::new(value));
            // The last occurrence wins, and says whether it is plain.
            let bit = u32::try_from(found)
                .ok()
                .and_then(|found| 1u32.checked_shl(found))
                .unwrap_or(0);
            members.plain = if record.plain & 1 << index != 0 {
                members.plain | bit
            } else {
                members.plain & !bit
            };
        }
        Some(members)
    }
}
