//! What a request asks of the host, and the replies that are the server's
//! own: a bearer token judged ([`judge`]), a list, read or write effect
//! carried out by the store ([`carry_out_now`], [`carry_out_later`], a
//! store error answered), a
//! document's URL served ([`serve_document`]), an image's ([`serve_image`]);
//! [`Reply`] is what a request is answered with.

use chopin_mcp::{DocumentOutcome, Granted, ImageAnswer, ImageOutcome, Outcome};

use super::known::Known;
use crate::host::{Caller, DATABASE_BUSY, Host, INTERNAL_ERROR, Now};
use crate::labels::StoreOperation;
use crate::oauth::Verdict;
use crate::store::StoreError;
use crate::{metrics, record};

/// A reply that is not the endpoint's: the server's own plain text.
pub(super) struct Plain {
    pub(super) status: u16,
    pub(super) text: &'static str,
    /// With `retry-after` (a 503 for a busy database).
    pub(super) retry: bool,
}

/// What a request is answered with.
pub(super) enum Reply {
    Endpoint(chopin_mcp::Response),
    Plain(Plain),
}

pub(super) const fn plain(status: u16, text: &'static str) -> Reply {
    Reply::Plain(Plain {
        status,
        text,
        retry: false,
    })
}

/// What became of an effect offered to the store now ([`carry_out_now`]).
pub(super) enum Carried {
    /// Carried out (a list or read on SQLite, on this thread), or its
    /// store error answered.
    Done(Result<Outcome<Caller>, Reply>),
    /// For the store to carry out awaited ([`carry_out_later`]).
    Later(Outcome<Caller>),
}

/// Notes a list, read or write effect in `record` and carries it out now
/// when the store can (`Host::read_now`); a store error is answered (503
/// when the database is busy, else 500). Not a future: a read on SQLite,
/// the request served most, is not moved into one and out again.
pub(super) fn carry_out_now(
    host: &Host,
    effect: Outcome<Caller>,
    record: &mut record::Record,
) -> Carried {
    record.effect(&effect); // ops
    let operation = StoreOperation::of(&effect); // ops
    let now = metrics::time_store_when(
        operation,
        || host.read_now(effect),
        |now| matches!(now, Now::Done(_)),
    );
    match now {
        Now::Done(done) => Carried::Done(done.map_err(|e| store_failed(&e))),
        Now::Await(effect) => Carried::Later(effect),
    }
}

/// Carries out an effect [`carry_out_now`] left for later, noting what
/// became of a write in `record`; a store error is answered as there.
pub(super) async fn carry_out_later(
    host: &Host,
    effect: Outcome<Caller>,
    record: &mut record::Record,
) -> Result<Outcome<Caller>, Reply> {
    let operation = StoreOperation::of(&effect); // ops
    // ops: carry_out says what became of a write.
    let mut written = None;
    // Boxed: a PostgreSQL operation's state is large, and would otherwise
    // be part of every connection's for its whole life.
    let done = Box::pin(host.carry_out(effect, &mut written));
    match metrics::time_store_async(operation, done).await {
        Ok(next) => {
            record.written(written); // ops
            Ok(next)
        }
        Err(e) => Err(store_failed(&e)),
    }
}

/// The answer to a store error: 503 with `retry-after` when the database
/// is busy (nothing was answered as done: a create or update may be retried
/// with its idempotency key, and is applied once), else 500.
fn store_failed(e: &StoreError) -> Reply {
    record::store_error(e); // ops
    if e.is_busy() {
        return Reply::Plain(Plain {
            status: 503,
            text: DATABASE_BUSY,
            retry: true,
        });
    }
    plain(500, INTERNAL_ERROR)
}

/// What the token check decided for a request.
pub(super) enum Judged {
    /// The caller, the scopes its token grants, and when it expires (an
    /// OAuth token's, seconds since the epoch).
    Caller(Caller, Granted, Option<u64>),
    /// 401.
    Refused,
    /// 503: the authorization server did not answer.
    Unavailable,
}

