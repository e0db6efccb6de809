//! The workspace's import graph, read from its Rust sources, and the circles
//! in it: `tests/one_way_doors.rs` fails when a circle appears outside the
//! places allowed to have one.
//!
//! A file *reaches* another when its code names a path that resolves to the
//! other's module: `crate::…`, `super::…` (any number of them), `self::…`,
//! or a path that starts with a child module the file declares (`mod x;`
//! then `x::…`), in `use` declarations (groups `{…}` included) and in
//! qualified paths anywhere in the code. Comments, string and character
//! literals and `#[cfg(test)]` modules are not read. A path resolves to the
//! longest module prefix it names (`crate::tools::Document` reaches
//! `tools`). A module naming one of its own descendants (`lib.rs` naming
//! `block::Blocks`, `tools/mod.rs` naming `list::DEFINITION`) is the
//! containment of the module tree, not a door between rooms, and is not
//! counted; a descendant naming its ancestor (`super::Frame`) is. A circle
//! is a strongly connected set of two or more files.
//!
//! Each package is read from its `src/`: `lib.rs` (or `main.rs`) is the root
//! of one crate; `main.rs` beside a `lib.rs`, and every file of `src/bin/`,
//! is a crate of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One source file: its crate, its module path, and the text read.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file's path, relative to the workspace root, with `/`.
    pub path: String,
    /// Which crate it belongs to (a package's library, or one binary).
    pub krate: String,
    /// Its module path inside that crate (`[]` for the root).
    pub module: Vec<String>,
    /// The source text.
    pub text: String,
}

/// A file-to-file import, with the paths that made it (for messages).
pub type Edges = BTreeMap<(String, String), BTreeSet<String>>;

/// Reads every package under `root` that has a `Cargo.toml` and a `src/`
/// (skipping `target`, `node_modules`, `.git` and hidden folders).
pub fn read_workspace(root: &Path) -> Vec<SourceFile> {
    let mut packages = Vec::new();
    find_packages(root, &mut packages);
    packages.sort();
    let mut files = Vec::new();
    for package in packages {
        let src = package.join("src");
        let name = relative(root, &package);
        let name = if name.is_empty() {
            ".".to_owned()
        } else {
            name
        };
        let has_lib = src.join("lib.rs").exists();
        let mut sources = Vec::new();
        rust_files(&src, &mut sources);
        sources.sort();
        for file in sources {
            let inner = relative(&src, &file);
            let (krate, module) = place(&name, &inner, has_lib);
            let text = fs::read_to_string(&file).unwrap_or_default();
            files.push(SourceFile {
                path: relative(root, &file),
                krate,
                module,
                text,
            });
        }
    }
    files
}

fn find_packages(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("Cargo.toml").exists() && dir.join("src").is_dir() {
        out.push(dir.to_path_buf());
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir()
            && !name.starts_with('.')
            && !matches!(name.as_str(), "target" | "node_modules" | "src")
        {
            find_packages(&path, out);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn relative(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The crate, module path and kind of the file at `inner` (relative to a
/// package's `src/`).
fn place(package: &str, inner: &str, has_lib: bool) -> (String, Vec<String>) {
    let parts: Vec<&str> = inner.split('/').collect();
    if parts.first() == Some(&"bin") && parts.len() >= 2 {
        // `src/bin/x.rs` or `src/bin/x/main.rs` is the crate `x`.
        let name = parts[1].trim_end_matches(".rs");
        let krate = format!("{package} (bin {name})");
        let rest: Vec<&str> = parts[2..].to_vec();
        return (krate, module_path(&rest));
    }
    if parts == ["main.rs"] && has_lib {
        return (format!("{package} (bin main)"), Vec::new());
    }
    (package.to_owned(), module_path(&parts))
}

/// `a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` the root.
fn module_path(parts: &[&str]) -> Vec<String> {
    let Some((last, dirs)) = parts.split_last() else {
        return Vec::new();
    };
    let mut module: Vec<String> = dirs.iter().map(|d| (*d).to_owned()).collect();
    if !matches!(*last, "mod.rs" | "lib.rs" | "main.rs") {
        module.push(last.trim_end_matches(".rs").to_owned());
    }
    module
}

/// The code of `text` as tokens: identifiers, `::`, and single punctuation
/// characters, without comments, literals, or `#[cfg(test)]` modules.
fn tokens(text: &str) -> Vec<String> {
    let raw = lex(text);
    drop_test_modules(raw)
}

fn lex(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => i = skip_string(&chars, i + 1),
            'r' | 'b' if starts_raw_string(&chars, i) => i = skip_raw_string(&chars, i),
            'b' if next == Some('"') => i = skip_string(&chars, i + 2),
            'b' if next == Some('\'') => i = skip_char(&chars, i + 1),
            '\'' => i = skip_char(&chars, i),
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                out.push(chars[start..i].iter().collect());
            }
            ':' if next == Some(':') => {
                out.push("::".to_owned());
                i += 2;
            }
            c if c.is_whitespace() => i += 1,
            c => {
                out.push(c.to_string());
                i += 1;
            }
        }
    }
    out
}

/// After an opening quote at `i - 1`: the index after the closing one.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn starts_raw_string(chars: &[char], i: usize) -> bool {
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return false;
    }
    j += 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"') && (i == 0 || !is_ident(chars[i - 1]))
}

