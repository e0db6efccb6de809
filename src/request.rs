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
/// does it for you, and with the `http` feature `RequestParts::from(&parts)`
/// borrows an `http::request::Parts`. Several headers of the same name are
/// kept apart; the endpoint joins list-valued ones (`Accept`) as RFC 9110 says.
#[derive(Debug, Clone, Copy)]
pub struct RequestParts<'a> {
    method: &'a str,
    target: &'a str,
    headers: &'a [Header<'a>],
    /// Borrowed instead of `headers` (then empty), so that nothing is copied.
    #[cfg(feature = "http")]
    map: Option<&'a http::HeaderMap>,
}

impl<'a> RequestParts<'a> {
    /// A request head. `method` is case-sensitive (`GET`, `POST`), as in HTTP.
    pub fn new(method: &'a str, target: &'a str, headers: &'a [Header<'a>]) -> Self {
        RequestParts {
            method,
            target,
            headers,
            #[cfg(feature = "http")]
            map: None,
        }
    }

    /// A request head whose headers are an `http::HeaderMap`, borrowed as it
    /// is: no name or value is copied.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn with_header_map(method: &'a str, target: &'a str, headers: &'a http::HeaderMap) -> Self {
        RequestParts {
            map: Some(headers),
            ..RequestParts::new(method, target, &[])
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

    /// All headers, in the order they were given (from an `http::HeaderMap`:
    /// in its iteration order, where the values of one name are adjacent).
    pub fn headers(&self) -> impl Iterator<Item = Header<'a>> + use<'a> {
        let headers = self.headers.iter().copied();
        #[cfg(feature = "http")]
        let headers = headers.chain(self.map.into_iter().flat_map(|map| {
            map.iter()
                .map(|(name, value)| Header::new(name.as_str(), value.as_bytes()))
        }));
        headers
    }

    /// The value of the first header called `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        self.all(name).next()
    }

    /// The values of every header called `name`, in order.
    pub fn all<'n>(&self, name: &'n str) -> impl Iterator<Item = &'a [u8]> + use<'a, 'n> {
        let values = self
            .headers
            .iter()
            // Names usually arrive lowercase, as `name` is given (HTTP/2 and
            // `http::HeaderMap` require it): one compare answers those.
            .filter(move |header| header.name == name || header.name.eq_ignore_ascii_case(name))
            .map(|header| header.value);
        // A hashed lookup; `name` is lowercased on the stack, never allocated.
        #[cfg(feature = "http")]
        let values = values.chain(
            self.map
                .into_iter()
                .flat_map(move |map| map.get_all(name))
                .map(http::HeaderValue::as_bytes),
        );
        values
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
