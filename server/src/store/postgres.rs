//! The PostgreSQL engine: async on the server's tokio runtime
//! (tokio-postgres), with two pools of connections (deadpool-postgres): one
//! for reads, one for creates and the set-up. A read never waits for a
//! connection that a create holds while it waits for its commit.
//!
//! Creates run in READ COMMITTED (the default) and are serialized by the
//! unique key `(created_by, idempotency_key)` alone: `INSERT … ON CONFLICT
//! DO NOTHING` waits for a concurrent uncommitted insert of the same key; if
//! that one commits, this one inserts nothing and the following `SELECT`
//! (a fresh snapshot) sees the winner's row; if it aborts, this one inserts.
//! So replicas on many machines agree without retries, and no table is ever
//! locked against readers. A create is answered only after `COMMIT` returned
//! (with the default `synchronous_commit=on`, the commit is on disk).
//!
//! Behind a pooler in transaction mode each transaction may run on another
//! server connection, so nothing outlives a transaction: no named statement
//! (tokio-postgres's `*_typed` calls send unnamed ones; reads and lists are
//! simple queries calling PL/pgSQL functions, as updates call one, whose
//! plans PostgreSQL caches per server connection), no session setting (`SET
//! LOCAL`), no session lock (`pg_advisory_xact_lock`). A create is one round
//! trip: `BEGIN; SET LOCAL statement_timeout`, the insert and `COMMIT` sent
//! at once; so is each lifecycle write (`lifecycle.rs`).
//!
//! Text that users choose (id, title, source, idempotency key) is stored as
//! `bytea`: it compares byte-wise whatever the database's collation, and may
//! hold NUL, as it may on SQLite. Repositories and callers are `text
//! COLLATE "C"`.

mod lifecycle;
mod schema;
mod tokens;

use std::fmt::Write as _;
use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use chopin_mcp::{Document, DocumentSummary};
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime, Timeouts};
use tokio::time::Instant;
use tokio_postgres::config::SslMode as DriverSslMode;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{
    CancelToken, Client, Config, NoTls, Row, SimpleQueryMessage, SimpleQueryRow, Socket,
    Transaction,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::tls::{self, SslMode, Tls};
use super::{
    CreateOutcome, Draft, Imported, Limits, Listing, SCHEMA_VERSION, Setup, Started, StoreError,
    brief_of, created, push_hex, revision_of, stored_revision, token_digest,
};

/// The connect timeout when the URL gives none. A request's connection is
/// also bounded by its deadline (`--db-statement-timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long past its deadline a request waits for PostgreSQL to report the
/// cancelled statement before giving the connection up (a server or pooler
/// that stopped answering): the connection is then cancelled, closed and
/// left out of the pool.
const BACKSTOP: Duration = Duration::from_secs(1);
/// How long a cancel request for an abandoned connection may take.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);
/// The advisory lock that serializes set-ups (schema, seed, grants,
/// import) of replicas starting at once: "chopin-m" as a big-endian i64.
const SETUP_LOCK: i64 = i64::from_be_bytes(*b"chopin-m");

/// `list` as a simple query (see [`literal`]): `bytea` columns as hex, in
/// byte order of title, then id; one row of NULLs when forbidden.
const LIST: &str = "SELECT encode(id, 'hex'), encode(title, 'hex')
    FROM chopin_list_v2($1, $2) ORDER BY title, id";

/// `read` as a simple query (the brief is text already).
const READ: &str = "SELECT encode(id, 'hex'), encode(title, 'hex'), encode(source, 'hex'),
    revision, brief FROM chopin_read_v2($1, $2)";

/// `create`: the insert, when `caller` ($5) may write to repository $2. It
/// waits for a racing insert of the same key, and inserts nothing when that
/// one commits (or when there is no grant).
const INSERT: &str = "INSERT INTO documents (id, repository, title, source, revision,
      created_by, idempotency_key, fingerprint, brief)
    SELECT $1, $2, $3, $4, 0, $5, $6, $7, $8
    WHERE EXISTS (SELECT 1 FROM grants WHERE caller = $5
      AND (repository = '*' OR repository = $2))
    ON CONFLICT (created_by, idempotency_key) DO NOTHING
    RETURNING id";

