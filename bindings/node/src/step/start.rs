//! The start step: a request's method and headers in, its first outcome
//! out (mostly the authenticate effect); with the caller already found,
//! start and authentication in one call; and Protected Resource Metadata.

use std::borrow::Cow;

use chopin_mcp::{Header, Outcome, RequestParts};

use crate::answer::Verdict;
use crate::exchanges::{Core, Misuse};
use crate::wire::{self, NamedValues};

impl Core {
    /// Starts the exchange of a request in `slot`, its headers the values
    /// of [`wire::NAMED`].
    pub fn start(
        &mut self,
        slot: u32,
        method: &str,
        values: &[Option<&[u8]>; wire::NAMED.len()],
    ) -> Result<&[u8], Misuse> {
        let mut lines = [Header::new("", b""); wire::MOST_NAMED];
        let count = wire::named(values, &mut lines);
        let parts = RequestParts::new(method, "", &lines[..count]);
        let outcome = self.endpoint.begin(&parts);
        self.settle(slot, outcome)
    }

    /// Starts the exchange of a request in `slot`, its headers listed
    /// (`name\0value\0…`).
    pub fn start_listed(&mut self, slot: u32, method: &str, flat: &[u8]) -> Result<&[u8], Misuse> {
        let headers = wire::listed(flat);
        let parts = RequestParts::new(method, "", &headers);
        let outcome = self.endpoint.begin(&parts);
        self.settle(slot, outcome)
    }

    /// Protected Resource Metadata, when `target` is its path; headers
    /// listed.
    pub fn metadata(&mut self, method: &str, target: &str, flat: &[u8]) -> Option<&[u8]> {
        let headers = wire::listed(flat);
        let parts = RequestParts::new(method, target, &headers);
        let response = self.endpoint.metadata(&parts)?;
        self.out.clear();
        self.heads.encode(&response, false, &mut self.out);
        Some(&self.out)
    }

    /// [`start`](Self::start) and [`authenticate`](Self::authenticate) in
    /// one call, for a request whose caller the host found first (the
    /// package does when nothing before authentication can refuse the
    /// request). Should the endpoint answer before authentication all the
    /// same, that answer is the outcome.
    pub fn start_answered(
        &mut self,
        slot: u32,
        method: &str,
        values: NamedValues<'_>,
        verdict: Verdict,
        scopes: &[String],
        body: Option<Cow<'_, [u8]>>,
    ) -> Result<&[u8], Misuse> {
        let values = self.remembered.recall(values);
        let mut lines = [Header::new("", b""); wire::MOST_NAMED];
        let count = wire::named(&values, &mut lines);
        let parts = RequestParts::new(method, "", &lines[..count]);
        // A body read whole is held from the start, as `Endpoint::handle`
        // takes it: dispatched as it is, not pushed through the body step.
        let outcome = match body {
            Some(body) => self.endpoint.handle(&parts, body.into_owned()),
            None => self.endpoint.begin(&parts),
        };
        let outcome = match outcome {
            Outcome::Authenticate(auth) => self.answer_authenticate(auth, verdict, scopes, None),
            outcome => outcome,
        };
        self.settle(slot, outcome)
    }
}
