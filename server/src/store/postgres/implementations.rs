//! Implementation runs on PostgreSQL (IMPLEMENTATION.md §4). Every write is
//! one transaction in READ COMMITTED on the write pool, under the request's
//! deadline (`SET LOCAL statement_timeout`): it locks the document's row
//! first (`FOR UPDATE`), so racing replicas and the operator's commands
//! take turns, and each later statement sees what the one before it
//! committed. What to write is decided by `store/implementations.rs` over
//! the rows [`load`] reads. Should a racer get past the lock all the same
//! (a claim meeting the partial unique index of active runs, an event
//! meeting the document's unique key), the transaction is rolled back and
//! tried once more: its re-read answers `active`, `replayed` or the key's
//! conflict.

use chopin_mcp::implementation::{Client as RunClient, Event, GraphVersion, Run, VersionState};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Transaction};

use super::Postgres;
use super::query::{Deadline, text};
use crate::store::implementations::{
    Access, Broken, ClaimDecision, ClaimOutcome, Claimant, GraphDraft, GraphOutcome, Loaded,
    ReportDecision, ReportOutcome, Reported, StoredRun, broken, decide_approve, decide_claim,
    decide_draft, decide_report, definition_of, event_json, state_of, tasks_json,
};
use crate::store::{StoreError, document_id, revision_of};

/// Caller $1's grant on repository $2: NULL (none), false (read only) or
/// true (read and write).
const GRANTED: &str = "SELECT bool_or(g.may_write) FROM grants g WHERE g.caller = $1
    AND (g.repository = '*' OR g.repository = $2)";

fn int(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Invalid(format!("{value} is out of range")))
}

/// The document `id`'s implementation rows, archived or not; its row
/// locked (`FOR UPDATE`) when `lock`.
async fn load(tx: &Transaction<'_>, id: &str, lock: bool) -> Result<Option<Loaded>, StoreError> {
    let id_bytes = id.as_bytes();
    let head = if lock {
        "SELECT id, title, source, repository, revision, archived_at,
           CASE WHEN created_by IS NULL THEN NULL ELSE brief END, base_branch, base_commit
         FROM documents WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT id, title, source, repository, revision, archived_at,
           CASE WHEN created_by IS NULL THEN NULL ELSE brief END, base_branch, base_commit
         FROM documents WHERE id = $1"
    };
    let Some(row) = tx
        .query_typed_opt(head, &[(&id_bytes, Type::BYTEA)])
        .await?
    else {
        return Ok(None);
    };
    let branch: Option<String> = row.try_get(7)?;
    let commit: Option<String> = row.try_get(8)?;
    let mut doc = Loaded {
        id: text(&row, 0)?,
        title: text(&row, 1)?,
        source: text(&row, 2)?,
        repository: row.try_get(3)?,
        revision: revision_of(row.try_get(4)?),
        archived_at: row.try_get(5)?,
        brief: row.try_get(6)?,
        base: branch.zip(commit),
        ..Loaded::default()
    };
    let versions = tx
        .query_typed(
            "SELECT number, revision, plan_revision, state, tasks FROM graph_versions
             WHERE document_id = $1 ORDER BY number",
            &[(&id_bytes, Type::BYTEA)],
        )
        .await?;
    for row in versions {
        let state: String = row.try_get(3)?;
        let tasks: String = row.try_get(4)?;
        doc.versions.push(GraphVersion {
            number: revision_of(row.try_get(0)?),
            revision: revision_of(row.try_get(1)?),
            plan_revision: revision_of(row.try_get(2)?),
            state: state_of(&state)?,
            definition: definition_of(&tasks)?,
        });
    }
    let runs = tx
        .query_typed(
            "SELECT run_id, \"user\", client_name, client_version, session, plan_revision,
               graph_number, graph_revision, repository, branch, \"commit\", started_at, ended_at,
           claimer
             FROM implementation_runs WHERE document_id = $1 ORDER BY started_at, run_id",
            &[(&id_bytes, Type::BYTEA)],
        )
        .await?;
    for row in runs {
        doc.runs.push(StoredRun {
            run: Run {
                id: row.try_get(0)?,
                user: row.try_get(1)?,
                client: RunClient {
                    name: row.try_get(2)?,
                    version: row.try_get(3)?,
                },
                session: row.try_get(4)?,
                plan_revision: revision_of(row.try_get(5)?),
                graph_version: revision_of(row.try_get(6)?),
                graph_revision: revision_of(row.try_get(7)?),
                repository: row.try_get(8)?,
                branch: row.try_get(9)?,
                commit: row.try_get(10)?,
                started_at: row.try_get(11)?,
            },
            claimer: row.try_get(13)?,
            events: Vec::new(),
            calls: Vec::new(),
            ended_at: row.try_get(12)?,
            unreadable: false,
        });
    }
    let events = tx
        .query_typed(
            "SELECT run_id, body, caller, fingerprint FROM implementation_events
             WHERE document_id = $1 ORDER BY run_id, seq",
            &[(&id_bytes, Type::BYTEA)],
        )
        .await?;
    for row in events {
        let run_id: String = row.try_get(0)?;
        let body: String = row.try_get(1)?;
        let Some(stored) = doc.runs.iter_mut().find(|stored| stored.run.id == run_id) else {
            continue;
        };
        match Event::from_json(body.as_bytes()) {
            Ok(event) => {
                stored.events.push(event);
                stored.calls.push((row.try_get(2)?, row.try_get(3)?));
            }
            Err(_) => stored.unreadable = true,
        }
    }
    Ok(Some(doc))
}

