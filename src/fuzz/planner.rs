//! `invoke_planner` in the fuzz bodies: answering its effect with each of
//! its answers, after checking what the core promised the host.

use crate::{InvokeAnswer, InvokePlanner, Outcome, PlannerDocument, PlannerRefusal, dialect};

/// Answers a planner effect with one of its eight answers; its instruction
/// arrives not blank and within 65,536 bytes, its checkout absolute, within
/// 4096 bytes and without U+0000.
pub(super) fn answer_invoke(invoke: InvokePlanner<u8>, choice: u8) -> Outcome<u8> {
    let instruction = invoke.instruction();
    assert!(instruction.len() <= 65_536, "an instruction over 64 KiB");
    assert!(
        instruction.chars().any(|c| !dialect::is_js_whitespace(c)),
        "a blank instruction reached the host"
    );
    if let Some(checkout) = invoke.checkout() {
        assert!(checkout.starts_with('/'), "a relative checkout");
        assert!(checkout.len() <= 4096 && !checkout.contains('\0'));
    }
    let document = PlannerDocument {
        id: "doc".into(),
        title: "Title".into(),
        description: (choice % 2 == 0).then(|| "A plan.".to_owned()),
        url: "/documents/doc".into(),
    };
    let index = usize::from(choice % 8);
    invoke.answer(match PlannerRefusal::ALL.get(index) {
        Some(refusal) => InvokeAnswer::Refused(*refusal),
        None => InvokeAnswer::Invoked(&document),
    })
}
