//! chopin-mcp inside an axum 0.8 service: the endpoint at `/mcp` beside an
//! ordinary route, answered by an in-memory host (a token table and documents
//! in a `HashMap`; every known caller may read every document).
//!
//! ```sh
//! cargo run -p chopin-mcp-axum-example -- --listen 127.0.0.1:8080 --token secret=octocat
//! ```
//!
//! With `--resource URL --oauth-issuer URL` the endpoint is an OAuth
//! resource server's: every other path goes through `Endpoint::metadata`
//! first, which serves Protected Resource Metadata at
//! `/.well-known/oauth-protected-resource[/path]`. (Validating the
//! authorization server's tokens is the host's: this one knows static tokens
//! only; `chopin-mcp-server` validates JWTs.)
//!
//! The body is pushed into the endpoint chunk by chunk as it arrives, so a
//! request over the budget gets its 413 without being read whole; a `GET`
//! event stream is held open with keep-alive comments.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use bytes::Bytes;
use chopin_mcp::{Config, Document, DocumentSummary, Endpoint, Outcome, RequestParts};
use futures_util::{StreamExt, stream};

struct Host {
    endpoint: Endpoint,
    /// Bearer token → caller.
    tokens: HashMap<String, String>,
    /// Document id → its repository and the document.
    documents: HashMap<String, (String, Document)>,
}

/// Drives one MCP exchange: every effect the endpoint asks for is answered
/// here, from memory.
async fn mcp(State(host): State<Arc<Host>>, request: Request) -> Response {
    let (head, body) = request.into_parts();
    let mut body = body.into_data_stream();
    let mut outcome: Outcome<String> = host.endpoint.begin(&RequestParts::from(&head));
    let response = loop {
        outcome = match outcome {
            Outcome::Respond(response) => break response,
            Outcome::Authenticate(auth) => {
                let caller = auth.bearer_token().and_then(|t| host.tokens.get(t));
                auth.answer(caller.cloned())
            }
            Outcome::Body(mut intake) => loop {
                match body.next().await {
                    Some(Ok(chunk)) => match intake.push(&chunk) {
                        Ok(more) => intake = more,
                        // Over budget: answer now, read no further.
                        Err(too_large) => break Outcome::Respond(too_large),
                    },
                    Some(Err(_)) => return (StatusCode::BAD_REQUEST, "bad body").into_response(),
                    None => break intake.finish(),
                }
            },
            Outcome::List(list) => {
                let summaries: Vec<DocumentSummary> = (host.documents.values())
                    .filter(|(repository, _)| repository == list.repository())
                    .map(|(_, doc)| DocumentSummary {
                        archived_at: None,
                        description: None,
                        id: doc.id.clone(),
                        title: doc.title.clone(),
                    })
                    .collect();
                list.answer(&summaries)
            }
            Outcome::Read(read) => {
                let document = host.documents.get(read.id()).map(|(_, doc)| doc);
                read.answer(document)
            }
            // The write effects are asked only of endpoints configured with
            // `enable_creation`, `enable_update` and the like; this host's
            // documents are read-only and its endpoint enables none.
            Outcome::Create(_)
            | Outcome::Update(_)
            | Outcome::Rename(_)
            | Outcome::Archive(_)
            | Outcome::Restore(_)
            | Outcome::InvokePlanner(_)
            | Outcome::StoreImage(_)
            | Outcome::ReadImplementation(_)
            | Outcome::StartImplementation(_)
            | Outcome::ReportLifecycle(_) => return StatusCode::NOT_IMPLEMENTED.into_response(),
        };
    };
    let streaming = response.is_event_stream();
    let response = response.into_http();
    if !streaming {
        return response.map(Body::from);
    }
    // A GET stream: a keep-alive comment at once (the client sees the head),
    // then every 15 s, until the client leaves and axum drops the stream.
    let ticks = tokio::time::interval(Duration::from_secs(15));
    let keep_alives = stream::unfold(ticks, |mut ticks| async {
        ticks.tick().await;
        let comment = Bytes::from_static(chopin_mcp::sse::keep_alive());
        Some((Ok::<_, Infallible>(comment), ticks))
    });
    response.map(|_| Body::from_stream(keep_alives))
}

/// Every other path: Protected Resource Metadata when the endpoint has it
/// (hosts ask before routing), else 404.
async fn metadata_or_not_found(State(host): State<Arc<Host>>, request: Request) -> Response {
    match host.endpoint.metadata(&RequestParts::from(&request)) {
        Some(response) => response.into_http().map(Body::from),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut listen: SocketAddr = ([127, 0, 0, 1], 8080).into();
    let mut tokens = HashMap::new();
    let (mut resource, mut issuer) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => {
                listen = value
                    .parse()
                    .map_err(|e| format!("--listen {value}: {e}"))?
            }
            "--token" => {
                let (token, caller) = value.split_once('=').ok_or("--token TOKEN=CALLER")?;
                tokens.insert(token.to_owned(), caller.to_owned());
            }
            "--resource" => resource = Some(value),
            "--oauth-issuer" => issuer = Some(value),
            _ => {
                return Err(format!(
                    "unknown flag {flag} (try --listen ADDR, --token T=CALLER, \
                     --resource URL --oauth-issuer URL)"
                ));
            }
        }
    }
    let seed = Document {
        archived_at: None,
        description: None,
        url: None,
        id: "f401c8d6-3717-4f1d-8473-cfdd0af894e4".into(),
        title: "Release readiness".into(),
        brief: None,
        source: "# Release readiness\n\nShip when the checklist is green.\n".into(),
        revision: 2,
    };
    let mut config = Config::new();
    if listen.ip().is_loopback() {
        config = config.allow_loopback_hosts(); // DNS-rebinding protection
    }
    match (resource, issuer) {
        (Some(resource), Some(issuer)) => config = config.oauth(resource, issuer),
        (None, None) => {}
        _ => return Err("--resource and --oauth-issuer go together".to_owned()),
    }
    let host = Host {
        endpoint: Endpoint::new(config).map_err(|e| e.to_string())?,
        tokens,
        documents: HashMap::from([(seed.id.clone(), ("githubnext/chopin".into(), seed))]),
    };
    let app = Router::new()
        .route("/", get(|| async { "hello from an ordinary route\n" }))
        .route("/mcp", any(mcp))
        .fallback(metadata_or_not_found)
        .with_state(Arc::new(host));
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| e.to_string())?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on http://{bound}/mcp");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}