/// What `caller` may do with documents of `repository`.
async fn granted(
    tx: &Transaction<'_>,
    caller: &str,
    repository: &str,
) -> Result<Access, StoreError> {
    let may_write: Option<bool> = tx
        .query_typed_one(GRANTED, &[(&caller, Type::TEXT), (&repository, Type::TEXT)])
        .await?
        .try_get(0)?;
    Ok(Access::of(may_write))
}

/// Starts a transaction bounded by `deadline`.
async fn begin<'a>(
    client: &'a mut Client,
    deadline: &Deadline,
) -> Result<Transaction<'a>, StoreError> {
    let tx = client.transaction().await?;
    if let Some(millis) = deadline.timeout_millis()? {
        tx.batch_execute(&format!("SET LOCAL statement_timeout = {millis}"))
            .await?;
    }
    Ok(tx)
}

/// Whether `e` is a unique violation (a racer got there first).
fn raced(e: &StoreError) -> bool {
    matches!(e, StoreError::Postgres(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION))
}

async fn store_version(
    tx: &Transaction<'_>,
    id: &str,
    version: &GraphVersion,
    by: &str,
) -> Result<(), StoreError> {
    let tasks = tasks_json(version);
    let (id, number, revision, plan, state) = (
        id.as_bytes(),
        int(version.number)?,
        int(version.revision)?,
        int(version.plan_revision)?,
        version.state.as_str(),
    );
    tx.execute_typed(
        "INSERT INTO graph_versions (document_id, number, revision, plan_revision, state, tasks)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (document_id, number) DO UPDATE SET revision = excluded.revision,
           plan_revision = excluded.plan_revision, state = excluded.state, tasks = excluded.tasks",
        &[
            (&id, Type::BYTEA),
            (&number, Type::INT8),
            (&revision, Type::INT8),
            (&plan, Type::INT8),
            (&state, Type::TEXT),
            (&tasks, Type::TEXT),
        ],
    )
    .await?;
    tx.execute_typed(
        "INSERT INTO graph_revisions (document_id, number, revision, plan_revision, tasks,
           drafted_by) VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            (&id, Type::BYTEA),
            (&number, Type::INT8),
            (&revision, Type::INT8),
            (&plan, Type::INT8),
            (&tasks, Type::TEXT),
            (&by, Type::TEXT),
        ],
    )
    .await?;
    Ok(())
}

async fn set_state(
    tx: &Transaction<'_>,
    id: &str,
    number: u64,
    state: VersionState,
) -> Result<(), StoreError> {
    let (id, number, state) = (id.as_bytes(), int(number)?, state.as_str());
    tx.execute_typed(
        "UPDATE graph_versions SET state = $3 WHERE document_id = $1 AND number = $2",
        &[
            (&id, Type::BYTEA),
            (&number, Type::INT8),
            (&state, Type::TEXT),
        ],
    )
    .await?;
    Ok(())
}

/// Runs one try of an operation (`$try(tx, …)`) in a transaction on the
/// write pool under a request's deadline; once more if it met a racer's
/// unique key.
macro_rules! implementing {
    ($store:expr, $try:ident($($arg:expr),*)) => {{
        let store = $store;
        let deadline = Deadline::start(&store.limits);
        let mut client = store.client(&store.write, &deadline).await?;
        let work = async {
            let mut tries = 0;
            loop {
                tries += 1;
                let tx = begin(&mut client, &deadline).await?;
                match $try(tx, $($arg),*).await {
                    Err(e) if tries < 2 && raced(&e) => continue,
                    answer => break answer,
                }
            }
        };
        let outcome = tokio::time::timeout_at(deadline.backstop(), work).await;
        store.settle(client, outcome)
    }};
}

impl Postgres {
    /// See [`crate::store::Store::graph_draft`].
    pub async fn graph_draft(&self, asked: &GraphDraft) -> Result<GraphOutcome, StoreError> {
        implementing!(self, draft_try(asked))
    }

