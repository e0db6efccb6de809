//! The JSX tag grammar (DIALECT.md §2.2), shared by flow and text tags.
//!
//! A tag is read through a [`TagSrc`], which hides where the characters come
//! from: a paragraph's text (line endings are whitespace, the end of the text is
//! the end of input) or flow lines (each line ending crosses container prefixes,
//! and a lazy line is a failure). Every character is consumed once, so reading a
//! tag is linear; a malformed tag is always fatal, never retried.

use super::entities;
use super::tree::{Attr, AttrValue};
use super::{ParseError, is_js_whitespace};

/// Why moving past a line ending failed.
pub(crate) enum Cross {
    /// The next line is lazy (lacks its container prefixes); the failure point.
    Lazy(usize),
}

/// A cursor over the characters a tag is read from.
pub(crate) trait TagSrc {
    /// The current character, or `None` at the end of the text.
    fn peek(&self) -> Option<char>;
    /// Source offset of the current character (or of the end of the text).
    fn offset(&self) -> usize;
    /// Consumes the current character. Crossing a line ending may fail.
    fn bump(&mut self) -> Result<(), Cross>;
    /// At a `{`: skips the whole expression in one step when the source can
    /// (returning its text, possibly empty when not captured); `None` means
    /// read it character by character.
    fn jump_expression(&mut self) -> Option<Result<String, Cross>> {
        None
    }
    /// The line ending at the current position as the plan writes it
    /// (`\r\n`, `\r` or `\n`): values keep it.
    fn line_ending(&self) -> &str;
    /// Right after a line ending inside an expression: skips the whitespace
    /// micromark drops there, appending what it keeps (see the impls).
    fn skip_expression_indent(&mut self, _out: &mut String) {}
    /// The current raw position, for [`TagSrc::since`].
    fn mark(&self) -> usize;
    /// The raw text from `mark` to the current position (only used for runs
    /// that never cross a line ending, which are contiguous).
    fn since(&self, mark: usize) -> &str;
}

/// A parsed tag.
#[derive(Debug)]
pub(crate) struct Tag {
    pub start: usize,
    pub end: usize,
    pub closing: bool,
    pub self_closing: bool,
    pub name: Option<String>,
    pub name_end: usize,
    pub attrs: Vec<Attr>,
    /// Offset of the closing `/` (closing tags only).
    pub slash: usize,
    /// Offset of the first attribute (for the "attribute in closing tag" error).
    pub first_attr: Option<usize>,
    /// Offset of the self-closing `/`.
    pub self_slash: usize,
}

/// Renders a character the way the reasons quote it: `` `c` (U+XXXX) ``.
pub(crate) fn quote_char(c: char) -> String {
    // NUL is quoted as the U+FFFD micromark replaced it with.
    let c = if c == '\0' { '\u{FFFD}' } else { c };
    if c == '`' {
        format!("`` ` `` (U+{:04X})", c as u32)
    } else {
        format!("`{c}` (U+{:04X})", c as u32)
    }
}

/// Characters in ID_Continue (and so ID_Start, but for U+0E33, U+0EB3,
/// U+FF9E and U+FF9F, which are in XID_Continue already) that XID_Continue
/// leaves out because NFKC changes them. ECMAScript names use ID_Start and
/// ID_Continue, as micromark-extension-mdx-jsx does; unicode-ident offers
/// only the XID sets, and the difference is this fixed list (`<a\u{FE7E} />`
/// is an element, found by the comparison with micromark).
const NOT_XID_CONTINUE: [char; 19] = [
    '\u{037A}', '\u{309B}', '\u{309C}', '\u{FC5E}', '\u{FC5F}', '\u{FC60}', '\u{FC61}', '\u{FC62}',
    '\u{FC63}', '\u{FDFA}', '\u{FDFB}', '\u{FE70}', '\u{FE72}', '\u{FE74}', '\u{FE76}', '\u{FE78}',
    '\u{FE7A}', '\u{FE7C}', '\u{FE7E}',
];

