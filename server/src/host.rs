//! What both servers share beyond the store: opening and seeding the
//! database, the token table, the endpoint configuration, the start-up
//! banner, and carrying out the effects: list and read here, each write
//! tool in a file of its own (`host/create.rs`, `update.rs`, `rename.rs`,
//! `archive.rs`, `restore.rs`, `invoke.rs`, `upload.rs`).

mod archive;
mod create;
mod implementation;
mod invoke;
mod rename;
mod restore;
mod update;
mod upload;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use chopin_mcp::{Config, ConfigError, Document, Endpoint, Outcome};

use crate::labels::Written;
use crate::oauth::{OAuth, Verdict};
use crate::options::Options;
use crate::planner::Planner;
use crate::store::{
    ALL_REPOSITORIES, Database, FirstToken, Imported, Listing, SCHEMA_VERSION, Setup, Sqlite,
    Started, Store, StoreError, quota_bytes, token_digest,
};
use crate::token::random_token;

/// The caller of the token generated on a first run.
const LOCAL_CALLER: &str = "local";
/// The server's title in `serverInfo`.
const TITLE: &str = "Chopin plan documents";
/// What a model is told about the tools beside the generated lines
/// (`Config::generated_instructions`, SURFACE.md §10), which open the text
/// (`--instructions-file` replaces all of it).
const INSTRUCTIONS_READ: &str = "Chopin plan documents live in repositories named \
owner/name. Call list_documents with a repository to get the ids and titles of its \
documents, then read_document with an id for the plan's canonical source and \
revision. Ids come from list_documents; do not guess them.";
const INSTRUCTIONS_CREATE: &str = " To add a plan, call create_document with a \
structured brief and a plan written in the Chopin plan dialect, below. A plan with \
problems is answered with issues (code, message, line, column) and nothing is \
stored: fix them and call again with the same idempotencyKey, which also makes a \
retry safe.";
const INSTRUCTIONS_WRITE: &str = " To revise a plan, call update_document with \
its id, the revision you read, the whole revised plan (checked like a new one) and \
a fresh idempotencyKey (the same one makes a retry safe); a revision-conflict \
means the plan changed since you read it: read it again and redo your change. \
rename_document changes a title. An archived plan leaves lists and reads until it \
is restored.";
/// The largest `--instructions-file` accepted.
const MAX_INSTRUCTIONS: u64 = 64 * 1024;

/// The body of every 500: store failures are logged, never shown.
pub const INTERNAL_ERROR: &str = "internal server error";
/// The body of the 503 a request gets when the database did not answer
/// within `--db-statement-timeout` (the cause is logged).
pub const DATABASE_BUSY: &str = "the database did not answer in time: retry later";
/// The `retry-after` (seconds) sent with [`DATABASE_BUSY`].
pub const RETRY_AFTER: &str = "1";

const SAMPLE_ID: &str = "01JD2X7K4M8Q3R5T6V7W8X9Y0Z";
const SAMPLE_REPOSITORY: &str = "example/plans";
const SAMPLE_TITLE: &str = "Keep the reading position offline";
const SAMPLE_SOURCE: &str = "\
# Keep the reading position offline

Readers lose their place when the train enters a tunnel. The reader should
keep the last ten documents on the device and sync reading positions once the
connection returns, without asking the reader to do anything.

- Cache documents in IndexedDB, keyed by id and revision.
- Queue position updates while offline and replay them in order.
- Show a quiet banner while the reader works offline.
";

/// Who a request is from: the caller name its token maps to, shared (a
/// request holds it for its effects and its log line without a copy).
pub type Caller = Arc<str>;

/// Everything a server needs to answer requests.
pub struct Host {
    pub endpoint: Endpoint,
    pub store: Store,
    /// Token digest (SHA-256) to caller.
    tokens: HashMap<[u8; 32], Caller, BuildHasherDefault<DigestHasher>>,
    /// Tokens from the authorization server, with `--oauth-issuer`.
    pub oauth: Option<Arc<OAuth>>,
    /// Printed at start: how this run came to be.
    notes: Vec<String>,
    /// The token generated and stored by this run: printed once, now.
    generated: Option<String>,
    read_only: bool,
    /// `--bind-runs`: a lifecycle call on another caller's run is `run`.
    bind_runs: bool,
    /// The planner, with `--planner-command` (SURFACE.md §9).
    pub planner: Option<Arc<Planner>>,
    /// `--image-quota-mib` in bytes: what each repository's images may
    /// take (0: `upload_image` is not offered).
    image_quota: i64,
    /// `--public-url`: prefixed to every document's `url`.
    public_url: Option<String>,
}

