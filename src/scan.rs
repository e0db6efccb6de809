//! One pass over a JSON-RPC message object: validates the whole text as
//! `serde_json` does when [`json::members`](crate::json::members) reads it,
//! and picks, in the same pass, the members the endpoint reads at three
//! levels: the envelope (`jsonrpc`, `id`, `method`, `params`), `params`'
//! members, and the members of `params._meta`. Nothing is walked twice.
//!
//! What is accepted is exactly what `serde_json` accepts there (RFC 8259 as
//! it implements it): the four whitespace bytes; strings without raw control
//! characters, with the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`; numbers
//! `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` of any magnitude
//! (they are never converted); `true`, `false`, `null`; nothing after the
//! object but whitespace. `serde_json` reads the envelope's keys as strings,
//! so a lone surrogate escape (`"\ud800"`) there is an error; everywhere
//! else it only skips, and a lone surrogate is accepted. It skips nested
//! values without a depth limit (only the envelope object counts against its
//! recursion limit of 128), so there is none here either.
//!
//! Picked members are read as [`json::members`](crate::json::members) reads
//! them: the last occurrence wins, keys are compared after unescaping, and
//! an object with a lone surrogate in a key is unreadable (`None`). The
//! members of `params.arguments`, when it is an object, are recorded in the
//! same pass ([`Record`]), for the tools to read without a second walk.
//!
//! Linear in the text on any input: the position only moves forward, and
//! nothing recurses; open containers are remembered one bit each.

use std::borrow::Cow;

use crate::json::{self, Raw, find_key};
use crate::lex::{colon, number_end, skip_whitespace, string_end};
use crate::record::{Arguments, Record};

/// `io.modelcontextprotocol/protocolVersion`, a member of `params._meta`.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `io.modelcontextprotocol/clientCapabilities`, a member of `params._meta`.
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// The keys picked at each level (1: the message, 2: `params`, 3:
/// `params._meta`), in the order of the picks.
pub(crate) const ENVELOPE: [&str; 4] = ["jsonrpc", "id", "method", "params"];
pub(crate) const PARAMS: [&str; 7] = [
    "_meta",
    "name",
    "arguments",
    "uri",
    "cursor",
    "notifications",
    "protocolVersion",
];
pub(crate) const META: [&str; 2] = [PROTOCOL_VERSION, CLIENT_CAPABILITIES];

/// The picks read through [`Envelope::plain`] and [`Params::plain`].
const JSONRPC: usize = 0;
const METHOD: usize = 2;
const NAME: usize = PARAMS_AT + 1;
const ARGUMENTS: usize = PARAMS_AT + 2;

/// Where each level's picks start in the flat array of all picks.
const PARAMS_AT: usize = ENVELOPE.len();
const META_AT: usize = PARAMS_AT + PARAMS.len();
const PICKS: usize = META_AT + META.len();

/// The pick whose object value opens the next level: `params` in the
/// message, `_meta` in `params`.
const OPENS: [usize; 3] = [usize::MAX, 3, PARAMS_AT];

/// The members of one message, raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Envelope<'a> {
    pub jsonrpc: Option<Raw<'a>>,
    pub id: Option<Raw<'a>>,
    pub method: Option<Raw<'a>>,
    pub params: Option<Raw<'a>>,
    /// `params`' members, when `params` is a readable object.
    pub members: Option<Params<'a>>,
    /// Bit `i`: pick `i` of the message (in [`ENVELOPE`]'s order) is a
    /// string without escapes, so its text needs no second look.
    pub plain: u16,
}

impl<'a> Envelope<'a> {
    /// Whether `jsonrpc` is the string `2.0`.
    #[inline]
    pub(crate) fn is_version_2_0(&self) -> bool {
        match self.jsonrpc {
            Some(raw) if self.plain & 1 << JSONRPC != 0 => raw.get() == "\"2.0\"",
            raw => raw
                .and_then(json::string)
                .is_some_and(|version| version == "2.0"),
        }
    }

    /// `method` read as a name ([`json::name`]).
    #[inline]
    pub(crate) fn method(&self) -> Option<Cow<'a, str>> {
        picked_name(self.method, self.plain & 1 << METHOD != 0)
    }
}

