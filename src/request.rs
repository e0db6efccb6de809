//! The request head as the endpoint sees it: borrowed method, target and headers.

/// One request header: a borrowed name and value.
///
/// Names are compared ASCII case-insensitively; values are raw bytes, as they
/// arrived (HTTP field values are not guaranteed to be UTF-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    /// The field name, in any case.
    pub name: &'a str,
    /// The field value, without surrounding whitespace.
    pub value: &'a [u8],
}

impl<'a> Header<'a> {
    /// A header from a name and a value.
    pub fn new(name: &'a str, value: &'a [u8]) -> Self {
        Header { name, value }
    }
}

/// The head of one HTTP request: method, target and headers, all borrowed.
///
/// Build it from whatever your HTTP stack hands you; with the crate's own
/// HTTP/1.1 adapter, [`http1::RequestHead::parts`](crate::http1::RequestHead::parts)
/// does it for you. Several headers of the same name are kept apart; the
/// endpoint joins list-valued ones (`Accept`) as RFC 9110 says.
#[derive(Debug, Clone, Copy)]
pub struct RequestParts<'a> {
    method: &'a str,
    target: &'a str,
    headers: &'a [Header<'a>],
}

impl<'a> RequestParts<'a> {
    /// A request head. `method` is case-sensitive (`GET`, `POST`), as in HTTP.
    pub fn new(method: &'a str, target: &'a str, headers: &'a [Header<'a>]) -> Self {
        RequestParts {
            method,
            target,
            headers,
        }
    }

    /// The request method.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The request target (path and query), as sent. The endpoint does not
    /// route: the host decides which target reaches it.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// All headers, in the order they were given.
    pub fn headers(&self) -> &'a [Header<'a>] {
        self.headers
    }

    /// The value of the first header called `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        self.all(name).next()
    }

    /// The values of every header called `name`, in order.
    pub fn all<'n>(&self, name: &'n str) -> impl Iterator<Item = &'a [u8]> + use<'a, 'n> {
        self.headers
            .iter()
            .filter(move |header| header.name.eq_ignore_ascii_case(name))
            .map(|header| header.value)
    }
}

/// Removes optional whitespace (spaces and tabs) around an HTTP token.
pub(crate) fn trim_ows(mut bytes: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = bytes {
        bytes = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = bytes {
        bytes = rest;
    }
    bytes
}
