//! The SQLite store's read path in process, without HTTP: `list_summaries`
//! of the load bench's repository (100 summaries, as `benches/load.sh`
//! seeds it), and `read` (rusqlite) and `read_into` (the C interface,
//! reused buffers) of one document, on a database file in WAL mode with the
//! server's reader connections.
//!
//! `cargo bench -p chopin-mcp-server --bench store`

use chopin_mcp::Document;
use chopin_mcp_server::store::{Imported, Listing, Setup, Sqlite};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const REPOSITORY: &str = "githubnext/chopin";
const READ_ID: &str = "f401c8d6-3717-4f1d-8473-cfdd0af894e4";

/// The load bench's import: the read document and 99 more.
fn import() -> Vec<Imported> {
    let mut documents = vec![Imported {
        id: READ_ID.to_owned(),
        repository: REPOSITORY.to_owned(),
        title: "Release readiness".to_owned(),
        source: "# Release readiness\n".to_owned(),
        revision: 4,
    }];
    documents.extend((1..=99).map(|i| Imported {
        id: format!("00000000-0000-4000-8000-{i:012}"),
        repository: REPOSITORY.to_owned(),
        title: format!("Plan {i:03}"),
        source: format!("# Plan {i:03}\n\nA summary-sized plan.\n"),
        revision: 0,
    }));
    documents
}

fn benches(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("chopin-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Sqlite::open(&dir.join("bench.db")).unwrap();
    store
        .setup(&Setup {
            grants: vec![("octocat".to_owned(), vec!["*".to_owned()])],
            import: import(),
            ..Setup::default()
        })
        .unwrap();
    let Listing::Listed(summaries) = store.list_summaries("octocat", REPOSITORY).unwrap() else {
        panic!("octocat is granted every repository");
    };
    assert_eq!(summaries.borrowed().len(), 100);

    let mut group = c.benchmark_group("sqlite");
    group.bench_function("list_summaries_100", |b| {
        b.iter(|| {
            black_box(
                store
                    .list_summaries(black_box("octocat"), REPOSITORY)
                    .unwrap(),
            )
        })
    });
    group.bench_function("read", |b| {
        b.iter(|| black_box(store.read(black_box("octocat"), READ_ID).unwrap()))
    });
    let mut document = Document {
        archived_at: None,
        description: None,
        url: None,
        id: String::new(),
        title: String::new(),
        brief: None,
        source: String::new(),
        revision: 0,
    };
    group.bench_function("read_into", |b| {
        b.iter(|| {
            black_box(
                store
                    .read_into(black_box("octocat"), READ_ID, &mut document)
                    .unwrap(),
            )
        })
    });
    group.finish();
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(store_benches, benches);
criterion_main!(store_benches);
