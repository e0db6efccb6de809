//! The body step: a request body's chunks pushed into the exchange, until
//! it is finished or crosses the budget (413).

use chopin_mcp::Outcome;

use crate::exchanges::{Core, Misuse, Pending};

impl Core {
    /// Takes in a chunk of the body in `slot`: `b` to go on reading, or the
    /// 413 response (then the host stops reading).
    pub fn push(&mut self, slot: u32, chunk: &[u8]) -> Result<&[u8], Misuse> {
        let intake = self.take(slot, "body", Pending::into_body)?;
        match intake.push(chunk) {
            Ok(intake) => {
                self.put(slot, Pending::Body(intake))?;
                self.out.clear();
                self.out.push(b'b');
                Ok(&self.out)
            }
            Err(response) => self.settle(slot, Outcome::Respond(response)),
        }
    }

    /// Takes in the last chunk of the body in `slot`, if any, and goes on.
    pub fn finish(&mut self, slot: u32, chunk: Option<&[u8]>) -> Result<&[u8], Misuse> {
        let intake = self.take(slot, "body", Pending::into_body)?;
        let outcome = match chunk {
            None => intake.finish(),
            Some(chunk) => match intake.push(chunk) {
                Ok(intake) => intake.finish(),
                Err(response) => Outcome::Respond(response),
            },
        };
        self.settle(slot, outcome)
    }
}
