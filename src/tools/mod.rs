//! The tools this endpoint offers (SPEC.md §7), one module each: definition,
//! argument checks and result writing. The registry below decides which tools
//! an endpoint lists and dispatches.

pub(crate) mod archive;
mod arguments;
pub(crate) mod call;
pub(crate) mod create;
mod document;
pub(crate) mod guide;
pub(crate) mod implementation;
pub(crate) mod invoke;
pub(crate) mod list;
pub(crate) mod read;
pub(crate) mod rename;
pub(crate) mod restore;
mod result;
pub(crate) mod revision;
mod schema;
pub(crate) mod update;
pub(crate) mod upload;

use serde::Serialize;

pub(crate) use arguments::{
    Text, fingerprint_of, locator, locator_arguments, not_blank_within, text,
};
use result::member_hint;
pub(crate) use result::{
    Code, Frame, Summary, write_absent, write_code, write_error_text, write_issues,
    write_text_result,
};
pub(crate) use schema::{
    brief_schema, code_schema, document_extras_schema, issues_schema, locator_input_schema,
};

use crate::auth::Granted;
use crate::config::{Config, Offered};
use create::Brief;

/// One entry of a repository's document list; also what a rename or a
/// restore answers (`{id, title, description?}`: never `archivedAt`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSummary {
    /// The document id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// A generated line about it, when the host keeps one (SURFACE.md §1.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it was archived (the host's RFC 3339 string), for an archived
    /// document a list includes; a rename or restore result never writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<String>,
}

/// A [`DocumentSummary`] borrowed from wherever the host holds its text
/// (a store's row buffer), for
/// [`ListDocuments::answer_borrowed`](crate::ListDocuments::answer_borrowed):
/// the same result, without an owned `String` per field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocumentSummaryRef<'a> {
    /// The document id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// A generated line about it, when the host keeps one.
    pub description: Option<&'a str>,
    /// When it was archived (the host's RFC 3339 string), for an archived
    /// document.
    pub archived_at: Option<&'a str>,
}

/// A document as `read_document` returns it, its members in SURFACE.md
/// §1.5's order: `id, title, description?, archivedAt?, brief?, source,
/// revision, url?`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    /// The document id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// A generated line about it, when the host keeps one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When it was archived (the host's RFC 3339 string): archived
    /// documents are read, with it (SURFACE.md §3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<String>,
    /// The brief it was created with, when the host keeps one: answered
    /// between `archivedAt` and `source` (LIFECYCLE.md §5). `None` answers
    /// exactly as a document without a brief always did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brief: Option<Brief>,
    /// The canonical plan source.
    pub source: String,
    /// The revision number, from 0.
    pub revision: u64,
    /// Where people open it, when the host gives one; `None` writes none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A tool the endpoint can dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    ListDocuments,
    ReadDocument,
    CreateDocument,
    UpdateDocument,
    RenameDocument,
    ArchiveDocument,
    RestoreDocument,
    InvokePlanner,
    UploadImage,
    ReadImplementation,
    StartImplementation,
    StartTask,
    BlockTask,
    ReportPr,
    CompleteTask,
    ReportVerification,
    RequestRevision,
}

impl Tool {
    /// Every tool, in the order `tools/list` presents them (LIFECYCLE.md §1;
    /// SURFACE.md §1.1: `invoke_planner`, then `upload_image`, after
    /// `restore_document`; IMPLEMENTATION.md §2.1: the implementation tools
    /// after them).
    const ALL: [Tool; 17] = [
        Tool::ListDocuments,
        Tool::ReadDocument,
        Tool::CreateDocument,
        Tool::UpdateDocument,
        Tool::RenameDocument,
        Tool::ArchiveDocument,
        Tool::RestoreDocument,
        Tool::InvokePlanner,
        Tool::UploadImage,
        Tool::ReadImplementation,
        Tool::StartImplementation,
        Tool::StartTask,
        Tool::BlockTask,
        Tool::ReportPr,
        Tool::CompleteTask,
        Tool::ReportVerification,
        Tool::RequestRevision,
    ];

