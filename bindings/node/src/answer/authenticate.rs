//! The authenticate effect's answer: the host's verdict on the request's
//! credentials, and the scopes of a scoped caller; with the whole body
//! when the host read it.

use chopin_mcp::{Authenticate, Outcome};

use crate::exchanges::{Core, Misuse, Pending};

/// How the host answered authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No caller: 401.
    Refused,
    /// A caller with every scope.
    Caller,
    /// A caller with the scopes named.
    Scoped,
    /// The host cannot judge the credentials now: 503.
    Unavailable,
}

impl Verdict {
    pub(crate) fn of(code: u32) -> Result<Verdict, Misuse> {
        Ok(match code {
            0 => Verdict::Refused,
            1 => Verdict::Caller,
            2 => Verdict::Scoped,
            3 => Verdict::Unavailable,
            _ => return Err(Misuse(format!("{code} is not an authentication verdict"))),
        })
    }
}

impl Core {
    /// Answers the authenticate effect in `slot`. With `body` (the whole
    /// body, which the host read because its declared length is within the
    /// budget), a body step that follows is taken care of at once: the
    /// body is pushed and finished, as `Endpoint::handle` does with a held
    /// body.
    pub fn authenticate(
        &mut self,
        slot: u32,
        verdict: Verdict,
        scopes: &[String],
        body: Option<&[u8]>,
    ) -> Result<&[u8], Misuse> {
        let auth = self.take(slot, "authenticate", Pending::into_authenticate)?;
        let outcome = self.answer_authenticate(auth, verdict, scopes, body);
        self.settle(slot, outcome)
    }

    /// Answers `auth` with the verdict (and the scopes of a scoped caller);
    /// with `body`, a body step that follows is taken care of at once.
    pub(crate) fn answer_authenticate(
        &self,
        auth: Authenticate<()>,
        verdict: Verdict,
        scopes: &[String],
        body: Option<&[u8]>,
    ) -> Outcome<()> {
        let outcome = match verdict {
            Verdict::Refused => auth.answer(None),
            Verdict::Caller => auth.answer(Some(())),
            Verdict::Scoped => {
                let granted = self
                    .endpoint
                    .scopes()
                    .of_names(scopes.iter().map(String::as_str));
                auth.answer_scoped((), granted)
            }
            Verdict::Unavailable => auth.unavailable(),
        };
        match (outcome, body) {
            (Outcome::Body(intake), Some(body)) => match intake.push(body) {
                Ok(intake) => intake.finish(),
                Err(response) => Outcome::Respond(response),
            },
            (outcome, _) => outcome,
        }
    }
}
