//! Request logs: one line per request on stderr, through `tracing`.
//!
//! A [`Record`] follows one request from its head to its response and, when
//! it ends, writes the log line and updates the [metrics](crate::metrics).
//! Everything it logs is a label from a closed set, a number, or the caller
//! name the token table maps a token to: never a token, a header value, a
//! path the client chose, or anything from a body (titles, sources, plans).
//!
//! # The JSON-RPC method and tool name, cheaply
//!
//! The endpoint parses the body once; the host does not parse it again.
//! Instead:
//!
//! - the first [`SNIFF_BYTES`] bytes of the body are copied aside as they are
//!   pushed, and scanned once when the request ends for the `"method"` key
//!   and (for `tools/call`) the `"name"` key, whose string values are matched
//!   against the names the endpoint knows ([`RpcMethod`], [`Tool`]); anything
//!   else is `other`. A body starting with `[` is a `batch`.
//! - the effects are authoritative: a list, read or create effect sets the
//!   tool (`list_documents`, `read_document`, `create_document`) whatever the
//!   scan found, and the host's answer to a create gives its result.
//! - a `create_document` call that ends with `"isError":true` in the last
//!   bytes of a 200 without reaching the store is a plan with dialect issues.
//!
//! A scan that finds nothing (the keys come after a large `arguments`, or a
//! name is escaped) labels the request `other`, never wrongly as a known one.
//!
//! When logging is off (`RUST_LOG=off`) nothing is formatted and the caller is
//! not copied; when metrics are off nothing is counted. A request costs one
//! `Instant::now()` pair, plus one around its store operation when metrics
//! are on (the store latency histogram).
// The host owns the clock.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use chopin_mcp::{Era, Outcome, ProtocolVersion};
use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use crate::host::CreateResult;
use crate::metrics;
use crate::options::LogFormat;

/// The target of request lines (`RUST_LOG=chopin_mcp_server::request=off`
/// silences them alone).
pub const REQUEST_TARGET: &str = "chopin_mcp_server::request";
/// The target of store errors.
pub const STORE_TARGET: &str = "chopin_mcp_server::store";
/// How much of a body's start is kept for the method scan.
pub const SNIFF_BYTES: usize = 512;

/// Flushes the log lines still queued when dropped: keep it until exit.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard(Option<std::thread::JoinHandle<()>>);

impl Drop for LogGuard {
    fn drop(&mut self) {
        BATCH.stop.store(true, Ordering::Release);
        BATCH.wake.notify_all();
        if let Some(writer) = self.0.take() {
            let _ = writer.join();
        }
    }
}

/// Log lines waiting for the writer thread.
struct Batch {
    lines: Mutex<Vec<u8>>,
    /// The writer waits on it for lines; writers wait on it for room.
    wake: Condvar,
    stop: AtomicBool,
}

static BATCH: Batch = Batch {
    lines: Mutex::new(Vec::new()),
    wake: Condvar::new(),
    stop: AtomicBool::new(false),
};

/// Set when there is no writer thread.
static DIRECT: AtomicBool = AtomicBool::new(false);

/// How long a line may wait before the writer thread writes it.
const BATCH_EVERY: Duration = Duration::from_millis(10);
/// Past this many queued bytes a request waits for the writer: lines are
/// never dropped.
const BATCH_LIMIT: usize = 4 << 20;

/// The subscriber's writer: appends a formatted line to the batch.
#[derive(Clone, Copy)]
struct BatchWriter;