fn skip_raw_string(chars: &[char], mut i: usize) -> usize {
    while chars[i] != '#' && chars[i] != '"' {
        i += 1;
    }
    let mut hashes = 0;
    while chars[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// A character literal at `i` (its quote), or a lifetime: the index after it.
fn skip_char(chars: &[char], i: usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        // A lifetime or label: skip the quote, the name is read as a word.
        _ => i + 1,
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Drops `#[cfg(test)] mod name { … }` from a token list.
fn drop_test_modules(tokens: Vec<String>) -> Vec<String> {
    const ATTRIBUTE: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let is_attribute = tokens[i..].iter().take(7).map(String::as_str).eq(ATTRIBUTE);
        if is_attribute && tokens.get(i + 7).is_some_and(|t| t == "mod") {
            let mut j = i + 8;
            while j < tokens.len() && tokens[j] != "{" && tokens[j] != ";" {
                j += 1;
            }
            if tokens.get(j).is_some_and(|t| t == "{") {
                let mut depth = 0;
                while j < tokens.len() {
                    match tokens[j].as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            i = j + 1;
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// The child modules a file declares (`mod x;` or `mod x { … }`).
fn declared_children(tokens: &[String]) -> BTreeSet<String> {
    tokens
        .windows(2)
        .filter(|w| w[0] == "mod")
        .map(|w| w[1].clone())
        .collect()
}

/// Every path the tokens name from `start` on, with groups expanded:
/// `a::{b, c::{d}}` gives `a::b` and `a::c::d`.
fn paths_at(tokens: &[String], start: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    expand(tokens, start, Vec::new(), &mut out);
    out
}

/// Reads `seg (:: seg)* (:: { tree, … })?` at `i` after `prefix`.
fn expand(
    tokens: &[String],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(String::as_str) {
                        None => return i,
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        Some(_) => i = expand(tokens, i, prefix.clone(), out),
                    }
                }
            }
            Some(word)
                if word
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_') =>
            {
                prefix.push(word.to_owned());
                i += 1;
                if tokens.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                    continue;
                }
                out.push(prefix);
                return i;
            }
            _ => {
                if !prefix.is_empty() {
                    out.push(prefix);
                }
                return i;
            }
        }
    }
}

/// The file-to-file edges of `files`.
pub fn edges(files: &[SourceFile]) -> Edges {
    let mut modules: BTreeMap<(&str, &[String]), &str> = BTreeMap::new();
    for file in files {
        modules.insert((&file.krate, &file.module), &file.path);
    }
    let mut edges = Edges::new();
    for file in files {
        let tokens = tokens(&file.text);
        let children = declared_children(&tokens);
        for i in 0..tokens.len() {
            // Only the start of a path: not `a::crate`, not `x.crate`.
            if i > 0 && tokens[i - 1] == "::" {
                continue;
            }
            let word = tokens[i].as_str();
            let starts = matches!(word, "crate" | "super" | "self") || children.contains(word);
            let follows = tokens.get(i + 1).is_some_and(|t| t == "::");
            if !starts || !follows || (i > 0 && tokens[i - 1] == "mod") {
                continue;
            }
            for path in paths_at(&tokens, i) {
                let Some(target) = resolve(&path, &file.module) else {
                    continue;
                };
                for len in (0..=target.len()).rev() {
                    let to_module = &target[..len];
                    if let Some(to) = modules.get(&(file.krate.as_str(), to_module)) {
                        let contained = to_module.starts_with(&file.module);
                        if !contained {
                            edges
                                .entry((file.path.clone(), (*to).to_owned()))
                                .or_default()
                                .insert(path.join("::"));
                        }
                        break;
                    }
                }
            }
        }
    }
    edges
}

/// The module path a path names, from the file of `module`.
fn resolve(path: &[String], module: &[String]) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            base.pop()?;
            base
        }
        child => {
            let mut base = module.to_vec();
            base.push(child.to_owned());
            base
        }
    };
    let mut rest = rest;
    while let Some((next, tail)) = rest.split_first() {
        if next == "super" {
            base.pop()?;
            rest = tail;
        } else {
            break;
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The circles: strongly connected sets of two or more files, each sorted,
/// in a stable order.
pub fn circles(edges: &Edges) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
        graph.entry(to).or_default();
    }
    // Tarjan's algorithm, iteratively.
    let nodes: Vec<&str> = graph.keys().copied().collect();
    let index_of: BTreeMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let n = nodes.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut found = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            let successors = &graph[nodes[v]];
            if *child < successors.len() {
                let w = index_of[successors[*child]];
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(nodes[w].to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    found.push(component);
                }
            }
        }
    }
    found.sort();
    found
}

