//! The tool-call step both eras share (SPEC.md §7, MODERN.md §4): reading
//! `tools/call`'s `name` and `arguments`, checking the arguments, and
//! deciding where a well-formed call goes. What the era adds around it
//! (error codes, statuses, framing) stays with the era's dispatcher.

use std::borrow::Cow;

use bytestring::ByteString;

use crate::config::{Config, Offered};
use crate::json::{self, Raw};
use crate::jsonrpc::{self, RpcError};
use crate::record::{Arguments, Record};
use crate::tools::Text;
use crate::tools::create::{self, NewDocument};
use crate::tools::implementation::{self, Lifecycle, StartRequest};
use crate::tools::invoke::{self, Invocation};
use crate::tools::update::{self, DocumentUpdate};
use crate::tools::upload::{self, Checked, Upload};
use crate::tools::{Tool, archive, list, locator_arguments, read, rename, restore};
use chopin_dialect::{self as dialect, Issue};

/// The host's part of a tool call.
pub(crate) enum Effect {
    List {
        /// `owner/name`, checked.
        repository: Text,
        /// Whether archived documents are asked for too.
        include_archived: bool,
    },
    Read(Text),
    Create(Box<NewDocument>),
    Update(Box<DocumentUpdate>),
    Rename {
        /// The locator as sent.
        id: String,
        /// The title, trimmed.
        title: String,
    },
    Archive(String),
    Restore(String),
    InvokePlanner(Box<Invocation>),
    StoreImage(Box<Upload>),
    /// `read_implementation`'s locator, as sent.
    ReadImplementation(String),
    StartImplementation(Box<StartRequest>),
    /// A lifecycle tool's call.
    Lifecycle(Box<Lifecycle>),
}

/// Where a well-formed tool call goes.
pub(crate) enum ToolStep {
    /// To the host, as an effect.
    Host(Effect),
    /// Back to the caller at once: the plan's dialect issues.
    Issues(Vec<Issue>),
    /// Back to the caller at once: `text({"code":…}, error)`.
    Code(&'static str),
}

/// Reads `tools/call`'s `name` and `arguments`: `name` a string (`name` is
/// `params.name` read by [`json::name`], `None` when absent or not a
/// string) and `arguments` an object (absent counts as `{}`), and finds the
/// tool. The error is `-32602 "invalid tool arguments"` or (legacy) `-32601
/// "tool not found"`.
#[inline]
pub(crate) fn tool_call<'a>(
    name: Option<Cow<'_, str>>,
    arguments: Option<Arguments<'a>>,
    offered: Offered,
) -> Result<(Tool, Arguments<'a>), RpcError> {
    let name = name.ok_or(jsonrpc::INVALID_TOOL_ARGUMENTS)?;
    let arguments = match arguments {
        None => Arguments::new(Raw::new("{}"), &Record::EMPTY),
        Some(arguments) if json::is_object(arguments.raw()) => arguments,
        Some(_) => return Err(jsonrpc::INVALID_TOOL_ARGUMENTS),
    };
    let tool = Tool::lookup(&name, offered).ok_or(jsonrpc::TOOL_NOT_FOUND)?;
    Ok((tool, arguments))
}

/// Checks a tool's arguments (SPEC.md §7, DIALECT.md §11, LIFECYCLE.md) and decides
/// where the call goes. Nothing reaches the host unless every check
/// passed. The error is the tool's own argument failure: a JSON-RPC
/// error in the legacy era, a tool execution error in the modern one.
///
/// `source` is the message the arguments were read from: a list's
/// repository and a read's id are kept as slices of it.
pub(crate) fn step(
    config: &Config,
    source: &ByteString,
    tool: Tool,
    arguments: Arguments<'_>,
) -> Result<ToolStep, RpcError> {
    let raw = arguments.raw();
    let effect = match tool {
        Tool::ListDocuments => {
            let (repository, include_archived) =
                list::arguments(&arguments).ok_or(list::INVALID)?;
            Effect::List {
                repository: Text::new(source, repository),
                include_archived,
            }
        }
        Tool::ReadDocument => {
            let document = read::arguments(&arguments).ok_or(read::INVALID)?;
            Effect::Read(Text::new(source, document))
        }
        Tool::CreateDocument => {
            let draft = create::arguments(raw).ok_or(create::INVALID)?;
            let report = dialect::check(&draft.plan, &*config.ids);
            if !report.issues.is_empty() {
                return Ok(ToolStep::Issues(report.issues));
            }
            Effect::Create(Box::new(draft.into_new_document(report.canonical)))
        }
        Tool::UpdateDocument => {
            let revision = update::arguments(&arguments).ok_or(update::INVALID)?;
            let report = dialect::check(&revision.plan, &*config.ids);
            if !report.issues.is_empty() {
                return Ok(ToolStep::Issues(report.issues));
            }
            Effect::Update(Box::new(revision.into_update(report.canonical)))
        }
        Tool::RenameDocument => {
            let (id, title) = rename::arguments(&arguments).ok_or(rename::INVALID)?;
            Effect::Rename { id, title }
        }
        Tool::ArchiveDocument => {
            Effect::Archive(locator_arguments(&arguments).ok_or(archive::INVALID)?)
        }
        Tool::RestoreDocument => {
            Effect::Restore(locator_arguments(&arguments).ok_or(restore::INVALID)?)
        }
        Tool::InvokePlanner => Effect::InvokePlanner(Box::new(
            invoke::arguments(&arguments).ok_or(invoke::INVALID)?,
        )),
        Tool::UploadImage => match upload::arguments(&arguments)? {
            Checked::Upload(upload) => Effect::StoreImage(upload),
            Checked::Refused(code) => return Ok(ToolStep::Code(code)),
        },
        Tool::ReadImplementation => Effect::ReadImplementation(
            implementation::read(&arguments).ok_or(implementation::INVALID_READ)?,
        ),
        Tool::StartImplementation => Effect::StartImplementation(Box::new(
            implementation::start(raw).ok_or(implementation::INVALID_START)?,
        )),
        tool => {
            let name = tool.name();
            let call = implementation::lifecycle(name, raw)
                .ok_or_else(|| implementation::invalid_lifecycle(name))?;
            Effect::Lifecycle(Box::new(call))
        }
    };
    Ok(ToolStep::Host(effect))
}
