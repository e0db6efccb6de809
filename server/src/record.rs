//! One record per request, from its head to its response: when it ends, its
//! log line ([`telemetry`]) and its metrics ([`metrics`]), both described by
//! the labels of [`labels`].
//!
//! When logging is off (`RUST_LOG=off`) nothing is formatted and the caller is
//! not kept; when metrics are off nothing is counted. A request costs one
//! `Instant::now()` pair (and the clock read of its line's timestamp), plus
//! one around its store operation when metrics are on (the store latency
//! histogram).
// The host owns the clock.
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use chopin_mcp::{ClientInfo, Outcome};

use crate::labels::{self, RpcMethod, SNIFF_BYTES, Tool, Written};
use crate::metrics;
use crate::telemetry::{self, RequestLine};

/// One request, from head to response.
pub struct Record {
    started: Instant,
    http_method: &'static str,
    path: &'static str,
    version: (&'static str, &'static str),
    /// Whether the request line will be written: decided once, up front.
    logging: bool,
    caller: Option<Arc<str>>,
    /// How the token was accepted: `static`, `jwt`, `introspection`.
    auth: Option<&'static str>,
    /// A bearer token was presented and refused (401 `invalid_token`).
    token_refused: bool,
    request_bytes: u64,
    /// The body's start, for [`labels::sniff`].
    sniffed: Sniffed,
    /// The tool of the last effect, if any (authoritative).
    effect_tool: Option<Tool>,
    /// What became of a write, as the host noted it.
    written: Option<Written>,
    /// The client a create or update named (SURFACE.md §10), kept only for
    /// the log: the store keeps no per-session state, and its history rows
    /// no client.
    client: Option<Box<ClientInfo>>,
    finished: bool,
}

/// The start of a request body: its first [`SNIFF_BYTES`] at most, kept
/// only when a log line or metrics will be written.
struct Sniffed {
    start: [u8; SNIFF_BYTES],
    len: usize,
}

impl Sniffed {
    fn new() -> Sniffed {
        Sniffed {
            start: [0; SNIFF_BYTES],
            len: 0,
        }
    }

    /// Keeps as much of `data` as fits.
    fn keep(&mut self, data: &[u8]) {
        let take = (SNIFF_BYTES - self.len).min(data.len());
        self.start[self.len..self.len + take].copy_from_slice(&data[..take]);
        self.len += take;
    }

    fn bytes(&self) -> &[u8] {
        &self.start[..self.len]
    }
}