impl std::io::Write for BatchWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if DIRECT.load(Ordering::Relaxed) {
            return std::io::stderr().write(bytes);
        }
        let mut lines = BATCH.lines.lock().unwrap_or_else(|e| e.into_inner());
        while lines.len() > BATCH_LIMIT && !BATCH.stop.load(Ordering::Acquire) {
            BATCH.wake.notify_all();
            lines = BATCH
                .wake
                .wait_timeout(lines, BATCH_EVERY)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        lines.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the batch to stderr every [`BATCH_EVERY`] (or when woken), until
/// stopped; then writes what is left.
fn write_batches() {
    let mut out = Vec::new();
    let mut stderr = std::io::stderr();
    loop {
        {
            let mut lines = BATCH.lines.lock().unwrap_or_else(|e| e.into_inner());
            if lines.is_empty() && !BATCH.stop.load(Ordering::Acquire) {
                lines = BATCH
                    .wake
                    .wait_timeout(lines, BATCH_EVERY)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            std::mem::swap(&mut *lines, &mut out);
        }
        // Room again for requests waiting on a full batch.
        BATCH.wake.notify_all();
        if !out.is_empty() {
            let _ = stderr.write_all(&out);
            out.clear();
        }
        if BATCH.stop.load(Ordering::Acquire) && BATCH.lines.lock().is_ok_and(|l| l.is_empty()) {
            return;
        }
    }
}

/// Installs the subscriber: `RUST_LOG` (default `info`) filters, lines go to
/// stderr (stdout carries the banner) as text or JSON.
///
/// A request formats its line on its own thread and appends it to a shared
/// batch (a lock held for a copy); a writer thread writes the batch every
/// 10 ms in one system call. No line costs a system call or a thread wake-up
/// of its own, and none is dropped: past 4 MiB queued, requests wait for
/// the writer.
pub fn init(format: LogFormat) -> LogGuard {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env_lossy();
    let writer = std::thread::Builder::new()
        .name("log-writer".to_owned())
        .spawn(write_batches)
        .ok();
    // Without a writer thread, lines go straight to stderr.
    DIRECT.store(writer.is_none(), Ordering::Release);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(|| BatchWriter);
    // An error here means a subscriber is already installed: keep it.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    LogGuard(writer)
}

/// Logs a store failure (the request itself is logged as a 500).
pub fn store_error(error: &dyn std::fmt::Display) {
    tracing::error!(target: STORE_TARGET, error = %error, "store error");
    if let Some(metrics) = metrics::get() {
        metrics.store_errors.inc();
    }
}

/// A JSON-RPC method the endpoint knows, `batch`, `none` (no body read), or
/// `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcMethod {
    None,
    Initialize,
    Initialized,
    Ping,
    ToolsList,
    ToolsCall,
    /// 2026-07-28's `server/discover`.
    ServerDiscover,
    /// 2026-07-28's `subscriptions/listen`.
    SubscriptionsListen,
    Batch,
    Other,
}

impl RpcMethod {
    pub const ALL: [RpcMethod; 10] = [
        RpcMethod::None,
        RpcMethod::Initialize,
        RpcMethod::Initialized,
        RpcMethod::Ping,
        RpcMethod::ToolsList,
        RpcMethod::ToolsCall,
        RpcMethod::ServerDiscover,
        RpcMethod::SubscriptionsListen,
        RpcMethod::Batch,
        RpcMethod::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RpcMethod::None => "none",
            RpcMethod::Initialize => "initialize",
            RpcMethod::Initialized => "notifications/initialized",
            RpcMethod::Ping => "ping",
            RpcMethod::ToolsList => "tools/list",
            RpcMethod::ToolsCall => "tools/call",
            RpcMethod::ServerDiscover => "server/discover",
            RpcMethod::SubscriptionsListen => "subscriptions/listen",
            RpcMethod::Batch => "batch",
            RpcMethod::Other => "other",
        }
    }

    fn named(name: &[u8]) -> RpcMethod {
        match name {
            b"initialize" => RpcMethod::Initialize,
            b"notifications/initialized" => RpcMethod::Initialized,
            b"ping" => RpcMethod::Ping,
            b"tools/list" => RpcMethod::ToolsList,
            b"tools/call" => RpcMethod::ToolsCall,
            b"server/discover" => RpcMethod::ServerDiscover,
            b"subscriptions/listen" => RpcMethod::SubscriptionsListen,
            _ => RpcMethod::Other,
        }
    }
}

/// A tool the endpoint offers, `none` (not a tool call), or `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    None,
    ListDocuments,
    ReadDocument,
    CreateDocument,
    Other,
}

impl Tool {
    pub const ALL: [Tool; 5] = [
        Tool::None,
        Tool::ListDocuments,
        Tool::ReadDocument,
        Tool::CreateDocument,
        Tool::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Tool::None => "none",
            Tool::ListDocuments => "list_documents",
            Tool::ReadDocument => "read_document",
            Tool::CreateDocument => "create_document",
            Tool::Other => "other",
        }
    }

    fn named(name: &[u8]) -> Tool {
        match name {
            b"list_documents" => Tool::ListDocuments,
            b"read_document" => Tool::ReadDocument,
            b"create_document" => Tool::CreateDocument,
            _ => Tool::Other,
        }
    }
}