/// `create`, when the insert inserted nothing: whether `caller` ($1) may
/// write to repository $3, and the committed creation that holds the key
/// ($2), if any, as it was created (LIFECYCLE.md §6): its first title (the
/// oldest replaced one, else the current) and the plan of revision 0 (the
/// oldest kept, else the current); its fingerprint and brief.
const EARLIER: &str = "SELECT EXISTS (SELECT 1 FROM grants WHERE caller = $1
      AND (repository = '*' OR repository = $3)),
    d.id,
    coalesce((SELECT t.title FROM title_history t WHERE t.document_id = d.id
      ORDER BY t.seq LIMIT 1), d.title),
    coalesce((SELECT p.source FROM plan_history p WHERE p.document_id = d.id
      AND p.revision = 0 ORDER BY p.seq LIMIT 1), d.source),
    d.fingerprint, d.brief
    FROM (SELECT 1) AS one
    LEFT JOIN documents d ON d.created_by = $1 AND d.idempotency_key = $2";

/// A PostgreSQL database: a read pool and a write pool, of
/// [`Limits::pool_size`] connections each.
///
/// Every statement is unnamed (tokio-postgres's `*_typed` calls: Parse,
/// Bind, Execute and Sync in one message, no statement kept on the server)
/// or a simple query, and no setting outlives its transaction, so that a
/// pooler in transaction mode (PgBouncer, and the poolers of hosted
/// PostgreSQL) may hand each transaction to another server connection.
#[derive(Clone)]
pub struct Postgres {
    read: Pool,
    write: Pool,
    connector: Connector,
    limits: Limits,
    /// Where, and how (TLS, pools), for the start-up banner.
    summary: String,
}

/// A `postgres://` URL as this server reads it: the driver's configuration
/// (every key but the TLS ones) and what TLS is asked for.
#[derive(Debug, Clone)]
pub struct Target {
    pub config: Config,
    pub tls: Tls,
}

/// Parses a `postgres://` or `postgresql://` URL: libpq's TLS keys here
/// (see [`tls`]), the others as far as tokio-postgres knows them, refusing
/// what this server cannot honour. Reads no file (see [`Tls::client_config`]).
pub fn parse_url(url: &str) -> Result<Target, String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut kept = Vec::new();
    let mut tls_pairs = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key).map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
        if tls::KEYS.contains(&key.as_str()) {
            let value =
                percent_decode(value).map_err(|e| format!("not a PostgreSQL URL: {key}: {e}"))?;
            tls_pairs.push((key, value));
        } else {
            kept.push(pair);
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let mut config = Config::from_str(&rest).map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
    let tls = Tls::from_pairs(&tls_pairs)?;
    config.ssl_mode(match tls.mode {
        SslMode::Disable => DriverSslMode::Disable,
        SslMode::Prefer => DriverSslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverSslMode::Require,
    });
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("chopin-mcp-server");
    }
    Ok(Target { config, tls })
}

/// `%XX` escapes of a URL query, decoded; the result must be UTF-8.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = bytes
                .get(at + 1..at + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "a % not followed by two hex digits".to_owned())?;
            out.push(hex);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "not UTF-8 once decoded".to_owned())
}

/// Where a URL points, without its password: for messages.
fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(host, port)| match host {
            tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
            tokio_postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
        })
        .collect();
    format!(
        "{}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or("(default database)")
    )
}

fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => StoreError::from(e),
        deadpool_postgres::PoolError::Timeout(_) => {
            StoreError::Busy("PostgreSQL: no connection before the request's deadline".to_owned())
        }
        other => StoreError::Unavailable(other.to_string()),
    }
}

/// Plaintext or rustls, for the pools and for cancel requests.
#[derive(Clone)]
enum Connector {
    Plain,
    Rustls(MakeRustlsConnect),
}

