//! The planner effect's answer (SURFACE.md §9, §11): the document, or the
//! code of why the instruction was not posted.

use chopin_mcp::{InvokeAnswer, PlannerDocument, PlannerRefusal};

use crate::exchanges::{Core, Misuse, Pending};

/// An invoked document's fields: id, title, url and the description when
/// there is one.
pub type PlannerFields<'a> = (&'a str, &'a str, &'a str, Option<&'a str>);

impl Core {
    /// Answers the planner effect in `slot`: `code` 0 is invoked, with the
    /// document; 1 to 7 the refusals in [`PlannerRefusal::ALL`]'s order.
    pub fn answer_invoke(
        &mut self,
        slot: u32,
        code: u32,
        document: Option<PlannerFields<'_>>,
    ) -> Result<&[u8], Misuse> {
        let refusal = match code {
            0 => None,
            code => Some(
                usize::try_from(code - 1)
                    .ok()
                    .and_then(|index| PlannerRefusal::ALL.get(index).copied())
                    .ok_or_else(|| Misuse(format!("{code} is not a planner answer")))?,
            ),
        };
        let invoked;
        let answer = match (refusal, document) {
            (Some(refusal), _) => InvokeAnswer::Refused(refusal),
            (None, Some((id, title, url, description))) => {
                invoked = PlannerDocument {
                    id: id.to_owned(),
                    title: title.to_owned(),
                    description: description.map(str::to_owned),
                    url: url.to_owned(),
                };
                InvokeAnswer::Invoked(&invoked)
            }
            (None, None) => return Err(Misuse("an invoked answer carries a document".into())),
        };
        let invoke = self.take(slot, "invoke", Pending::into_invoke)?;
        let outcome = invoke.answer(answer);
        self.settle(slot, outcome)
    }
}