impl Host {
    /// Opens the store (either engine), sets it up (schema, first-run seed,
    /// the command line's grants and import, in one transaction) and builds
    /// the endpoint for a server bound to `bound`.
    pub async fn prepare(options: &Options, bound: SocketAddr) -> Result<Host, String> {
        let store = Store::open_with(&options.database, options.db_limits)
            .await
            .map_err(|e| format!("cannot open the database: {e}"))?;
        let (setup, token) = setup(options)?;
        let started = store
            .setup(&setup)
            .await
            .map_err(|e| format!("cannot set up the database: {e}"))?;
        let mut host = Host::finish(options, bound, store, started, setup.import.len(), token)?;
        if let Some(planner) = &host.planner {
            let interrupted = host
                .store
                .interrupt_turns(planner.owner())
                .await
                .map_err(|e| format!("cannot mark the planner's unfinished turns: {e}"))?;
            host.note_interrupted(interrupted);
        }
        if let Some(settings) = &options.oauth {
            // Every caller a static token names: an OAuth caller of the same
            // name is refused (AUTH.md §2).
            let callers: HashSet<String> = host.tokens.values().map(|c| c.to_string()).collect();
            let scopes = host.endpoint.scopes().clone();
            let oauth = OAuth::start(settings, scopes, callers)
                .await
                .map_err(|e| format!("OAuth: {e}"))?;
            host.notes.push(format!(
                "OAuth: tokens from {} for {}",
                settings.issuer, settings.resource
            ));
            host.oauth = Some(Arc::new(oauth));
        }
        Ok(host)
    }

    /// [`Host::prepare`] without an async runtime, for `chopin-mcp-blocking`:
    /// SQLite only.
    pub fn prepare_blocking(options: &Options, bound: SocketAddr) -> Result<Host, String> {
        if options.oauth.is_some() {
            return Err("chopin-mcp-blocking does not sign users in with OAuth \
                        (--oauth-issuer and the other --oauth-* flags, --resource); \
                        run chopin-mcp-server for them"
                .to_owned());
        }
        if let Database::Postgres(_) = options.database {
            return Err(
                "chopin-mcp-blocking serves SQLite only (--db PATH or --memory); \
                        run chopin-mcp-server for --db postgres://..."
                    .to_owned(),
            );
        }
        let sqlite = Sqlite::open_database_with(&options.database, options.db_limits)
            .map_err(|e| format!("cannot open the database: {e}"))?;
        let (setup, token) = setup(options)?;
        let started = sqlite
            .setup(&setup)
            .map_err(|e| format!("cannot set up the database: {e}"))?;
        let sqlite = std::sync::Arc::new(sqlite);
        let mut host = Host::finish(
            options,
            bound,
            Store::Sqlite(Arc::clone(&sqlite)),
            started,
            setup.import.len(),
            token,
        )?;
        if let Some(planner) = &host.planner {
            let interrupted = sqlite
                .interrupt_turns(planner.owner())
                .map_err(|e| format!("cannot mark the planner's unfinished turns: {e}"))?;
            host.note_interrupted(interrupted);
        }
        Ok(host)
    }

