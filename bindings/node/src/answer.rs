//! The host's answers to the effects, one room each: authentication
//! (`authenticate.rs`), the list (`list.rs`), the read (`read.rs`), the
//! create (`create.rs`), the update (`update.rs`), the rename, archive
//! and restore (`lifecycle.rs`), the planner's (`invoke.rs`), and the
//! upload and an image URL's steps (`image.rs`). Each takes the exchange waiting for it out
//! of its slot and writes the outcome that follows.

mod authenticate;
mod create;
mod image;
mod implementation;
mod invoke;
mod lifecycle;
mod list;
mod read;
mod update;

pub use authenticate::Verdict;
pub use create::CreateKind;
pub use image::{ImageKind, UploadKind};
pub use implementation::{AnswerError, BadAnswer};
pub use invoke::PlannerFields;
pub use lifecycle::ChangeKind;
pub use read::DocumentRef;
pub use update::UpdateKind;
