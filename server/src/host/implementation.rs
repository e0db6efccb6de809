//! The implementation tools against the store (IMPLEMENTATION.md §2.4,
//! §4): `read_implementation` as the store's read of a document's rows,
//! `start_implementation` as its claim, the six lifecycle tools as its
//! report; each answer the projection `chopin_mcp::implementation` makes of
//! the rows (the current one after a write).

use std::time::SystemTime;

use chopin_mcp::implementation::{
    Active, Client, DocumentHead, Ended, Implementation, Life, RepositoryHead, RunState,
};
use chopin_mcp::{
    LifecycleAnswer, ReadImplementation, ReadImplementationAnswer, ReportLifecycle, StartAnswer,
    StartImplementation,
};

use super::{Caller, Host};
use crate::store::{
    ClaimOutcome, Claimant, Loaded, ReportOutcome, Reported, Sqlite, StoreError, timestamp,
};
use chopin_mcp::Outcome;

impl Host {
    /// `read_implementation`: the document's `IMPL` when the caller may see
    /// it and it has one to show.
    pub(super) async fn read_implementation(
        &self,
        read: ReadImplementation<Caller>,
    ) -> Result<Outcome<Caller>, StoreError> {
        let found = self
            .store
            .read_implementation(read.caller(), read.locator())
            .await?;
        Ok(answer_read(read, found))
    }

    /// `start_implementation`: the claim, as one transaction.
    pub(super) async fn start_implementation(
        &self,
        start: StartImplementation<Caller>,
    ) -> Result<Outcome<Caller>, StoreError> {
        let asked = claimant(&start, SystemTime::now());
        let claimed = self.store.claim(start.caller(), &asked).await?;
        Ok(answer_start(start, claimed))
    }

    /// A lifecycle tool: the event recorded exactly once per key.
    pub(super) async fn report_lifecycle(
        &self,
        report: ReportLifecycle<Caller>,
    ) -> Result<Outcome<Caller>, StoreError> {
        let asked = reported(&report, SystemTime::now(), self.bind_runs);
        let stored = self.store.report(report.caller(), &asked).await?;
        Ok(answer_report(report, stored))
    }
}

/// The three on the calling thread, for the blocking server.
pub(super) fn implementation_blocking(
    store: &Sqlite,
    outcome: Outcome<Caller>,
    bind_runs: bool,
) -> Result<Outcome<Caller>, StoreError> {
    Ok(match outcome {
        Outcome::ReadImplementation(read) => {
            let found = store.read_implementation(read.caller(), read.locator())?;
            answer_read(read, found)
        }
        Outcome::StartImplementation(start) => {
            let asked = claimant(&start, SystemTime::now());
            let claimed = store.claim(start.caller(), &asked)?;
            answer_start(start, claimed)
        }
        Outcome::ReportLifecycle(report) => {
            let asked = reported(&report, SystemTime::now(), bind_runs);
            let stored = store.report(report.caller(), &asked)?;
            answer_report(report, stored)
        }
        other => other,
    })
}

/// What the store is asked to claim: the request, the client, the run id
/// minted by the endpoint, the caller as the run's user, the host's time.
fn claimant(start: &StartImplementation<Caller>, now: SystemTime) -> Claimant {
    let request = start.request();
    let client = start.client();
    Claimant {
        locator: request.id.clone(),
        request: chopin_mcp::implementation::ClaimRequest {
            plan_revision: request.plan_revision,
            graph_version: request.graph_version,
            graph_revision: request.graph_revision,
        },
        repository: request.repository.clone(),
        branch: request.branch.clone(),
        commit: request.commit.clone(),
        run_id: start.run_id().to_owned(),
        user: start.caller().to_string(),
        client: Client {
            name: client.name.clone(),
            version: client.version.clone(),
        },
        session: client
            .session
            .clone()
            .unwrap_or_else(|| start.run_id().to_owned()),
        started_at: timestamp(now),
    }
}

