//! The reference server's planner (SURFACE.md §9): `invoke_planner`'s
//! turns, admitted, queued and run in this process.
//!
//! - **Admission** ([`Planner::reserve`]): each process runs at most
//!   `--planner-workers` turns at once and holds at most `--planner-queue`
//!   more waiting; a call beyond that is `planner-queue-full`. A slot is
//!   reserved before the store records the turn, and given back when the
//!   store answers anything else.
//! - **Queue**: worker threads take the oldest waiting turn whose document
//!   has no running turn, so a document's turns run one at a time, in
//!   order.
//! - **Turns** (`run`): the command, no shell, the instruction on standard
//!   input, a cleared environment but for `CHOPIN_DOCUMENT_ID`,
//!   `CHOPIN_DOCUMENT_URL`, `CHOPIN_REPOSITORY` and `CHOPIN_CALLER` (never
//!   a token), in the document's working directory (see [`work_root`]),
//!   killed with its process group at `--planner-timeout`. Its state, exit
//!   status and first 64 KiB of output go to its row (`planner_turns`) and
//!   a log line naming the tool.
//! - **Restarts**: turns are not replayed; at start, the rows this server
//!   ([`owner`]) left `queued` or `running` are marked `interrupted` and
//!   logged.
//!
//! The store's writes for a turn (`running`, its end) are made from the
//! worker threads on a runtime of the planner's own, so that the blocking
//! server (no runtime) and the async one (PostgreSQL's connections live on
//! a runtime) run turns alike.

mod log;
mod run;

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use sha2::{Digest, Sha256};

use crate::options::PlannerOptions;
use crate::store::{Database, Store, TurnEnd, push_hex};

pub use log::interrupted as log_interrupted;
pub use run::MAX_OUTPUT;

/// A turn recorded and waiting for a worker.
#[derive(Debug, Clone)]
pub struct Turn {
    /// Its row's number.
    pub seq: i64,
    /// The document's id and repository.
    pub document: String,
    pub repository: String,
    /// Who asked.
    pub caller: String,
    pub instruction: String,
}

/// The planner of one server process.
pub struct Planner {
    options: PlannerOptions,
    /// `--public-url`, for `CHOPIN_DOCUMENT_URL`.
    public_url: Option<String>,
    /// Where the documents' working directories are.
    root: PathBuf,
    /// This server, as its rows name it.
    owner: String,
    store: Store,
    /// The planner's runtime, for the store's writes from worker threads.
    runtime: tokio::runtime::Handle,
    state: Mutex<State>,
    /// Woken when a turn is queued or a running one ends.
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Turns admitted and not yet ended: reserved, waiting or running.
    admitted: usize,
    /// The documents with a running turn.
    running: HashSet<String>,
    waiting: VecDeque<Turn>,
}

/// Room for one turn, reserved; given back when dropped unless the turn
/// was queued ([`Slot::queue`]).
pub struct Slot<'a> {
    planner: &'a Planner,
    queued: bool,
}