    fn finish(
        options: &Options,
        bound: SocketAddr,
        store: Store,
        started: Started,
        imported: usize,
        token: Option<String>,
    ) -> Result<Host, String> {
        let mut notes = Vec::new();
        if let Some(summary) = store.summary() {
            notes.push(summary.to_owned());
        }
        if started.new_database {
            notes.push(format!(
                "new database ({}): one sample plan in {SAMPLE_REPOSITORY}",
                store.engine()
            ));
        } else if started.found_version == 1 {
            notes.push(format!(
                "database of schema version 1 migrated in place to version {SCHEMA_VERSION}: \
                 every document, token, grant and idempotency record kept (stop servers of \
                 the earlier release: they do not know archives)"
            ));
        } else if started.found_version == 3 {
            notes.push(format!(
                "database of schema version 3 migrated in place to version {SCHEMA_VERSION}: \
                 everything kept, each grant read and write (servers of the earlier release \
                 still running keep serving but know no --grant-read: stop them before \
                 relying on it)"
            ));
        }
        if started.tokens_migrated > 0 {
            notes.push(format!(
                "stored tokens replaced by their SHA-256 digests: {}",
                started.tokens_migrated
            ));
        }
        let generated = token.filter(|_| started.first_token_stored);
        if generated.is_some() {
            notes.push(format!(
                "a new token for caller {LOCAL_CALLER}, printed once: only its digest is stored"
            ));
        }
        if let Some(path) = &options.import {
            notes.push(format!(
                "imported {} documents from {}",
                imported,
                path.display()
            ));
        }
        let tokens: Vec<(String, String)> = if options.tokens.is_empty() {
            if generated.is_none() {
                let callers: Vec<&str> = started.tokens.iter().map(|(_, c)| c.as_str()).collect();
                notes.push(format!(
                    "stored tokens: {} (callers: {}; only digests are stored, a generated \
                     token was printed once, by the run that generated it; a lost one is \
                     replaced with: token revoke CALLER, token add CALLER)",
                    callers.len(),
                    callers.join(", ")
                ));
            }
            started.tokens
        } else {
            notes.push(format!("tokens from --token: {}", options.tokens.len()));
            options
                .tokens
                .iter()
                .map(|(token, caller)| (token_digest(token), caller.clone()))
                .collect()
        };
        // Digests are stored as lower-case hex; one that is not is never
        // matched (no token hashes to it), so it is left out.
        let tokens = tokens
            .into_iter()
            .filter_map(|(digest, caller): (String, String)| {
                Some((from_hex(&digest)?, Caller::from(caller)))
            })
            .collect();
        let mut config = Config::new().server_title(TITLE);
        if !options.read_only {
            config = config.enable_creation().enable_lifecycle();
            if options.image_quota_mib > 0 {
                config = config.enable_upload();
            }
        }
        if options.implementations {
            config = if options.read_only {
                config.enable_implementation_reads()
            } else {
                config.enable_implementations()
            };
        }
        let planner = invoke::start_planner(options, &store, &mut notes)?;
        if planner.is_some() {
            config = config.enable_planner();
        }
        if let Some(instructions) = instructions(options, config.generated_instructions())? {
            config = config.instructions(instructions);
        }
        if bound.ip().is_loopback() {
            config = config.allow_loopback_hosts();
        }
        for origin in &options.origins {
            config = config.allow_origin(origin.clone());
        }
        if let Some(url) = &options.resource_metadata {
            config = config.resource_metadata(url.clone());
        }
        if let Some(oauth) = &options.oauth {
            config = config.oauth(oauth.resource.clone(), oauth.issuer.clone());
            if let Some((read, create)) = &oauth.scopes {
                config = config.scopes(read.clone(), create.clone());
            }
            if let Some(write) = &oauth.write_scope {
                config = config.write_scope(write.clone());
            }
        }
        let endpoint = Endpoint::new(config).map_err(|e| match (&e, &options.oauth) {
            (ConfigError::BadResource, Some(oauth)) => {
                format!("--resource {:?}: {e}", oauth.resource)
            }
            (ConfigError::BadIssuer, Some(oauth)) => {
                format!("--oauth-issuer {:?}: {e}", oauth.issuer)
            }
            (ConfigError::BadScope(_), _) => {
                format!("--oauth-read-scope / --oauth-create-scope / --oauth-write-scope: {e}")
            }
            _ => e.to_string(),
        })?;
        Ok(Host {
            endpoint,
            store,
            tokens,
            oauth: None,
            notes,
            generated,
            read_only: options.read_only,
            bind_runs: options.bind_runs,
            planner,
            image_quota: quota_bytes(options.image_quota_mib),
            public_url: options.public_url.clone(),
        })
    }

    /// The caller a static bearer token stands for, looked up by its
    /// SHA-256 digest (as the store keeps them; no hex text is made per
    /// request).
    pub fn caller(&self, token: Option<&str>) -> Option<Caller> {
        let digest: [u8; 32] = Sha256::digest(token?.as_bytes()).into();
        self.tokens.get(&digest).cloned()
    }

