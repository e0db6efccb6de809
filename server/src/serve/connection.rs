//! One connection's exchange loop: requests one after another
//! ([`connection`]), each one read, routed and answered ([`exchange`]) and
//! its response written ([`respond`]); then the connection is dropped,
//! lingered over, or its event stream handed on to be held.

use std::sync::Arc;

use chopin_mcp::http1::{self, BodyDecoder, Framing};
use chopin_mcp::{Header, Outcome};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::effects::{
    Carried, Judged, Reply, carry_out_later, carry_out_now, judge, plain, serve_document,
    serve_image,
};
use super::known::Known;
use super::read::{Conn, HEAD_TIMEOUT, Next, Waits, read_head, read_more};
use super::streams::Streams;
use super::write::{linger, refuse, send, write_continue};
use crate::host::{Caller, Host, RETRY_AFTER};
use crate::shutdown::{Shutdown, Tracked};
use crate::{health, record, wire};

/// Serves a connection with the crate's HTTP/1.1 adapter: requests one after
/// another (pipelined ones from the bytes already read), until the client
/// leaves, a response closes it, a head is too slow, or the shutdown begins.
/// A connection whose response is an event stream is handed, its head
/// written, to the streams thread ([`Holder`](super::streams::Holder)), and
/// keeps nothing here.
pub(super) async fn connection(
    host: Arc<Host>,
    stream: TcpStream,
    shutdown: Arc<Shutdown>,
    tracked: Tracked, // ops: open until it is dropped
    streams: Streams,
) {
    // Replies are small and written whole: don't let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    let mut conn = Conn {
        stream,
        read: Vec::new(),
        out: Vec::new(),
        known: Known::default(),
    };
    // ops: once the shutdown starts, finish the request in flight and close.
    let stop = shutdown.stop();
    tokio::pin!(stop);
    // The head deadline: one timer for the connection, which only runs out
    // every HEAD_TIMEOUT and then looks at when the wait began, rather than
    // one armed (registered and cancelled) for every request.
    let check = tokio::time::sleep(HEAD_TIMEOUT);
    tokio::pin!(check);
    let next = loop {
        let waits = Waits {
            stop: stop.as_mut(),
            check: check.as_mut(),
        };
        match exchange(&host, &shutdown, &mut conn, waits).await {
            Next::KeepAlive => {}
            next => break next,
        }
    };
    // Nothing of the buffers is kept while a stream is held or a close
    // lingers.
    let Conn {
        stream,
        read,
        out,
        known,
    } = conn;
    drop((read, out, known));
    match next {
        Next::Stream(expires) => streams.hold(stream, tracked, &shutdown, expires).await,
        Next::Close => linger(stream).await,
        Next::KeepAlive | Next::Gone => {}
    }
}

