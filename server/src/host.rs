//! What both servers share beyond the store: opening and seeding the
//! database, the token table, the endpoint configuration, the start-up
//! banner, and carrying out the list, read and create effects.

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;

use chopin_mcp::{
    Config, CreateAnswer, CreateDocument, CreatedDocument, Endpoint, IdSource, Outcome, SystemIds,
};

use crate::options::{Database, Options};
use crate::store::{
    ALL_REPOSITORIES, CreateOutcome, Created, Draft, Imported, Pool, Store, StoreError,
};

/// The caller of the token generated on a first run.
const LOCAL_CALLER: &str = "local";
/// Connections per database file: enough for both cores and a writer.
const FILE_CONNECTIONS: usize = 4;
/// The body of every 500: store failures are logged, never shown.
pub const INTERNAL_ERROR: &str = "internal server error";

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

/// Everything a server needs to answer requests.
pub struct Host {
    pub endpoint: Endpoint,
    pub pool: Arc<Pool>,
    tokens: HashMap<String, String>,
    /// Printed at start: how this run came to be.
    notes: Vec<String>,
    read_only: bool,
}

impl Host {
    /// Opens the store (creating and seeding it on a first run), applies the
    /// command line's grants and import, and builds the endpoint for a server
    /// bound to `bound`.
    pub fn prepare(options: &Options, bound: SocketAddr) -> Result<Host, String> {
        let mut notes = Vec::new();
        let mut first = match &options.database {
            Database::Memory => Store::memory(),
            Database::File(path) => Store::open(path),
        }
        .map_err(|e| format!("cannot open the database: {e}"))?;
        let fail = |what: &str, e: StoreError| format!("cannot {what}: {e}");
        if first.is_fresh().map_err(|e| fail("read the database", e))? {
            seed(&mut first).map_err(|e| fail("seed the database", e))?;
            notes.push(format!(
                "new database: one sample plan in {SAMPLE_REPOSITORY}, a new token for caller {LOCAL_CALLER}"
            ));
            if !options.tokens.is_empty() {
                notes.push(
                    "(the new token is stored but unused this run: --token given)".to_owned(),
                );
            }
        }
        for (caller, repositories) in &options.grants {
            first
                .set_grants(caller, repositories)
                .map_err(|e| fail("store grants", e))?;
        }
        if let Some(path) = &options.import {
            let documents = read_import(path)?;
            first
                .import(&documents)
                .map_err(|e| fail("import documents", e))?;
            notes.push(format!("imported {} documents", documents.len()));
        }
        let tokens: HashMap<String, String> = if options.tokens.is_empty() {
            let stored = first.tokens().map_err(|e| fail("read tokens", e))?;
            stored.into_iter().collect()
        } else {
            options.tokens.iter().cloned().collect()
        };
        let mut stores = vec![first];
        if let Database::File(path) = &options.database {
            for _ in 1..FILE_CONNECTIONS {
                stores.push(Store::open(path).map_err(|e| fail("open the database", e))?);
            }
        }
        let mut config = Config::new();
        if !options.read_only {
            config = config.enable_creation();
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
        let endpoint = Endpoint::new(config).map_err(|e| e.to_string())?;
        Ok(Host {
            endpoint,
            pool: Arc::new(Pool::new(stores)),
            tokens,
            notes,
            read_only: options.read_only,
        })
    }

    /// The caller a bearer token stands for.
    pub fn caller(&self, token: Option<&str>) -> Option<String> {
        token.and_then(|token| self.tokens.get(token)).cloned()
    }

    /// Prints where to connect and with which token. The last line,
    /// `chopin-mcp listening on http://ADDR/mcp`, says the server is ready
    /// (tests wait for it and read the bound address from it).
    pub fn print_banner(&self, bound: SocketAddr) {
        let url = format!("http://{bound}/mcp");
        for note in &self.notes {
            println!("{note}");
        }
        let mode = if self.read_only {
            "read-only (create_document is not offered)"
        } else {
            "read-write (create_document is offered)"
        };
        println!("mode: {mode}");
        let mut tokens: Vec<_> = self.tokens.iter().collect();
        tokens.sort_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)));
        for (token, caller) in &tokens {
            println!("token: {token} (caller {caller})");
        }
        if let Some((token, _)) = tokens.first() {
            // Written by hand to keep the keys in the order clients document
            // them; the url and a hex or command-line token need no escaping
            // beyond what serde_json gives a string.
            let token = serde_json::Value::from(format!("Bearer {token}"));
            println!(
                "client configuration:\n{{\"type\":\"http\",\"url\":\"{url}\",\"headers\":{{\"Authorization\":{token}}}}}"
            );
        }
        println!("chopin-mcp listening on {url}");
    }
}

/// What became of a create, for logs and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateResult {
    /// Stored as a new document.
    Created,
    /// The idempotency key was seen with the same draft: the stored document.
    Replayed,
    /// The idempotency key was seen with another draft.
    Conflict,
    /// The plan has dialect issues: nothing reached the store.
    Issues,
    /// The caller may not create in the repository.
    Forbidden,
    /// Stored, but the stored document cannot be shown.
    Unavailable,
}