/// `raw` read as a name ([`json::name`]), straight from its text when the
/// scan found it a string without escapes.
#[inline(always)]
fn picked_name(raw: Option<Raw<'_>>, plain: bool) -> Option<Cow<'_, str>> {
    match raw {
        Some(raw) if plain => Some(Cow::Borrowed(json::plain_contents(raw))),
        raw => raw.and_then(json::name),
    }
}

/// The members of `params` the endpoint reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Params<'a> {
    /// `_meta`'s members, when `_meta` is a readable object.
    pub meta: Option<Meta<'a>>,
    pub name: Option<Raw<'a>>,
    pub arguments: Option<Raw<'a>>,
    pub uri: Option<Raw<'a>>,
    pub cursor: Option<Raw<'a>>,
    pub notifications: Option<Raw<'a>>,
    /// `initialize`'s requested version.
    pub protocol_version: Option<Raw<'a>>,
    /// Bit `PARAMS_AT + i`: pick `i` of `params` (in [`PARAMS`]' order) is
    /// a string without escapes.
    pub plain: u16,
    /// `arguments`' members, when it is an object the scan recorded.
    pub record: Record,
}

impl<'a> Params<'a> {
    /// `name` read as a name ([`json::name`]).
    #[inline]
    pub(crate) fn name(&self) -> Option<Cow<'a, str>> {
        picked_name(self.name, self.plain & 1 << NAME != 0)
    }

    /// `arguments`, with its members when the scan recorded them.
    pub(crate) fn call_arguments(&self) -> Option<Arguments<'_>> {
        Some(Arguments::new(self.arguments?, &self.record))
    }
}

/// The members of `params._meta` the modern era reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Meta<'a> {
    pub protocol_version: Option<Raw<'a>>,
    pub client_capabilities: Option<Raw<'a>>,
}

/// Reads `text` as one message object. `None` when `serde_json` would
/// refuse it, or when it is not an object.
pub(crate) fn message(text: &str) -> Option<Envelope<'_>> {
    Scanner::new(text, NoSteps).message()
}

/// [`message`], and the number of steps it took (the turns of its loops,
/// plus the bytes it moved over when it read the whole text), for the
/// linear-time tests.
pub(crate) fn message_counting(text: &str) -> (Option<Envelope<'_>>, usize) {
    let mut scanner = Scanner::new(text, Steps(0));
    let message = scanner.message();
    (message, scanner.steps.0)
}

/// What a scan counts its steps with: nothing in [`message`], where the
/// count compiles away; a number in [`message_counting`].
trait Count {
    fn add(&mut self, steps: usize);
}

struct NoSteps;

impl Count for NoSteps {
    #[inline(always)]
    fn add(&mut self, _: usize) {}
}

struct Steps(usize);

impl Count for Steps {
    #[inline(always)]
    fn add(&mut self, steps: usize) {
        self.0 += steps;
    }
}

mod arguments;
mod keys;
mod kinds;

use keys::{known_key, plain_key};
use kinds::Kinds;

/// One scan of one message's text.
///
/// The picked levels (the message, `params`, `params._meta`) are read member
/// by member, each level by a call of [`object`](Self::object) (three at
/// most, one inside the other); every other value is validated and skipped
/// by [`value`](Self::value), which never recurses.
struct Scanner<'a, C> {
    text: &'a str,
    bytes: &'a [u8],
    picks: [Option<Raw<'a>>; PICKS],
    /// [`Envelope::plain`], of the picks so far.
    plain: u16,
    /// The members of the last `arguments` object read, and where it
    /// opens: they are the picked `arguments`' when that opens there.
    record: Record,
    recorded_at: usize,
    /// Whether levels 2 and 3 hold the picks of a readable object: set when
    /// such an object opens, cleared when another value for it starts or a
    /// key in it holds a lone surrogate.
    readable: [bool; 4],
    steps: C,
}

