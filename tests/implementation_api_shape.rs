//! The implementation rules' types as a host relies on them at compile
//! time: owned state and records cross threads (a host may fold on one
//! task and answer on another), refusals and answers are small values.

use chopin_mcp::implementation::{
    Applied, Claim, Command, Decision, Definition, Event, GraphRefusal, GraphVersion, KeyUse,
    Phase, Refusal, Run, RunState, TaskState, VersionState,
};

fn send_sync<T: Send + Sync + 'static>() {}
fn copy<T: Copy + PartialEq + std::fmt::Debug>() {}

#[test]
fn owned_records_and_state_cross_threads() {
    send_sync::<RunState>();
    send_sync::<Run>();
    send_sync::<Event>();
    send_sync::<Command>();
    send_sync::<Decision>();
    send_sync::<Definition>();
    send_sync::<GraphVersion>();
}

#[test]
fn refusals_and_verdicts_are_small_values() {
    copy::<Refusal>();
    copy::<GraphRefusal>();
    copy::<Applied>();
    copy::<KeyUse>();
    copy::<Phase>();
    copy::<TaskState>();
    copy::<VersionState>();
    copy::<Claim<'static>>();
    assert!(std::mem::size_of::<Refusal>() <= 1);
    let refusal: Box<dyn std::error::Error> = Box::new(Refusal::StaleGraph);
    assert_eq!(refusal.to_string(), "stale-graph");
}
