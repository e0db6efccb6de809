//! The implementation effects' answers (read, claim, lifecycle report), one
//! JSON object each, `{kind, …}`, mirroring the crate's answer types one to
//! one. Where an answer shows a projection (`IMPL`, `LIFE`), the host gives
//! the document's implementation state (its versions and runs with their
//! stored logs, `src/rules.rs`) and the projection is folded here: a host
//! cannot answer one the rules would not give.

use chopin_mcp::implementation::{
    DocumentHead, GraphVersion, Implementation, Life, Refusal, RepositoryHead, Run,
};
use chopin_mcp::{Brief, LifecycleAnswer, Outcome, ReadImplementationAnswer, StartAnswer};
use serde::Deserialize;

use crate::exchanges::{Core, Misuse, Pending};
use crate::rules::{Folded, State, StoredRun, refusal_of};

/// A read's answer.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum ReadAnswer {
    #[serde(rename_all = "camelCase")]
    Found {
        document: Box<Head>,
        repository: Provenance,
        plan_revision: Option<u64>,
        versions: Vec<GraphVersion>,
        runs: Vec<StoredRun>,
    },
    Forbidden,
    Unavailable,
}

/// `IMPL.document`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Head {
    id: String,
    title: String,
    brief: Option<Brief>,
    source: String,
    revision: u64,
    archived_at: Option<String>,
}

/// `IMPL.repository`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Provenance {
    name: String,
    base_branch: String,
    base_commit: String,
}

/// A claim's answer.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum ClaimAnswer {
    Started { run: Run },
    Active { run: Run },
    Refused { code: String },
    Forbidden,
    Archived,
    Unavailable,
}

/// A lifecycle report's answer.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
enum ReportAnswer {
    #[serde(rename_all = "camelCase")]
    Accepted {
        plan_revision: Option<u64>,
        versions: Vec<GraphVersion>,
        runs: Vec<StoredRun>,
    },
    #[serde(rename_all = "camelCase")]
    Replayed {
        plan_revision: Option<u64>,
        versions: Vec<GraphVersion>,
        runs: Vec<StoredRun>,
    },
    Refused {
        code: String,
    },
    Forbidden,
    Unavailable,
}

/// What a report's answer leads to, read before its effect is taken.
enum Then {
    /// Accepted (`false`) or replayed (`true`), with the state after.
    Life(bool, Folded),
    Refused(Refusal),
    Forbidden,
    Unavailable,
}

/// A host answer that is not one: its message names what is wrong (a
/// `TypeError` in JavaScript).
pub struct BadAnswer(pub String);

/// Why answering failed: a bad answer, or a slot without the effect.
pub enum AnswerError {
    /// The answer is malformed.
    Bad(BadAnswer),
    /// The call itself is wrong.
    Misuse(Misuse),
}

impl From<Misuse> for AnswerError {
    fn from(misuse: Misuse) -> Self {
        AnswerError::Misuse(misuse)
    }
}

fn bad(what: &str, message: impl std::fmt::Display) -> AnswerError {
    AnswerError::Bad(BadAnswer(format!("chopin-mcp: {what}: {message}")))
}

fn folded(what: &str, state: State) -> Result<Folded, AnswerError> {
    Folded::of(state).map_err(|refusal| {
        bad(
            what,
            format_args!("the runs do not fold ({})", refusal.code()),
        )
    })
}

fn code_of(what: &str, code: &str) -> Result<Refusal, AnswerError> {
    refusal_of(code).ok_or_else(|| bad(what, format_args!("{code:?} is no refusal code")))
}

