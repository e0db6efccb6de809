//! Implementation runs on SQLite (IMPLEMENTATION.md §4). Every write is one
//! `BEGIN IMMEDIATE` transaction on the writer connection: the file's write
//! lock is the document's lock, held from the first look to the commit, so
//! servers and the operator's commands sharing the file take turns (a claim
//! that loses a race finds the winner's run). What to write is decided by
//! `store/implementations.rs` over the rows [`load`] reads.

use chopin_mcp::implementation::{Client, Event, GraphVersion, Run, VersionState};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{OnRuntime, Sqlite};
use crate::store::implementations::{
    Access, Broken, ClaimDecision, ClaimOutcome, Claimant, GraphDraft, GraphOutcome, Loaded,
    ReportDecision, ReportOutcome, Reported, StoredRun, broken, decide_approve, decide_claim,
    decide_draft, decide_report, definition_of, event_json, state_of, tasks_json,
};
use crate::store::{StoreError, document_id, revision_of};

/// Caller ?1's grant on repository ?2: NULL (none), 0 (read only) or 1
/// (read and write).
const GRANTED: &str = "SELECT max(g.may_write) FROM grants g WHERE g.caller = ?1
    AND (g.repository = '*' OR g.repository = ?2)";

fn int(value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::Invalid(format!("{value} is out of range")))
}

/// The document `id`'s implementation rows, archived or not.
pub(super) fn load(conn: &Connection, id: &str) -> Result<Option<Loaded>, StoreError> {
    let head = conn
        .prepare_cached(
            "SELECT id, title, source, repository, revision, archived_at,
               CASE WHEN created_by IS NULL THEN NULL ELSE brief END, base_branch, base_commit
             FROM documents WHERE id = ?1",
        )?
        .query_row([id], |row| {
            let branch: Option<String> = row.get(7)?;
            let commit: Option<String> = row.get(8)?;
            Ok(Loaded {
                id: row.get(0)?,
                title: row.get(1)?,
                source: row.get(2)?,
                repository: row.get(3)?,
                revision: revision_of(row.get(4)?),
                archived_at: row.get(5)?,
                brief: row.get(6)?,
                base: branch.zip(commit),
                ..Loaded::default()
            })
        })
        .optional()?;
    let Some(mut doc) = head else {
        return Ok(None);
    };
    let versions = {
        let mut statement = conn.prepare_cached(
            "SELECT number, revision, plan_revision, state, tasks FROM graph_versions
             WHERE document_id = ?1 ORDER BY number",
        )?;
        let rows = statement.query_map([id], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, String>(4)?,
            ))
        })?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    for (number, revision, plan_revision, state, tasks) in versions {
        doc.versions.push(GraphVersion {
            number: revision_of(number),
            revision: revision_of(revision),
            plan_revision: revision_of(plan_revision),
            state: state_of(&state)?,
            definition: definition_of(&tasks)?,
        });
    }
    let mut statement = conn.prepare_cached(
        "SELECT run_id, \"user\", client_name, client_version, session, plan_revision,
           graph_number, graph_revision, repository, branch, \"commit\", started_at, ended_at,
           claimer
         FROM implementation_runs WHERE document_id = ?1 ORDER BY started_at, run_id",
    )?;
    let runs = statement.query_map([id], |row| {
        Ok(StoredRun {
            run: Run {
                id: row.get(0)?,
                user: row.get(1)?,
                client: Client {
                    name: row.get(2)?,
                    version: row.get(3)?,
                },
                session: row.get(4)?,
                plan_revision: revision_of(row.get(5)?),
                graph_version: revision_of(row.get(6)?),
                graph_revision: revision_of(row.get(7)?),
                repository: row.get(8)?,
                branch: row.get(9)?,
                commit: row.get(10)?,
                started_at: row.get(11)?,
            },
            claimer: row.get(13)?,
            events: Vec::new(),
            calls: Vec::new(),
            ended_at: row.get(12)?,
            unreadable: false,
        })
    })?;
    doc.runs = runs.collect::<Result<Vec<_>, _>>()?;
    let mut statement = conn.prepare_cached(
        "SELECT body, caller, fingerprint FROM implementation_events
         WHERE run_id = ?1 ORDER BY seq",
    )?;
    for stored in &mut doc.runs {
        let rows = statement.query_map([&stored.run.id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (body, caller, fingerprint) = row?;
            match Event::from_json(body.as_bytes()) {
                Ok(event) => {
                    stored.events.push(event);
                    stored.calls.push((caller, fingerprint));
                }
                Err(_) => stored.unreadable = true,
            }
        }
    }
    Ok(Some(doc))
}

/// What `caller` may do with documents of `repository`.
fn granted(conn: &Connection, caller: &str, repository: &str) -> Result<Access, StoreError> {
    let may_write: Option<bool> = conn
        .prepare_cached(GRANTED)?
        .query_row(params![caller, repository], |row| row.get(0))?;
    Ok(Access::of(may_write))
}