impl Planner {
    /// Starts the planner's runtime and its worker threads.
    pub fn start(
        options: PlannerOptions,
        public_url: Option<String>,
        root: PathBuf,
        owner: String,
        store: Store,
    ) -> Result<Arc<Planner>, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("planner-store")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the planner's runtime: {e}"))?;
        // The runtime lives as long as the process: dropping it inside the
        // server's own runtime would panic, and its workers use it to the
        // end.
        let runtime: &'static tokio::runtime::Runtime = Box::leak(Box::new(runtime));
        let planner = Arc::new(Planner {
            public_url,
            root,
            owner,
            store,
            runtime: runtime.handle().clone(),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            options,
        });
        for index in 0..planner.options.workers {
            let worker = Arc::clone(&planner);
            std::thread::Builder::new()
                .name(format!("planner-{index}"))
                .spawn(move || worker.work())
                .map_err(|e| format!("cannot start planner worker {index}: {e}"))?;
        }
        Ok(planner)
    }

    /// `--public-url`, when given.
    pub fn public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// This server, as its turns' rows name it.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Room for one more turn, if this process has any.
    pub fn reserve(&self) -> Option<Slot<'_>> {
        let mut state = self.lock();
        if state.admitted >= self.options.workers + self.options.queue {
            return None;
        }
        state.admitted += 1;
        Some(Slot {
            planner: self,
            queued: false,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A worker: takes turns until the process ends.
    fn work(&self) {
        loop {
            let turn = self.next();
            self.run(&turn);
            let mut state = self.lock();
            state.running.remove(&turn.document);
            state.admitted -= 1;
            drop(state);
            self.changed.notify_all();
        }
    }

    /// The oldest waiting turn whose document has none running, once there
    /// is one; its document is then running.
    fn next(&self) -> Turn {
        let mut state = self.lock();
        loop {
            let ready =
                (state.waiting.iter()).position(|turn| !state.running.contains(&turn.document));
            if let Some(turn) = ready.and_then(|index| state.waiting.remove(index)) {
                state.running.insert(turn.document.clone());
                return turn;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Runs a turn and records how it went.
    fn run(&self, turn: &Turn) {
        if let Err(e) = self.runtime.block_on(self.store.start_turn(turn.seq)) {
            log::error(&format!(
                "cannot record the start of turn {}: {e}",
                turn.seq
            ));
        }
        log::started(turn);
        let url = document_url(self.public_url.as_deref(), &turn.document);
        let env = [
            ("CHOPIN_DOCUMENT_ID", turn.document.as_str()),
            ("CHOPIN_DOCUMENT_URL", url.as_str()),
            ("CHOPIN_REPOSITORY", turn.repository.as_str()),
            ("CHOPIN_CALLER", turn.caller.as_str()),
        ];
        let end = match self.work_dir(&turn.document) {
            Ok(dir) => run::turn(&self.options, &dir, &env, &turn.instruction),
            Err(e) => TurnEnd {
                state: "failed",
                exit_status: None,
                output: format!("cannot make the working directory: {e}").into_bytes(),
            },
        };
        crate::metrics::planner_turn(end.state);
        log::ended(turn, &end);
        if let Err(e) = self
            .runtime
            .block_on(self.store.finish_turn(turn.seq, &end))
        {
            log::error(&format!("cannot record the end of turn {}: {e}", turn.seq));
        }
    }

    /// The document's working directory, made if missing.
    fn work_dir(&self, document: &str) -> std::io::Result<PathBuf> {
        let dir = self.root.join(dir_name(document));
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }
}

impl Slot<'_> {
    /// Queues the recorded turn for a worker.
    pub fn queue(mut self, turn: Turn) {
        self.queued = true;
        self.planner.lock().waiting.push_back(turn);
        self.planner.changed.notify_all();
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if !self.queued {
            self.planner.lock().admitted -= 1;
        }
    }
}

/// A document's URL as the planner's `CHOPIN_DOCUMENT_URL` gives it:
/// `<public-url>/documents/<id>` with `--public-url`, else
/// `/documents/<id>`.
pub fn document_url(public_url: Option<&str>, id: &str) -> String {
    let base = public_url.map_or("", |url| url.trim_end_matches('/'));
    format!("{base}/documents/{id}")
}

/// A document's working directory's name: the first 32 hex digits of the
/// SHA-256 of its id (any id, `..` and `/` included, is one safe name).
fn dir_name(document: &str) -> String {
    let mut name = String::with_capacity(64);
    push_hex(&mut name, &Sha256::digest(document.as_bytes()));
    name.truncate(32);
    name
}

/// Where the documents' working directories are: beside a SQLite file,
/// `<file>-planner/` (`chopin.db-planner/`); for an in-memory or
/// PostgreSQL database, `chopin-mcp-planner/` in the system's temporary
/// directory. A document's is `<root>/<32 hex digits>/`, kept between its
/// turns.
pub fn work_root(database: &Database) -> PathBuf {
    match database {
        Database::File(path) => {
            let mut name = path.file_name().unwrap_or_default().to_owned();
            name.push("-planner");
            path.with_file_name(name)
        }
        Database::Memory | Database::Postgres(_) => std::env::temp_dir().join("chopin-mcp-planner"),
    }
}

/// This server, as its turns' rows name it: the machine's host name and
/// the working directories' root. A restarted server is the same server;
/// servers on other machines, or with other databases, are others.
pub fn owner(root: &Path) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}", root.display())
}