/// Serves one request: head, body, effects, response.
async fn exchange<S: std::future::Future<Output = ()>>(
    host: &Host,
    shutdown: &Shutdown,
    conn: &mut Conn,
    waits: Waits<'_, S>,
) -> Next {
    match read_head(conn, waits).await {
        Ok(true) => {}
        Ok(false) => return Next::Gone,
        Err(refused) => return refuse(conn, refused).await,
    }
    // The head is looked at where it was parsed (its 64 header slots are
    // not moved out of the result).
    let parsed = http1::parse_head(&conn.read);
    let head = match &parsed {
        Ok(Some(head)) => head,
        // The scanner saw a whole head: only a refusal is left.
        Ok(None) => return Next::Gone,
        Err(refused) => return refuse(conn, *refused).await,
    };
    let (head_len, framing) = (head.len(), head.framing());
    let (keep_alive, expects_continue) = (head.keep_alive(), head.expects_continue());
    let parts = head.parts();
    let bodiless_reply = parts.method() == "HEAD";
    let path = wire::path(parts.target());
    // ops: health endpoints, outside /mcp and its authentication.
    if let Some(probe) = health::Probe::of(path) {
        // Boxed, as the store's futures below are.
        let answer = Box::pin(health::respond(
            probe,
            parts.method(),
            &host.store,
            shutdown,
        ))
        .await;
        let no_body = framing == Framing::Length(0);
        let keep = keep_alive && no_body && !shutdown.is_triggered();
        let date = wire::date();
        let headers = [
            Header::new("date", &date),
            Header::new("allow", health::ALLOW.as_bytes()),
        ];
        let extra = if answer.allow_get {
            &headers[..]
        } else {
            &headers[..1]
        };
        wire::plain_head(answer.status, answer.body, keep, extra, &mut conn.out);
        conn.read.drain(..head_len);
        return send(conn, answer.body.as_bytes(), keep, no_body, bodiless_reply).await;
    }
    // ops: one record per request: a log line and metrics when it ends.
    let mut record =
        record::Record::begin(parts.method(), path, parts.header("mcp-protocol-version"));
    // When the token expires, if it is an OAuth token: an event stream
    // opened with it ends then (AUTH.md §2).
    let mut expires = None;
    let mut decoder = BodyDecoder::new(framing);
    let mut continued = false;
    // Protected Resource Metadata (with --oauth-issuer), before routing.
    let reply = if let Some(response) = host.endpoint.metadata(&parts) {
        conn.read.drain(..head_len);
        Reply::Endpoint(response)
    } else if let Some(id) = wire::document_id(path) {
        // A document's URL: its plan, read as read_document reads it.
        let outcome = host.endpoint.document(&parts, &id);
        conn.read.drain(..head_len);
        Box::pin(serve_document(host, outcome, &mut record)).await
    } else if let Some(file) = wire::image_file(path) {
        // An image's URL: its bytes, to a caller who may see a document
        // it was uploaded to.
        let outcome = host.endpoint.image(&parts, file);
        conn.read.drain(..head_len);
        Box::pin(serve_image(host, outcome, &mut record)).await
    } else if path != "/mcp" {
        conn.read.drain(..head_len);
        plain(404, "not found")
    } else {
        let mut outcome: Outcome<Caller> = host.endpoint.begin(&parts);
        conn.read.drain(..head_len);
        'request: loop {
            outcome = match outcome {
                Outcome::Respond(response) => break Reply::Endpoint(response),
                Outcome::Authenticate(auth) => {
                    let judged = judge(
                        host,
                        auth.bearer_token(),
                        auth.authorization(),
                        &mut record,
                        Some(&mut conn.known),
                    );
                    match judged.await {
                        Judged::Caller(caller, grant, exp) => {
                            expires = exp;
                            auth.answer_scoped(caller, grant)
                        }
                        Judged::Refused => auth.answer(None),
                        Judged::Unavailable => auth.unavailable(),
                    }
                }
                Outcome::Body(mut intake) => loop {
                    if decoder.is_done() {
                        break intake.finish();
                    }
                    if conn.read.is_empty() {
                        // The client waits for this before sending the body,
                        // and only gets it once the request passed every
                        // check.
                        if expects_continue && !continued {
                            continued = true;
                            if write_continue(&mut conn.stream).await.is_err() {
                                return Next::Gone;
                            }
                        }
                        if !read_more(conn).await {
                            // The client broke off the body.
                            break 'request plain(400, "bad request body");
                        }
                    }
                    let Ok(decoded) = decoder.decode(&conn.read) else {
                        // Mis-framed (a bad chunk size, say).
                        break 'request plain(400, "bad request body");
                    };
                    record.body(decoded.data); // ops
                    let pushed = intake.push(decoded.data);
                    let consumed = decoded.consumed;
                    conn.read.drain(..consumed);
                    intake = match pushed {
                        Ok(intake) => intake,
                        // Over budget: answer now and read no further; the
                        // rest of the body is left unread, so the
                        // connection closes.
                        Err(response) => break 'request Reply::Endpoint(response),
                    };
                },
                // List and read: one SELECT (inline on a SQLite reader
                // connection, awaited on PostgreSQL); the writes (create,
                // update, rename, archive, restore): on tokio's blocking
                // pool for SQLite (they wait for fsync), awaited on
                // PostgreSQL.
                effect => match carry_out_now(host, effect, &mut record) {
                    Carried::Done(Ok(next)) => next,
                    Carried::Done(Err(reply)) => break reply,
                    Carried::Later(effect) => {
                        match carry_out_later(host, effect, &mut record).await {
                            Ok(next) => next,
                            Err(reply) => break reply,
                        }
                    }
                },
            };
        }
    };
    respond(
        conn,
        shutdown,
        &mut record,
        reply,
        Respond {
            keep_alive,
            read_whole: decoder.is_done(),
            bodiless: bodiless_reply,
            expires,
        },
    )
    .await
}

/// How a response goes out.
struct Respond {
    /// Whether the client asked for the connection to carry another
    /// request (it does when the request's body was also read to its end).
    keep_alive: bool,
    /// Whether the request's body was read to its end.
    read_whole: bool,
    /// A response to `HEAD`: its head only.
    bodiless: bool,
    /// When the OAuth token the request was made with expires.
    expires: Option<u64>,
}

/// Writes `reply`, finishing its `record` first.
async fn respond(
    conn: &mut Conn,
    shutdown: &Shutdown,
    record: &mut record::Record,
    reply: Reply,
    how: Respond,
) -> Next {
    let (now, date) = wire::date_now();
    let date = [Header::new("date", &date)];
    let out = &mut conn.out;
    if let Reply::Endpoint(response) = &reply
        && response.is_event_stream()
    {
        http1::write_response_with(response, false, &date, out);
        out.extend_from_slice(chopin_mcp::sse::keep_alive());
        record.finish(record::Ending {
            status: 200,
            body: b"",
            now,
        });
        if conn.stream.write_all(out).await.is_err() {
            return Next::Gone;
        }
        return Next::Stream(how.expires);
    }
    let keep = how.keep_alive && how.read_whole && !shutdown.is_triggered();
    let body = match &reply {
        Reply::Endpoint(response) => {
            http1::write_head_with(response, keep, &date, out);
            record.finish(record::Ending {
                status: response.status(),
                body: response.body(),
                now,
            });
            response.body()
        }
        Reply::Plain(plain) => {
            let retry = [date[0], Header::new("retry-after", RETRY_AFTER.as_bytes())];
            let extra = if plain.retry { &retry[..] } else { &date[..] };
            wire::plain_head(plain.status, plain.text, keep, extra, out);
            record.finish(record::Ending {
                status: plain.status,
                body: plain.text.as_bytes(),
                now,
            });
            plain.text.as_bytes()
        }
    };
    send(conn, body, keep, how.read_whole, how.bodiless).await
}