impl Connector {
    fn pool(&self, config: &Config, size: usize) -> Result<Pool, StoreError> {
        fn build<T>(config: &Config, tls: T, size: usize) -> Result<Pool, StoreError>
        where
            T: MakeTlsConnect<Socket> + Clone + Sync + Send + 'static,
            T::Stream: Sync + Send,
            T::TlsConnect: Sync + Send,
            <T::TlsConnect as tokio_postgres::tls::TlsConnect<Socket>>::Future: Send,
        {
            let manager = Manager::from_config(
                config.clone(),
                tls,
                ManagerConfig {
                    // No query on recycling: a closed connection is
                    // dropped, a broken one fails its next request (5xx).
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Pool::builder(manager)
                .max_size(size)
                .runtime(Runtime::Tokio1)
                .build()
                .map_err(|e| StoreError::Invalid(format!("cannot make a pool: {e}")))
        }
        match self {
            Connector::Plain => build(config, NoTls, size),
            Connector::Rustls(tls) => build(config, tls.clone(), size),
        }
    }

    async fn cancel(&self, token: &CancelToken) {
        let _ = match self {
            Connector::Plain => token.cancel_query(NoTls).await,
            Connector::Rustls(tls) => token.cancel_query(tls.clone()).await,
        };
    }
}

/// One request's deadline: the wait for a pooled connection and the
/// statements all end by `at`. With a statement timeout, PostgreSQL itself
/// cancels a statement still running then (`SET LOCAL statement_timeout`,
/// in the statement's round trip); without one (`--db-statement-timeout
/// 0`), the role's or database's `statement_timeout` applies, if any.
#[derive(Debug, Clone, Copy)]
struct Deadline {
    at: Instant,
    set_local: bool,
}

impl Deadline {
    fn start(limits: &Limits) -> Deadline {
        Deadline {
            at: Instant::now() + limits.request_deadline(),
            set_local: !limits.statement_timeout.is_zero(),
        }
    }

    fn left(&self) -> Result<Duration, StoreError> {
        let left = self.at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(StoreError::Busy(
                "PostgreSQL: the request's deadline passed".to_owned(),
            ));
        }
        Ok(left)
    }

    /// The `statement_timeout` to set: what is left, in milliseconds (at
    /// least 1: 0 would mean none), or `None` without a statement timeout.
    fn timeout_millis(&self) -> Result<Option<u128>, StoreError> {
        if !self.set_local {
            return Ok(None);
        }
        Ok(Some(self.left()?.as_millis().clamp(1, i32::MAX as u128)))
    }

    /// When the client stops waiting for PostgreSQL's answer.
    fn backstop(&self) -> Instant {
        self.at + BACKSTOP
    }
}

/// What bounds a statement: `SET LOCAL` ends with the transaction, also
/// behind a pooler in transaction mode.
const SET_TIMEOUT: &str = "SET LOCAL statement_timeout = ";

/// A parameter of a simple query, as SQL (see [`literal`]).
enum Literal<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl Literal<'_> {
    /// How many bytes [`literal`] writes for it, at most.
    fn written_len(&self) -> usize {
        match self {
            Literal::Text(text) => 2 * text.len() + 40,
            Literal::Bytes(bytes) => 2 * bytes.len() + 20,
        }
    }
}