/// ID_Start characters outside XID_Start.
fn id_start_not_xid(c: char) -> bool {
    matches!(c, '\u{0E33}' | '\u{0EB3}' | '\u{FF9E}' | '\u{FF9F}') || NOT_XID_CONTINUE.contains(&c)
}

pub(crate) fn id_start(c: char) -> bool {
    (c as u32) <= 0xFFFF
        && (c == '$' || c == '_' || unicode_ident::is_xid_start(c) || id_start_not_xid(c))
}

pub(crate) fn id_cont(c: char) -> bool {
    (c as u32) <= 0xFFFF
        && (c == '$'
            || c == '_'
            || c == '-'
            || c == '\u{200C}'
            || c == '\u{200D}'
            || unicode_ident::is_xid_continue(c)
            || NOT_XID_CONTINUE.contains(&c))
}

const LAZY: &str = "Unexpected lazy line in container, expected line to be prefixed with `>` when in a block quote, whitespace when in a list, etc";
const LAZY_EXPR: &str = "Unexpected lazy line in expression in container, expected line to be prefixed with `>` when in a block quote, whitespace when in a list, etc";
const ATTR_START: &str = "a character that can start an attribute name, such as a letter, `$`, or `_`; whitespace before attributes; or the end of the tag";
const ATTR_START_EQ: &str = "a character that can start an attribute name, such as a letter, `$`, or `_`; `=` to initialize a value; or the end of the tag";
const NAME_START: &str = "a character that can start a name, such as a letter, `$`, or `_`";
const NAME_CONT: &str = "a name character such as letters, digits, `$`, or `_`; whitespace before attributes; or the end of the tag";
const ATTR_CONT: &str = "an attribute name character such as letters, digits, `$`, or `_`; `=` to initialize a value; whitespace before attributes; or the end of the tag";

struct Reader<'s, S: TagSrc> {
    src: &'s mut S,
}