    /// Judges a bearer token: the static table first (one SHA-256, one
    /// probe), then, with OAuth on, the authorization server's tokens (the
    /// same digest keys their caches).
    pub async fn authenticate(&self, token: Option<&str>) -> Verdict {
        let Some(token) = token else {
            return Verdict::Refused("no_token");
        };
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(caller) = self.tokens.get(&digest) {
            return Verdict::Static(caller.clone());
        }
        match &self.oauth {
            Some(oauth) => oauth.judge(token, &digest).await,
            None => Verdict::Refused("unknown_token"),
        }
    }

    /// Prints how this run came to be and, on the run that generated a
    /// token, that token and a client configuration holding it (never
    /// again: only its digest is stored). The last line, `chopin-mcp
    /// listening on http://ADDR/mcp`, says the server is ready (tests wait
    /// for it and read the bound address from it).
    pub fn print_banner(&self, bound: SocketAddr) {
        let url = format!("http://{bound}/mcp");
        for note in &self.notes {
            println!("{note}");
        }
        let mode = if self.read_only {
            "read-only (no write tool is offered)".to_owned()
        } else {
            let mut offered = String::from(
                "create_document, update_document, rename_document, archive_document, \
                 restore_document",
            );
            if self.planner.is_some() {
                offered.push_str(", invoke_planner");
            }
            if self.image_quota != 0 {
                offered.push_str(", upload_image");
            }
            format!("read-write (offered: {offered})")
        };
        println!("mode: {mode}");
        if let Some(token) = &self.generated {
            println!("token: {token} (caller {LOCAL_CALLER})");
            // Written by hand to keep the keys in the order clients document
            // them; the url and a hex token need no escaping beyond what
            // serde_json gives a string.
            let token = serde_json::Value::from(format!("Bearer {token}"));
            println!(
                "client configuration:\n{{\"type\":\"http\",\"url\":\"{url}\",\"headers\":{{\"Authorization\":{token}}}}}"
            );
        }
        println!("chopin-mcp listening on {url}");
    }

    /// Carries out a store effect (list, read, or a write tool's), noting
    /// in `written` what became of a write; any other outcome is handed back
    /// as it is. On a store error the exchange is dropped: the caller answers
    /// 500 (503 when the database is busy), never a partial document, and
    /// nothing is answered as written that did not commit.
    pub async fn carry_out(
        &self,
        outcome: Outcome<Caller>,
        written: &mut Option<Written>,
    ) -> Result<Outcome<Caller>, StoreError> {
        Ok(match outcome {
            Outcome::List(list) => {
                let (caller, repository) = (list.caller(), list.repository());
                match self
                    .store
                    .list(caller, repository, list.include_archived())
                    .await?
                {
                    Listing::Listed(documents) => list.answer(&documents),
                    Listing::Forbidden => list.forbidden(),
                }
            }
            Outcome::Read(read) => {
                let mut document = self.store.read(read.caller(), read.id()).await?;
                if let Some(document) = &mut document {
                    public(self.public_url(), &mut document.url);
                }
                read.answer(document.as_ref())
            }
            Outcome::Create(create) => noted(written, self.create(create).await?),
            Outcome::Update(update) => noted(written, self.update(update).await?),
            Outcome::Rename(rename) => noted(written, self.rename(rename).await?),
            Outcome::Archive(archive) => noted(written, self.archive(archive).await?),
            Outcome::Restore(restore) => noted(written, self.restore(restore).await?),
            Outcome::ReadImplementation(read) => self.read_implementation(read).await?,
            Outcome::StartImplementation(start) => self.start_implementation(start).await?,
            Outcome::ReportLifecycle(report) => self.report_lifecycle(report).await?,
            Outcome::InvokePlanner(invoke) => noted(written, self.invoke(invoke).await?),
            Outcome::StoreImage(store) => noted(written, self.upload(store).await?),
            other @ (Outcome::Respond(_) | Outcome::Authenticate(_) | Outcome::Body(_)) => other,
        })
    }

