//! The implementation tools (IMPLEMENTATION.md §2): `read_implementation`,
//! `start_implementation` and the six lifecycle tools — their definitions,
//! argument checks and result writing. The rules the host applies inside
//! its transaction are [`crate::implementation`]'s; this layer only reads
//! the calls and writes the answers.

mod arguments;
mod definitions;
mod schema;

use serde::Serialize;

pub use arguments::StartRequest;
pub(crate) use arguments::{Lifecycle, lifecycle, read, start};
pub(crate) use definitions::{
    BLOCK_TASK, COMPLETE_TASK, READ_IMPLEMENTATION, REPORT_PR, REPORT_VERIFICATION,
    REQUEST_REVISION, START_IMPLEMENTATION, START_TASK,
};

use crate::implementation::{Claimed, Implementation, Life, Refusal, Run, to_json};
use crate::json::Compact;
use crate::jsonrpc::RpcError;
use crate::tools::{Code, Frame, write_code, write_text_result};

/// The instructions' line before the implementation tools' (IMPLEMENTATION.md
/// §2.1, upstream's verbatim).
pub(crate) const INSTRUCTION: &str = "Read the canonical implementation before every implementation or lifecycle action; copied plans and lifecycle instructions are not substitutes.";

pub(crate) const INVALID_READ: RpcError = RpcError {
    code: -32602,
    message: "read_implementation requires an id or URL",
};

pub(crate) const INVALID_START: RpcError = RpcError {
    code: -32602,
    message: "start_implementation requires current revisions",
};

/// `<tool> requires its documented arguments`, for the six lifecycle tools.
pub(crate) fn invalid_lifecycle(tool: &str) -> RpcError {
    let message = match tool {
        "start_task" => "start_task requires its documented arguments",
        "block_task" => "block_task requires its documented arguments",
        "report_pr" => "report_pr requires its documented arguments",
        "complete_task" => "complete_task requires its documented arguments",
        "report_verification" => "report_verification requires its documented arguments",
        _ => "request_revision requires its documented arguments",
    };
    RpcError {
        code: -32602,
        message,
    }
}

/// The refusal every implementation tool gives in the handshake era without
/// a well-formed session id (IMPLEMENTATION.md §3).
pub(crate) const SESSION_REQUIRED: &str = "session-required";

/// The host's answer to a
/// [`ReadImplementation`](crate::ReadImplementation) effect.
#[derive(Debug, Clone, Copy)]
pub enum ReadImplementationAnswer<'a, B> {
    /// The document's implementation (`IMPL`), shown only for a document
    /// with creation provenance whose latest version is approved or locked
    /// (archived documents too).
    Found(&'a Implementation<'a, B>),
    /// The caller may see the document but not its implementation:
    /// `repository-forbidden`.
    Forbidden,
    /// No implementation to show this caller, or the store cannot answer
    /// now: `implementation-unavailable`.
    Unavailable,
}

/// The host's answer to a
/// [`StartImplementation`](crate::StartImplementation) effect, in
/// IMPLEMENTATION.md §2.4's order of checks.
#[derive(Debug, Clone, Copy)]
pub enum StartAnswer<'a> {
    /// Claimed now: `{"state":"started","run":…}`.
    Started(&'a Run),
    /// A run is active (whatever the revisions): `{"state":"active","run":…}`
    /// with that run.
    Active(&'a Run),
    /// The claim's rules refused: `already-verified`, `stale-plan`,
    /// `missing`, `stale-graph`, `not-approved`, `run`
    /// ([`crate::implementation::claim`]).
    Refused(Refusal),
    /// No write grant, or `repository` is not the document's:
    /// `repository-forbidden`.
    Forbidden,
    /// The document is archived: `document-archived`.
    Archived,
    /// No such document for this caller, or the store cannot claim now:
    /// `document-unavailable`.
    Unavailable,
}

/// The host's answer to a [`ReportLifecycle`](crate::ReportLifecycle)
/// effect. Both successes answer the document's **current** projection.
#[derive(Debug, Clone, Copy)]
pub enum LifecycleAnswer<'a> {
    /// The event was appended: the document's `LIFE` after it.
    Accepted(&'a Life<'a>),
    /// The key was used before by this caller, tool, run and fields: the
    /// document's `LIFE` now.
    Replayed(&'a Life<'a>),
    /// The rules refused (IMPLEMENTATION.md §1.2): the refusal's code.
    Refused(Refusal),
    /// The caller may not write the document: `repository-forbidden`.
    Forbidden,
    /// No such document for this caller, or the store cannot answer now:
    /// `document-unavailable`.
    Unavailable,
}

/// `text(v)` of a projection.
fn write_value(out: &mut Vec<u8>, frame: Frame<'_>, value: &impl Serialize) {
    write_text_result(out, frame, &Compact(to_json(value)), false);
}

/// Appends the result of a read.
pub(crate) fn write_read<B: Serialize>(
    out: &mut Vec<u8>,
    frame: Frame<'_>,
    answer: ReadImplementationAnswer<'_, B>,
) {
    let code = match answer {
        ReadImplementationAnswer::Found(implementation) => {
            return write_value(out, frame, implementation);
        }
        ReadImplementationAnswer::Forbidden => "repository-forbidden",
        ReadImplementationAnswer::Unavailable => "implementation-unavailable",
    };
    write_code(out, frame, Code::new(code));
}

/// Appends the result of a claim.
pub(crate) fn write_start(out: &mut Vec<u8>, frame: Frame<'_>, answer: StartAnswer<'_>) {
    let code = match answer {
        StartAnswer::Started(run) => {
            return write_value(out, frame, &Claimed { started: true, run });
        }
        StartAnswer::Active(run) => {
            return write_value(
                out,
                frame,
                &Claimed {
                    started: false,
                    run,
                },
            );
        }
        StartAnswer::Refused(refusal) => refusal.code(),
        StartAnswer::Forbidden => "repository-forbidden",
        StartAnswer::Archived => "document-archived",
        StartAnswer::Unavailable => "document-unavailable",
    };
    write_code(out, frame, Code::new(code));
}

/// Appends the result of a lifecycle report.
pub(crate) fn write_lifecycle(out: &mut Vec<u8>, frame: Frame<'_>, answer: LifecycleAnswer<'_>) {
    let code = match answer {
        LifecycleAnswer::Accepted(life) | LifecycleAnswer::Replayed(life) => {
            return write_value(out, frame, life);
        }
        LifecycleAnswer::Refused(refusal) => refusal.code(),
        LifecycleAnswer::Forbidden => "repository-forbidden",
        LifecycleAnswer::Unavailable => "document-unavailable",
    };
    write_code(out, frame, Code::new(code));
}
