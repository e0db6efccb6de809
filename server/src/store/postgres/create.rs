//! Creates on PostgreSQL: in READ COMMITTED, serialized by the unique key
//! `(created_by, idempotency_key)` alone (see the engine's notes), one
//! round trip on the write pool, answered only after `COMMIT` returned.

use chopin_mcp::Document;
use tokio_postgres::Client;
use tokio_postgres::types::{ToSql, Type};

use super::Postgres;
use super::query::{Deadline, in_transaction, text};
use crate::store::create::{created, new_document};
use crate::store::{CreateOutcome, Draft, StoreError};

/// `create`: the insert, when `caller` ($5) may write to repository $2. It
/// waits for a racing insert of the same key, and inserts nothing when that
/// one commits (or when there is no grant).
const INSERT: &str = "INSERT INTO documents (id, repository, title, source, revision,
      created_by, idempotency_key, fingerprint, brief, base_branch, base_commit)
    SELECT $1, $2, $3, $4, 0, $5, $6, $7, $8, $9, $10
    WHERE EXISTS (SELECT 1 FROM grants WHERE caller = $5
      AND (repository = '*' OR repository = $2) AND may_write)
    ON CONFLICT (created_by, idempotency_key) DO NOTHING
    RETURNING id";

/// `create`, when the insert inserted nothing: whether `caller` ($1) may
/// write to repository $3, and the committed creation that holds the key
/// ($2), if any, as it was created (LIFECYCLE.md §6): its first title (the
/// oldest replaced one, else the current) and the plan of revision 0 (the
/// oldest kept, else the current); its fingerprint and brief.
const EARLIER: &str = "SELECT EXISTS (SELECT 1 FROM grants WHERE caller = $1
      AND (repository = '*' OR repository = $3) AND may_write),
    d.id,
    coalesce((SELECT t.title FROM title_history t WHERE t.document_id = d.id
      ORDER BY t.seq LIMIT 1), d.title),
    coalesce((SELECT p.source FROM plan_history p WHERE p.document_id = d.id
      AND p.revision = 0 ORDER BY p.seq LIMIT 1), d.source),
    d.fingerprint, d.brief
    FROM (SELECT 1) AS one
    LEFT JOIN documents d ON d.created_by = $1 AND d.idempotency_key = $2";

impl Postgres {
    /// See [`crate::store::Store::create`].
    pub async fn create(
        &self,
        caller: &str,
        id: &str,
        draft: &Draft,
    ) -> Result<CreateOutcome, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.write, &deadline).await?;
        let work = create_on(&client, &deadline, caller, id, draft);
        let outcome = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, outcome)
    }
}

/// A create: in READ COMMITTED, the insert in a transaction of its own (one
/// round trip, [`in_transaction`]), answered only after its `COMMIT`
/// returned; when it inserted nothing, a second look says why: no grant, or
/// the key taken by a committed creation (the insert waited for it), which
/// this replays or conflicts with.
async fn create_on(
    client: &Client,
    deadline: &Deadline,
    caller: &str,
    id: &str,
    draft: &Draft,
) -> Result<CreateOutcome, StoreError> {
    let key = draft.idempotency_key.as_bytes();
    let (id_bytes, title, source) = (
        id.as_bytes(),
        draft.title.as_bytes(),
        draft.source.as_bytes(),
    );
    let branch = draft.base.as_ref().map(|(branch, _)| branch.as_str());
    let commit = draft.base.as_ref().map(|(_, commit)| commit.as_str());
    let values: [(&(dyn ToSql + Sync), Type); 10] = [
        (&id_bytes, Type::BYTEA),
        (&draft.repository, Type::TEXT),
        (&title, Type::BYTEA),
        (&source, Type::BYTEA),
        (&caller, Type::TEXT),
        (&key, Type::BYTEA),
        (&draft.fingerprint, Type::TEXT),
        (&draft.brief, Type::TEXT),
        (&branch, Type::TEXT),
        (&commit, Type::TEXT),
    ];
    let lookup: [(&(dyn ToSql + Sync), Type); 3] = [
        (&caller, Type::TEXT),
        (&key, Type::BYTEA),
        (&draft.repository, Type::TEXT),
    ];
    // A grant given between the insert and the look (a racing set-up)
    // leaves neither: insert again.
    for _ in 0..3 {
        let inserted =
            in_transaction(client, deadline, client.query_typed_opt(INSERT, &values)).await?;
        if inserted.is_some() {
            return Ok(new_document(id, draft));
        }
        let row =
            in_transaction(client, deadline, client.query_typed_one(EARLIER, &lookup)).await?;
        let granted: bool = row.try_get(0)?;
        if !granted {
            return Ok(CreateOutcome::Forbidden);
        }
        if row.try_get::<_, Option<Vec<u8>>>(1)?.is_none() {
            continue;
        }
        let fingerprint: Option<String> = row.try_get(4)?;
        if fingerprint.as_deref() != Some(draft.fingerprint.as_str()) {
            return Ok(CreateOutcome::Conflict);
        }
        let document = Document {
            archived_at: None,
            description: None,
            url: None,
            id: text(&row, 1)?,
            title: text(&row, 2)?,
            brief: None,
            source: text(&row, 3)?,
            revision: 0,
        };
        let brief: String = row.try_get(5)?;
        return Ok(CreateOutcome::Replayed(created(document, brief)));
    }
    Err(StoreError::Invalid(
        "a conflicting creation is not visible".to_owned(),
    ))
}