    fn name(self) -> &'static str {
        match self {
            Tool::ListDocuments => "list_documents",
            Tool::ReadDocument => "read_document",
            Tool::CreateDocument => "create_document",
            Tool::UpdateDocument => "update_document",
            Tool::RenameDocument => "rename_document",
            Tool::ArchiveDocument => "archive_document",
            Tool::RestoreDocument => "restore_document",
            Tool::InvokePlanner => "invoke_planner",
            Tool::UploadImage => "upload_image",
            Tool::ReadImplementation => "read_implementation",
            Tool::StartImplementation => "start_implementation",
            Tool::StartTask => "start_task",
            Tool::BlockTask => "block_task",
            Tool::ReportPr => "report_pr",
            Tool::CompleteTask => "complete_task",
            Tool::ReportVerification => "report_verification",
            Tool::RequestRevision => "request_revision",
        }
    }

    fn definition(self) -> &'static str {
        match self {
            Tool::ListDocuments => list::DEFINITION,
            Tool::ReadDocument => read::DEFINITION,
            Tool::CreateDocument => create::DEFINITION,
            Tool::UpdateDocument => update::DEFINITION,
            Tool::RenameDocument => rename::DEFINITION,
            Tool::ArchiveDocument => archive::DEFINITION,
            Tool::RestoreDocument => restore::DEFINITION,
            Tool::InvokePlanner => invoke::DEFINITION,
            Tool::UploadImage => upload::DEFINITION,
            Tool::ReadImplementation => implementation::READ_IMPLEMENTATION,
            Tool::StartImplementation => implementation::START_IMPLEMENTATION,
            Tool::StartTask => implementation::START_TASK,
            Tool::BlockTask => implementation::BLOCK_TASK,
            Tool::ReportPr => implementation::REPORT_PR,
            Tool::CompleteTask => implementation::COMPLETE_TASK,
            Tool::ReportVerification => implementation::REPORT_VERIFICATION,
            Tool::RequestRevision => implementation::REQUEST_REVISION,
        }
    }

    /// The tool's `description`, as its definition holds it (the generated
    /// instructions quote it, SURFACE.md §10).
    fn description(self) -> String {
        let definition: serde_json::Value =
            serde_json::from_str(self.definition()).unwrap_or_default();
        definition["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Whether an endpoint offers the tool: the read tools always, the
    /// others when enabled.
    fn offered(self, offered: Offered) -> bool {
        match self {
            Tool::ListDocuments | Tool::ReadDocument => true,
            Tool::CreateDocument => offered.create,
            Tool::UpdateDocument => offered.update,
            Tool::RenameDocument => offered.rename,
            Tool::ArchiveDocument => offered.archive,
            Tool::RestoreDocument => offered.restore,
            Tool::InvokePlanner => offered.planner,
            Tool::UploadImage => offered.upload,
            Tool::ReadImplementation => offered.implementation_reads,
            Tool::StartImplementation
            | Tool::StartTask
            | Tool::BlockTask
            | Tool::ReportPr
            | Tool::CompleteTask
            | Tool::ReportVerification
            | Tool::RequestRevision => offered.implementation_writes,
        }
    }

    /// The scopes a `tools/call` of `name` needs (AUTH.md §1.2, LIFECYCLE.md
    /// §1): the read scope; with it the create scope for the offered
    /// `create_document`, the write scope for an offered write tool. A tool
    /// not offered is "tool not found" and needs the read scope only.
    pub(crate) fn needs(name: &str, offered: Offered) -> Granted {
        let (create, write) = match Tool::lookup(name, offered) {
            Some(Tool::CreateDocument) => (true, false),
            Some(
                Tool::UpdateDocument
                | Tool::RenameDocument
                | Tool::ArchiveDocument
                | Tool::RestoreDocument
                | Tool::InvokePlanner
                | Tool::UploadImage,
            ) => (false, true),
            Some(tool) if tool.is_implementation_write() => (false, true),
            Some(_) | None => (false, false),
        };
        Granted::new(true, create, write)
    }

    /// One of the seven implementation tools that write (IMPLEMENTATION.md
    /// §2.1: they need the write scope, the handshake era's session, and the
    /// larger budget).
    pub(crate) fn is_implementation_write(self) -> bool {
        matches!(
            self,
            Tool::StartImplementation
                | Tool::StartTask
                | Tool::BlockTask
                | Tool::ReportPr
                | Tool::CompleteTask
                | Tool::ReportVerification
                | Tool::RequestRevision
        )
    }

    /// The offered tool called `name`: one match on the name (the compiler
    /// sorts its arms by length), not a compare per tool. The
    /// `lookup_finds_each_tool_by_its_name` test keeps it equal to
    /// [`name`](Tool::name).
    pub(crate) fn lookup(name: &str, offered: Offered) -> Option<Tool> {
        let tool = match name {
            "list_documents" => Tool::ListDocuments,
            "read_document" => Tool::ReadDocument,
            "create_document" => Tool::CreateDocument,
            "update_document" => Tool::UpdateDocument,
            "rename_document" => Tool::RenameDocument,
            "archive_document" => Tool::ArchiveDocument,
            "restore_document" => Tool::RestoreDocument,
            "invoke_planner" => Tool::InvokePlanner,
            "upload_image" => Tool::UploadImage,
            "read_implementation" => Tool::ReadImplementation,
            "start_implementation" => Tool::StartImplementation,
            "start_task" => Tool::StartTask,
            "block_task" => Tool::BlockTask,
            "report_pr" => Tool::ReportPr,
            "complete_task" => Tool::CompleteTask,
            "report_verification" => Tool::ReportVerification,
            "request_revision" => Tool::RequestRevision,
            _ => return None,
        };
        tool.offered(offered).then_some(tool)
    }
}

/// The `tools/list` result, `{"tools":[…]}`, computed once per endpoint:
/// the offered tools' definitions, `invoke_planner`'s with the configured
/// description.
pub(crate) fn list_result(config: &Config) -> Vec<u8> {
    let mut out = b"{\"tools\":[".to_vec();
    let listed = Tool::ALL
        .into_iter()
        .filter(|tool| tool.offered(config.tools));
    for (index, tool) in listed.enumerate() {
        if index > 0 {
            out.push(b',');
        }
        match (tool, &config.planner_description) {
            (Tool::InvokePlanner, Some(description)) => {
                invoke::write_definition(&mut out, description);
            }
            _ => out.extend_from_slice(tool.definition().as_bytes()),
        }
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_results_equal_their_serde_serialization() {
        let brief = Brief {
            goal: "G\"\u{2}".into(),
            constraints: vec!["c\\".into(), String::new()],
            settled_decisions: Vec::new(),
            open_questions: vec!["q?\n".into()],
            repository_findings: vec!["😀".into()],
        };
        let optional = |on: bool, text: &str| on.then(|| text.to_owned());
        for (brief, extra) in [
            (None, false),
            (Some(brief.clone()), false),
            (Some(brief), true),
        ] {
            let document = Document {
                id: "d\"1".into(),
                title: "T\\n\u{1}".into(),
                description: optional(extra, "A \"line\"\n"),
                archived_at: optional(extra, "2026-08-23T12:34:56.000Z"),
                brief,
                source: "# S\n\n😀 \"q\"".into(),
                revision: u64::MAX,
                url: optional(extra, "/documents/d%221"),
            };
            let mut out = Vec::new();
            write_text_result(&mut out, Frame::Legacy, &document, false);
            let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
            let compact = serde_json::to_string(&document).unwrap();
            assert_eq!(value["content"][0]["text"], compact.as_str());
            let structured = &out[out
                .windows(20)
                .position(|w| w == b"\"structuredContent\":")
                .unwrap()
                + 20..];
            assert!(structured.starts_with(compact.as_bytes()));
        }
    }

    #[test]
    fn lookup_finds_each_tool_by_its_name() {
        let all = Config::new()
            .enable_creation()
            .enable_lifecycle()
            .enable_planner()
            .enable_upload()
            .enable_implementations()
            .tools;
        for offered in [all, Offered::READ_ONLY] {
            for tool in Tool::ALL {
                let expected = tool.offered(offered).then_some(tool);
                assert_eq!(
                    Tool::lookup(tool.name(), offered),
                    expected,
                    "{}",
                    tool.name()
                );
                let longer = format!("{}x", tool.name());
                assert_eq!(Tool::lookup(&longer, offered), None);
                assert_eq!(Tool::lookup(&tool.name()[1..], offered), None);
            }
        }
        assert_eq!(Tool::lookup("", all), None);
        assert_eq!(Tool::lookup("\u{fffd}", all), None);
    }

    #[test]
    fn strings_found_plain_in_the_text_are_copied_into_structured_content_exactly() {
        // Each of the six strings plain or not (a special in its first
        // block, in its last, or a string shorter than a block), with and
        // without the optional members.
        let texts = |bit: usize, plain: bool| -> String {
            match (plain, bit % 3) {
                (true, 0) => "abc".into(),
                (true, 1) => "a plain string of some forty bytes, é 😀".into(),
                (true, _) => String::new(),
                (false, 0) => "q\"".into(),
                (false, 1) => "a string whose last block holds a newline\n".into(),
                (false, _) => "\u{1}a string whose first block holds a control".into(),
            }
        };
        for plain in 0..64usize {
            for optional in [false, true] {
                let text = |bit: usize| texts(bit, plain & (1 << bit) != 0);
                let document = Document {
                    id: text(0),
                    title: text(1),
                    description: optional.then(|| text(2)),
                    archived_at: optional.then(|| text(3)),
                    brief: None,
                    source: text(4),
                    revision: 7,
                    url: optional.then(|| text(5)),
                };
                let mut out = Vec::new();
                write_text_result(&mut out, Frame::Legacy, &document, false);
                let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
                let compact = serde_json::to_string(&document).unwrap();
                assert_eq!(value["content"][0]["text"], compact.as_str());
                let expected: serde_json::Value = serde_json::from_str(&compact).unwrap();
                assert_eq!(value["structuredContent"], expected);
                assert!(out.ends_with(format!("{compact}}}").as_bytes()));
            }
        }
    }

    #[test]
    fn every_definition_is_one_json_object_and_each_tool_is_listed_when_offered() {
        for tool in Tool::ALL {
            let value: serde_json::Value = serde_json::from_str(tool.definition()).unwrap();
            assert_eq!(value["name"], tool.name());
        }
        let all = Config::new()
            .enable_creation()
            .enable_lifecycle()
            .enable_planner()
            .enable_upload()
            .enable_implementations();
        for (config, count) in [(Config::new(), 2), (all, 17)] {
            let list: serde_json::Value = serde_json::from_slice(&list_result(&config)).unwrap();
            assert_eq!(list["tools"].as_array().unwrap().len(), count);
        }
    }
}