/// The protocol revision and its era, from the `mcp-protocol-version` header
/// value (OWS-trimmed), as the core names them; `other` for a value the
/// endpoint refuses. A modern client that sends no header is logged under
/// the default revision: the era is only certain once the body is read.
pub fn protocol(header: Option<&[u8]>) -> (&'static str, &'static str) {
    match header {
        // The revision a request naming none is served under.
        None => (ProtocolVersion::DEFAULT.as_str(), Era::Legacy.as_str()),
        Some(value) => match ProtocolVersion::parse(value.trim_ascii()) {
            Some(version) => (version.as_str(), version.era().as_str()),
            None => ("other", "other"),
        },
    }
}

/// The request path as a label: the paths this server serves, else `other`
/// (a client-chosen path is never logged).
pub fn path_label(path: &str) -> &'static str {
    match path {
        "/mcp" => "/mcp",
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        "/metrics" => "/metrics",
        p if p.starts_with("/.well-known/oauth-protected-resource") => {
            "/.well-known/oauth-protected-resource"
        }
        _ => "other",
    }
}

/// The HTTP method as a label.
pub fn http_method_label(method: &str) -> &'static str {
    match method {
        "GET" => "GET",
        "POST" => "POST",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "OPTIONS" => "OPTIONS",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        _ => "other",
    }
}

/// One request, from head to response.
pub struct Record {
    started: Instant,
    http_method: &'static str,
    path: &'static str,
    version: (&'static str, &'static str),
    /// Whether the request line will be written: decided once, up front.
    logging: bool,
    caller: Option<String>,
    /// How the token was accepted: `static`, `jwt`, `introspection`.
    auth: Option<&'static str>,
    /// A bearer token was presented and refused (401 `invalid_token`).
    token_refused: bool,
    request_bytes: u64,
    sniffed: [u8; SNIFF_BYTES],
    sniffed_len: usize,
    /// The tool of the last effect, if any (authoritative).
    effect_tool: Option<Tool>,
    create: Option<CreateResult>,
    finished: bool,
}

/// How a request ended.
pub struct Ending<'a> {
    pub status: u16,
    /// The response body (empty for an event stream).
    pub body: &'a [u8],
}

impl Record {
    /// Starts the record of a request: `version_header` is the
    /// `mcp-protocol-version` value.
    pub fn begin(http_method: &str, path: &str, version_header: Option<&[u8]>) -> Record {
        if let Some(metrics) = metrics::get() {
            metrics.in_flight.inc();
        }
        Record {
            started: Instant::now(),
            http_method: http_method_label(http_method),
            path: path_label(path),
            version: protocol(version_header),
            logging: tracing::enabled!(target: REQUEST_TARGET, Level::INFO),
            caller: None,
            auth: None,
            token_refused: false,
            request_bytes: 0,
            sniffed: [0; SNIFF_BYTES],
            sniffed_len: 0,
            effect_tool: None,
            create: None,
            finished: false,
        }
    }

    /// Notes the caller the token stands for (copied only for the log).
    pub fn caller(&mut self, caller: Option<&String>) {
        if self.logging {
            self.caller = caller.cloned();
        }
    }

    /// Notes how the token was judged: accepted as `auth` (`static`,
    /// `jwt`, `introspection`), or refused.
    pub fn auth(&mut self, auth: Option<&'static str>, token_refused: bool) {
        self.auth = auth;
        self.token_refused = token_refused;
    }

    /// Notes a chunk of the request body.
    pub fn body(&mut self, data: &[u8]) {
        self.request_bytes += data.len() as u64;
        let room = SNIFF_BYTES - self.sniffed_len;
        if room > 0 {
            let take = room.min(data.len());
            self.sniffed[self.sniffed_len..self.sniffed_len + take].copy_from_slice(&data[..take]);
            self.sniffed_len += take;
        }
    }

    /// Notes an effect about to be carried out.
    pub fn effect<C>(&mut self, outcome: &Outcome<C>) {
        self.effect_tool = match outcome {
            Outcome::List(_) => Some(Tool::ListDocuments),
            Outcome::Read(_) => Some(Tool::ReadDocument),
            Outcome::Create(_) => Some(Tool::CreateDocument),
            _ => return,
        };
    }

    /// Notes what the store did with a create.
    pub fn created(&mut self, result: Option<CreateResult>) {
        if result.is_some() {
            self.create = result;
        }
    }