    /// A list or read on SQLite carried out now, on the calling thread (one
    /// indexed SELECT on a reader connection, as [`Host::carry_out`] would
    /// run it); anything else (a create, any PostgreSQL operation) is handed
    /// back to be awaited with [`Host::carry_out`]. The async server uses
    /// it to keep the read path free of the store's futures, whose states
    /// (PostgreSQL's pools and queries) would otherwise be part of every
    /// connection's own.
    pub fn read_now(&self, outcome: Outcome<Caller>) -> Now {
        let Store::Sqlite(store) = &self.store else {
            return Now::Await(outcome);
        };
        Now::Done(match outcome {
            // Archived documents too: the summaries with their times, owned
            // (rare; the plain listing below stays one buffer).
            Outcome::List(list) if list.include_archived() => store
                .list(list.caller(), list.repository(), true)
                .map(|listing| match listing {
                    Listing::Listed(documents) => list.answer(&documents),
                    Listing::Forbidden => list.forbidden(),
                }),
            Outcome::List(list) => store.list_summaries(list.caller(), list.repository()).map(
                |listing| match listing {
                    Listing::Listed(summaries) => list.answer_borrowed(&summaries.borrowed()),
                    Listing::Forbidden => list.forbidden(),
                },
            ),
            Outcome::Read(read) => SCRATCH.with_borrow_mut(|document| {
                let found = store.read_into(read.caller(), read.id(), document)?;
                if found {
                    public(self.public_url(), &mut document.url);
                }
                let next = read.answer(found.then_some(&*document));
                // A large document's buffers are not kept for the next read.
                if document.source.capacity() > SCRATCH_KEPT {
                    *document = no_document();
                }
                Ok(next)
            }),
            other => return Now::Await(other),
        })
    }

    /// The document a document URL names, when `caller` may see it: the
    /// read of `read_document`, so that the URL and the tool agree on what
    /// a caller sees.
    pub async fn read_document(
        &self,
        caller: &str,
        id: &str,
    ) -> Result<Option<Document>, StoreError> {
        self.store.read(caller, id).await
    }

    /// [`Host::read_document`] on the calling thread, for
    /// `chopin-mcp-blocking` (whose store is SQLite).
    pub fn read_document_blocking(
        &self,
        caller: &str,
        id: &str,
    ) -> Result<Option<Document>, StoreError> {
        match &self.store {
            Store::Sqlite(store) => store.read(caller, id),
            Store::Postgres(_) => Err(StoreError::Invalid(
                "the blocking server has no PostgreSQL store".to_owned(),
            )),
        }
    }

    /// [`Host::carry_out`] on the calling thread, for `chopin-mcp-blocking`
    /// (whose store is SQLite: see [`Host::prepare_blocking`]).
    pub fn carry_out_blocking(
        &self,
        outcome: Outcome<Caller>,
    ) -> Result<Outcome<Caller>, StoreError> {
        let Store::Sqlite(store) = &self.store else {
            return Err(StoreError::Invalid(
                "the blocking server has no PostgreSQL store".to_owned(),
            ));
        };
        let done = match self.read_now(outcome) {
            Now::Done(next) => return next,
            Now::Await(Outcome::Create(create)) => {
                create::create_blocking(store, create, self.public_url())?
            }
            Now::Await(Outcome::Update(update)) => {
                update::update_blocking(store, update, self.public_url())?
            }
            Now::Await(Outcome::Rename(rename)) => rename::rename_blocking(store, rename)?,
            Now::Await(Outcome::Archive(archive)) => archive::archive_blocking(store, archive)?,
            Now::Await(Outcome::Restore(restore)) => restore::restore_blocking(store, restore)?,
            Now::Await(Outcome::InvokePlanner(invoke)) => {
                invoke::invoke_blocking(store, self.planner.as_deref(), invoke)?
            }
            Now::Await(Outcome::StoreImage(image)) => {
                upload::upload_blocking(store, self.image_quota, image)?
            }
            Now::Await(
                implementation @ (Outcome::ReadImplementation(_)
                | Outcome::StartImplementation(_)
                | Outcome::ReportLifecycle(_)),
            ) => {
                return implementation::implementation_blocking(
                    store,
                    implementation,
                    self.bind_runs,
                );
            }
            Now::Await(other) => return Ok(other),
        };
        Ok(done.1)
    }
}

impl Host {
    /// `--public-url`, when given.
    pub fn public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }
}

/// `url` (the store's `/documents/<id>`) under `base`, `--public-url`, when
/// there is one: `<base>/documents/<id>`, in the same buffer.
pub(crate) fn public(base: Option<&str>, url: &mut Option<String>) {
    if let (Some(base), Some(url)) = (base, url) {
        url.insert_str(0, base);
    }
}

/// [`public`] for a URL the host owns.
pub(crate) fn public_url_of(base: Option<&str>, url: String) -> String {
    let mut url = Some(url);
    public(base, &mut url);
    url.unwrap_or_default()
}

