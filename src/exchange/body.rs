//! The request body: held chunks, and the budgeted intake that accounts for
//! every byte before storing it.

use std::collections::VecDeque;
use std::fmt;

use bytes::Bytes;

use super::dispatch;
use super::endpoint::Exchange;
use super::outcome::Outcome;
use crate::cors;
use crate::response::Response;

/// A request body the host already holds, as a sequence of chunks.
///
/// One chunk costs no allocation; chunks are reference-counted [`Bytes`], so
/// building this never copies the body.
#[derive(Debug, Clone, Default)]
pub struct BodyChunks {
    first: Option<Bytes>,
    rest: VecDeque<Bytes>,
}

impl BodyChunks {
    /// No body at all.
    pub fn empty() -> Self {
        BodyChunks::default()
    }

    /// Appends a chunk.
    pub fn push(&mut self, chunk: impl Into<Bytes>) {
        let chunk = chunk.into();
        if self.first.is_none() && self.rest.is_empty() {
            self.first = Some(chunk);
        } else {
            self.rest.push_back(chunk);
        }
    }
}

impl Iterator for BodyChunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        self.first.take().or_else(|| self.rest.pop_front())
    }
}

impl From<Bytes> for BodyChunks {
    fn from(chunk: Bytes) -> Self {
        BodyChunks {
            first: Some(chunk),
            rest: VecDeque::new(),
        }
    }
}

impl From<Vec<u8>> for BodyChunks {
    fn from(chunk: Vec<u8>) -> Self {
        BodyChunks::from(Bytes::from(chunk))
    }
}

impl From<&'static [u8]> for BodyChunks {
    fn from(chunk: &'static [u8]) -> Self {
        BodyChunks::from(Bytes::from_static(chunk))
    }
}

impl From<&'static str> for BodyChunks {
    fn from(chunk: &'static str) -> Self {
        BodyChunks::from(chunk.as_bytes())
    }
}

impl From<String> for BodyChunks {
    fn from(chunk: String) -> Self {
        BodyChunks::from(Bytes::from(chunk))
    }
}

impl<B: Into<Bytes>> FromIterator<B> for BodyChunks {
    fn from_iter<I: IntoIterator<Item = B>>(chunks: I) -> Self {
        let mut body = BodyChunks::empty();
        for chunk in chunks {
            body.push(chunk);
        }
        body
    }
}

/// The body effect of an exchange started with
/// [`Endpoint::begin`](crate::Endpoint::begin): push the body's chunks as they
/// arrive, then [`finish`](Self::finish).
///
/// Every byte is counted against the budget before it is stored: the push that
/// crosses the budget returns the 413 response, and nothing of that chunk is
/// kept. Where the chunk boundaries fall never changes the outcome.
pub struct BodyIntake<C> {
    exchange: Exchange<C>,
    received: Vec<u8>,
    budget: usize,
}

impl<C> BodyIntake<C> {
    pub(crate) fn new(exchange: Exchange<C>, declared: usize) -> Self {
        let budget = exchange.endpoint.inner.budget;
        BodyIntake {
            exchange,
            received: Vec::with_capacity(declared.min(budget)),
            budget,
        }
    }

    /// How many body bytes have been taken in so far.
    pub fn received(&self) -> usize {
        self.received.len()
    }

    /// How many more bytes the budget allows.
    pub fn remaining(&self) -> usize {
        self.budget - self.received.len()
    }

    /// Takes in the next chunk: `Ok` to go on reading, or the 413 response,
    /// after which the host must stop reading the body.
    pub fn push(mut self, chunk: &[u8]) -> Result<Self, Response> {
        if chunk.len() > self.remaining() {
            return Err(cors::grant(self.exchange.too_large(), self.exchange.origin));
        }
        self.received.extend_from_slice(chunk);
        Ok(self)
    }

    /// Pushes each chunk in turn, stopping at the one that crosses the budget
    /// (its 413 response is returned and later chunks are not looked at).
    pub fn push_all<I>(mut self, chunks: I) -> Result<Self, Response>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        for chunk in chunks {
            self = self.push(chunk.as_ref())?;
        }
        Ok(self)
    }

    /// The body is complete: parse and dispatch it.
    pub fn finish(self) -> Outcome<C> {
        match self.exchange.origin.clone() {
            None => dispatch::start(self.exchange, Bytes::from(self.received)),
            origin => dispatch::start(self.exchange, Bytes::from(self.received)).granted(origin),
        }
    }

    /// Takes in a held body, then finishes; stops at the first chunk that
    /// crosses the budget. `declared` (the `content-length` within the
    /// budget) sizes the intake only where chunks are copied into one.
    pub(crate) fn feed(exchange: Exchange<C>, declared: usize, chunks: BodyChunks) -> Outcome<C> {
        // A held single chunk within the budget is dispatched without a copy,
        // and without an intake buffer made for nothing.
        if chunks.rest.is_empty() {
            let BodyChunks { first, rest } = chunks;
            if rest.capacity() == 0 {
                // A deque that never held a chunk owns nothing: forgetting
                // it skips its out-of-line drop (about 40 instructions).
                std::mem::forget(rest);
            }
            let chunk = first.unwrap_or_default();
            if chunk.len() > exchange.endpoint.inner.budget {
                return Outcome::Respond(exchange.too_large());
            }
            return dispatch::start(exchange, chunk);
        }
        match BodyIntake::new(exchange, declared).push_all(chunks) {
            Ok(intake) => intake.finish(),
            Err(response) => Outcome::Respond(response),
        }
    }
}

impl<C> fmt::Debug for BodyIntake<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BodyIntake")
            .field("received", &self.received.len())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}