impl<S: TagSrc> Reader<'_, S> {
    fn crash(&self, at: &str, expected: &str) -> ParseError {
        let found = match self.src.peek() {
            None => "end of file".to_owned(),
            Some(c) => format!("character {}", quote_char(c)),
        };
        ParseError::new(
            self.src.offset(),
            format!("Unexpected {found} {at}, expected {expected}"),
        )
    }

    fn bump(&mut self, lazy_reason: &str) -> Result<(), ParseError> {
        self.src
            .bump()
            .map_err(|Cross::Lazy(at)| ParseError::new(at, lazy_reason.to_owned()))
    }

    /// Skips §1.3 whitespace, line endings included.
    fn ws(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.src.peek() {
            if !is_js_whitespace(c) {
                break;
            }
            self.bump(LAZY)?;
        }
        Ok(())
    }

    /// Reads a name made of identifier characters, the first already checked.
    fn ident(&mut self, ends: &[char], at: &str, expected: &str) -> Result<String, ParseError> {
        // Names never contain line endings, so they are one contiguous slice.
        let mark = self.src.mark();
        while let Some(c) = self.src.peek() {
            if is_js_whitespace(c) || ends.contains(&c) {
                return Ok(self.src.since(mark).to_owned());
            }
            if !id_cont(c) {
                // An `@` in a tag or member name looks like an email autolink.
                if c == '@' && (at == "in name" || at == "in member name") {
                    let note = " (note: to create a link in MDX, use `[text](url)`)";
                    return Err(self.crash(at, &format!("{expected}{note}")));
                }
                return Err(self.crash(at, expected));
            }
            self.bump(LAZY)?;
        }
        Err(self.crash(at, expected))
    }

    /// Reads `{…}` with balanced braces; returns the raw inside.
    fn expression(&mut self) -> Result<String, ParseError> {
        if let Some(jumped) = self.src.jump_expression() {
            return jumped.map_err(|Cross::Lazy(at)| ParseError::new(at, LAZY_EXPR.to_owned()));
        }
        self.bump(LAZY_EXPR)?; // `{`
        let mut depth = 1usize;
        let mut out = String::new();
        loop {
            let Some(c) = self.src.peek() else {
                return Err(ParseError::new(
                    self.src.offset(),
                    "Unexpected end of file in expression, expected a corresponding closing brace for `{`".to_owned(),
                ));
            };
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                depth -= 1;
                if depth == 0 {
                    self.bump(LAZY_EXPR)?;
                    return Ok(out);
                }
            }
            if c == '\n' || c == '\r' {
                out.push_str(self.src.line_ending());
                self.bump(LAZY_EXPR)?;
                self.src.skip_expression_indent(&mut out);
                continue;
            }
            out.push(c);
            self.bump(LAZY_EXPR)?;
        }
    }

    fn quoted(&mut self, quote: char) -> Result<String, ParseError> {
        self.bump(LAZY)?;
        // Fast path: a value on one line is one contiguous slice.
        let mark = self.src.mark();
        while let Some(c) = self.src.peek() {
            if c == quote {
                let value = decode_references(self.src.since(mark));
                self.bump(LAZY)?;
                return Ok(value);
            }
            if c == '\n' || c == '\r' {
                break;
            }
            self.bump(LAZY)?;
        }
        let mut raw = self.src.since(mark).to_owned();
        loop {
            match self.src.peek() {
                None => {
                    return Err(self.crash(
                        "in attribute value",
                        // micromark-extension-mdx-jsx quotes the marker
                        // without its code point here.
                        &format!("a corresponding closing quote `{quote}`"),
                    ));
                }
                Some(c) if c == quote => {
                    self.bump(LAZY)?;
                    return Ok(decode_references(&raw));
                }
                Some('\n' | '\r') => {
                    // After a line ending, whitespace is not part of the
                    // value (micromark reads it as whitespace between parts).
                    raw.push_str(self.src.line_ending());
                    self.bump(LAZY)?;
                    while let Some(w) = self.src.peek() {
                        if !is_js_whitespace(w) || w == quote {
                            break;
                        }
                        if w == '\n' || w == '\r' {
                            raw.push_str(self.src.line_ending());
                        }
                        self.bump(LAZY)?;
                    }
                }
                Some(c) => {
                    raw.push(c);
                    self.bump(LAZY)?;
                }
            }
        }
    }
}