/// Judges a request's bearer token (`/mcp` and a document's URL alike),
/// noting the verdict in `record`. With `known` (the connection's), a
/// static token accepted before on the connection is its caller at once,
/// and one accepted now is kept there.
pub(super) async fn judge(
    host: &Host,
    bearer: Option<&str>,
    authorization: Option<&[u8]>,
    record: &mut record::Record,
    known: Option<&mut Known>,
) -> Judged {
    if let Some(caller) = known.as_ref().and_then(|known| known.caller(bearer)) {
        record.caller(Some(caller)); // ops
        record.auth(Some("static"), false);
        return Judged::Caller(Caller::clone(caller), Granted::ALL, None);
    }
    match host.authenticate(bearer).await {
        Verdict::Static(caller) => {
            if let (Some(known), Some(token)) = (known, bearer) {
                known.accepted(token, &caller);
            }
            record.caller(Some(&caller)); // ops
            record.auth(Some("static"), false);
            Judged::Caller(caller, Granted::ALL, None)
        }
        Verdict::OAuth {
            caller,
            grant,
            kind,
            exp,
        } => {
            record.caller(Some(&caller)); // ops
            record.auth(Some(kind.as_str()), false);
            Judged::Caller(caller, grant, exp)
        }
        Verdict::Refused(_) => {
            // ops: a presented token refused is `invalid_token`.
            let bearer = authorization.is_some_and(|value| {
                value
                    .get(..6)
                    .is_some_and(|s| s.eq_ignore_ascii_case(b"bearer"))
            });
            record.auth(None, bearer);
            Judged::Refused
        }
        Verdict::Unavailable(_) => Judged::Unavailable,
    }
}

/// Serves a request to a document's URL: the endpoint's answer, once the
/// token is judged and the store has read the document for its caller.
pub(super) async fn serve_document(
    host: &Host,
    mut outcome: DocumentOutcome<Caller>,
    record: &mut record::Record,
) -> Reply {
    loop {
        outcome = match outcome {
            DocumentOutcome::Respond(response) => return Reply::Endpoint(response),
            DocumentOutcome::Authenticate(auth) => {
                let judged = judge(
                    host,
                    auth.bearer_token(),
                    auth.authorization(),
                    record,
                    None,
                );
                match judged.await {
                    Judged::Caller(caller, grant, _) => auth.answer_scoped(caller, grant),
                    Judged::Refused => auth.answer(None),
                    Judged::Unavailable => auth.unavailable(),
                }
            }
            DocumentOutcome::Read(read) => {
                let found = host.read_document(read.caller(), read.id());
                return match metrics::time_store_async(StoreOperation::Read, found).await {
                    Ok(document) => Reply::Endpoint(read.answer(document.as_ref())),
                    Err(e) => store_failed(&e),
                };
            }
        };
    }
}

/// Serves a request to an image's URL: the endpoint's answer, once the
/// token is judged and the store has looked the image up for its caller. A
/// store that cannot answer now is the endpoint's 503 `image is temporarily
/// unavailable`.
pub(super) async fn serve_image(
    host: &Host,
    mut outcome: ImageOutcome<Caller>,
    record: &mut record::Record,
) -> Reply {
    loop {
        outcome = match outcome {
            ImageOutcome::Respond(response) => return Reply::Endpoint(response),
            ImageOutcome::Authenticate(auth) => {
                let judged = judge(
                    host,
                    auth.bearer_token(),
                    auth.authorization(),
                    record,
                    None,
                );
                match judged.await {
                    Judged::Caller(caller, grant, _) => auth.answer_scoped(caller, grant),
                    Judged::Refused => auth.answer(None),
                    Judged::Unavailable => auth.unavailable(),
                }
            }
            ImageOutcome::Read(read) => {
                let found = host.read_image(&read);
                return match metrics::time_store_async(StoreOperation::ReadImage, found).await {
                    Ok(answer) => Reply::Endpoint(read.answer(answer)),
                    Err(e) if e.is_busy() || matches!(e, StoreError::Unavailable(_)) => {
                        record::store_error(&e); // ops
                        Reply::Endpoint(read.answer(ImageAnswer::Unavailable))
                    }
                    Err(e) => store_failed(&e),
                };
            }
        };
    }
}