/// Stores `version` (replacing its number's row) and its revision.
fn store_version(
    conn: &Connection,
    id: &str,
    version: &GraphVersion,
    by: &str,
) -> Result<(), StoreError> {
    let tasks = tasks_json(version);
    let (number, revision, plan) = (
        int(version.number)?,
        int(version.revision)?,
        int(version.plan_revision)?,
    );
    conn.prepare_cached(
        "INSERT INTO graph_versions (document_id, number, revision, plan_revision, state, tasks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (document_id, number) DO UPDATE SET revision = excluded.revision,
           plan_revision = excluded.plan_revision, state = excluded.state, tasks = excluded.tasks",
    )?
    .execute(params![
        id,
        number,
        revision,
        plan,
        version.state.as_str(),
        tasks
    ])?;
    conn.prepare_cached(concat!(
        "INSERT INTO graph_revisions (document_id, number, revision, plan_revision, tasks,
           drafted_at, drafted_by) VALUES (?1, ?2, ?3, ?4, ?5, ",
        now!(),
        ", ?6)"
    ))?
    .execute(params![id, number, revision, plan, tasks, by])?;
    Ok(())
}

/// Sets version `number`'s state.
fn set_state(
    conn: &Connection,
    id: &str,
    number: u64,
    state: VersionState,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE graph_versions SET state = ?3 WHERE document_id = ?1 AND number = ?2",
    )?
    .execute(params![id, int(number)?, state.as_str()])?;
    Ok(())
}

impl Sqlite {
    /// See [`crate::store::Store::graph_draft`].
    pub fn graph_draft(&self, asked: &GraphDraft) -> Result<GraphOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(doc) = load(&tx, &document_id(&asked.locator))? else {
            return Ok(GraphOutcome::Unavailable);
        };
        let drafted = match decide_draft(&doc, asked) {
            Ok(drafted) => drafted,
            Err(outcome) => return Ok(outcome),
        };
        if let Some((branch, commit)) = &drafted.base {
            tx.execute(
                "UPDATE documents SET base_branch = ?2, base_commit = ?3 WHERE id = ?1",
                params![doc.id, branch, commit],
            )?;
        }
        store_version(&tx, &doc.id, &drafted.version, &asked.by)?;
        tx.commit()?;
        Ok(GraphOutcome::Stored(drafted.version))
    }

    /// See [`crate::store::Store::graph_approve`].
    pub fn graph_approve(
        &self,
        locator: &str,
        number: u64,
        revision: u64,
        by: &str,
    ) -> Result<GraphOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(doc) = load(&tx, &document_id(locator))? else {
            return Ok(GraphOutcome::Unavailable);
        };
        let approved = match decide_approve(&doc, number, revision) {
            Ok(approved) => approved,
            Err(outcome) => return Ok(outcome),
        };
        tx.execute(
            "UPDATE graph_versions SET state = 'superseded'
             WHERE document_id = ?1 AND state = 'approved'",
            [&doc.id],
        )?;
        tx.execute(
            concat!(
                "UPDATE graph_versions SET state = 'approved', approved_at = ",
                now!(),
                ", approved_by = ?3 WHERE document_id = ?1 AND number = ?2"
            ),
            params![doc.id, int(number)?, by],
        )?;
        tx.commit()?;
        Ok(GraphOutcome::Stored(approved))
    }

    /// See [`crate::store::Store::implementation_rows`].
    pub fn implementation_rows(&self, locator: &str) -> Result<Option<Loaded>, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction()?;
        let doc = load(&tx, &document_id(locator))?;
        tx.commit()?;
        Ok(doc)
    }

    /// See [`crate::store::Store::runs_check`].
    pub fn runs_check(&self) -> Result<(usize, Vec<Broken>), StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction()?;
        let ids = {
            let mut statement = tx.prepare(
                "SELECT DISTINCT document_id FROM implementation_runs ORDER BY document_id",
            )?;
            let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let mut runs = 0;
        let mut found = Vec::new();
        for id in ids {
            if let Some(doc) = load(&tx, &id)? {
                runs += doc.runs.len();
                found.extend(broken(&doc));
            }
        }
        tx.commit()?;
        Ok((runs, found))
    }

    /// See [`crate::store::Store::read_implementation`].
    pub fn read_implementation(
        &self,
        caller: &str,
        locator: &str,
    ) -> Result<Option<Loaded>, StoreError> {
        self.reading(|conn| {
            let tx = conn.unchecked_transaction()?;
            let doc = match load(&tx, &document_id(locator))? {
                Some(doc) if granted(&tx, caller, &doc.repository)?.may_read() => Some(doc),
                _ => None,
            };
            tx.commit()?;
            Ok(doc.filter(|doc| doc.base.is_some() && doc.shown_version().is_some()))
        })
    }

    /// See [`crate::store::Store::claim`]. Blocks for the commit's fsync.
    pub fn claim(&self, caller: &str, asked: &Claimant) -> Result<ClaimOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let doc = match load(&tx, &document_id(&asked.locator))? {
            Some(doc) => match granted(&tx, caller, &doc.repository)? {
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
        tx.prepare_cached(
            "INSERT INTO implementation_runs (run_id, document_id, graph_number, graph_revision,
               plan_revision, claimer, \"user\", client_name, client_version, session,
               repository, branch, \"commit\", started_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?
        .execute(params![
            run.id,
            doc.id,
            int(run.graph_version)?,
            int(run.graph_revision)?,
            int(run.plan_revision)?,
            caller,
            run.user,
            run.client.name,
            run.client.version,
            run.session,
            run.repository,
            run.branch,
            run.commit,
            run.started_at
        ])?;
        set_state(&tx, &doc.id, run.graph_version, VersionState::Locked)?;
        tx.commit()?;
        Ok(ClaimOutcome::Started(run))
    }

    /// See [`crate::store::Store::report`]. Blocks for the commit's fsync.
    pub fn report(&self, caller: &str, asked: &Reported) -> Result<ReportOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut doc = match load(&tx, &document_id(&asked.locator))? {
            Some(doc) => match granted(&tx, caller, &doc.repository)? {
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
        tx.prepare_cached(
            "INSERT INTO implementation_events (run_id, seq, document_id, tool, idempotency_key,
               fingerprint, body, caller, client, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            run_id,
            int(seq)?,
            doc.id,
            event.command.tool(),
            event.idempotency_key,
            asked.fingerprint,
            event_json(&event),
            caller,
            asked.client,
            asked.at
        ])?;
        if let Some((number, state)) = ends {
            tx.execute(
                "UPDATE implementation_runs SET ended_at = ?2 WHERE run_id = ?1",
                params![run_id, asked.at],
            )?;
            set_state(&tx, &doc.id, number, state)?;
            doc.runs[at].ended_at = Some(asked.at.clone());
            if let Some(version) = doc.versions.iter_mut().find(|v| v.number == number) {
                version.state = state;
            }
        }
        tx.commit()?;
        doc.runs[at].events.push(event);
        doc.runs[at]
            .calls
            .push((caller.to_owned(), asked.fingerprint.clone()));
        Ok(ReportOutcome::Accepted(doc))
    }
}

/// Whether document `id` has a run not yet ended (`update_document`'s
/// `document-locked`).
pub(super) fn has_active_run(conn: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM implementation_runs
             WHERE document_id = ?1 AND ended_at IS NULL)",
        )?
        .query_row([id], |row| row.get(0))?)
}

