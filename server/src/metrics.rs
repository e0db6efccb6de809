//! Prometheus metrics (the `prometheus` crate), served in the text format on
//! their own listener (`--metrics-listen`): `GET /metrics`.
//!
//! Every label value comes from a closed set (the methods and tools the
//! endpoint knows, else `other`; a fixed list of statuses, else `other`), so
//! no client can grow the set of series. Handles are resolved once: the
//! fixed series when the metrics are installed, a request series the first
//! time it is used (then a slot holds it); counting a request is a few atomic
//! operations and never takes a lock.
//!
//! Without `--metrics-listen` nothing is installed and nothing is counted.
//!
//! The label sets come from [`labels`](crate::labels); this module knows
//! nothing of the logs ([`record`](crate::record) counts each request here
//! and logs it there).
// The host owns the clock.
#![allow(clippy::disallowed_methods)]

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
    Registry, TextEncoder,
};
use tokio::net::TcpListener;

use crate::labels::{Rejection, RpcMethod, StoreOperation, Tool, Written};
use crate::shutdown::Shutdown;

/// The statuses counted by their code; any other is `other`.
const STATUSES: [u16; 13] = [
    200, 202, 400, 401, 403, 404, 405, 406, 413, 415, 431, 500, 503,
];
const STATUS_LABELS: [&str; 14] = [
    "200", "202", "400", "401", "403", "404", "405", "406", "413", "415", "431", "500", "503",
    "other",
];

/// Latency buckets, seconds: 50 µs to 10 s.
const BUCKETS: [f64; 17] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
];

const METHODS: usize = RpcMethod::ALL.len();
const TOOLS: usize = Tool::ALL.len();

/// Every metric of the server, and the handles requests count with.
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    /// `requests_total` by (method, tool, status), resolved on first use.
    request_slots: Box<[OnceLock<IntCounter>]>,
    durations: HistogramVec,
    /// `request_duration_seconds` by (method, tool), resolved on first use.
    duration_slots: Box<[OnceLock<Histogram>]>,
    pub in_flight: IntGauge,
    rejections: Vec<IntCounter>,
    store: Vec<Histogram>,
    /// `creates_total`, `updates_total`, … by result, in the order of
    /// [`Written::slot`].
    writes: Vec<IntCounter>,
    pub store_errors: IntCounter,
    /// `planner_turns_total` by how a turn ended.
    planner_turns: IntCounterVec,
}

static METRICS: OnceLock<Metrics> = OnceLock::new();

/// The installed metrics, if `--metrics-listen` asked for them.
#[inline]
pub fn get() -> Option<&'static Metrics> {
    METRICS.get()
}

/// Installs the metrics (once; later calls return the same).
/// Counts an invoke_planner turn that ended as `state`.
pub fn planner_turn(state: &str) {
    if let Some(metrics) = get() {
        metrics
            .planner_turns
            .with_label_values(&["invoke_planner", state])
            .inc();
    }
}

pub fn install() -> &'static Metrics {
    METRICS.get_or_init(|| Metrics::new().expect("metric definitions are valid"))
}

