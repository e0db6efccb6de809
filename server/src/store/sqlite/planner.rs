//! The planner's turns on SQLite (SURFACE.md §9): each write one
//! `BEGIN IMMEDIATE` transaction on the writer connection, answered after
//! it committed.

use rusqlite::{TransactionBehavior, params};

use super::lifecycle::find;
use super::{OnRuntime, Sqlite};
use crate::store::{InvokeOutcome, NewTurn, StoreError, TurnEnd};

/// The document's repository (for the planner's `CHOPIN_REPOSITORY`).
const REPOSITORY: &str = "SELECT repository FROM documents WHERE id = ?1";

const INSERT: &str = concat!(
    "INSERT INTO planner_turns (document_id, caller, client_name, client_version, instruction,
       checkout, requested_at, server, state)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ",
    now!(),
    ", ?7, 'queued')"
);

const START: &str = concat!(
    "UPDATE planner_turns SET state = 'running', started_at = ",
    now!(),
    " WHERE seq = ?1"
);

const FINISH: &str = concat!(
    "UPDATE planner_turns SET state = ?2, exit_status = ?3, output = ?4, finished_at = ",
    now!(),
    " WHERE seq = ?1"
);

const INTERRUPT: &str = concat!(
    "UPDATE planner_turns SET state = 'interrupted', finished_at = ",
    now!(),
    " WHERE server = ?1 AND state IN ('queued', 'running')"
);

impl Sqlite {
    /// See [`crate::store::Store::invoke`]. Blocks for the commit's fsync.
    pub fn invoke(&self, turn: &NewTurn) -> Result<InvokeOutcome, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(found) = find(&tx, &turn.caller, &turn.locator)? else {
            return Ok(InvokeOutcome::Unavailable);
        };
        if !found.writable {
            return Ok(InvokeOutcome::Forbidden);
        }
        if found.archived_at.is_some() {
            return Ok(InvokeOutcome::Archived);
        }
        if !turn.admitted {
            return Ok(InvokeOutcome::QueueFull);
        }
        let repository: String = tx.query_row(REPOSITORY, [&found.id], |row| row.get(0))?;
        tx.prepare_cached(INSERT)?.execute(params![
            found.id,
            turn.caller,
            turn.client_name,
            turn.client_version,
            turn.instruction,
            turn.checkout,
            turn.server
        ])?;
        let seq = tx.last_insert_rowid();
        tx.commit()?;
        Ok(InvokeOutcome::Queued {
            turn: seq,
            id: found.id,
            title: found.title,
            repository,
        })
    }

    /// See [`crate::store::Store::start_turn`].
    pub fn start_turn(&self, turn: i64) -> Result<(), StoreError> {
        self.writer().execute(START, [turn])?;
        Ok(())
    }

    /// See [`crate::store::Store::finish_turn`].
    pub fn finish_turn(&self, turn: i64, end: &TurnEnd) -> Result<(), StoreError> {
        let output = String::from_utf8_lossy(&end.output);
        self.writer()
            .execute(FINISH, params![turn, end.state, end.exit_status, output])?;
        Ok(())
    }

    /// See [`crate::store::Store::interrupt_turns`].
    pub fn interrupt_turns(&self, server: &str) -> Result<usize, StoreError> {
        Ok(self.writer().execute(INTERRUPT, [server])?)
    }
}

impl OnRuntime<'_> {
    /// See [`Sqlite::invoke`]: off the runtime.
    pub(in crate::store) async fn invoke(
        self,
        turn: &NewTurn,
    ) -> Result<InvokeOutcome, StoreError> {
        let turn = turn.clone();
        self.blocking(move |store| store.invoke(&turn)).await
    }

    /// See [`Sqlite::start_turn`]: off the runtime.
    pub(in crate::store) async fn start_turn(self, turn: i64) -> Result<(), StoreError> {
        self.blocking(move |store| store.start_turn(turn)).await
    }

    /// See [`Sqlite::finish_turn`]: off the runtime.
    pub(in crate::store) async fn finish_turn(
        self,
        turn: i64,
        end: &TurnEnd,
    ) -> Result<(), StoreError> {
        let end = end.clone();
        self.blocking(move |store| store.finish_turn(turn, &end))
            .await
    }

    /// See [`Sqlite::interrupt_turns`]: off the runtime.
    pub(in crate::store) async fn interrupt_turns(self, server: &str) -> Result<usize, StoreError> {
        let server = server.to_owned();
        self.blocking(move |store| store.interrupt_turns(&server))
            .await
    }
}
