//! The fake host's planner (SURFACE.md §9): it records every effect's
//! arguments (its client among the host's `clients`) and gives one fixed answer, the document of §12 case 17 unless
//! a test sets a refusal.

use chopin_mcp::{InvokeAnswer, InvokePlanner, Outcome, PlannerDocument, PlannerRefusal};

use super::{Host, Step};

/// The arguments of one planner effect, as the host received them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoked {
    pub caller: String,
    pub locator: String,
    pub instruction: String,
    pub checkout: Option<String>,
}

/// The document the fake planner answers with (SURFACE.md §12 case 17).
pub fn planner_document() -> PlannerDocument {
    PlannerDocument {
        id: "document-id".into(),
        title: "Release".into(),
        description: None,
        url: "http://localhost/documents/octo-org/score/release".into(),
    }
}

impl Host {
    pub(super) fn invoke(&mut self, invoke: InvokePlanner<String>) -> Outcome<String> {
        self.transcript
            .push(Step::Invoke(invoke.locator().to_owned()));
        self.clients.push(invoke.client().clone());
        self.invoke_inputs.push(Invoked {
            caller: invoke.caller().clone(),
            locator: invoke.locator().to_owned(),
            instruction: invoke.instruction().to_owned(),
            checkout: invoke.checkout().map(str::to_owned),
        });
        match &self.planner {
            Ok(document) => invoke.answer(InvokeAnswer::Invoked(document)),
            Err(refusal) => invoke.answer(InvokeAnswer::Refused(*refusal)),
        }
    }
}

/// A host whose planner refuses every call with `refusal`.
pub fn refusing(refusal: PlannerRefusal) -> Host {
    Host {
        planner: Err(refusal),
        ..Host::seed()
    }
}
