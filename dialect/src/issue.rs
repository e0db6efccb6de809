//! Issue objects (DIALECT.md §7.1).

use serde::Serialize;

use super::location::LineIndex;

/// One problem found in a plan. Serializes with §7.1's key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The issue code, e.g. `unknown-component`.
    pub code: &'static str,
    /// A structural English sentence that never echoes authored prose.
    pub message: String,
    /// Where in the tree: `root > paragraph[0] > link[0]`.
    pub path: String,
    /// UTF-8 byte offset into the submitted plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column in Unicode scalar values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Issue {
    /// An issue located at `offset` of the submitted plan.
    pub fn at(
        code: &'static str,
        message: String,
        path: String,
        offset: usize,
        lines: &LineIndex<'_>,
    ) -> Self {
        let (line, column) = lines.locate(offset);
        Issue {
            code,
            message,
            path,
            offset: Some(offset),
            line: Some(line),
            column: Some(column),
        }
    }

    /// An issue about the whole plan, with no location.
    pub fn whole(code: &'static str, message: &str) -> Self {
        Issue {
            code,
            message: message.to_owned(),
            path: "root".to_owned(),
            offset: None,
            line: None,
            column: None,
        }
    }
}

/// The issues object of DIALECT.md §11.5, `{"issues":[…]}`, as compact JSON
/// (each issue with §7.1's key order; strings escaped as `JSON.stringify`
/// escapes them). This is what `create_document` answers for a plan with
/// issues, and what `chopin-plan check --format json` prints.
pub fn issues_json(issues: &[Issue]) -> Vec<u8> {
    #[derive(Serialize)]
    struct Issues<'a> {
        issues: &'a [Issue],
    }
    // A struct of strings and integers always serializes.
    serde_json::to_vec(&Issues { issues }).unwrap_or_default()
}