impl OnRuntime<'_> {
    /// See [`Sqlite::graph_draft`]: off the runtime.
    pub(in crate::store) async fn graph_draft(
        self,
        asked: &GraphDraft,
    ) -> Result<GraphOutcome, StoreError> {
        let asked = asked.clone();
        self.blocking(move |store| store.graph_draft(&asked)).await
    }

    /// See [`Sqlite::graph_approve`]: off the runtime.
    pub(in crate::store) async fn graph_approve(
        self,
        locator: &str,
        number: u64,
        revision: u64,
        by: &str,
    ) -> Result<GraphOutcome, StoreError> {
        let (locator, by) = (locator.to_owned(), by.to_owned());
        self.blocking(move |store| store.graph_approve(&locator, number, revision, &by))
            .await
    }

    /// See [`Sqlite::implementation_rows`]: inline.
    pub(in crate::store) async fn implementation_rows(
        self,
        locator: &str,
    ) -> Result<Option<Loaded>, StoreError> {
        self.0.implementation_rows(locator)
    }

    /// See [`Sqlite::runs_check`]: inline.
    pub(in crate::store) async fn runs_check(self) -> Result<(usize, Vec<Broken>), StoreError> {
        self.0.runs_check()
    }

    /// See [`Sqlite::read_implementation`]: inline.
    pub(in crate::store) async fn read_implementation(
        self,
        caller: &str,
        locator: &str,
    ) -> Result<Option<Loaded>, StoreError> {
        self.0.read_implementation(caller, locator)
    }

    /// See [`Sqlite::claim`]: off the runtime.
    pub(in crate::store) async fn claim(
        self,
        caller: &str,
        asked: &Claimant,
    ) -> Result<ClaimOutcome, StoreError> {
        let (caller, asked) = (caller.to_owned(), asked.clone());
        self.blocking(move |store| store.claim(&caller, &asked))
            .await
    }

    /// See [`Sqlite::report`]: off the runtime.
    pub(in crate::store) async fn report(
        self,
        caller: &str,
        asked: &Reported,
    ) -> Result<ReportOutcome, StoreError> {
        let (caller, asked) = (caller.to_owned(), asked.clone());
        self.blocking(move |store| store.report(&caller, &asked))
            .await
    }
}
