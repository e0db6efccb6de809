//! What the block pass hands the inline pass: the runs of inline text to
//! parse, and the first tree-construction error, which the inline pass
//! orders against its own.

use crate::ParseError;
use crate::tree::NodeId;

/// A run of inline text to parse in the second phase.
#[derive(Debug)]
pub(crate) struct Leaf {
    pub node: NodeId,
    /// Source ranges of the lines, in order (joined by line feeds).
    pub segs: Vec<(usize, usize)>,
    /// The innermost open flow element when the text started (name, start, end).
    pub flow_open: Option<(Option<String>, usize, usize)>,
    /// For the first content of a list item: the item, whose task check
    /// (`[ ]`, `[x]`) the inline phase reads.
    pub task_item: Option<NodeId>,
    /// The reference's token for this text's node, which reasons name
    /// (`paragraph`, `atxHeading`, `setextHeading`, `tableHeader`,
    /// `tableData`).
    pub token: &'static str,
    /// Where that token ends: a paragraph or ATX heading at the end of its
    /// last line (trailing whitespace included), a setext heading at the end
    /// of its underline, a cell at the next cell's pipe or the row's end.
    pub token_end: usize,
}

/// A tree-construction error: `event` orders it in document order (the first
/// one found by the reference compiler wins), `error` is what is reported.
#[derive(Debug)]
pub(crate) struct TreeError {
    pub event: usize,
    pub error: ParseError,
}
