//! The fake host's implementation effects (IMPLEMENTATION.md §2.4): each
//! recorded as the host received it; a read answers by its locator
//! (`forbidden`, else unavailable), a claim starts the run the effect
//! describes, a report is accepted with an idle projection.

use chopin_mcp::implementation::{Client, Life, Run};
use chopin_mcp::{
    ClientInfo, LifecycleAnswer, Outcome, ReadImplementation, ReadImplementationAnswer,
    ReportLifecycle, StartAnswer, StartImplementation, StartRequest,
};

use super::{Host, Step};

/// What the host received of a claim.
#[derive(Debug, Clone)]
pub struct Started {
    pub request: StartRequest,
    pub client: ClientInfo,
    pub run_id: String,
}

/// What the host received of a lifecycle report.
#[derive(Debug, Clone)]
pub struct Reported {
    pub locator: String,
    pub run_id: String,
    pub tool: &'static str,
    pub idempotency_key: String,
    pub fingerprint: String,
    pub client: ClientInfo,
}

/// The time every fake run starts.
pub const STARTED_AT: &str = "2026-12-05T00:00:00.000Z";

impl Host {
    pub(super) fn read_implementation(
        &mut self,
        read: ReadImplementation<String>,
    ) -> Outcome<String> {
        self.transcript
            .push(Step::ReadImplementation(read.locator().to_owned()));
        match read.locator() {
            "forbidden" => read.answer(ReadImplementationAnswer::<()>::Forbidden),
            _ => read.answer(ReadImplementationAnswer::<()>::Unavailable),
        }
    }

    pub(super) fn start_implementation(
        &mut self,
        start: StartImplementation<String>,
    ) -> Outcome<String> {
        let request = start.request().clone();
        self.transcript
            .push(Step::StartImplementation(request.id.clone()));
        let client = start.client().clone();
        let run = Run {
            id: start.run_id().to_owned(),
            user: start.caller().clone(),
            client: Client {
                name: client.name.clone(),
                version: client.version.clone(),
            },
            session: client.session.clone().unwrap_or_default(),
            plan_revision: request.plan_revision,
            graph_version: request.graph_version,
            graph_revision: request.graph_revision,
            repository: request.repository.clone(),
            branch: request.branch.clone(),
            commit: request.commit.clone(),
            started_at: STARTED_AT.to_owned(),
        };
        self.started.push(Started {
            request,
            client,
            run_id: start.run_id().to_owned(),
        });
        start.answer(StartAnswer::Started(&run))
    }

    pub(super) fn report_lifecycle(&mut self, report: ReportLifecycle<String>) -> Outcome<String> {
        let tool = report.command().tool();
        self.transcript.push(Step::Lifecycle(tool));
        self.reported.push(Reported {
            locator: report.locator().to_owned(),
            run_id: report.run_id().to_owned(),
            tool,
            idempotency_key: report.idempotency_key().to_owned(),
            fingerprint: report.fingerprint().to_owned(),
            client: report.client().clone(),
        });
        let life = Life {
            active: None,
            ended: &[],
        };
        report.answer(LifecycleAnswer::Accepted(&life))
    }
}
