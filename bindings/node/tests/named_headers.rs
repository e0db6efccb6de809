//! `NAMED` (src/wire.rs) lists every request header the endpoint reads:
//! the package hands the handler's requests to the endpoint with those
//! headers alone (Web `Headers.get` of each is cheaper than walking them
//! all), so a header the endpoint reads and `NAMED` lacks would be lost.
//! The endpoint's sources are read for the names they look up: the
//! `parts.all("…")` and `parts.header("…")` calls, and the headers
//! `src/headers.rs` keeps (`KEPT`). The HTTP/1.1 adapter (`src/http1.rs`,
//! framing: `connection`, `expect`) is the host's side, not the endpoint's;
//! a document's URL (`src/exchange/document.rs`, `Endpoint::document`) is
//! another entry point than an MCP exchange, which the package does not
//! serve.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The string literals that follow `pattern` in `text`.
fn literals_after<'a>(text: &'a str, pattern: &str) -> Vec<&'a str> {
    text.match_indices(pattern)
        .filter_map(|(at, _)| {
            let rest = &text[at + pattern.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn named_holds_every_header_the_endpoint_reads_and_no_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut read = BTreeSet::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if ["http1.rs", "http.rs", "fuzz.rs", "document.rs"].contains(&name.as_str()) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        // The endpoint's code, not its unit tests.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for pattern in ["parts.all(\"", "parts.header(\""] {
            read.extend(literals_after(code, pattern).into_iter().map(str::to_owned));
        }
        if let Some(at) = code.find("const KEPT: [&str;") {
            let list = &code[at..at + code[at..].find("];").unwrap()];
            let kept: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
            assert!(!kept.is_empty());
            read.extend(kept.into_iter().map(str::to_owned));
        }
    }
    assert!(
        read.contains("origin") && read.contains("authorization"),
        "{read:?}"
    );
    let named: BTreeSet<String> = chopin_mcp_node::NAMED
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(
        read, named,
        "the endpoint reads {read:?}; NAMED lists {named:?}"
    );
}