/// Appends `sql` with `$1`, `$2`, … replaced by `params` as SQL expressions
/// made of hex digits and fixed text only (`decode('…', 'hex')`), so that
/// no value can end its literal, whatever `standard_conforming_strings`. A
/// `$` not followed by a parameter's number is copied as it is.
fn literal(out: &mut String, sql: &str, params: &[Literal<'_>]) {
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let param = after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|n| params.get(n.checked_sub(1)?));
        match param {
            Some(Literal::Bytes(bytes)) => {
                out.push_str("decode('");
                push_hex(out, bytes);
                out.push_str("', 'hex')");
            }
            Some(Literal::Text(text)) => {
                out.push_str("convert_from(decode('");
                push_hex(out, text.as_bytes());
                out.push_str("', 'hex'), 'UTF8')");
            }
            None => out.push_str(&rest[at..at + 1 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
}

/// A column of a simple query's row that `encode(…, 'hex')` made, as the
/// text it was stored from.
fn hex_text(row: &SimpleQueryRow, column: usize) -> Result<String, StoreError> {
    let invalid = || StoreError::Invalid(format!("stored column {column} is not hex UTF-8"));
    let digits = row.try_get(column)?.ok_or_else(invalid)?.as_bytes();
    if digits.len() % 2 != 0 {
        return Err(invalid());
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let bytes = digits
        .chunks_exact(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    String::from_utf8(bytes).map_err(|_| invalid())
}

/// A read-only query as one simple-query message: `SET LOCAL
/// statement_timeout` to what is left of `deadline`, then `sql`. The
/// message is one implicit transaction (the setting ends with it, also
/// behind a pooler in transaction mode), and PostgreSQL (13 and later)
/// times each of its statements separately, so the setting bounds `sql`.
/// One round trip, no statement kept on the server. Its rows.
async fn bounded(
    client: &Client,
    deadline: &Deadline,
    sql: &str,
    params: &[Literal<'_>],
) -> Result<Vec<SimpleQueryRow>, StoreError> {
    // The whole message in one buffer: the setting, then the query with
    // its parameters written in place.
    let params_len: usize = params.iter().map(Literal::written_len).sum();
    let mut text = String::with_capacity(SET_TIMEOUT.len() + 16 + sql.len() + params_len);
    if let Some(millis) = deadline.timeout_millis()? {
        let _ = write!(text, "{SET_TIMEOUT}{millis}; ");
    }
    literal(&mut text, sql, params);
    let messages = client.simple_query(&text).await?;
    Ok(messages
        .into_iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(row),
            _ => None,
        })
        .collect())
}

/// `statement` in a transaction of its own, bounded by `deadline`: `BEGIN;
/// SET LOCAL statement_timeout`, the statement and `COMMIT` are sent at
/// once (one round trip); each sends its messages when first polled, and
/// they are polled in this order. Returns once `COMMIT` did: after a failed
/// statement it ends the aborted transaction, and the statement's error is
/// returned.
async fn in_transaction<T>(
    client: &Client,
    deadline: &Deadline,
    statement: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, StoreError> {
    let begin = match deadline.timeout_millis()? {
        Some(millis) => format!("BEGIN; {SET_TIMEOUT}{millis}"),
        None => "BEGIN".to_owned(),
    };
    let (begun, answer, committed) = tokio::join!(
        biased;
        client.batch_execute(&begin),
        statement,
        client.batch_execute("COMMIT"),
    );
    begun?;
    let answer = answer?;
    committed?;
    Ok(answer)
}

impl Postgres {
    /// Makes the pools and one connection (TLS as the URL asks), so that a
    /// wrong URL, an unreadable CA file, a failed handshake or verification,
    /// or an unreachable server is reported at start.
    pub async fn connect(url: &str, limits: Limits) -> Result<Postgres, StoreError> {
        let Target { config, tls } = parse_url(url).map_err(StoreError::Invalid)?;
        let place = describe(&config);
        let connector = match tls.client_config().map_err(StoreError::Invalid)? {
            None => Connector::Plain,
            Some(client_config) => Connector::Rustls(MakeRustlsConnect::new(client_config)),
        };
        let size = limits.pool_size.max(1);
        let store = Postgres {
            read: connector.pool(&config, size)?,
            write: connector.pool(&config, size)?,
            connector,
            limits,
            summary: format!(
                "PostgreSQL at {place}, {}; pools of {size} connections for reads and {size} \
                 for creates (--db-pool-size: at most {} connections); {}",
                tls.describe(),
                2 * size,
                if limits.statement_timeout.is_zero() {
                    format!(
                        "no statement timeout (a request gives up after {} s)",
                        limits.request_deadline().as_secs()
                    )
                } else {
                    format!("statement timeout {} s", limits.statement_timeout.as_secs())
                }
            ),
        };
        let first = store.write.get().await.map_err(|e| {
            StoreError::Unavailable(format!("cannot connect to {place}: {}", pool_error(e)))
        })?;
        drop(first); // back to the pool, for the set-up

        Ok(store)
    }

    /// Where the database is, how it is reached and how many connections
    /// this server may hold: for the start-up banner.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// A connection from `pool` before `deadline`.
    async fn client(&self, pool: &Pool, deadline: &Deadline) -> Result<Object, StoreError> {
        let left = deadline.left()?;
        let timeouts = Timeouts {
            wait: Some(left),
            create: Some(left),
            recycle: Some(left),
        };
        pool.timeout_get(&timeouts).await.map_err(pool_error)
    }

    /// The outcome of work on `client` that ran against the backstop: a
    /// connection whose work was cut off is cancelled (PostgreSQL stops the
    /// statement), then closed and never returned to the pool. It keeps its
    /// place in the pool until it is closed, so the pool never holds more
    /// than its size.
    fn settle<T>(
        &self,
        client: Object,
        outcome: Result<Result<T, StoreError>, tokio::time::error::Elapsed>,
    ) -> Result<T, StoreError> {
        match outcome {
            Ok(result) => result,
            Err(_) => {
                let token = client.cancel_token();
                let connector = self.connector.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(CANCEL_TIMEOUT, connector.cancel(&token)).await;
                    // Out of the pool, then closed.
                    drop(Object::take(client));
                });
                Err(StoreError::Busy(
                    "PostgreSQL: no answer before the request's deadline".to_owned(),
                ))
            }
        }
    }

    /// Sets up or checks the schema and applies `setup`, in one transaction
    /// that first takes an advisory lock: replicas starting at once take
    /// turns, and the first makes the schema. The lock is the transaction's
    /// (it ends with it, also behind a pooler in transaction mode), and the
    /// transaction has no statement timeout: waiting for another replica's
    /// set-up and a large `--import` may take long.
    pub async fn setup(&self, setup: &Setup) -> Result<Started, StoreError> {
        let mut client = self.write.get().await.map_err(pool_error)?;
        let client: &mut Client = &mut client;
        let tx = client.transaction().await?;
        let (exempt, locked) = tokio::join!(
            biased;
            tx.batch_execute("SET LOCAL statement_timeout = 0"),
            tx.execute_typed("SELECT pg_advisory_xact_lock($1)", &[(&SETUP_LOCK, Type::INT8)]),
        );
        exempt?;
        locked?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS chopin_schema (
                 version bigint NOT NULL,
                 upgraded_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .await?;
        let found_version: i64 = tx
            .query_typed_one("SELECT coalesce(max(version), 0) FROM chopin_schema", &[])
            .await?
            .get(0);
        if found_version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found: found_version,
            });
        }
        let new_database = found_version == 0;
        if found_version < SCHEMA_VERSION {
            schema::migrate(&tx, found_version).await?;
        }
        if new_database {
            import(&tx, &setup.samples).await?;
        }
        for (signature, create) in schema::FUNCTIONS {
            let missing: bool = tx
                .query_typed_one(
                    "SELECT to_regprocedure($1) IS NULL",
                    &[(&signature, Type::TEXT)],
                )
                .await?
                .get(0);
            if missing {
                tx.batch_execute(create).await?;
            }
        }
        let mut first_token_stored = false;
        if let Some(first) = &setup.first_token {
            let none: bool = tx
                .query_typed_one("SELECT NOT EXISTS (SELECT 1 FROM tokens)", &[])
                .await?
                .get(0);
            if none {
                tx.execute_typed(
                    "INSERT INTO tokens (token_sha256, caller) VALUES ($1, $2)",
                    &[
                        (&token_digest(&first.token), Type::TEXT),
                        (&first.caller, Type::TEXT),
                    ],
                )
                .await?;
                set_grants(&tx, &first.caller, &first.repositories).await?;
                first_token_stored = true;
            }
        }
        for (caller, repositories) in &setup.grants {
            set_grants(&tx, caller, repositories).await?;
        }
        import(&tx, &setup.import).await?;
        let tokens = tokens::token_rows(&tx).await?;
        tx.commit().await?;
        Ok(Started {
            found_version,
            new_database,
            first_token_stored,
            tokens_migrated: 0,
            tokens,
        })
    }

    /// See [`super::Store::list`].
    pub async fn list(
        &self,
        caller: &str,
        repository: &str,
    ) -> Result<Listing<Vec<DocumentSummary>>, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let params = [Literal::Text(caller), Literal::Text(repository)];
        let work = bounded(&client, &deadline, LIST, &params);
        let rows = tokio::time::timeout_at(deadline.backstop(), work).await;
        let rows = self.settle(client, rows)?;
        if let [only] = rows.as_slice() {
            if only.try_get(0)?.is_none() {
                return Ok(Listing::Forbidden);
            }
        }
        rows.iter()
            .map(|row| {
                Ok(DocumentSummary {
                    id: hex_text(row, 0)?,
                    title: hex_text(row, 1)?,
                })
            })
            .collect::<Result<_, _>>()
            .map(Listing::Listed)
    }

    /// See [`super::Store::read`].
    pub async fn read(&self, caller: &str, id: &str) -> Result<Option<Document>, StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let params = [Literal::Text(caller), Literal::Bytes(id.as_bytes())];
        let work = bounded(&client, &deadline, READ, &params);
        let rows = tokio::time::timeout_at(deadline.backstop(), work).await;
        let rows = self.settle(client, rows)?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let revision: i64 = row
            .try_get(3)?
            .and_then(|text| text.parse().ok())
            .ok_or_else(|| StoreError::Invalid("a stored revision is not a number".to_owned()))?;
        Ok(Some(Document {
            id: hex_text(row, 0)?,
            title: hex_text(row, 1)?,
            brief: brief_of(row.try_get(4)?)?,
            source: hex_text(row, 2)?,
            revision: revision_of(revision),
        }))
    }

    /// See [`super::Store::ready`]: one trivial query on the read pool,
    /// under the same deadline as a request.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let deadline = Deadline::start(&self.limits);
        let client = self.client(&self.read, &deadline).await?;
        let work = bounded(&client, &deadline, "SELECT count(*) FROM tokens", &[]);
        let answered = tokio::time::timeout_at(deadline.backstop(), work).await;
        self.settle(client, answered).map(drop)
    }

    /// See [`super::Store::create`].
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
    let values: [(&(dyn ToSql + Sync), Type); 8] = [
        (&id_bytes, Type::BYTEA),
        (&draft.repository, Type::TEXT),
        (&title, Type::BYTEA),
        (&source, Type::BYTEA),
        (&caller, Type::TEXT),
        (&key, Type::BYTEA),
        (&draft.fingerprint, Type::TEXT),
        (&draft.brief, Type::TEXT),
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
            let document = Document {
                id: id.to_owned(),
                title: draft.title.clone(),
                brief: None,
                source: draft.source.clone(),
                revision: 0,
            };
            return Ok(CreateOutcome::New(created(document, draft.brief.clone())));
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

async fn set_grants(
    tx: &Transaction<'_>,
    caller: &str,
    repositories: &[String],
) -> Result<(), StoreError> {
    tx.execute_typed(
        "DELETE FROM grants WHERE caller = $1",
        &[(&caller, Type::TEXT)],
    )
    .await?;
    for repository in repositories {
        tx.execute_typed(
            "INSERT INTO grants (caller, repository) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[(&caller, Type::TEXT), (repository, Type::TEXT)],
        )
        .await?;
    }
    Ok(())
}

async fn import(tx: &Transaction<'_>, documents: &[Imported]) -> Result<(), StoreError> {
    for doc in documents {
        let (id, title, source) = (
            doc.id.as_bytes(),
            doc.title.as_bytes(),
            doc.source.as_bytes(),
        );
        let revision = stored_revision(doc)?;
        // What an import replaces is kept, as what a write replaces.
        tx.execute_typed(
            "INSERT INTO plan_history (document_id, revision, source)
             SELECT id, revision, source FROM documents
             WHERE id = $1 AND (source <> $2 OR revision <> $3)",
            &[
                (&id, Type::BYTEA),
                (&source, Type::BYTEA),
                (&revision, Type::INT8),
            ],
        )
        .await?;
        tx.execute_typed(
            "INSERT INTO title_history (document_id, title)
             SELECT id, title FROM documents WHERE id = $1 AND title <> $2",
            &[(&id, Type::BYTEA), (&title, Type::BYTEA)],
        )
        .await?;
        tx.execute_typed(
            "INSERT INTO documents (id, repository, title, source, revision)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET repository = excluded.repository,
               title = excluded.title, source = excluded.source,
               revision = excluded.revision",
            &[
                (&id, Type::BYTEA),
                (&doc.repository, Type::TEXT),
                (&title, Type::BYTEA),
                (&source, Type::BYTEA),
                (&revision, Type::INT8),
            ],
        )
        .await?;
    }
    Ok(())
}

/// A `bytea` column written from a Rust string, as that string.
fn text(row: &Row, column: usize) -> Result<String, StoreError> {
    let bytes: Vec<u8> = row.try_get(column)?;
    String::from_utf8(bytes)
        .map_err(|_| StoreError::Invalid(format!("stored column {column} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::{Literal, literal};

    #[test]
    fn parameters_are_written_as_hex_in_place_and_other_dollars_stay() {
        let mut out = String::from("SET x; ");
        literal(
            &mut out,
            "SELECT f($1, $2) WHERE a = '$' AND b = $3 AND c = $0",
            &[Literal::Text("o'k"), Literal::Bytes(b"\x00\xff")],
        );
        assert_eq!(
            out,
            "SET x; SELECT f(convert_from(decode('6f276b', 'hex'), 'UTF8'), \
             decode('00ff', 'hex')) WHERE a = '$' AND b = $3 AND c = $0"
        );
    }
}