    /// See [`crate::store::Store::graph_approve`].
    pub async fn graph_approve(
        &self,
        locator: &str,
        number: u64,
        revision: u64,
        by: &str,
    ) -> Result<GraphOutcome, StoreError> {
        implementing!(self, approve_try(locator, number, revision, by))
    }

    /// See [`crate::store::Store::implementation_rows`].
    pub async fn implementation_rows(&self, locator: &str) -> Result<Option<Loaded>, StoreError> {
        implementing!(self, rows_try(None, locator))
    }

    /// See [`crate::store::Store::read_implementation`].
    pub async fn read_implementation(
        &self,
        caller: &str,
        locator: &str,
    ) -> Result<Option<Loaded>, StoreError> {
        let doc: Option<Loaded> = implementing!(self, rows_try(Some(caller), locator))?;
        Ok(doc.filter(|doc| doc.base.is_some() && doc.shown_version().is_some()))
    }

    /// See [`crate::store::Store::runs_check`].
    pub async fn runs_check(&self) -> Result<(usize, Vec<Broken>), StoreError> {
        implementing!(self, check_try())
    }

    /// See [`crate::store::Store::claim`].
    pub async fn claim(&self, caller: &str, asked: &Claimant) -> Result<ClaimOutcome, StoreError> {
        implementing!(self, claim_try(caller, asked))
    }

    /// See [`crate::store::Store::report`].
    pub async fn report(
        &self,
        caller: &str,
        asked: &Reported,
    ) -> Result<ReportOutcome, StoreError> {
        implementing!(self, report_try(caller, asked))
    }
}

async fn draft_try(tx: Transaction<'_>, asked: &GraphDraft) -> Result<GraphOutcome, StoreError> {
    {
        let Some(doc) = load(&tx, &document_id(&asked.locator), true).await? else {
            return Ok(GraphOutcome::Unavailable);
        };
        let drafted = match decide_draft(&doc, asked) {
            Ok(drafted) => drafted,
            Err(outcome) => return Ok(outcome),
        };
        if let Some((branch, commit)) = &drafted.base {
            let id = doc.id.as_bytes();
            tx.execute_typed(
                "UPDATE documents SET base_branch = $2, base_commit = $3 WHERE id = $1",
                &[
                    (&id, Type::BYTEA),
                    (branch, Type::TEXT),
                    (commit, Type::TEXT),
                ],
            )
            .await?;
        }
        store_version(&tx, &doc.id, &drafted.version, &asked.by).await?;
        tx.commit().await?;
        Ok(GraphOutcome::Stored(drafted.version))
    }
}

