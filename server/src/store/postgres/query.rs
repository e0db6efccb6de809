//! How a request's statements reach PostgreSQL under its deadline
//! ([`Deadline`]): reads
//! as one simple-query message with their parameters written in as hex
//! ([`bounded`], [`literal`]), writes in a transaction of their own sent in
//! one round trip ([`in_transaction`]); and how their columns are read
//! back as text.

use std::fmt::Write as _;
use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;
use tokio_postgres::{Client, Row, SimpleQueryMessage, SimpleQueryRow};

use crate::store::{Limits, StoreError, push_hex};

/// How long past its deadline a request waits for PostgreSQL to report the
/// cancelled statement before giving the connection up (a server or pooler
/// that stopped answering): the connection is then cancelled, closed and
/// left out of the pool.
const BACKSTOP: Duration = Duration::from_secs(1);

/// One request's deadline: the wait for a pooled connection and the
/// statements all end by `at`. With a statement timeout, PostgreSQL itself
/// cancels a statement still running then (`SET LOCAL statement_timeout`,
/// in the statement's round trip); without one (`--db-statement-timeout
/// 0`), the role's or database's `statement_timeout` applies, if any.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    at: Instant,
    set_local: bool,
}

impl Deadline {
    pub(super) fn start(limits: &Limits) -> Deadline {
        Deadline {
            at: Instant::now() + limits.request_deadline(),
            set_local: !limits.statement_timeout.is_zero(),
        }
    }

    pub(super) fn left(&self) -> Result<Duration, StoreError> {
        let left = self.at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(StoreError::Busy(
                "PostgreSQL: the request's deadline passed".to_owned(),
            ));
        }
        Ok(left)
    }

    /// The `statement_timeout` to set: what is left, in milliseconds (at
    /// least 1: 0 would mean none), or `None` without a statement timeout.
    pub(super) fn timeout_millis(&self) -> Result<Option<u128>, StoreError> {
        if !self.set_local {
            return Ok(None);
        }
        Ok(Some(self.left()?.as_millis().clamp(1, i32::MAX as u128)))
    }

    /// When the client stops waiting for PostgreSQL's answer.
    pub(super) fn backstop(&self) -> Instant {
        self.at + BACKSTOP
    }
}

/// What bounds a statement: `SET LOCAL` ends with the transaction, also
/// behind a pooler in transaction mode.
const SET_TIMEOUT: &str = "SET LOCAL statement_timeout = ";

/// A parameter of a simple query, as SQL (see [`literal`]).
pub(super) enum Literal<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl Literal<'_> {
    /// How many bytes [`literal`] writes for it, at most.
    fn written_len(&self) -> usize {
        match self {
            Literal::Text(text) => 2 * text.len() + 40,
            Literal::Bytes(bytes) => 2 * bytes.len() + 20,
        }
    }
}

/// Appends `sql` with `$1`, `$2`, … replaced by `params` as SQL expressions
/// made of hex digits and fixed text only (`decode('…', 'hex')`), so that
/// no value can end its literal, whatever `standard_conforming_strings`. A
/// `$` not followed by a parameter's number is copied as it is.
fn literal(out: &mut String, sql: &str, params: &[Literal<'_>]) {
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let param = after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|n| params.get(n.checked_sub(1)?));
        match param {
            Some(Literal::Bytes(bytes)) => {
                out.push_str("decode('");
                push_hex(out, bytes);
                out.push_str("', 'hex')");
            }
            Some(Literal::Text(text)) => {
                out.push_str("convert_from(decode('");
                push_hex(out, text.as_bytes());
                out.push_str("', 'hex'), 'UTF8')");
            }
            None => out.push_str(&rest[at..at + 1 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
}

/// A column of a simple query's row that `encode(…, 'hex')` made, as the
/// text it was stored from.
pub(super) fn hex_text(row: &SimpleQueryRow, column: usize) -> Result<String, StoreError> {
    let invalid = || StoreError::Invalid(format!("stored column {column} is not hex UTF-8"));
    let digits = row.try_get(column)?.ok_or_else(invalid)?.as_bytes();
    if digits.len() % 2 != 0 {
        return Err(invalid());
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let bytes = digits
        .chunks_exact(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    String::from_utf8(bytes).map_err(|_| invalid())
}

/// A read-only query as one simple-query message: `SET LOCAL
/// statement_timeout` to what is left of `deadline`, then `sql`. The
/// message is one implicit transaction (the setting ends with it, also
/// behind a pooler in transaction mode), and PostgreSQL (13 and later)
/// times each of its statements separately, so the setting bounds `sql`.
/// One round trip, no statement kept on the server. Its rows.
pub(super) async fn bounded(
    client: &Client,
    deadline: &Deadline,
    sql: &str,
    params: &[Literal<'_>],
) -> Result<Vec<SimpleQueryRow>, StoreError> {
    // The whole message in one buffer: the setting, then the query with
    // its parameters written in place.
    let params_len: usize = params.iter().map(Literal::written_len).sum();
    let mut text = String::with_capacity(SET_TIMEOUT.len() + 16 + sql.len() + params_len);
    if let Some(millis) = deadline.timeout_millis()? {
        let _ = write!(text, "{SET_TIMEOUT}{millis}; ");
    }
    literal(&mut text, sql, params);
    let messages = client.simple_query(&text).await?;
    Ok(messages
        .into_iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(row),
            _ => None,
        })
        .collect())
}

/// `statement` in a transaction of its own, bounded by `deadline`: `BEGIN;
/// SET LOCAL statement_timeout`, the statement and `COMMIT` are sent at
/// once (one round trip); each sends its messages when first polled, and
/// they are polled in this order. Returns once `COMMIT` did: after a failed
/// statement it ends the aborted transaction, and the statement's error is
/// returned.
pub(super) async fn in_transaction<T>(
    client: &Client,
    deadline: &Deadline,
    statement: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, StoreError> {
    let begin = match deadline.timeout_millis()? {
        Some(millis) => format!("BEGIN; {SET_TIMEOUT}{millis}"),
        None => "BEGIN".to_owned(),
    };
    let (begun, answer, committed) = tokio::join!(
        biased;
        client.batch_execute(&begin),
        statement,
        client.batch_execute("COMMIT"),
    );
    begun?;
    let answer = answer?;
    committed?;
    Ok(answer)
}

/// A `bytea` column written from a Rust string, as that string.
pub(super) fn text(row: &Row, column: usize) -> Result<String, StoreError> {
    let bytes: Vec<u8> = row.try_get(column)?;
    String::from_utf8(bytes)
        .map_err(|_| StoreError::Invalid(format!("stored column {column} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::{Literal, literal};

    #[test]
    fn parameters_are_written_as_hex_in_place_and_other_dollars_stay() {
        let mut out = String::from("SET x; ");
        literal(
            &mut out,
            "SELECT f($1, $2) WHERE a = '$' AND b = $3 AND c = $0",
            &[Literal::Text("o'k"), Literal::Bytes(b"\x00\xff")],
        );
        assert_eq!(
            out,
            "SET x; SELECT f(convert_from(decode('6f276b', 'hex'), 'UTF8'), \
             decode('00ff', 'hex')) WHERE a = '$' AND b = $3 AND c = $0"
        );
    }
}