impl CreateResult {
    pub const ALL: [CreateResult; 6] = [
        CreateResult::Created,
        CreateResult::Replayed,
        CreateResult::Conflict,
        CreateResult::Issues,
        CreateResult::Forbidden,
        CreateResult::Unavailable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CreateResult::Created => "created",
            CreateResult::Replayed => "replayed",
            CreateResult::Conflict => "conflict",
            CreateResult::Issues => "issues",
            CreateResult::Forbidden => "forbidden",
            CreateResult::Unavailable => "unavailable",
        }
    }
}

/// Carries out a list, read or create effect against the store; any other
/// outcome is handed back as it is. On a store error the exchange is
/// dropped: the caller answers 500, never a partial document.
pub fn carry_out(
    store: &mut Store,
    outcome: Outcome<String>,
) -> Result<Outcome<String>, StoreError> {
    carry_out_noting(store, outcome, &mut None)
}

/// [`carry_out`], noting in `created` what became of a create.
pub fn carry_out_noting(
    store: &mut Store,
    outcome: Outcome<String>,
    created: &mut Option<CreateResult>,
) -> Result<Outcome<String>, StoreError> {
    Ok(match outcome {
        Outcome::List(list) => {
            let documents = store.list(list.caller(), list.repository())?;
            list.answer(&documents)
        }
        Outcome::Read(read) => {
            let document = store.read(read.caller(), read.id())?;
            read.answer(document.as_ref())
        }
        Outcome::Create(create) => carry_out_create(store, create, created)?,
        other => other,
    })
}

/// Stores a new document in one transaction, keyed by caller and
/// idempotency key (see the store), and answers with what happened.
fn carry_out_create(
    store: &mut Store,
    create: CreateDocument<String>,
    noted: &mut Option<CreateResult>,
) -> Result<Outcome<String>, StoreError> {
    let input = create.document();
    let draft = Draft {
        idempotency_key: input.idempotency_key.clone(),
        fingerprint: input.fingerprint.clone(),
        repository: input.repository.clone(),
        title: input.title.clone(),
        source: input.plan.clone(),
        brief: serde_json::to_string(&input.brief).unwrap_or_default(),
    };
    // Document ids are ULIDs too; the host owns its clock and randomness.
    let id = SystemIds.mint().to_string();
    let outcome = store.create(create.caller(), &id, &draft)?;
    let (result, answer) = match outcome {
        CreateOutcome::New(created) => match document(created) {
            Some(document) => (
                CreateResult::Created,
                create.answer(CreateAnswer::Created(&document)),
            ),
            None => (
                CreateResult::Unavailable,
                create.answer(CreateAnswer::Unavailable),
            ),
        },
        CreateOutcome::Replayed(created) => match document(created) {
            Some(document) => (
                CreateResult::Replayed,
                create.answer(CreateAnswer::Replayed(&document)),
            ),
            None => (
                CreateResult::Unavailable,
                create.answer(CreateAnswer::Unavailable),
            ),
        },
        CreateOutcome::Conflict => (
            CreateResult::Conflict,
            create.answer(CreateAnswer::Conflict),
        ),
        CreateOutcome::Forbidden => (
            CreateResult::Forbidden,
            create.answer(CreateAnswer::Forbidden),
        ),
    };
    *noted = Some(result);
    Ok(answer)
}

/// The stored document as the tool returns it; `None` (logged) if its stored
/// brief no longer parses, so no partial document is ever sent.
fn document(created: Created) -> Option<CreatedDocument> {
    let brief = match serde_json::from_str(&created.brief) {
        Ok(brief) => brief,
        Err(error) => {
            eprintln!(
                "stored brief of {} does not parse: {error}",
                created.document.id
            );
            return None;
        }
    };
    Some(CreatedDocument {
        id: created.document.id,
        title: created.document.title,
        brief,
        source: created.document.source,
        revision: created.document.revision,
        url: created.url,
    })
}

fn seed(store: &mut Store) -> Result<(), StoreError> {
    store.import(&[Imported {
        id: SAMPLE_ID.to_owned(),
        repository: SAMPLE_REPOSITORY.to_owned(),
        title: SAMPLE_TITLE.to_owned(),
        source: SAMPLE_SOURCE.to_owned(),
        revision: 0,
    }])?;
    store.add_token(&random_token(), LOCAL_CALLER)?;
    store.set_grants(LOCAL_CALLER, &[ALL_REPOSITORIES.to_owned()])
}

fn read_import(path: &std::path::Path) -> Result<Vec<Imported>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// 32 bytes from the OS's randomness, as hex. Exits when there is none:
/// a guessable token would be worse than no server.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if let Err(e) = read {
        eprintln!("cannot read /dev/urandom for a token: {e}");
        std::process::exit(1);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