/// Reads one tag; the current character is its `<`, and the caller has already
/// ruled out the literal-`<` cases of §2.2.
pub(crate) fn parse_tag<S: TagSrc>(src: &mut S) -> Result<Tag, ParseError> {
    let mut r = Reader { src };
    let start = r.src.offset();
    r.bump(LAZY)?; // `<`
    let mut tag = Tag {
        start,
        end: start,
        closing: false,
        self_closing: false,
        name: None,
        name_end: 0,
        attrs: Vec::new(),
        slash: 0,
        first_attr: None,
        self_slash: 0,
    };
    r.ws()?;
    if r.src.peek() == Some('/') {
        tag.closing = true;
        tag.slash = r.src.offset();
        r.bump(LAZY)?;
        r.ws()?;
        match r.src.peek() {
            Some('>') => {}
            Some(c) if id_start(c) => {}
            c => {
                let note = if matches!(c, Some('*' | '/')) {
                    " (note: JS comments in JSX tags are not supported in MDX)"
                } else {
                    ""
                };
                return Err(r.crash("before name", &format!("{NAME_START}{note}")));
            }
        }
    }
    match r.src.peek() {
        Some('>') => {
            tag.name_end = r.src.offset();
            r.bump(LAZY)?;
            tag.end = r.src.offset();
            return Ok(tag);
        }
        Some(c) if id_start(c) => {}
        c => {
            let note = if c == Some('!') {
                " (note: to create a comment in MDX, use `{/* text */}`)"
            } else {
                ""
            };
            return Err(r.crash("before name", &format!("{NAME_START}{note}")));
        }
    }
    // Primary name.
    let mut name = r.ident(&['.', '/', ':', '>', '{'], "in name", NAME_CONT)?;
    if name.is_empty() {
        return Err(r.crash("in name", NAME_CONT));
    }
    tag.name_end = r.src.offset();
    r.ws()?;
    match r.src.peek() {
        Some('.') => loop {
            r.bump(LAZY)?;
            r.ws()?;
            match r.src.peek() {
                Some(c) if id_start(c) => {}
                _ => return Err(r.crash("before member name", ATTR_START)),
            }
            let member = r.ident(&['.', '/', '>', '{'], "in member name", NAME_CONT)?;
            name.push('.');
            name.push_str(&member);
            tag.name_end = r.src.offset();
            r.ws()?;
            match r.src.peek() {
                Some('.') => continue,
                Some('/' | '>' | '{') => break,
                Some(c) if id_start(c) => break,
                _ => return Err(r.crash("after member name", ATTR_START)),
            }
        },
        Some(':') => {
            r.bump(LAZY)?;
            r.ws()?;
            match r.src.peek() {
                Some(c) if id_start(c) => {}
                c => {
                    let note = if matches!(c, Some('+' | '/'..='9')) {
                        " (note: to create a link in MDX, use `[text](url)`)"
                    } else {
                        ""
                    };
                    return Err(r.crash("before local name", &format!("{NAME_START}{note}")));
                }
            }
            let local = r.ident(&['/', '>', '{'], "in local name", NAME_CONT)?;
            name.push(':');
            name.push_str(&local);
            tag.name_end = r.src.offset();
            r.ws()?;
            match r.src.peek() {
                Some('/' | '>' | '{') => {}
                Some(c) if id_start(c) => {}
                _ => return Err(r.crash("after local name", ATTR_START)),
            }
        }
        Some('/' | '>' | '{') => {}
        Some(c) if id_start(c) => {}
        _ => return Err(r.crash("after name", ATTR_START)),
    }
    tag.name = Some(name);
    // Attributes.
    loop {
        match r.src.peek() {
            Some('/') => {
                tag.self_slash = r.src.offset();
                r.bump(LAZY)?;
                r.ws()?;
                if r.src.peek() != Some('>') {
                    let note = if matches!(r.src.peek(), Some('*' | '/')) {
                        " (note: JS comments in JSX tags are not supported in MDX)"
                    } else {
                        ""
                    };
                    return Err(r.crash(
                        "after self-closing slash",
                        &format!("`>` to end the tag{note}"),
                    ));
                }
                tag.self_closing = true;
                r.bump(LAZY)?;
                tag.end = r.src.offset();
                return Ok(tag);
            }
            Some('>') => {
                r.bump(LAZY)?;
                tag.end = r.src.offset();
                return Ok(tag);
            }
            Some('{') => {
                tag.first_attr.get_or_insert(r.src.offset());
                let raw = without_nul(r.expression()?);
                tag.attrs.push(Attr::Expression(raw));
                r.ws()?;
            }
            Some(c) if id_start(c) => {
                tag.first_attr.get_or_insert(r.src.offset());
                let mut attr_name =
                    r.ident(&['/', ':', '=', '>', '{'], "in attribute name", ATTR_CONT)?;
                r.ws()?;
                let namespaced = r.src.peek() == Some(':');
                if namespaced {
                    r.bump(LAZY)?;
                    r.ws()?;
                    match r.src.peek() {
                        Some(c) if id_start(c) => {}
                        _ => return Err(r.crash("before local attribute name", ATTR_START_EQ)),
                    }
                    let local =
                        r.ident(&['/', '=', '>', '{'], "in local attribute name", ATTR_CONT)?;
                    attr_name.push(':');
                    attr_name.push_str(&local);
                    r.ws()?;
                }
                let value = if r.src.peek() == Some('=') {
                    r.bump(LAZY)?;
                    r.ws()?;
                    match r.src.peek() {
                        Some(q @ ('"' | '\'')) => AttrValue::String(without_nul(r.quoted(q)?)),
                        Some('{') => AttrValue::Expression(without_nul(r.expression()?)),
                        c => {
                            let note = if c == Some('<') {
                                " (note: to use an element or fragment as a prop value in MDX, use `{<element />}`)"
                            } else {
                                ""
                            };
                            return Err(r.crash(
                                "before attribute value",
                                &format!("a character that can start an attribute value, such as `\"`, `'`, or `{{`{note}"),
                            ));
                        }
                    }
                } else {
                    match r.src.peek() {
                        Some('/' | '>' | '{') => {}
                        Some(c) if id_start(c) => {}
                        _ => {
                            let at = if namespaced {
                                "after local attribute name"
                            } else {
                                "after attribute name"
                            };
                            return Err(r.crash(at, ATTR_START_EQ));
                        }
                    }
                    AttrValue::None
                };
                tag.attrs.push(Attr::Named {
                    name: attr_name,
                    value,
                });
                r.ws()?;
            }
            _ => return Err(r.crash("before attribute name", ATTR_START)),
        }
    }
}