async fn approve_try(
    tx: Transaction<'_>,
    locator: &str,
    number: u64,
    revision: u64,
    by: &str,
) -> Result<GraphOutcome, StoreError> {
    {
        let Some(doc) = load(&tx, &document_id(locator), true).await? else {
            return Ok(GraphOutcome::Unavailable);
        };
        let approved = match decide_approve(&doc, number, revision) {
            Ok(approved) => approved,
            Err(outcome) => return Ok(outcome),
        };
        let (id, stored_number) = (doc.id.as_bytes(), int(number)?);
        tx.execute_typed(
            "UPDATE graph_versions SET state = 'superseded'
             WHERE document_id = $1 AND state = 'approved'",
            &[(&id, Type::BYTEA)],
        )
        .await?;
        tx.execute_typed(
            "UPDATE graph_versions SET state = 'approved',
               approved_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),
               approved_by = $3 WHERE document_id = $1 AND number = $2",
            &[
                (&id, Type::BYTEA),
                (&stored_number, Type::INT8),
                (&by, Type::TEXT),
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(GraphOutcome::Stored(approved))
    }
}

/// A document's rows: for the operator (no caller), or for a caller who
/// may see its repository.
async fn rows_try(
    tx: Transaction<'_>,
    caller: Option<&str>,
    locator: &str,
) -> Result<Option<Loaded>, StoreError> {
    {
        let doc = match load(&tx, &document_id(locator), false).await? {
            Some(doc) => match caller {
                Some(caller) if !granted(&tx, caller, &doc.repository).await?.may_read() => None,
                _ => Some(doc),
            },
            None => None,
        };
        tx.commit().await?;
        Ok(doc)
    }
}

async fn check_try(tx: Transaction<'_>) -> Result<(usize, Vec<Broken>), StoreError> {
    {
        let ids = tx
            .query_typed(
                "SELECT DISTINCT document_id FROM implementation_runs ORDER BY document_id",
                &[],
            )
            .await?;
        let mut runs = 0;
        let mut found = Vec::new();
        for row in ids {
            let id: Vec<u8> = row.try_get(0)?;
            let id = String::from_utf8_lossy(&id).into_owned();
            if let Some(doc) = load(&tx, &id, false).await? {
                runs += doc.runs.len();
                found.extend(broken(&doc));
            }
        }
        tx.commit().await?;
        Ok((runs, found))
    }
}

async fn claim_try(
    tx: Transaction<'_>,
    caller: &str,
    asked: &Claimant,
) -> Result<ClaimOutcome, StoreError> {
    {
        let doc = match load(&tx, &document_id(&asked.locator), true).await? {
            Some(doc) => match granted(&tx, caller, &doc.repository).await? {
                Access::None => return Ok(ClaimOutcome::Unavailable),
                Access::Read => return Ok(ClaimOutcome::Forbidden),
                Access::Write => doc,
            },
            None => return Ok(ClaimOutcome::Unavailable),
        };
        let run = match decide_claim(&doc, asked) {
            ClaimDecision::Answer(outcome) => return Ok(outcome),
            ClaimDecision::Start(run) => run,
        };
        let (id, number, revision, plan) = (
            doc.id.as_bytes(),
            int(run.graph_version)?,
            int(run.graph_revision)?,
            int(run.plan_revision)?,
        );
        let params: [(&(dyn ToSql + Sync), Type); 14] = [
            (&run.id, Type::TEXT),
            (&id, Type::BYTEA),
            (&number, Type::INT8),
            (&revision, Type::INT8),
            (&plan, Type::INT8),
            (&caller, Type::TEXT),
            (&run.user, Type::TEXT),
            (&run.client.name, Type::TEXT),
            (&run.client.version, Type::TEXT),
            (&run.session, Type::TEXT),
            (&run.repository, Type::TEXT),
            (&run.branch, Type::TEXT),
            (&run.commit, Type::TEXT),
            (&run.started_at, Type::TEXT),
        ];
        tx.execute_typed(
            "INSERT INTO implementation_runs (run_id, document_id, graph_number, graph_revision,
               plan_revision, claimer, \"user\", client_name, client_version, session,
               repository, branch, \"commit\", started_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
            &params,
        )
        .await?;
        set_state(&tx, &doc.id, run.graph_version, VersionState::Locked).await?;
        tx.commit().await?;
        Ok(ClaimOutcome::Started(run))
    }
}

async fn report_try(
    tx: Transaction<'_>,
    caller: &str,
    asked: &Reported,
) -> Result<ReportOutcome, StoreError> {
    {
        let mut doc = match load(&tx, &document_id(&asked.locator), true).await? {
            Some(doc) => match granted(&tx, caller, &doc.repository).await? {
                Access::None => return Ok(ReportOutcome::Unavailable),
                Access::Read => return Ok(ReportOutcome::Forbidden),
                Access::Write => doc,
            },
            None => return Ok(ReportOutcome::Unavailable),
        };
        let (at, seq, event, ends) = match decide_report(&doc, caller, asked) {
            ReportDecision::Replayed => return Ok(ReportOutcome::Replayed(doc)),
            ReportDecision::Refused(refusal) => return Ok(ReportOutcome::Refused(refusal)),
            ReportDecision::Append {
                run,
                seq,
                event,
                ends,
            } => (run, seq, event, ends),
        };
        let run_id = doc.runs[at].run.id.clone();
        let (id, seq, tool, body) = (
            doc.id.as_bytes(),
            int(seq)?,
            event.command.tool(),
            event_json(&event),
        );
        let params: [(&(dyn ToSql + Sync), Type); 10] = [
            (&run_id, Type::TEXT),
            (&seq, Type::INT8),
            (&id, Type::BYTEA),
            (&tool, Type::TEXT),
            (&event.idempotency_key, Type::TEXT),
            (&asked.fingerprint, Type::TEXT),
            (&body, Type::TEXT),
            (&caller, Type::TEXT),
            (&asked.client, Type::TEXT),
            (&asked.at, Type::TEXT),
        ];
        tx.execute_typed(
            "INSERT INTO implementation_events (run_id, seq, document_id, tool, idempotency_key,
               fingerprint, body, caller, client, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &params,
        )
        .await?;
        if let Some((number, state)) = ends {
            tx.execute_typed(
                "UPDATE implementation_runs SET ended_at = $2 WHERE run_id = $1",
                &[(&run_id, Type::TEXT), (&asked.at, Type::TEXT)],
            )
            .await?;
            set_state(&tx, &doc.id, number, state).await?;
            doc.runs[at].ended_at = Some(asked.at.clone());
            if let Some(version) = doc.versions.iter_mut().find(|v| v.number == number) {
                version.state = state;
            }
        }
        tx.commit().await?;
        doc.runs[at].events.push(event);
        doc.runs[at]
            .calls
            .push((caller.to_owned(), asked.fingerprint.clone()));
        Ok(ReportOutcome::Accepted(doc))
    }
}