impl Metrics {
    fn new() -> prometheus::Result<Metrics> {
        let registry = Registry::new_custom(Some("chopin_mcp".to_owned()), None)?;
        let requests = IntCounterVec::new(
            Opts::new(
                "requests_total",
                "Requests answered, by JSON-RPC method, tool and HTTP status.",
            ),
            &["method", "tool", "status"],
        )?;
        let durations = HistogramVec::new(
            HistogramOpts::new(
                "request_duration_seconds",
                "Time from the request head to the response head, by JSON-RPC method and tool.",
            )
            .buckets(BUCKETS.to_vec()),
            &["method", "tool"],
        )?;
        let in_flight = IntGauge::new("requests_in_flight", "Requests being handled.")?;
        let rejection_vec = IntCounterVec::new(
            Opts::new("rejections_total", "Requests refused, by reason."),
            &["reason"],
        )?;
        let store_vec = HistogramVec::new(
            HistogramOpts::new(
                "store_operation_duration_seconds",
                "Time a store operation takes, waiting for a connection included.",
            )
            .buckets(BUCKETS.to_vec()),
            &["operation"],
        )?;
        // One counter per write tool: `creates_total`, `updates_total`, …
        let write_vecs = Written::FIELDS
            .iter()
            .zip(Written::TOOLS)
            .map(|(field, tool)| {
                IntCounterVec::new(
                    Opts::new(
                        format!("{field}s_total"),
                        format!("{tool} calls, by result."),
                    ),
                    &["result"],
                )
            })
            .collect::<prometheus::Result<Vec<_>>>()?;
        let store_errors = IntCounter::new("store_errors_total", "Store operations that failed.")?;
        let planner_turns = IntCounterVec::new(
            Opts::new(
                "planner_turns_total",
                "invoke_planner turns run, by how they ended (exited, timed-out, failed).",
            ),
            &["tool", "state"],
        )?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(durations.clone()))?;
        registry.register(Box::new(in_flight.clone()))?;
        registry.register(Box::new(rejection_vec.clone()))?;
        registry.register(Box::new(store_vec.clone()))?;
        for family in &write_vecs {
            registry.register(Box::new(family.clone()))?;
        }
        registry.register(Box::new(store_errors.clone()))?;
        registry.register(Box::new(planner_turns.clone()))?;
        Ok(Metrics {
            registry,
            requests,
            request_slots: (0..METHODS * TOOLS * STATUS_LABELS.len())
                .map(|_| OnceLock::new())
                .collect(),
            durations,
            duration_slots: (0..METHODS * TOOLS).map(|_| OnceLock::new()).collect(),
            in_flight,
            rejections: Rejection::ALL
                .iter()
                .map(|r| rejection_vec.with_label_values(&[r.as_str()]))
                .collect(),
            store: StoreOperation::ALL
                .iter()
                .map(|o| store_vec.with_label_values(&[o.as_str()]))
                .collect(),
            writes: Written::all()
                .map(|w| write_vecs[w.family()].with_label_values(&[w.as_str()]))
                .collect(),
            store_errors,
            planner_turns,
        })
    }

    /// Counts an answered request and its latency.
    pub fn request(&self, method: RpcMethod, tool: Tool, status: u16, elapsed: Duration) {
        let (m, t) = (method.index(), tool.index());
        let s = STATUSES
            .iter()
            .position(|&x| x == status)
            .unwrap_or(STATUSES.len());
        let counter =
            self.request_slots[(m * TOOLS + t) * STATUS_LABELS.len() + s].get_or_init(|| {
                self.requests
                    .with_label_values(&[method.as_str(), tool.as_str(), STATUS_LABELS[s]])
            });
        counter.inc();
        let histogram = self.duration_slots[m * TOOLS + t].get_or_init(|| {
            self.durations
                .with_label_values(&[method.as_str(), tool.as_str()])
        });
        histogram.observe(elapsed.as_secs_f64());
    }

    pub fn rejected(&self, rejection: Rejection) {
        if let Some(counter) = self.rejections.get(rejection.index()) {
            counter.inc();
        }
    }

    /// Counts a write tool's result.
    pub fn written(&self, result: Written) {
        if let Some(counter) = self.writes.get(result.slot()) {
            counter.inc();
        }
    }

    fn store_latency(&self, operation: StoreOperation, elapsed: Duration) {
        if let Some(histogram) = self.store.get(operation.index()) {
            histogram.observe(elapsed.as_secs_f64());
        }
    }

    /// Everything, in the Prometheus text format.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8192);
        // Encoding into a Vec cannot fail but for a malformed family, which
        // the definitions above rule out.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        out
    }
}

/// Runs a store operation, timing it when metrics are on.
pub fn time_store<T>(operation: StoreOperation, job: impl FnOnce() -> T) -> T {
    match get() {
        None => job(),
        Some(metrics) => {
            let started = Instant::now();
            let result = job();
            metrics.store_latency(operation, started.elapsed());
            result
        }
    }
}

/// [`time_store`] for a job that may hand its operation on instead of
/// carrying it out: its time is counted only when `carried_out` says so.
pub fn time_store_when<T>(
    operation: StoreOperation,
    job: impl FnOnce() -> T,
    carried_out: impl FnOnce(&T) -> bool,
) -> T {
    match get() {
        None => job(),
        Some(metrics) => {
            let started = Instant::now();
            let result = job();
            if carried_out(&result) {
                metrics.store_latency(operation, started.elapsed());
            }
            result
        }
    }
}

/// [`time_store`] for a store call that is awaited.
pub async fn time_store_async<T>(
    operation: StoreOperation,
    job: impl std::future::Future<Output = T>,
) -> T {
    let started = get().map(|_| Instant::now());
    let result = job.await;
    if let (Some(metrics), Some(started)) = (get(), started) {
        metrics.store_latency(operation, started.elapsed());
    }
    result
}

type Reply = hyper::Response<Full<Bytes>>;

/// Installs the metrics and serves them on `listener` (see [`serve`]).
pub fn spawn(listener: TcpListener, shutdown: Arc<Shutdown>) {
    let metrics = install();
    tokio::spawn(serve(metrics, listener, shutdown));
}

/// Serves `GET /metrics` on `listener` until shutdown: other paths 404,
/// other methods 405.
pub async fn serve(metrics: &'static Metrics, listener: TcpListener, shutdown: Arc<Shutdown>) {
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = shutdown.triggered() => return,
        };
        let shutdown = Arc::clone(&shutdown);
        tokio::spawn(async move {
            let service =
                service_fn(
                    move |request| async move { Ok::<_, Infallible>(answer(metrics, &request)) },
                );
            let connection = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
            let _ = crate::shutdown::serve(connection, &shutdown).await;
        });
    }
}

fn answer<B>(metrics: &Metrics, request: &hyper::Request<B>) -> Reply {
    if request.uri().path() != "/metrics" {
        return text(404, "not found", "text/plain; charset=utf-8");
    }
    if request.method() != hyper::Method::GET {
        let mut reply = text(405, "method not allowed", "text/plain; charset=utf-8");
        reply
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return reply;
    }
    let mut reply = hyper::Response::new(Full::new(Bytes::from(metrics.render())));
    let headers = reply.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static(prometheus::TEXT_FORMAT),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    reply
}

fn text(status: u16, body: &'static str, content_type: &'static str) -> Reply {
    let mut reply = hyper::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *reply.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or_default();
    reply
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    reply
}
