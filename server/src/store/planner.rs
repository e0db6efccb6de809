//! What the planner asks of the store (SURFACE.md §9), on either engine: a
//! turn recorded for a document (`planner_turns`, schema version 3), its
//! start, its end, and the turns a server left unfinished. Each engine's
//! statements are its `planner.rs`.

/// A turn to record: who asked what of which document, and the server
/// that will run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTurn {
    /// The caller the turn is attributed to.
    pub caller: String,
    /// The client it called with (SURFACE.md §10: `unknown` when it said
    /// nothing): name and version.
    pub client_name: String,
    pub client_version: String,
    /// The document's locator, as sent.
    pub locator: String,
    /// The instruction, as sent.
    pub instruction: String,
    /// The checkout the caller named, as sent: recorded, never used.
    pub checkout: Option<String>,
    /// The server that holds the turn (see `planner::owner`).
    pub server: String,
    /// Whether the server has room for the turn: without it nothing is
    /// written and a document the caller may use is
    /// [`InvokeOutcome::QueueFull`].
    pub admitted: bool,
}

/// How an invoke ended in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvokeOutcome {
    /// Recorded, `queued`: the turn's number and its document.
    Queued {
        turn: i64,
        id: String,
        title: String,
        repository: String,
    },
    /// The document is archived: nothing recorded.
    Archived,
    /// The server had no room: nothing recorded.
    QueueFull,
    /// The caller may see the document but not write it (a read-only
    /// grant): nothing recorded.
    Forbidden,
    /// No document the caller may see.
    Unavailable,
}

/// How a turn ended, as its row keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    /// `exited` (the command ended by itself; see `exit_status`),
    /// `timed-out` (its process group was killed at the timeout), or
    /// `failed` (it could not be started).
    pub state: &'static str,
    /// The exit code, when the command exited with one.
    pub exit_status: Option<i32>,
    /// The first 64 KiB of its standard output and error, as they came;
    /// for `failed`, why it could not start.
    pub output: Vec<u8>,
}

/// The states of a turn not yet ended.
pub const UNFINISHED: [&str; 2] = ["queued", "running"];