/// The largest source a thread's read buffers keep for its next read.
const SCRATCH_KEPT: usize = 64 * 1024;

thread_local! {
    /// Each thread's document buffers for [`Host::read_now`]'s SQLite reads:
    /// filled by the store, answered from, kept for the next read (no
    /// allocation per read unless a document outgrows them).
    static SCRATCH: std::cell::RefCell<Document> = const { std::cell::RefCell::new(no_document()) };
}

const fn no_document() -> Document {
    Document {
        archived_at: None,
        description: None,
        url: None,
        id: String::new(),
        title: String::new(),
        brief: None,
        source: String::new(),
        revision: 0,
    }
}

/// A write carried out: what became of it (for logs and metrics), and the
/// endpoint's next outcome.
type Done = (Written, Outcome<Caller>);

/// Notes what became of a write in `written`; its next outcome.
fn noted(written: &mut Option<Written>, (result, next): Done) -> Outcome<Caller> {
    *written = Some(result);
    next
}

/// What [`Host::read_now`] did.
pub enum Now {
    /// Carried out: the endpoint's next outcome, or the store's error.
    Done(Result<Outcome<Caller>, StoreError>),
    /// Not a SQLite list or read: for [`Host::carry_out`].
    Await(Outcome<Caller>),
}

/// What the start-up transaction writes, and the token it may store.
fn setup(options: &Options) -> Result<(Setup, Option<String>), String> {
    let import = match &options.import {
        Some(path) => read_import(path)?,
        None => Vec::new(),
    };
    // A token is generated only when no --token is given: one generated
    // beside --token could never be printed later. With OAuth, users sign in
    // instead: none is generated.
    let token = (options.tokens.is_empty() && options.oauth.is_none()).then(random_token);
    let setup = Setup {
        samples: vec![Imported {
            id: SAMPLE_ID.to_owned(),
            repository: SAMPLE_REPOSITORY.to_owned(),
            title: SAMPLE_TITLE.to_owned(),
            source: SAMPLE_SOURCE.to_owned(),
            revision: 0,
        }],
        first_token: token.clone().map(|token| FirstToken {
            token,
            caller: LOCAL_CALLER.to_owned(),
            repositories: vec![ALL_REPOSITORIES.to_owned()],
        }),
        grants: options.grants.clone(),
        read_grants: options.read_grants.clone(),
        import,
    };
    Ok((setup, token))
}

fn read_import(path: &std::path::Path) -> Result<Vec<Imported>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A digest from its 64 lower-case hex digits.
fn from_hex(hex: &str) -> Option<[u8; 32]> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return None;
    }
    let mut digest = [0u8; 32];
    for (byte, pair) in digest.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(digest)
}

/// Hashes a SHA-256 digest by its first eight bytes: they are already
/// uniform, and no client can choose them (that would take a preimage), so
/// SipHash over all 32 would buy nothing. Only for the token table's
/// `[u8; 32]` keys: each write contributes its first eight bytes.
#[derive(Default)]
pub struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
    }
}

/// The instructions the endpoint gives a model: `--instructions-file`'s
/// text (none for an empty file), else `generated` (the offered tools'
/// descriptions, SURFACE.md §10) and the server's own guidance for the mode
/// (with the write tools, what each is for and the plan dialect's catalog).
fn instructions(options: &Options, generated: String) -> Result<Option<String>, String> {
    let Some(path) = &options.instructions_file else {
        let mut text = generated;
        text.push_str("\n\n");
        text.push_str(INSTRUCTIONS_READ);
        if !options.read_only {
            text.push_str(INSTRUCTIONS_CREATE);
            text.push_str(INSTRUCTIONS_WRITE);
            // The components a plan may use, written from the catalog the
            // validator checks (`chopin-plan catalog` prints the same).
            text.push_str("\n\n");
            text.push_str(&chopin_mcp::dialect::catalog_summary());
        }
        return Ok(Some(text));
    };
    let fail = |e: &dyn std::fmt::Display| format!("--instructions-file {}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    let mut bytes = Vec::new();
    file.take(MAX_INSTRUCTIONS + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(&e))?;
    if bytes.len() as u64 > MAX_INSTRUCTIONS {
        return Err(fail(&format!("larger than {MAX_INSTRUCTIONS} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|_| fail(&"not UTF-8 text"))?;
    Ok((!text.trim().is_empty()).then_some(text))
}