/// What the store is asked to record.
fn reported(report: &ReportLifecycle<Caller>, now: SystemTime, bound: bool) -> Reported {
    let client = report.client();
    Reported {
        locator: report.locator().to_owned(),
        run_id: report.run_id().to_owned(),
        event: report.event().clone(),
        fingerprint: report.fingerprint().to_owned(),
        client: format!("{}/{}", client.name, client.version),
        at: timestamp(now),
        bound,
    }
}

fn answer_read(read: ReadImplementation<Caller>, found: Option<Loaded>) -> Outcome<Caller> {
    let Some(doc) = found else {
        return read.answer(ReadImplementationAnswer::<()>::Unavailable);
    };
    let (Some(graph), Some((branch, commit)), Some(states)) =
        (doc.shown_version(), &doc.base, folded(&doc))
    else {
        return read.answer(ReadImplementationAnswer::<()>::Unavailable);
    };
    let brief: Option<serde_json::Value> = doc
        .brief
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok());
    let (active, ended) = split(&doc, &states);
    let implementation = Implementation {
        document: DocumentHead {
            id: &doc.id,
            title: &doc.title,
            brief: brief.as_ref(),
            source: &doc.source,
            revision: doc.revision,
            archived_at: doc.archived_at.as_deref(),
        },
        repository: RepositoryHead {
            name: &doc.repository,
            base_branch: branch,
            base_commit: commit,
        },
        graph,
        active,
        ended: &ended,
    };
    read.answer(ReadImplementationAnswer::Found(&implementation))
}

fn answer_start(start: StartImplementation<Caller>, claimed: ClaimOutcome) -> Outcome<Caller> {
    match claimed {
        ClaimOutcome::Started(run) => start.answer(StartAnswer::Started(&run)),
        ClaimOutcome::Active(run) => start.answer(StartAnswer::Active(&run)),
        ClaimOutcome::Refused(refusal) => start.answer(StartAnswer::Refused(refusal)),
        ClaimOutcome::Forbidden => start.answer(StartAnswer::Forbidden),
        ClaimOutcome::Archived => start.answer(StartAnswer::Archived),
        ClaimOutcome::Unavailable => start.answer(StartAnswer::Unavailable),
    }
}

fn answer_report(report: ReportLifecycle<Caller>, stored: ReportOutcome) -> Outcome<Caller> {
    let (doc, replayed) = match stored {
        ReportOutcome::Accepted(doc) => (doc, false),
        ReportOutcome::Replayed(doc) => (doc, true),
        ReportOutcome::Refused(refusal) => {
            return report.answer(LifecycleAnswer::Refused(refusal));
        }
        ReportOutcome::Forbidden => return report.answer(LifecycleAnswer::Forbidden),
        ReportOutcome::Unavailable => return report.answer(LifecycleAnswer::Unavailable),
    };
    let Some(states) = folded(&doc) else {
        return report.answer(LifecycleAnswer::Refused(
            chopin_mcp::implementation::Refusal::InvalidLifecycle,
        ));
    };
    let (active, ended) = split(&doc, &states);
    let life = Life {
        active,
        ended: &ended,
    };
    if replayed {
        report.answer(LifecycleAnswer::Replayed(&life))
    } else {
        report.answer(LifecycleAnswer::Accepted(&life))
    }
}

/// Every run's state, if every log folds.
fn folded(doc: &Loaded) -> Option<Vec<RunState>> {
    doc.states().into_iter().collect::<Result<_, _>>().ok()
}

/// The active run and the ended ones, oldest first.
fn split<'a>(doc: &'a Loaded, states: &'a [RunState]) -> (Option<Active<'a>>, Vec<Ended<'a>>) {
    let active_at = doc.active();
    let active = active_at.map(|at| Active {
        run: &doc.runs[at].run,
        state: &states[at],
        events: &doc.runs[at].events,
    });
    let ended = (0..doc.runs.len())
        .filter(|&at| Some(at) != active_at)
        .map(|at| Ended {
            run: &doc.runs[at].run,
            state: &states[at],
        })
        .collect();
    (active, ended)
}