    /// The method and tool: the scan of the body's start, overridden by the
    /// effects.
    fn classify(&self) -> (RpcMethod, Tool) {
        let (method, tool) = sniff(&self.sniffed[..self.sniffed_len]);
        match self.effect_tool {
            Some(tool) if method == RpcMethod::Batch => (method, tool),
            Some(tool) => (RpcMethod::ToolsCall, tool),
            None => (method, tool),
        }
    }

    /// Ends the record: counts the request and writes its log line.
    pub fn finish(mut self, ending: Ending<'_>) {
        self.finished = true;
        let elapsed = self.started.elapsed();
        let metrics = metrics::get();
        if !self.logging && metrics.is_none() {
            return;
        }
        let (method, tool) = self.classify();
        let reason = match refusal(ending.status, ending.body) {
            Some(_) if ending.status == 401 && self.token_refused => Some(Refusal {
                text: "invalid_token",
                rejection: Some(metrics::Rejection::InvalidToken),
            }),
            reason => reason,
        };
        let issues = self.create.is_none()
            && tool == Tool::CreateDocument
            && method == RpcMethod::ToolsCall
            && ending.status == 200
            && ends_in_error_result(ending.body);
        let create = if issues {
            Some(CreateResult::Issues)
        } else {
            self.create
        };
        if let Some(metrics) = metrics {
            metrics.in_flight.dec();
            metrics.request(method, tool, ending.status, elapsed);
            if let Some(rejection) = reason.and_then(|r| r.rejection) {
                metrics.rejected(rejection);
            }
            if let Some(create) = create {
                metrics.created(create);
            }
        }
        if self.logging {
            tracing::info!(
                target: REQUEST_TARGET,
                http_method = %self.http_method,
                path = %self.path,
                status = ending.status,
                protocol_version = %self.version.0,
                era = %self.version.1,
                rpc_method = %method.as_str(),
                tool = %tool.as_str(),
                caller = self.caller.as_deref().map(tracing::field::display),
                auth = self.auth.map(tracing::field::display),
                create = create.map(|c| tracing::field::display(c.as_str())),
                duration_us = elapsed.as_micros() as u64,
                request_bytes = self.request_bytes,
                response_bytes = ending.body.len() as u64,
                reason = reason.map(|r| tracing::field::display(r.text)),
                "request"
            );
        }
    }
}

impl Drop for Record {
    /// A request whose client went away before the response: only the
    /// in-flight gauge needs putting right.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if let Some(metrics) = metrics::get() {
            metrics.in_flight.dec();
        }
    }
}

/// A request the server turned away before hyper called it: a head over
/// the limits (431) or one that does not parse (400).
pub fn refused_head(error: &hyper::Error) {
    let status = if error.is_parse_too_large() {
        431
    } else if error.is_parse() {
        400
    } else {
        return;
    };
    Record::begin("other", "other", None).finish(Ending { status, body: b"" });
}

/// Why a request was refused, if it was.
#[derive(Debug, Clone, Copy)]
pub struct Refusal {
    pub text: &'static str,
    /// Its `rejections_total` reason, for the refusals counted there.
    pub rejection: Option<metrics::Rejection>,
}

/// Why a response refuses its request, from its status and (for 400 and
/// 403, whose bodies the endpoint writes from a fixed set) its body.
pub fn refusal(status: u16, body: &[u8]) -> Option<Refusal> {
    use metrics::Rejection as R;
    let (text, rejection) = match status {
        0..=399 => return None,
        400 if contains(body, b"-32700") => ("parse_error", Some(R::ParseError)),
        400 if contains(body, b"unsupported protocol version") => {
            ("unsupported_protocol_version", None)
        }
        400 if contains(body, b"-32600") => ("invalid_request", None),
        400 => ("bad_request", None),
        401 => ("unauthorized", Some(R::Unauthorized)),
        403 if contains(body, b"insufficient scope") => {
            ("insufficient_scope", Some(R::InsufficientScope))
        }
        403 if body == b"origin is not allowed" => ("origin_not_allowed", Some(R::Forbidden)),
        403 if body == b"host is not allowed" => ("host_not_allowed", Some(R::Forbidden)),
        403 => ("forbidden", Some(R::Forbidden)),
        404 => ("not_found", None),
        405 => ("method_not_allowed", None),
        406 => ("not_acceptable", Some(R::NotAcceptable)),
        413 => ("too_large", Some(R::TooLarge)),
        415 => ("unsupported_media_type", Some(R::UnsupportedMediaType)),
        431 => ("header_fields_too_large", Some(R::HeadersTooLarge)),
        500 => ("internal_error", None),
        503 if contains(body, b"authorization unavailable") => {
            ("auth_unavailable", Some(R::AuthUnavailable))
        }
        503 => ("unavailable", None),
        _ => ("other", None),
    };
    Some(Refusal { text, rejection })
}

