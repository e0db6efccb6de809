//! The planner's log lines, each naming the tool (`tool=invoke_planner`):
//! through `tracing` where the server installed a subscriber
//! (`chopin-mcp-server`), else one line on standard error
//! (`chopin-mcp-blocking`, which has none).

use super::Turn;
use crate::store::TurnEnd;

/// A turn taken by a worker.
pub(super) fn started(turn: &Turn) {
    if tracing::dispatcher::has_been_set() {
        tracing::info!(
            tool = "invoke_planner",
            turn = turn.seq,
            document = %turn.document,
            caller = %turn.caller,
            "planner turn started"
        );
    } else {
        eprintln!(
            "planner turn started tool=invoke_planner turn={} document={:?} caller={:?}",
            turn.seq, turn.document, turn.caller
        );
    }
}

/// A turn ended: its state, exit status and output (escaped, on one line).
pub(super) fn ended(turn: &Turn, end: &TurnEnd) {
    let output = String::from_utf8_lossy(&end.output);
    if tracing::dispatcher::has_been_set() {
        tracing::info!(
            tool = "invoke_planner",
            turn = turn.seq,
            document = %turn.document,
            state = end.state,
            exit_status = end.exit_status,
            output = ?output,
            "planner turn ended"
        );
    } else {
        let status = end
            .exit_status
            .map_or("none".to_owned(), |code| code.to_string());
        eprintln!(
            "planner turn ended tool=invoke_planner turn={} document={:?} state={} exit_status={status} output={output:?}",
            turn.seq, turn.document, end.state
        );
    }
}

/// Something the planner could not do.
pub(super) fn error(message: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::error!(tool = "invoke_planner", "{message}");
    } else {
        eprintln!("planner error tool=invoke_planner: {message}");
    }
}

/// Turns a previous run left unfinished, now marked `interrupted`.
pub fn interrupted(count: usize) {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!(
            tool = "invoke_planner",
            interrupted = count,
            "planner turns left unfinished by this server's last run marked interrupted"
        );
    } else {
        eprintln!(
            "planner turns left unfinished by this server's last run marked interrupted tool=invoke_planner interrupted={count}"
        );
    }
}
