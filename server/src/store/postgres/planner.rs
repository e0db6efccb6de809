//! The planner's turns on PostgreSQL (SURFACE.md §9): each write one
//! statement in a transaction of its own ([`Postgres::write_one`]),
//! answered after `COMMIT` returned. Instructions and output are `bytea`:
//! they may hold U+0000, which `text` cannot.

use tokio_postgres::types::{ToSql, Type};

use super::Postgres;
use super::query::text;
use crate::store::{InvokeOutcome, NewTurn, StoreError, TurnEnd, document_id};

/// `invoke`: $1 caller, $2 document id, $3 instruction, $4 checkout, $5
/// server, $6 admitted, $7 and $8 the client's name and version. The document the caller may see (id, title,
/// repository, archived, whether the caller may write it) and the turn
/// recorded when it may, the document is live and the server has room.
const INVOKE: &str = "WITH doc AS (
    SELECT d.id, d.title, d.repository, d.archived_at IS NOT NULL AS archived,
      EXISTS (SELECT 1 FROM grants w WHERE w.caller = $1 AND w.may_write
      AND (w.repository = '*' OR w.repository = d.repository)) AS writable
    FROM documents d
    WHERE d.id = $2 AND EXISTS (SELECT 1 FROM grants g WHERE g.caller = $1
      AND (g.repository = '*' OR g.repository = d.repository))
), turn AS (
    INSERT INTO planner_turns (document_id, caller, client_name, client_version, instruction,
      checkout, server, state)
    SELECT doc.id, $1, $7, $8, $3, $4, $5, 'queued' FROM doc
    WHERE doc.writable AND NOT doc.archived AND $6
    RETURNING seq
)
SELECT doc.id, doc.title, doc.repository, doc.archived, (SELECT seq FROM turn), doc.writable
FROM doc";

const START: &str = "UPDATE planner_turns SET state = 'running', started_at = now()
    WHERE seq = $1 RETURNING seq";

const FINISH: &str = "UPDATE planner_turns
    SET state = $2, exit_status = $3, output = $4, finished_at = now()
    WHERE seq = $1 RETURNING seq";

const INTERRUPT: &str = "WITH interrupted AS (
    UPDATE planner_turns SET state = 'interrupted', finished_at = now()
    WHERE server = $1 AND state IN ('queued', 'running') RETURNING seq
)
SELECT count(*) FROM interrupted";

impl Postgres {
    /// See [`crate::store::Store::invoke`].
    pub async fn invoke(&self, turn: &NewTurn) -> Result<InvokeOutcome, StoreError> {
        let id = document_id(&turn.locator);
        let (id, instruction) = (id.as_bytes(), turn.instruction.as_bytes());
        let params: [(&(dyn ToSql + Sync), Type); 8] = [
            (&turn.caller, Type::TEXT),
            (&id, Type::BYTEA),
            (&instruction, Type::BYTEA),
            (&turn.checkout, Type::TEXT),
            (&turn.server, Type::TEXT),
            (&turn.admitted, Type::BOOL),
            (&turn.client_name, Type::TEXT),
            (&turn.client_version, Type::TEXT),
        ];
        let Some(row) = self.write_one(INVOKE, &params).await? else {
            return Ok(InvokeOutcome::Unavailable);
        };
        if !row.try_get::<_, bool>(5)? {
            return Ok(InvokeOutcome::Forbidden);
        }
        if row.try_get(3)? {
            return Ok(InvokeOutcome::Archived);
        }
        let Some(seq) = row.try_get::<_, Option<i64>>(4)? else {
            return Ok(InvokeOutcome::QueueFull);
        };
        Ok(InvokeOutcome::Queued {
            turn: seq,
            id: text(&row, 0)?,
            title: text(&row, 1)?,
            repository: row.try_get(2)?,
        })
    }

    /// See [`crate::store::Store::start_turn`].
    pub async fn start_turn(&self, turn: i64) -> Result<(), StoreError> {
        let params: [(&(dyn ToSql + Sync), Type); 1] = [(&turn, Type::INT8)];
        self.write_one(START, &params).await?;
        Ok(())
    }

    /// See [`crate::store::Store::finish_turn`].
    pub async fn finish_turn(&self, turn: i64, end: &TurnEnd) -> Result<(), StoreError> {
        let output = end.output.as_slice();
        let params: [(&(dyn ToSql + Sync), Type); 4] = [
            (&turn, Type::INT8),
            (&end.state, Type::TEXT),
            (&end.exit_status, Type::INT4),
            (&output, Type::BYTEA),
        ];
        self.write_one(FINISH, &params).await?;
        Ok(())
    }

    /// See [`crate::store::Store::interrupt_turns`].
    pub async fn interrupt_turns(&self, server: &str) -> Result<usize, StoreError> {
        let params: [(&(dyn ToSql + Sync), Type); 1] = [(&server, Type::TEXT)];
        let count: i64 = match self.write_one(INTERRUPT, &params).await? {
            Some(row) => row.try_get(0)?,
            None => 0,
        };
        Ok(usize::try_from(count).unwrap_or(0))
    }
}