/// Whether a tool result ends the response: `"isError":true}` in the last
/// bytes (after the result object, only `}` and an event's blank line).
fn ends_in_error_result(body: &[u8]) -> bool {
    let tail = &body[body.len().saturating_sub(32)..];
    contains(tail, b"\"isError\":true}")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The method and tool a body's start names (see the module docs).
pub fn sniff(start: &[u8]) -> (RpcMethod, Tool) {
    let first = start.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        None => return (RpcMethod::None, Tool::None),
        Some(b'[') => return (RpcMethod::Batch, Tool::None),
        Some(_) => {}
    }
    let method = string_value(start, b"\"method\"").map_or(RpcMethod::Other, RpcMethod::named);
    let tool = if method == RpcMethod::ToolsCall {
        string_value(start, b"\"name\"").map_or(Tool::Other, Tool::named)
    } else {
        Tool::None
    };
    (method, tool)
}

/// The raw string value of the first `key` (quotes included) that is a
/// member name: `key`, spaces, `:`, spaces, `"value"` with no escape in it.
fn string_value<'a>(text: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut from = 0;
    while let Some(found) = find(&text[from..], key) {
        let at = from + found;
        from = at + 1;
        // Inside a string a quote is escaped: `\"method\"` is not a key.
        if at > 0 && text[at - 1] == b'\\' {
            continue;
        }
        let mut rest = text[at + key.len()..].trim_ascii_start();
        let Some(after_colon) = rest.strip_prefix(b":") else {
            continue;
        };
        rest = after_colon.trim_ascii_start();
        let Some(value) = rest.strip_prefix(b"\"") else {
            continue;
        };
        let end = value.iter().position(|&b| b == b'"' || b == b'\\')?;
        if value[end] == b'\\' {
            return None;
        }
        return Some(&value[..end]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_finds_known_methods_and_tools_only() {
        let read = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_document","arguments":{"id":"x"}}}"#;
        assert_eq!(sniff(read), (RpcMethod::ToolsCall, Tool::ReadDocument));
        let spaced = br#"{ "params" : { "name" : "create_document" }, "method" : "tools/call" }"#;
        assert_eq!(sniff(spaced), (RpcMethod::ToolsCall, Tool::CreateDocument));
        let init = br#"{"method":"initialize","params":{"clientInfo":{"name":"read_document"}}}"#;
        assert_eq!(sniff(init), (RpcMethod::Initialize, Tool::None));
        assert_eq!(
            sniff(br#"{"method":"tools/call","params":{"name":"drop_tables"}}"#),
            (RpcMethod::ToolsCall, Tool::Other)
        );
        assert_eq!(
            sniff(br#"{"method":"evil/\"method"}"#),
            (RpcMethod::Other, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"x":"\"method\":\"ping\"","method":"tools/list"}"#),
            (RpcMethod::ToolsList, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#),
            (RpcMethod::ServerDiscover, Tool::None)
        );
        assert_eq!(
            sniff(br#"{"method":"subscriptions/listen"}"#),
            (RpcMethod::SubscriptionsListen, Tool::None)
        );
        assert_eq!(sniff(b" [{}]"), (RpcMethod::Batch, Tool::None));
        assert_eq!(sniff(b""), (RpcMethod::None, Tool::None));
        assert_eq!(
            sniff(b"{\"method\":\"tools/ca"),
            (RpcMethod::Other, Tool::None)
        );
    }

    #[test]
    fn versions_are_classified_into_eras() {
        assert_eq!(protocol(None), ("2025-03-26", "legacy"));
        assert_eq!(protocol(Some(b"2025-06-18")), ("2025-06-18", "legacy"));
        assert_eq!(protocol(Some(b"2026-07-28")), ("2026-07-28", "modern"));
        assert_eq!(protocol(Some(b"1999-01-01")), ("other", "other"));
    }
}
