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
//! an object with a lone surrogate in a key is unreadable (`None`).
//!
//! Linear in the text on any input: the position only moves forward, and
//! nothing recurses; open containers are remembered one bit each.

use crate::json::{Raw, find_key};
use crate::lex::{colon, number_end, skip_whitespace, string_end};

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
    let mut steps = 0;
    scan(text, &mut steps)
}

/// [`message`], and the number of steps it took (the main loop's turns, plus
/// the bytes it moved over when it read the whole text), for the
/// linear-time tests.
pub(crate) fn message_counting(text: &str) -> (Option<Envelope<'_>>, usize) {
    let mut steps = 0;
    let message = scan(text, &mut steps);
    (message, steps)
}

/// What the scanner expects at its position.
#[derive(Clone, Copy)]
enum Expect {
    /// A value (a member's, an element, or the message itself).
    Value,
    /// An object key (its opening `"`).
    Key,
    /// Just after `{` or `[`: the close, or the first key or element.
    First,
    /// After a value: `,` or the close of the enclosing container.
    After,
}

// Inlined into both callers, so that in `message` the step count, which
// nothing reads, compiles away.
#[inline(always)]
fn scan<'a>(text: &'a str, steps: &mut usize) -> Option<Envelope<'a>> {
    let bytes = text.as_bytes();
    let mut picks: [Option<Raw<'a>>; PICKS] = [None; PICKS];
    // Whether levels 2 and 3 hold the picks of a readable object: set when
    // such an object opens, cleared when another value for it starts or a
    // key in it holds a lone surrogate.
    let mut readable = [false; 4];
    let mut kinds = Kinds::new();
    // Open containers; the outermost `tracked` of them are the picked
    // levels (the message, `params`, `_meta`), so the container at `depth`
    // is a picked level exactly when `depth == tracked`.
    let mut depth = 0;
    let mut tracked = 0;
    let mut in_object = false;
    // The member being read at each picked level: its pick, and where its
    // value starts.
    let mut pending: [Option<(usize, usize)>; 4] = [None; 4];
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut expect = Expect::Value;
    // A value ended at `at`: a picked member's, when it is one of a picked
    // level.
    macro_rules! value_ended {
        () => {
            if depth == tracked {
                if let Some((pick, start)) = pending.get_mut(depth)?.take() {
                    *picks.get_mut(pick)? = Some(Raw::new(text.get(start..at)?));
                }
            }
        };
    }
    // The container at `depth` closes at `at`; it is a value that ends there.
    macro_rules! close {
        () => {
            at += 1;
            depth -= 1;
            in_object = kinds.get(depth);
            tracked = tracked.min(depth);
            value_ended!();
            if depth == 0 {
                break;
            }
            expect = Expect::After;
        };
    }
    // Each turn runs the phases from `expect` on, in order, so that a
    // member (key, value, comma) usually takes one turn.
    loop {
        *steps += 1;
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
            let (end, escaped) = string_end(bytes, at)?;
            if depth == tracked {
                let (keys, base): (&[&str], usize) = match depth {
                    1 => (&ENVELOPE, 0),
                    2 => (&PARAMS, PARAMS_AT),
                    _ => (&META, META_AT),
                };
                let key = text.get(at + 1..end - 1)?;
                let found = if escaped {
                    match find_key(key, keys) {
                        Some(found) => found,
                        // `serde_json` reads the message's keys as strings:
                        // a lone surrogate there is an error.
                        None if depth == 1 => return None,
                        None => {
                            // The object is unreadable, and so is
                            // everything picked inside it.
                            readable.get_mut(depth..)?.fill(false);
                            None
                        }
                    }
                } else {
                    plain_key(depth, key)
                };
                let pick = found.map(|index| base + index);
                if pick.is_some() && pick.as_ref() == OPENS.get(depth) {
                    // Another `params` (or `_meta`): the last one wins,
                    // whatever it is.
                    readable.get_mut(depth + 1..)?.fill(false);
                }
                at = colon(bytes, end)?;
                *pending.get_mut(depth)? = pick.map(|pick| (pick, at));
            } else {
                at = colon(bytes, end)?;
            }
            expect = Expect::Value;
        }
        if let Expect::Value = expect {
            match *bytes.get(at)? {
                open @ (b'{' | b'[') => {
                    let object = open == b'{';
                    // The message itself, or the value of `params` or
                    // `_meta` at a picked level.
                    let opens = object
                        && depth == tracked
                        && (depth == 0
                            || pending
                                .get(depth)
                                .copied()
                                .flatten()
                                .is_some_and(|(pick, _)| OPENS.get(depth) == Some(&pick)));
                    depth += 1;
                    kinds.set(depth, object);
                    in_object = object;
                    if opens {
                        tracked = depth;
                        if let Some(flag) = readable.get_mut(depth) {
                            *flag = true;
                        }
                        let range = match depth {
                            2 => PARAMS_AT..META_AT,
                            3 => META_AT..PICKS,
                            _ => 0..0,
                        };
                        picks.get_mut(range)?.fill(None);
                    }
                    at = skip_whitespace(bytes, at + 1);
                    expect = Expect::First;
                    continue;
                }
                b'"' => at = string_end(bytes, at)?.0,
                b'-' | b'0'..=b'9' => at = number_end(bytes, at)?,
                first @ (b't' | b'f' | b'n') => {
                    let word: &[u8] = match first {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    if bytes.get(at..at + word.len())? != word {
                        return None;
                    }
                    at += word.len();
                }
                _ => return None,
            }
            value_ended!();
        }
        // After a value (every phase above ends here, or has continued):
        // `,` or the close of the enclosing container.
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
    // The position only moves forward: it is the bytes moved over.
    *steps += at;
    if skip_whitespace(bytes, at) != bytes.len() {
        return None;
    }
    let pick = |index: usize| picks.get(index).copied().flatten();
    let meta = (readable[2] && readable[3]).then(|| Meta {
        protocol_version: pick(META_AT),
        client_capabilities: pick(META_AT + 1),
    });
    let members = readable[2].then(|| Params {
        meta,
        name: pick(PARAMS_AT + 1),
        arguments: pick(PARAMS_AT + 2),
        uri: pick(PARAMS_AT + 3),
        cursor: pick(PARAMS_AT + 4),
        notifications: pick(PARAMS_AT + 5),
        protocol_version: pick(PARAMS_AT + 6),
    });
    Some(Envelope {
        jsonrpc: pick(0),
        id: pick(1),
        method: pick(2),
        params: pick(3),
        members,
    })
}

/// Which of the keys of the picked level `depth` the unescaped `key` is
/// (what `keys.iter().position` over [`ENVELOPE`], [`PARAMS`] or [`META`]
/// answers, as matches the compiler turns into length and word compares;
/// the `plain_keys_are_the_picked_keys` test keeps the two lists equal).
fn plain_key(depth: usize, key: &str) -> Option<usize> {
    let index = match depth {
        1 => match key {
            "jsonrpc" => 0,
            "id" => 1,
            "method" => 2,
            "params" => 3,
            _ => return None,
        },
        2 => match key {
            "_meta" => 0,
            "name" => 1,
            "arguments" => 2,
            "uri" => 3,
            "cursor" => 4,
            "notifications" => 5,
            "protocolVersion" => 6,
            _ => return None,
        },
        _ => match key {
            PROTOCOL_VERSION => 0,
            CLIENT_CAPABILITIES => 1,
            _ => return None,
        },
    };
    Some(index)
}

/// Whether each open container is an object, one bit per depth: the first
/// 64 levels in a word, deeper ones on the heap (only for bodies nested that
/// deep; `serde_json`'s skip stack allocates for any nesting).
struct Kinds {
    near: u64,
    deep: Vec<u64>,
}

impl Kinds {
    fn new() -> Kinds {
        Kinds {
            near: 0,
            deep: Vec::new(),
        }
    }

    /// Records the kind of the container at `depth`, which is at most one
    /// deeper than any recorded before.
    #[inline]
    fn set(&mut self, depth: usize, object: bool) {
        let word = match depth / 64 {
            0 => &mut self.near,
            index => match self.deep_word(index - 1) {
                Some(word) => word,
                None => return,
            },
        };
        let bit = 1u64 << (depth % 64);
        if object {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    #[cold]
    fn deep_word(&mut self, index: usize) -> Option<&mut u64> {
        if index == self.deep.len() {
            self.deep.push(0);
        }
        self.deep.get_mut(index)
    }

    #[inline]
    fn get(&self, depth: usize) -> bool {
        let word = match depth / 64 {
            0 => self.near,
            index => self.deep.get(index - 1).copied().unwrap_or(0),
        };
        word & (1u64 << (depth % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_keys_are_the_picked_keys() {
        for (depth, keys) in [(1, &ENVELOPE[..]), (2, &PARAMS[..]), (3, &META[..])] {
            for (index, key) in keys.iter().enumerate() {
                assert_eq!(plain_key(depth, key), Some(index), "{key}");
            }
            assert_eq!(plain_key(depth, "x"), None);
        }
    }
}
