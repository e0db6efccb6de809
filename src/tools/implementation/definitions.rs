//! The eight tools' definitions (IMPLEMENTATION.md §2.1–§2.3), verbatim.

use super::schema::{
    event, evidence, hints, hist, id, implementation, life, lifecycle_output, loc, pr, progress,
    run, text, verif, version,
};

pub(crate) const READ_IMPLEMENTATION: &str = concat!(
    r#"{"name":"read_implementation","title":"Read a plan's implementation","description":"Read the approved implementation graph, plan and repository context by document ID or canonical URL.","inputSchema":{"type":"object","properties":{"id":"#,
    loc!(),
    r#"},"required":["id"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":["#,
    implementation!(),
    ",",
    crate::tools::code_schema!(),
    "]},",
    hints!("true", "false", "true"),
    "}"
);

pub(crate) const START_IMPLEMENTATION: &str = concat!(
    r#"{"name":"start_implementation","title":"Claim an implementation graph","description":"Atomically claim the current approved implementation graph.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","planRevision":{"type":"integer","minimum":0},"graphVersion":{"type":"integer","minimum":1},"graphRevision":{"type":"integer","minimum":1},"repository":{"type":"string","pattern":"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"},"branch":{"type":"string","minLength":1,"maxLength":255},"commit":{"type":"string","minLength":1,"maxLength":64}},"required":["id","planRevision","graphVersion","graphRevision","repository","branch","commit"],"additionalProperties":false},"outputSchema":{"type":"object","oneOf":[{"type":"object","properties":{"state":{"type":"string","enum":["started","active"]},"run":"#,
    run!(),
    r#"},"required":["state","run"],"additionalProperties":false},"#,
    crate::tools::code_schema!(),
    "]},",
    hints!("false", "false", "true"),
    "}"
);

pub(crate) const START_TASK: &str = concat!(
    r#"{"name":"start_task","title":"Start an implementation task","description":"Mark one dependency-ready task as in progress for the active implementation run.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","taskId":"#,
    id!(),
    r#","idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","taskId","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "false", "true"),
    "}"
);

pub(crate) const BLOCK_TASK: &str = concat!(
    r#"{"name":"block_task","title":"Block an implementation task","description":"Record a visible blocker for an in-progress implementation task.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","taskId":"#,
    id!(),
    r#","reason":"#,
    text!(),
    r#","idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","taskId","reason","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "false", "true"),
    "}"
);

pub(crate) const REPORT_PR: &str = concat!(
    r#"{"name":"report_pr","title":"Report a task's pull request","description":"Report the open, merged, or closed pull request for an implementation task.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","taskId":"#,
    id!(),
    r#","url":"#,
    loc!(),
    r#","state":{"type":"string","enum":["open","merged","closed"]},"idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","taskId","url","state","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "true", "true"),
    "}"
);

pub(crate) const COMPLETE_TASK: &str = concat!(
    r#"{"name":"complete_task","title":"Complete an implementation task","description":"Complete an implementation task with its pull request and summary.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","taskId":"#,
    id!(),
    r#","summary":"#,
    text!(),
    r#","idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","taskId","summary","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "false", "true"),
    "}"
);

pub(crate) const REPORT_VERIFICATION: &str = concat!(
    r#"{"name":"report_verification","title":"Report implementation verification","description":"Report implementation verification evidence for every task in the active run.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","passed":{"type":"boolean"},"summary":"#,
    text!(),
    r#","reviewerMethod":"#,
    text!(),
    r#","evidence":{"type":"array","minItems":1,"items":{"type":"object","properties":{"taskId":"#,
    id!(),
    r#","evidence":{"type":"array","minItems":1,"maxItems":20,"items":"#,
    text!(),
    r#"}},"required":["taskId","evidence"],"additionalProperties":false},"maxItems":200},"tasksNeedingWork":{"type":"array","items":"#,
    id!(),
    r#","maxItems":200},"idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","passed","summary","reviewerMethod","evidence","tasksNeedingWork","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "true", "true"),
    "}"
);

pub(crate) const REQUEST_REVISION: &str = concat!(
    r#"{"name":"request_revision","title":"Release a graph for revision","description":"End the active implementation run and release its graph for revision.","inputSchema":{"type":"object","properties":{"id":"#,
    id!(),
    r#","runId":"#,
    id!(),
    r#","reason":"#,
    text!(),
    r#","idempotencyKey":"#,
    id!(),
    r#"},"required":["id","runId","reason","idempotencyKey"],"additionalProperties":false},"outputSchema":"#,
    lifecycle_output!(),
    ",",
    hints!("false", "true", "true"),
    "}"
);
