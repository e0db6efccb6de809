//! What became of a write, tool by tool: each write tool's closed result
//! set ([`CreateResult`], [`UpdateResult`], …) and [`Written`], the one
//! that a request's record carries, with its log field and counter slot.

use super::Tool;

label_set! {
    /// What became of a create.
    pub enum CreateResult {
        /// Stored as a new document.
        Created => "created",
        /// The idempotency key was seen with the same draft: the stored
        /// document.
        Replayed => "replayed",
        /// The idempotency key was seen with another draft.
        Conflict => "conflict",
        /// The plan has dialect issues: nothing reached the store.
        Issues => "issues",
        /// The caller may not create in the repository.
        Forbidden => "forbidden",
        /// Stored, but the stored document cannot be shown.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an update.
    pub enum UpdateResult {
        /// Stored as the document's next revision.
        Updated => "updated",
        /// The idempotency key was seen with the same request: the document
        /// as that update left it.
        Replayed => "replayed",
        /// The idempotency key was seen with another request.
        Conflict => "conflict",
        /// The document is at another revision.
        RevisionConflict => "revision_conflict",
        /// An implementation run is active on the document.
        Locked => "locked",
        /// The document is archived.
        Archived => "archived",
        /// The plan has dialect issues: nothing reached the store.
        Issues => "issues",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of a rename.
    pub enum RenameResult {
        /// The document has the title now (also when it had it already).
        Renamed => "renamed",
        /// The document is archived.
        Archived => "archived",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an archive.
    pub enum ArchiveResult {
        /// The document is archived (also when it already was).
        Archived => "archived",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of a restore.
    pub enum RestoreResult {
        /// The document is live (also when it already was).
        Restored => "restored",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an invoke_planner call (the turn's own end is the
    /// planner's: `planner_turns_total`).
    pub enum InvokeResult {
        /// Recorded and queued for a worker.
        Invoked => "invoked",
        /// The document is archived.
        Archived => "archived",
        /// The server's turns and queue were full.
        QueueFull => "queue_full",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

label_set! {
    /// What became of an upload.
    pub enum UploadResult {
        /// Kept and linked to the document (also when it already was).
        Stored => "stored",
        /// The document is archived.
        Archived => "archived",
        /// A new image past the repository's quota.
        QuotaExceeded => "quota_exceeded",
        /// The caller may read the document but not write it (a
        /// read-only grant).
        Forbidden => "forbidden",
        /// No document the caller may see.
        Unavailable => "unavailable",
    }
}

/// What became of a write: its tool's own result. Each write tool has its
/// log field (`create=…`, `update=…`, …) and its counter
/// (`creates_total`, `updates_total`, …), labelled with the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Create(CreateResult),
    Update(UpdateResult),
    Rename(RenameResult),
    Archive(ArchiveResult),
    Restore(RestoreResult),
    Invoke(InvokeResult),
    Upload(UploadResult),
}

impl Written {
    /// The write tools' log fields, in the order of [`Written::family`].
    pub const FIELDS: [&'static str; 7] = [
        "create", "update", "rename", "archive", "restore", "invoke", "upload",
    ];

    /// The write tools' names, in the order of [`Written::FIELDS`] (for
    /// the counters' help).
    pub const TOOLS: [&'static str; 7] = [
        "create_document",
        "update_document",
        "rename_document",
        "archive_document",
        "restore_document",
        "invoke_planner",
        "upload_image",
    ];

    /// Every value, tool by tool: the order of [`Written::slot`].
    pub fn all() -> impl Iterator<Item = Written> {
        let create = CreateResult::ALL.iter().map(|&r| Written::Create(r));
        let update = UpdateResult::ALL.iter().map(|&r| Written::Update(r));
        let rename = RenameResult::ALL.iter().map(|&r| Written::Rename(r));
        let archive = ArchiveResult::ALL.iter().map(|&r| Written::Archive(r));
        let restore = RestoreResult::ALL.iter().map(|&r| Written::Restore(r));
        let invoke = InvokeResult::ALL.iter().map(|&r| Written::Invoke(r));
        let upload = UploadResult::ALL.iter().map(|&r| Written::Upload(r));
        create
            .chain(update)
            .chain(rename)
            .chain(archive)
            .chain(restore)
            .chain(invoke)
            .chain(upload)
    }

    /// Its tool's place in [`Written::FIELDS`].
    pub fn family(self) -> usize {
        match self {
            Written::Create(_) => 0,
            Written::Update(_) => 1,
            Written::Rename(_) => 2,
            Written::Archive(_) => 3,
            Written::Restore(_) => 4,
            Written::Invoke(_) => 5,
            Written::Upload(_) => 6,
        }
    }

    /// Its tool's log field: `create`, `update`, `rename`, `archive`,
    /// `restore`, `invoke`, `upload`.
    pub fn field(self) -> &'static str {
        Written::FIELDS[self.family()]
    }

    /// The result's label.
    pub fn as_str(self) -> &'static str {
        match self {
            Written::Create(result) => result.as_str(),
            Written::Update(result) => result.as_str(),
            Written::Rename(result) => result.as_str(),
            Written::Archive(result) => result.as_str(),
            Written::Restore(result) => result.as_str(),
            Written::Invoke(result) => result.as_str(),
            Written::Upload(result) => result.as_str(),
        }
    }

    /// Its place in [`Written::all`].
    pub fn slot(self) -> usize {
        let (before, index) = match self {
            Written::Create(r) => (0, r.index()),
            Written::Update(r) => (1, r.index()),
            Written::Rename(r) => (2, r.index()),
            Written::Archive(r) => (3, r.index()),
            Written::Restore(r) => (4, r.index()),
            Written::Invoke(r) => (5, r.index()),
            Written::Upload(r) => (6, r.index()),
        };
        let sizes = [
            CreateResult::ALL.len(),
            UpdateResult::ALL.len(),
            RenameResult::ALL.len(),
            ArchiveResult::ALL.len(),
            RestoreResult::ALL.len(),
            InvokeResult::ALL.len(),
        ];
        sizes[..before].iter().sum::<usize>() + index
    }

    /// A write tool's answer of dialect issues, which no effect reports
    /// (the host is never asked): for `tool`, if it is a tool that takes a
    /// plan.
    pub fn issues(tool: Tool) -> Option<Written> {
        match tool {
            Tool::CreateDocument => Some(Written::Create(CreateResult::Issues)),
            Tool::UpdateDocument => Some(Written::Update(UpdateResult::Issues)),
            _ => None,
        }
    }
}