/// Decodes character references (`&amp;`, `&#x41;`, `&#65;`) in an attribute
/// value; anything that is not a complete reference stays as written.
pub(crate) fn decode_references(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match match_reference(rest.as_bytes()) {
            Some((len, decoded)) => {
                out.push_str(&decoded);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Matches a character reference at the start of `bytes` (which begins with
/// `&`): returns its byte length and decoded value.
pub(crate) fn match_reference(bytes: &[u8]) -> Option<(usize, String)> {
    let mut i = 1;
    if bytes.get(i) == Some(&b'#') {
        i += 1;
        let hex = matches!(bytes.get(i), Some(b'x' | b'X'));
        if hex {
            i += 1;
        }
        let digits_start = i;
        let max = if hex { 6 } else { 7 };
        while i < bytes.len()
            && i - digits_start < max
            && (if hex {
                bytes[i].is_ascii_hexdigit()
            } else {
                bytes[i].is_ascii_digit()
            })
        {
            i += 1;
        }
        if i == digits_start || bytes.get(i) != Some(&b';') {
            return None;
        }
        let digits = std::str::from_utf8(&bytes[digits_start..i]).ok()?;
        let n = u32::from_str_radix(digits, if hex { 16 } else { 10 }).ok()?;
        let c = match n {
            0 => '\u{FFFD}',
            0xD800..=0xDFFF => '\u{FFFD}',
            _ => char::from_u32(n).unwrap_or('\u{FFFD}'),
        };
        return Some((i + 1, c.to_string()));
    }
    let name_start = i;
    while i < bytes.len() && i - name_start < 32 && bytes[i].is_ascii_alphanumeric() {
        i += 1;
    }
    if i == name_start || bytes.get(i) != Some(&b';') {
        return None;
    }
    let name = std::str::from_utf8(&bytes[name_start..i]).ok()?;
    entities::lookup(name).map(|v| (i + 1, v.to_owned()))
}

/// NUL reads as U+FFFD in values, as micromark's preprocessing makes it.
fn without_nul(value: String) -> String {
    if value.contains('\0') {
        value.replace('\0', "\u{FFFD}")
    } else {
        value
    }
}

/// A tag's name as reasons quote it: `<name>` or `</name>` (`<>`, `</>` for a
/// fragment).
pub(crate) fn abbreviated(name: &Option<String>, closing: bool) -> String {
    format!(
        "<{}{}>",
        if closing { "/" } else { "" },
        name.as_deref().unwrap_or("")
    )
}
