//! The schema pieces of the implementation tools (IMPLEMENTATION.md §2.2,
//! §2.3), as macros, so that each definition stays one `concat!`ed
//! constant, written verbatim.

/// `ID`: an id argument.
macro_rules! id {
    () => {
        r#"{"type":"string","minLength":1,"maxLength":128,"pattern":"\\S"}"#
    };
}

/// `TEXT`: a text argument.
macro_rules! text {
    () => {
        r#"{"type":"string","minLength":1,"maxLength":5000,"pattern":"\\S"}"#
    };
}

/// `LOC`: a document locator or a URL.
macro_rules! loc {
    () => {
        r#"{"type":"string","minLength":1,"maxLength":2048,"pattern":"\\S"}"#
    };
}

/// `RUN`: a claimed run.
macro_rules! run {
    () => {
        r#"{"type":"object","properties":{"id":{"type":"string"},"user":{"type":"string"},"client":{"type":"object","properties":{"name":{"type":"string"},"version":{"type":"string"}},"required":["name","version"],"additionalProperties":false},"session":{"type":"string"},"planRevision":{"type":"integer","minimum":0},"graphVersion":{"type":"integer","minimum":1},"graphRevision":{"type":"integer","minimum":1},"repository":{"type":"string"},"branch":{"type":"string"},"commit":{"type":"string"},"startedAt":{"type":"string"}},"required":["id","user","client","session","planRevision","graphVersion","graphRevision","repository","branch","commit","startedAt"],"additionalProperties":false}"#
    };
}

/// `PR`: a task's pull request.
macro_rules! pr {
    () => {
        r#"{"type":"object","properties":{"url":{"type":"string"},"state":{"type":"string","enum":["open","merged","closed"]}},"required":["url","state"],"additionalProperties":false}"#
    };
}

/// The `evidence` items of `VERIF` and `EVENT`.
macro_rules! evidence {
    () => {
        r#"{"type":"array","items":{"type":"object","properties":{"taskId":{"type":"string"},"evidence":{"type":"array","items":{"type":"string"}}},"required":["taskId","evidence"],"additionalProperties":false}}"#
    };
}

/// `VERIF`: a verification report.
macro_rules! verif {
    () => {
        concat!(
            r#"{"type":"object","properties":{"passed":{"type":"boolean"},"summary":{"type":"string"},"reviewerMethod":{"type":"string"},"evidence":"#,
            evidence!(),
            r#","tasksNeedingWork":{"type":"array","items":{"type":"string"}}},"required":["passed","summary","reviewerMethod","evidence","tasksNeedingWork"],"additionalProperties":false}"#
        )
    };
}

/// `EVENT`: a stored lifecycle event.
macro_rules! event {
    () => {
        concat!(
            r#"{"type":"object","properties":{"kind":{"type":"string"},"idempotencyKey":{"type":"string"},"taskId":{"type":"string"},"reason":{"type":"string"},"url":{"type":"string"},"state":{"type":"string"},"summary":{"type":"string"},"passed":{"type":"boolean"},"reviewerMethod":{"type":"string"},"evidence":"#,
            evidence!(),
            r#","tasksNeedingWork":{"type":"array","items":{"type":"string"}}},"required":["kind","idempotencyKey"],"additionalProperties":false}"#
        )
    };
}

/// `PROGRESS`: a run's tasks, events and verification.
macro_rules! progress {
    () => {
        concat!(
            r#"{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"state":{"type":"string","enum":["queued","in_progress","blocked","completed"]},"blocker":{"type":"string"},"summary":{"type":"string"},"pullRequest":"#,
            pr!(),
            r#"},"required":["id","state"],"additionalProperties":false}},"events":{"type":"array","items":"#,
            event!(),
            r#"},"verification":"#,
            verif!(),
            r#"},"required":["tasks"],"additionalProperties":false}"#
        )
    };
}

/// `HIST`: an ended run.
macro_rules! hist {
    () => {
        concat!(
            r#"{"type":"object","properties":{"run":"#,
            run!(),
            r#","progress":"#,
            progress!(),
            r#","outcome":{"type":"object","properties":{"kind":{"type":"string","enum":["revision_requested","implemented","delivered"]},"reason":{"type":"string"}},"required":["kind"],"additionalProperties":false}},"required":["run","progress","outcome"],"additionalProperties":false}"#
        )
    };
}

/// `VERSION`: a graph version.
macro_rules! version {
    () => {
        r#"{"type":"object","properties":{"number":{"type":"integer","minimum":1},"revision":{"type":"integer","minimum":1},"planRevision":{"type":"integer","minimum":0},"state":{"type":"string","enum":["draft","approved","locked","superseded"]},"definition":{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"context":{"type":"string"},"goal":{"type":"string"},"acceptance":{"type":"array","items":{"type":"string"}},"dependsOn":{"type":"array","items":{"type":"string"}}},"required":["id","title","context","goal","acceptance","dependsOn"],"additionalProperties":false}}},"required":["tasks"],"additionalProperties":false}},"required":["number","revision","planRevision","state","definition"],"additionalProperties":false}"#
    };
}

/// `IMPL`: what `read_implementation` answers.
macro_rules! implementation {
    () => {
        concat!(
            r#"{"type":"object","properties":{"document":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"brief":"#,
            crate::tools::brief_schema!(),
            r#","source":{"type":"string"},"revision":{"type":"integer","minimum":0},"archivedAt":{"type":"string"}},"required":["id","title","source","revision"],"additionalProperties":false},"repository":{"type":"object","properties":{"name":{"type":"string"},"baseBranch":{"type":"string"},"baseCommit":{"type":"string"}},"required":["name","baseBranch","baseCommit"],"additionalProperties":false},"graph":"#,
            version!(),
            r#","execution":{"type":"object","properties":{"state":{"type":"string","enum":["idle","active"]},"run":"#,
            run!(),
            r#"},"required":["state"],"additionalProperties":false},"activity":"#,
            progress!(),
            r#","history":{"type":"array","items":"#,
            hist!(),
            r#"}},"required":["document","repository","graph","execution","history"],"additionalProperties":false}"#
        )
    };
}

/// `LIFE`: what the lifecycle tools answer.
macro_rules! life {
    () => {
        concat!(
            r#"{"type":"object","properties":{"execution":{"type":"object","properties":{"state":{"type":"string","enum":["idle","active"]}},"required":["state"],"additionalProperties":false},"activity":"#,
            progress!(),
            r#","history":{"type":"array","items":"#,
            hist!(),
            r#"}},"required":["execution","history"],"additionalProperties":false}"#
        )
    };
}

/// A lifecycle tool's `outputSchema`: `oneOf[LIFE, CODE]`.
macro_rules! lifecycle_output {
    () => {
        concat!(
            r#"{"type":"object","oneOf":["#,
            life!(),
            ",",
            crate::tools::code_schema!(),
            "]}"
        )
    };
}

/// A tool's `annotations`: readOnly, destructive, idempotent; never open
/// world (nothing contacts GitHub).
macro_rules! hints {
    ($read_only:literal, $destructive:literal, $idempotent:literal) => {
        concat!(
            r#""annotations":{"readOnlyHint":"#,
            $read_only,
            r#","destructiveHint":"#,
            $destructive,
            r#","idempotentHint":"#,
            $idempotent,
            r#","openWorldHint":false}"#
        )
    };
}

pub(super) use {
    event, evidence, hints, hist, id, implementation, life, lifecycle_output, loc, pr, progress,
    run, text, verif, version,
};
