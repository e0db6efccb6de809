//! The pieces the tools' definitions share (LIFECYCLE.md §1, §2; DIALECT.md
//! §7.1, §11.2), as macros, so that each definition stays one `concat!`ed
//! constant.

/// The brief's schema, shared by create_document's input and output
/// schemas and the documents that carry one.
macro_rules! brief_schema {
    () => {
        r#"{"type":"object","properties":{"goal":{"type":"string","minLength":1},"constraints":{"type":"array","items":{"type":"string"}},"settledDecisions":{"type":"array","items":{"type":"string"}},"openQuestions":{"type":"array","items":{"type":"string"}},"repositoryFindings":{"type":"array","items":{"type":"string"}}},"required":["goal","constraints","settledDecisions","openQuestions","repositoryFindings"],"additionalProperties":false}"#
    };
}

/// The `{code}` variant of an output schema's `oneOf`, its `"enum"` the
/// codes the tool answers (SURFACE.md §1.4); without codes, any string.
macro_rules! code_schema {
    () => {
        r#"{"type":"object","properties":{"code":{"type":"string"}},"required":["code"],"additionalProperties":false}"#
    };
    ($first:literal $(, $code:literal)*) => {
        concat!(
            r#"{"type":"object","properties":{"code":{"type":"string","enum":[""#,
            $first,
            $("\",\"", $code,)*
            r#""]}},"required":["code"],"additionalProperties":false}"#
        )
    };
}

/// The properties a document's answer may carry before its brief:
/// `description` and `archivedAt` (SURFACE.md §1.5), after `title`.
macro_rules! document_extras_schema {
    () => {
        r#""description":{"type":"string"},"archivedAt":{"type":"string","format":"date-time"}"#
    };
}

/// The `{issues}` variant of an output schema's `oneOf`; an issue may
/// carry members beyond those listed (SURFACE.md §5).
macro_rules! issues_schema {
    () => {
        r#"{"type":"object","properties":{"issues":{"type":"array","items":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"},"path":{"type":"string"},"offset":{"type":"integer","minimum":0},"line":{"type":"integer","minimum":1},"column":{"type":"integer","minimum":1}},"required":["code","message","path"]}}},"required":["issues"],"additionalProperties":false}"#
    };
}

/// The `inputSchema` of a tool whose one argument is a document locator.
macro_rules! locator_input_schema {
    () => {
        r#"{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":2048,"pattern":"\\S"}},"required":["id"],"additionalProperties":false}"#
    };
}

pub(crate) use {
    brief_schema, code_schema, document_extras_schema, issues_schema, locator_input_schema,
};