/// How a request ended.
pub struct Ending<'a> {
    pub status: u16,
    /// The response body (empty for an event stream).
    pub body: &'a [u8],
    /// When the response was written (its `date`): the log line's
    /// timestamp.
    pub now: SystemTime,
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
            http_method: labels::http_method_label(http_method),
            path: labels::path_label(path),
            version: labels::protocol(version_header),
            logging: telemetry::requests_enabled(),
            caller: None,
            auth: None,
            token_refused: false,
            request_bytes: 0,
            sniffed: Sniffed::new(),
            effect_tool: None,
            written: None,
            client: None,
            finished: false,
        }
    }

    /// Notes the caller the token stands for (kept only for the log).
    pub fn caller(&mut self, caller: Option<&Arc<str>>) {
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
        if self.logging || metrics::get().is_some() {
            self.sniffed.keep(data);
        }
    }

    /// Notes an effect about to be carried out.
    pub fn effect<C>(&mut self, outcome: &Outcome<C>) {
        if self.logging {
            let client = match outcome {
                Outcome::Create(create) => Some(create.client()),
                Outcome::Update(update) => Some(update.client()),
                _ => None,
            };
            if let Some(client) = client {
                self.client = Some(Box::new(client.clone()));
            }
        }
        self.effect_tool = match outcome {
            Outcome::List(_) => Some(Tool::ListDocuments),
            Outcome::Read(_) => Some(Tool::ReadDocument),
            Outcome::Create(_) => Some(Tool::CreateDocument),
            Outcome::Update(_) => Some(Tool::UpdateDocument),
            Outcome::Rename(_) => Some(Tool::RenameDocument),
            Outcome::Archive(_) => Some(Tool::ArchiveDocument),
            Outcome::Restore(_) => Some(Tool::RestoreDocument),
            Outcome::InvokePlanner(_) => Some(Tool::InvokePlanner),
            Outcome::StoreImage(_) => Some(Tool::UploadImage),
            Outcome::Respond(_)
            | Outcome::Authenticate(_)
            | Outcome::Body(_)
            | Outcome::ReadImplementation(_)
            | Outcome::StartImplementation(_)
            | Outcome::ReportLifecycle(_) => return,
        };
    }

    /// Notes what the store did with a write.
    pub fn written(&mut self, result: Option<Written>) {
        if result.is_some() {
            self.written = result;
        }
    }

    /// The method and tool: the effects when there were any (then only
    /// whether the body is a batch is looked at), else the scan of the
    /// body's start.
    fn classify(&self) -> (RpcMethod, Tool) {
        let start = self.sniffed.bytes();
        match self.effect_tool {
            Some(tool) if labels::is_batch(start) => (RpcMethod::Batch, tool),
            Some(tool) => (RpcMethod::ToolsCall, tool),
            None => labels::sniff(start),
        }
    }

    /// Ends the record: counts the request and writes its log line (once:
    /// a record already finished is left as it is). By reference, so that
    /// the record (its body's first bytes among it) is not moved to end it.
    pub fn finish(&mut self, ending: Ending<'_>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let elapsed = self.started.elapsed();
        let metrics = metrics::get();
        if !self.logging && metrics.is_none() {
            return;
        }
        let (method, tool) = self.classify();
        let reason = match labels::refusal(ending.status, ending.body) {
            Some(_) if ending.status == 401 && self.token_refused => Some(labels::Refusal {
                text: "invalid_token",
                rejection: Some(labels::Rejection::InvalidToken),
            }),
            reason => reason,
        };
        // A plan with issues never reaches the host: the answer says so.
        let written = self.written.or_else(|| {
            let plan_tool = Written::issues(tool)?;
            let issues = method == RpcMethod::ToolsCall
                && ending.status == 200
                && labels::is_issues_result(ending.body);
            issues.then_some(plan_tool)
        });
        if let Some(metrics) = metrics {
            metrics.in_flight.dec();
            metrics.request(method, tool, ending.status, elapsed);
            if let Some(rejection) = reason.and_then(|r| r.rejection) {
                metrics.rejected(rejection);
            }
            if let Some(written) = written {
                metrics.written(written);
            }
        }
        if self.logging {
            // The fields in the order the line has always had them.
            let mut line = RequestLine::start_at(ending.now);
            line.label("http_method", self.http_method);
            line.label("path", self.path);
            line.number("status", u64::from(ending.status));
            line.label("protocol_version", self.version.0);
            line.label("era", self.version.1);
            line.label("rpc_method", method.as_str());
            line.label("tool", tool.as_str());
            if let Some(caller) = &self.caller {
                line.text("caller", caller);
            }
            if let Some(auth) = self.auth {
                line.label("auth", auth);
            }
            if let Some(written) = written {
                line.label(written.field(), written.as_str());
            }
            if let Some(client) = &self.client {
                line.text("client_name", &client.name);
                line.text("client_version", &client.version);
            }
            line.number(
                "duration_us",
                u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            );
            line.number("request_bytes", self.request_bytes);
            line.number("response_bytes", ending.body.len() as u64);
            if let Some(reason) = reason {
                line.label("reason", reason.text);
            }
            line.write();
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

/// A request head the server turned away before it was parsed: over the
/// limits (431) or malformed (400), with its `status`.
pub fn refused_head(status: u16) {
    Record::begin("other", "other", None).finish(Ending {
        status,
        body: b"",
        now: SystemTime::now(),
    });
}

/// A store failure: logged, and counted (the request itself is logged as a
/// 500).
pub fn store_error(error: &dyn std::fmt::Display) {
    telemetry::store_error(error);
    if let Some(metrics) = metrics::get() {
        metrics.store_errors.inc();
    }
}
