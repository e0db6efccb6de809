//! What the registry tells about the offered tools as a whole: the
//! generated instructions (SURFACE.md §10, IMPLEMENTATION.md §2.1) and the
//! default body budget (SURFACE.md §1.8). Both read [`Tool::ALL`] in order,
//! so a tool added there appears in them without more code.

use crate::config::{CREATION_BUDGET, Config, Offered, READ_ONLY_BUDGET, UPLOAD_BUDGET};

use super::{Tool, implementation};

impl Config {
    /// The instructions SURFACE.md §10 describes for the tools this
    /// configuration offers: `Chopin's MCP contract and current tool
    /// descriptions are authoritative.`, then a line `<name>: <description>`
    /// per offered tool from `create_document` on, in tool order, joined by
    /// `\n`. Pass them (with any guidance of the host's own) to
    /// [`instructions`](Self::instructions):
    ///
    /// ```
    /// use chopin_mcp::Config;
    ///
    /// let config = Config::new().enable_creation();
    /// let text = config.generated_instructions();
    /// assert!(text.starts_with("Chopin's MCP contract"));
    /// assert!(text.contains("\ncreate_document: "));
    /// let config = config.instructions(text);
    /// # let _ = config;
    /// ```
    pub fn generated_instructions(&self) -> String {
        instructions(self.tools, self.planner_description.as_deref())
    }

    /// The budget in force: the configured one, else SURFACE.md §1.8's rule
    /// over the offered tools ([`budget`]).
    pub(crate) fn budget(&self) -> usize {
        self.body_budget.unwrap_or_else(|| budget(self.tools))
    }
}

/// The first line of the generated instructions (upstream's, verbatim).
const AUTHORITATIVE: &str =
    "Chopin's MCP contract and current tool descriptions are authoritative.";

/// The instructions for `offered` (SURFACE.md §10): [`AUTHORITATIVE`], then
/// `<name>: <description>` for each offered tool after the two read tools,
/// in tool order, joined by `\n`; `invoke_planner`'s description is
/// `planner_description` when the host replaced it; before the
/// implementation tools' lines, IMPLEMENTATION.md §2.1's
/// [`implementation::INSTRUCTION`].
pub(crate) fn instructions(offered: Offered, planner_description: Option<&str>) -> String {
    let mut out = String::from(AUTHORITATIVE);
    let described = Tool::ALL
        .into_iter()
        .filter(|tool| tool.offered(offered))
        .filter(|tool| !matches!(tool, Tool::ListDocuments | Tool::ReadDocument));
    for tool in described {
        if tool == Tool::ReadImplementation
            || (tool == Tool::StartImplementation && !offered.implementation_reads)
        {
            out.push('\n');
            out.push_str(implementation::INSTRUCTION);
        }
        out.push('\n');
        out.push_str(tool.name());
        out.push_str(": ");
        match (tool, planner_description) {
            (Tool::InvokePlanner, Some(description)) => out.push_str(description),
            _ => out.push_str(&tool.description()),
        }
    }
    out
}

/// The body a call of `tool` may need (SURFACE.md §1.8): one line per tool
/// family; any other tool's calls fit the read-only budget.
fn need(tool: Tool) -> usize {
    match tool {
        Tool::CreateDocument | Tool::UpdateDocument | Tool::InvokePlanner => CREATION_BUDGET,
        // ⌈1 MiB / 3⌉ · 4 bytes of base64 and 64 KiB beside them.
        Tool::UploadImage => UPLOAD_BUDGET,
        tool if tool.is_implementation_write() => CREATION_BUDGET,
        _ => READ_ONLY_BUDGET,
    }
}

/// The default body budget (SURFACE.md §1.8): the largest need of an
/// offered tool.
pub(crate) fn budget(offered: Offered) -> usize {
    Tool::ALL
        .into_iter()
        .filter(|tool| tool.offered(offered))
        .map(need)
        .max()
        .unwrap_or(READ_ONLY_BUDGET)
}
