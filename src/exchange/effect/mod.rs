//! The effects the endpoint hands the host, one file each: what each carries,
//! its accessors, its answer and its `Debug`.
//!
//! Every effect holds a [`Pending`] reply (the suspended walk and the
//! JSON-RPC id to answer) beside what it asks; its answer writes the tool's
//! result into the reply and resumes the walk. Adding a tool's effect is a
//! file here, a variant of [`Outcome`](super::outcome::Outcome) and an arm in
//! `dispatch`.

mod archive;
mod create;
mod implementation;
mod invoke_planner;
mod list;
mod read;
mod rename;
mod restore;
mod store_image;
mod update;

pub use archive::ArchiveDocument;
pub use create::CreateDocument;
pub use implementation::{ReadImplementation, ReportLifecycle, StartImplementation};
pub use invoke_planner::InvokePlanner;
pub use list::ListDocuments;
pub use read::ReadDocument;
pub use rename::RenameDocument;
pub use restore::RestoreDocument;
pub use store_image::StoreImage;
pub use update::UpdateDocument;

use bytestring::ByteString;

use super::dispatch::Dispatch;
use super::outcome::Outcome;
use crate::tools::{Frame, Text};

/// The JSON-RPC id a host call's reply answers, and the message it came in.
///
/// The id and a read's or a list's string argument lie in the message: it
/// is kept once, moved here, and they are kept as spans of it. (Cut out of
/// it as `Bytes` each, the first cut made a body the host handed as a
/// `Vec` shared: an allocation, and a count taken and given back for each.)
pub(crate) struct Reply {
    pub(crate) source: ByteString,
    pub(crate) id: Text,
}

/// What every effect shares: the walk it suspended and the JSON-RPC id of
/// the call its answer replies to.
pub(crate) struct Pending<C> {
    dispatch: Dispatch<C>,
    reply: Reply,
}

impl<C> Pending<C> {
    /// Built by a call, not in line: a call's result is written where
    /// it goes, while a value built in line is built on the stack and
    /// copied there (the dispatch is 168 bytes, and a copy read straight
    /// after its fields were stored one by one stalls). The same holds for
    /// the effects built on the hot path ([`ReadDocument`],
    /// [`ListDocuments`]).
    #[inline(never)]
    pub(crate) fn new(dispatch: Dispatch<C>, reply: Reply) -> Self {
        Pending { dispatch, reply }
    }

    /// The authenticated caller.
    fn caller(&self) -> &C {
        &self.dispatch.exchange.caller
    }

    /// A string argument of the call.
    fn text<'a>(&'a self, text: &'a Text) -> &'a str {
        text.as_str(&self.reply.source)
    }

    /// Writes the call's result with `write_result` and resumes the walk.
    fn answer(mut self, write_result: impl FnOnce(&mut Vec<u8>, Frame<'_>)) -> Outcome<C> {
        let id = self.reply.id.as_str(&self.reply.source);
        self.dispatch.tool_result(id.as_bytes(), write_result);
        if self.dispatch.in_batch() {
            return self.dispatch.walk_on();
        }
        self.dispatch.finish_granted()
    }
}