impl Core {
    /// Answers the implementation effect in `slot` with `json`, the host's
    /// answer. A malformed answer leaves the effect waiting.
    pub fn answer_implementation(&mut self, slot: u32, json: &str) -> Result<&[u8], AnswerError> {
        let outcome = match self.slots.get(slot as usize) {
            Some(Some(Pending::ReadImplementation(_))) => {
                let answer: ReadAnswer = serde_json::from_str(json)
                    .map_err(|error| bad("implementations.read", error))?;
                let read = self.take(slot, "read_implementation", |pending| match pending {
                    Pending::ReadImplementation(read) => Some(read),
                    _ => None,
                })?;
                answer_read(read, answer)?
            }
            Some(Some(Pending::StartImplementation(_))) => {
                let answer: ClaimAnswer = serde_json::from_str(json)
                    .map_err(|error| bad("implementations.start", error))?;
                let refusal = match &answer {
                    ClaimAnswer::Refused { code } => Some(code_of("implementations.start", code)?),
                    _ => None,
                };
                let start = self.take(slot, "start_implementation", |pending| match pending {
                    Pending::StartImplementation(start) => Some(start),
                    _ => None,
                })?;
                match (&answer, refusal) {
                    (ClaimAnswer::Started { run }, _) => start.answer(StartAnswer::Started(run)),
                    (ClaimAnswer::Active { run }, _) => start.answer(StartAnswer::Active(run)),
                    (_, Some(refusal)) => start.answer(StartAnswer::Refused(refusal)),
                    (ClaimAnswer::Forbidden, _) => start.answer(StartAnswer::Forbidden),
                    (ClaimAnswer::Archived, _) => start.answer(StartAnswer::Archived),
                    _ => start.answer(StartAnswer::Unavailable),
                }
            }
            Some(Some(Pending::ReportLifecycle(_))) => {
                let what = "implementations.report";
                let answer: ReportAnswer =
                    serde_json::from_str(json).map_err(|error| bad(what, error))?;
                let then = match answer {
                    ReportAnswer::Accepted {
                        plan_revision,
                        versions,
                        runs,
                    } => Then::Life(
                        false,
                        folded(what, State::new(plan_revision, versions, runs))?,
                    ),
                    ReportAnswer::Replayed {
                        plan_revision,
                        versions,
                        runs,
                    } => Then::Life(
                        true,
                        folded(what, State::new(plan_revision, versions, runs))?,
                    ),
                    ReportAnswer::Refused { code } => Then::Refused(code_of(what, &code)?),
                    ReportAnswer::Forbidden => Then::Forbidden,
                    ReportAnswer::Unavailable => Then::Unavailable,
                };
                let report = self.take(slot, "report", |pending| match pending {
                    Pending::ReportLifecycle(report) => Some(report),
                    _ => None,
                })?;
                match then {
                    Then::Life(replayed, folded) => {
                        let (active, ended) = folded.parts();
                        let life = Life {
                            active,
                            ended: &ended,
                        };
                        report.answer(if replayed {
                            LifecycleAnswer::Replayed(&life)
                        } else {
                            LifecycleAnswer::Accepted(&life)
                        })
                    }
                    Then::Refused(refusal) => report.answer(LifecycleAnswer::Refused(refusal)),
                    Then::Forbidden => report.answer(LifecycleAnswer::Forbidden),
                    Then::Unavailable => report.answer(LifecycleAnswer::Unavailable),
                }
            }
            _ => {
                return Err(AnswerError::Misuse(Misuse(format!(
                    "no implementation effect waits in slot {slot}"
                ))));
            }
        };
        Ok(self.settle(slot, outcome)?)
    }
}

/// The read effect answered.
fn answer_read(
    read: chopin_mcp::ReadImplementation<()>,
    answer: ReadAnswer,
) -> Result<Outcome<()>, AnswerError> {
    let what = "implementations.read";
    Ok(match answer {
        ReadAnswer::Found {
            document,
            repository,
            plan_revision,
            versions,
            runs,
        } => {
            let folded = folded(what, State::new(plan_revision, versions, runs))?;
            let Some(graph) = folded.versions.last() else {
                return Err(bad(what, "a found implementation has a graph version"));
            };
            let (active, ended) = folded.parts();
            let implementation = Implementation {
                document: DocumentHead {
                    id: &document.id,
                    title: &document.title,
                    brief: document.brief.as_ref(),
                    source: &document.source,
                    revision: document.revision,
                    archived_at: document.archived_at.as_deref(),
                },
                repository: RepositoryHead {
                    name: &repository.name,
                    base_branch: &repository.base_branch,
                    base_commit: &repository.base_commit,
                },
                graph,
                active,
                ended: &ended,
            };
            read.answer(ReadImplementationAnswer::Found(&implementation))
        }
        ReadAnswer::Forbidden => read.answer(ReadImplementationAnswer::<()>::Forbidden),
        ReadAnswer::Unavailable => read.answer(ReadImplementationAnswer::<()>::Unavailable),
    })
}