/// A circle and what ties it, for a failure message.
pub fn describe(circle: &[String], edges: &Edges) -> String {
    let mut text = format!("circle of {} files: {}\n", circle.len(), circle.join(", "));
    for ((from, to), paths) in edges {
        if circle.contains(from) && circle.contains(to) {
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            text.push_str(&format!("  {from} -> {to}: {}\n", paths.join(", ")));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, module: &[&str], text: &str) -> SourceFile {
        SourceFile {
            path: path.to_owned(),
            krate: "k".to_owned(),
            module: module.iter().map(|m| (*m).to_owned()).collect(),
            text: text.to_owned(),
        }
    }

    fn found(files: &[SourceFile]) -> Vec<Vec<String>> {
        circles(&edges(files))
    }

    #[test]
    fn two_files_that_name_each_other_through_crate_paths_are_a_circle() {
        let files = [
            file("lib.rs", &[], "mod a; mod b;"),
            file("a.rs", &["a"], "use crate::b::B; pub struct A;"),
            file("b.rs", &["b"], "fn f() -> crate::a::A { todo!() }"),
        ];
        assert_eq!(
            found(&files),
            vec![vec!["a.rs".to_owned(), "b.rs".to_owned()]]
        );
    }

    #[test]
    fn a_parent_naming_its_children_is_containment_but_siblings_through_super_are_doors() {
        let nested = [
            file("lib.rs", &[], "mod x;"),
            file(
                "x/mod.rs",
                &["x"],
                "mod y; mod z; use y::{Y, inner::{Z}}; pub struct X;",
            ),
            file("x/y.rs", &["x", "y"], "use super::X; use super::z::Z;"),
            file("x/z.rs", &["x", "z"], "fn f() { super::y::g() }"),
        ];
        assert_eq!(
            found(&nested),
            vec![vec!["x/y.rs".to_owned(), "x/z.rs".to_owned()]]
        );
        let edges = edges(&nested);
        assert!(edges.contains_key(&("x/y.rs".to_owned(), "x/mod.rs".to_owned())));
        assert!(!edges.contains_key(&("x/mod.rs".to_owned(), "x/y.rs".to_owned())));
        let grouped = [
            file("lib.rs", &[], "mod a; mod b;"),
            file("a.rs", &["a"], "use crate::{b::{self, B}, c};"),
            file(
                "b.rs",
                &["b"],
                "use super::a::A; use super::super::nothing;",
            ),
        ];
        assert_eq!(found(&grouped).len(), 1);
    }

    #[test]
    fn comments_strings_and_test_modules_are_not_imports() {
        let files = [
            file("lib.rs", &[], "mod a; mod b;"),
            file("a.rs", &["a"], "use crate::b::B;"),
            file(
                "b.rs",
                &["b"],
                "// crate::a::A\n/* crate::a::A */ const S: &str = \"crate::a::A\";\n\
                 const R: &str = r#\"crate::a::A\"#; const C: char = '\"';\n\
                 fn f<'a>(x: &'a str) {}\n#[cfg(test)]\nmod tests { use crate::a::A; }",
            ),
        ];
        assert!(found(&files).is_empty(), "{:?}", edges(&files));
    }

    #[test]
    fn a_one_way_chain_has_no_circle() {
        let files = [
            file("lib.rs", &[], "mod a; mod b; mod c; pub use a::A;"),
            file("a.rs", &["a"], "use crate::b::B;"),
            file("b.rs", &["b"], "use crate::c::C;"),
            file("c.rs", &["c"], "pub struct C;"),
        ];
        assert!(found(&files).is_empty());
        // a -> b, b -> c; lib.rs naming `a::A` is containment.
        assert_eq!(edges(&files).len(), 2);
    }
}
