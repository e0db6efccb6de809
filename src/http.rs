//! Conversions between the endpoint's types and the [`http`] crate's, for
//! hosts built on hyper, axum, or anything else that speaks `http` 1.x.
//!
//! - `RequestParts::from(&parts)` borrows an [`http::request::Parts`] (or
//!   `&http::Request<B>`) as it is: method, path and query, and the header map
//!   itself. Nothing is copied and nothing is allocated.
//! - [`Response::into_http`] (or `http::Response::from(response)`) gives an
//!   `http::Response<Bytes>` with the same status, headers and body.
//!
//! ```
//! use bytes::Bytes;
//! use chopin_mcp::{Config, Endpoint, Outcome, RequestParts};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let endpoint = Endpoint::new(Config::new().allow_loopback_hosts())?;
//! let request = http::Request::post("/mcp")
//!     .header("host", "localhost")
//!     .header("authorization", "Bearer t0ken")
//!     .header("content-type", "application/json")
//!     .header("accept", "application/json, text/event-stream")
//!     .body(Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#))?;
//! let (head, body) = request.into_parts();
//!
//! let mut outcome: Outcome<&str> = endpoint.handle(&RequestParts::from(&head), body);
//! let response = loop {
//!     outcome = match outcome {
//!         Outcome::Respond(response) => break response,
//!         Outcome::Authenticate(auth) => {
//!             let caller = (auth.bearer_token() == Some("t0ken")).then_some("octocat");
//!             auth.answer(caller)
//!         }
//!         _ => unreachable!("a ping needs no document"),
//!     };
//! };
//!
//! let response: http::Response<Bytes> = response.into_http();
//! assert_eq!(response.status(), http::StatusCode::OK);
//! assert_eq!(response.headers()["content-type"], "application/json");
//! assert_eq!(response.body().as_ref(), br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
//! # Ok(())
//! # }
//! ```

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};

use crate::request::RequestParts;
use crate::response::Response;

impl<'a> From<&'a http::request::Parts> for RequestParts<'a> {
    /// Borrows the method, the target (path and query; `/` when the URI has
    /// none) and the header map: no name or value is copied.
    fn from(parts: &'a http::request::Parts) -> Self {
        let target = parts
            .uri
            .path_and_query()
            .map_or("/", http::uri::PathAndQuery::as_str);
        RequestParts::with_header_map(parts.method.as_str(), target, &parts.headers)
    }
}

impl<'a, B> From<&'a http::Request<B>> for RequestParts<'a> {
    /// As for [`http::request::Parts`]; the body is not looked at.
    fn from(request: &'a http::Request<B>) -> Self {
        let target = request
            .uri()
            .path_and_query()
            .map_or("/", http::uri::PathAndQuery::as_str);
        RequestParts::with_header_map(request.method().as_str(), target, request.headers())
    }
}

impl Response {
    /// This response as an `http::Response`: the same status, the headers of
    /// [`Response::headers`] in their order (repeated names kept apart), and
    /// the body, moved without a copy.
    ///
    /// For an [event stream](Response::is_event_stream) (the answer to an
    /// accepted `GET`) the body is empty and must not be sent as is: the host
    /// keeps the stream open, writing
    /// [`sse::keep_alive`](crate::sse::keep_alive) comments every few seconds
    /// until the client goes away:
    ///
    /// ```
    /// # use bytes::Bytes;
    /// fn send(response: chopin_mcp::Response) {
    ///     let streaming = response.is_event_stream();
    ///     let response: http::Response<Bytes> = response.into_http();
    ///     if streaming {
    ///         assert!(response.body().is_empty());
    ///         // Send the head, then `chopin_mcp::sse::keep_alive()` now and
    ///         // every 15 s; with axum:
    ///         // response.map(|_| axum::body::Body::from_stream(keep_alives))
    ///     }
    /// }
    /// ```
    pub fn into_http(self) -> http::Response<Bytes> {
        let mut headers = HeaderMap::with_capacity(8);
        for (name, value) in self.headers() {
            // Names are lower-case tokens and values visible ASCII, by
            // construction; a header that were neither would be left out
            // rather than panic.
            let value = match usual_value(value) {
                Some(value) => Ok(value),
                None => HeaderValue::from_bytes(value),
            };
            if let (Some(name), Ok(value)) = (header_name(name), value) {
                headers.append(name, value);
            }
        }
        let status = http::StatusCode::from_u16(self.status())
            .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = http::Response::new(self.into_body());
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        response
    }
}

/// The `HeaderName` of one of the endpoint's header names: `http`'s
/// constants for the names responses carry (no parse of the name, no
/// allocation for the one that is not standard), parsed only for any other.
fn header_name(name: &str) -> Option<HeaderName> {
    use http::header;
    Some(match name {
        "content-type" => header::CONTENT_TYPE,
        "cache-control" => header::CACHE_CONTROL,
        "x-content-type-options" => header::X_CONTENT_TYPE_OPTIONS,
        "allow" => header::ALLOW,
        "x-accel-buffering" => const { HeaderName::from_static("x-accel-buffering") },
        "retry-after" => header::RETRY_AFTER,
        "www-authenticate" => header::WWW_AUTHENTICATE,
        "access-control-allow-origin" => header::ACCESS_CONTROL_ALLOW_ORIGIN,
        "access-control-expose-headers" => header::ACCESS_CONTROL_EXPOSE_HEADERS,
        "access-control-allow-methods" => header::ACCESS_CONTROL_ALLOW_METHODS,
        "access-control-allow-headers" => header::ACCESS_CONTROL_ALLOW_HEADERS,
        "access-control-max-age" => header::ACCESS_CONTROL_MAX_AGE,
        "vary" => header::VARY,
        _ => return HeaderName::from_lowercase(name.as_bytes()).ok(),
    })
}

/// The values most responses carry, as `HeaderValue`s built at compile time
/// that point at static text, instead of each being checked and copied into
/// an allocation of its own.
fn usual_value(value: &[u8]) -> Option<HeaderValue> {
    Some(match value {
        b"application/json" => const { HeaderValue::from_static("application/json") },
        b"no-store" => const { HeaderValue::from_static("no-store") },
        b"nosniff" => const { HeaderValue::from_static("nosniff") },
        b"text/event-stream" => const { HeaderValue::from_static("text/event-stream") },
        b"text/plain; charset=utf-8" => {
            const { HeaderValue::from_static("text/plain; charset=utf-8") }
        }
        b"no-cache" => const { HeaderValue::from_static("no-cache") },
        b"GET, POST" => const { HeaderValue::from_static("GET, POST") },
        b"no" => const { HeaderValue::from_static("no") },
        b"origin" => const { HeaderValue::from_static("origin") },
        _ => return None,
    })
}

impl From<Response> for http::Response<Bytes> {
    /// [`Response::into_http`].
    fn from(response: Response) -> Self {
        response.into_http()
    }
}