impl<'a, C: Count> Scanner<'a, C> {
    fn new(text: &'a str, steps: C) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            picks: [None; PICKS],
            plain: 0,
            record: Record::NONE,
            recorded_at: usize::MAX,
            readable: [false; 4],
            steps,
        }
    }

    fn message(&mut self) -> Option<Envelope<'a>> {
        let at = skip_whitespace(self.bytes, 0);
        if self.bytes.get(at) != Some(&b'{') {
            return None;
        }
        let end = self.object::<1>(at)?;
        // Every byte was moved over once.
        self.steps.add(end);
        if skip_whitespace(self.bytes, end) != self.bytes.len() {
            return None;
        }
        let picks = &self.picks;
        let pick = |index: usize| picks.get(index).copied().flatten();
        let arguments = pick(ARGUMENTS);
        let mut record = self.record;
        let opens_at =
            |raw: Raw<'_>| (raw.get().as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        if arguments.is_none_or(|raw| opens_at(raw) != self.recorded_at) {
            // The last `arguments` is no object: nothing recorded.
            record.clear();
        }
        let meta = (self.readable[2] && self.readable[3]).then(|| Meta {
            protocol_version: pick(META_AT),
            client_capabilities: pick(META_AT + 1),
        });
        let members = self.readable[2].then(|| Params {
            meta,
            name: pick(PARAMS_AT + 1),
            arguments,
            uri: pick(PARAMS_AT + 3),
            cursor: pick(PARAMS_AT + 4),
            notifications: pick(PARAMS_AT + 5),
            protocol_version: pick(PARAMS_AT + 6),
            plain: self.plain & bits(PARAMS_AT..META_AT),
            record,
        });
        Some(Envelope {
            jsonrpc: pick(0),
            id: pick(1),
            method: pick(2),
            params: pick(3),
            members,
            plain: self.plain & bits(0..PARAMS_AT),
        })
    }

    /// Reads the object opening at `at` as picked level `LEVEL` (1: the
    /// message, 2: `params`, 3: `_meta`), recording its picked members;
    /// where it ends.
    fn object<const LEVEL: usize>(&mut self, at: usize) -> Option<usize> {
        // One copy per level: its keys, picks and openings are constants.
        let level = LEVEL;
        let (text, bytes) = (self.text, self.bytes);
        let (keys, base): (&[&str], usize) = match level {
            1 => (&ENVELOPE, 0),
            2 => (&PARAMS, PARAMS_AT),
            _ => (&META, META_AT),
        };
        // The pick whose object opens the next level.
        let opener = OPENS.get(level).copied();
        let mut at = skip_whitespace(bytes, at + 1);
        if bytes.get(at) == Some(&b'}') {
            return Some(at + 1);
        }
        loop {
            self.steps.add(1);
            let (found, start) = if let Some((index, after)) = known_key(level, bytes, at) {
                (Some(index), skip_whitespace(bytes, after))
            } else {
                if bytes.get(at) != Some(&b'"') {
                    return None;
                }
                let (end, escaped) = string_end(bytes, at)?;
                let found = if escaped {
                    match find_key(text.get(at + 1..end - 1)?, keys) {
                        Some(found) => found,
                        // `serde_json` reads the message's keys as strings: a
                        // lone surrogate there is an error.
                        None if level == 1 => return None,
                        None => {
                            // The object is unreadable, and so is everything
                            // picked inside it.
                            self.readable.get_mut(level..)?.fill(false);
                            None
                        }
                    }
                } else {
                    plain_key(level, bytes.get(at + 1..end - 1)?)
                };
                (found, colon(bytes, end)?)
            };
            let pick = found.map(|index| base + index);
            let mut plain = false;
            let opens = pick.is_some() && pick == opener;
            if opens {
                // Another `params` (or `_meta`): the last one wins,
                // whatever it is.
                self.readable.get_mut(level + 1..)?.fill(false);
            }
            at = match bytes.get(start) {
                // `"jsonrpc":"2.0"`, in nearly every message: compared whole.
                Some(b'"')
                    if LEVEL == 1
                        && pick == Some(JSONRPC)
                        && bytes.get(start..start + 5) == Some(b"\"2.0\"") =>
                {
                    plain = true;
                    start + 5
                }
                Some(b'"') => {
                    let (end, escaped) = string_end(bytes, start)?;
                    plain = !escaped;
                    end
                }
                Some(b'{') if opens => {
                    self.open(level + 1);
                    match LEVEL {
                        1 => self.object::<2>(start)?,
                        _ => self.object::<3>(start)?,
                    }
                }
                Some(b'{') if pick == Some(ARGUMENTS) => self.arguments(start)?,
                _ => self.value(start)?,
            };
            if let Some(pick) = pick {
                *self.picks.get_mut(pick)? = Some(Raw::new(text.get(start..at)?));
                // The last occurrence wins, and says whether it is plain.
                self.plain = self.plain & !(1u16 << pick) | u16::from(plain) << pick;
            }
            at = skip_whitespace(bytes, at);
            match *bytes.get(at)? {
                b',' => at = skip_whitespace(bytes, at + 1),
                b'}' => return Some(at + 1),
                _ => return None,
            }
        }
    }

    /// A picked level's object opens: readable so far, its picks none yet.
    fn open(&mut self, level: usize) {
        if let Some(flag) = self.readable.get_mut(level) {
            *flag = true;
        }
        let range = match level {
            2 => PARAMS_AT..META_AT,
            _ => META_AT..PICKS,
        };
        self.plain &= !bits(range.clone());
        if let Some(picks) = self.picks.get_mut(range) {
            picks.fill(None);
        }
    }

    /// Validates the value starting at `at` (no whitespace before it); where
    /// it ends. A scalar is read in line; a container by a call.
    #[inline(always)]
    fn value(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        match *bytes.get(at)? {
            b'"' => Some(string_end(bytes, at)?.0),
            // One digit (an id, most often) read in line.
            b'0'..=b'9' if !bytes.get(at + 1).is_some_and(|&b| continues_number(b)) => Some(at + 1),
            b'-' | b'0'..=b'9' => number_end(bytes, at),
            b't' => literal(bytes, at, b"true"),
            b'f' => literal(bytes, at, b"false"),
            b'n' => literal(bytes, at, b"null"),
            b'{' | b'[' => self.container(at),
            _ => None,
        }
    }

    /// Validates the object or array opening at `at`, however deep, without
    /// recursing: open containers are remembered one bit each.
    #[inline(never)]
    fn container(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut kinds = Kinds::new();
        let mut depth = 0;
        let mut in_object = false;
        let mut at = at;
        let mut expect = Expect::Value;
        // The container at `depth` closes at `at`.
        macro_rules! close {
            () => {
                at += 1;
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
                in_object = kinds.get(depth);
                expect = Expect::After;
            };
        }
        // Each turn runs the phases from `expect` on, in order, so that a
        // member (key, value, comma) usually takes one turn.
        loop {
            self.steps.add(1);
            if let Expect::First = expect {
                let close = if in_object { b'}' } else { b']' };
                if bytes.get(at) == Some(&close) {
                    close!();
                } else if in_object {
                    expect = Expect::Key;
                } else {
                    expect = Expect::Value;
                }
            }
            if let Expect::Key = expect {
                if bytes.get(at) != Some(&b'"') {
                    return None;
                }
                at = colon(bytes, string_end(bytes, at)?.0)?;
                expect = Expect::Value;
            }
            if let Expect::Value = expect {
                match *bytes.get(at)? {
                    open @ (b'{' | b'[') => {
                        depth += 1;
                        in_object = open == b'{';
                        kinds.set(depth, in_object);
                        at = skip_whitespace(bytes, at + 1);
                        expect = Expect::First;
                        continue;
                    }
                    b'"' => at = string_end(bytes, at)?.0,
                    b'-' | b'0'..=b'9' => at = number_end(bytes, at)?,
                    b't' => at = literal(bytes, at, b"true")?,
                    b'f' => at = literal(bytes, at, b"false")?,
                    b'n' => at = literal(bytes, at, b"null")?,
                    _ => return None,
                }
            }
            // After a value: `,` or the close of the enclosing container.
            at = skip_whitespace(bytes, at);
            match *bytes.get(at)? {
                b',' => {
                    at = skip_whitespace(bytes, at + 1);
                    expect = if in_object {
                        Expect::Key
                    } else {
                        Expect::Value
                    };
                }
                b'}' if in_object => {
                    close!();
                }
                b']' if !in_object => {
                    close!();
                }
                _ => return None,
            }
        }
    }
}

/// The bits of [`Envelope::plain`] for the picks `range`.
fn bits(range: std::ops::Range<usize>) -> u16 {
    range.fold(0, |bits, pick| bits | 1 << pick)
}

/// Whether `byte`, after a number's first digit, continues it (or, after a
/// `0`, is a digit the reader refuses).
#[inline]
fn continues_number(byte: u8) -> bool {
    byte.is_ascii_digit() || matches!(byte, b'.' | b'e' | b'E')
}

/// Where the literal `word` starting at `at` ends, if it is there.
#[inline]
fn literal(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    (bytes.get(at..at + word.len())? == word).then_some(at + word.len())
}

/// What the container scan expects at its position.
#[derive(Clone, Copy)]
enum Expect {
    /// A value (a member's or an element).
    Value,
    /// An object key (its opening `"`).
    Key,
    /// Just after `{` or `[`: the close, or the first key or element.
    First,
    /// After a value: `,` or the close of the enclosing container.
    After,
}
