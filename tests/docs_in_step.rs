//! The README shows the drive loop that opens the crate docs
//! (`docs/embedding.md`): both are compiled as doc tests, and this keeps them
//! the same code, so the README never shows a loop the crate docs moved on
//! from.

use std::fs;

/// The first ```` ```rust ```` block of a Markdown file.
fn first_rust_block(path: &str) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text
        .find("```rust\n")
        .unwrap_or_else(|| panic!("{path}: no rust block"))
        + 8;
    let len = text[start..].find("```\n").expect("the block ends");
    text[start..start + len].to_owned()
}

#[test]
fn the_readme_shows_the_crate_docs_drive_loop() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = first_rust_block(&format!("{root}/README.md"));
    let crate_docs = first_rust_block(&format!("{root}/docs/embedding.md"));
    assert!(readme.contains("Outcome::Respond(response) => break response"));
    assert_eq!(readme, crate_docs);
}

#[test]
fn neither_drive_loop_hides_lines() {
    let root = env!("CARGO_MANIFEST_DIR");
    for path in ["README.md", "docs/embedding.md"] {
        let block = first_rust_block(&format!("{root}/{path}"));
        assert!(
            !block
                .lines()
                .any(|line| line == "#" || line.starts_with("# ")),
            "{path}: the drive loop hides a line from readers"
        );
    }
}

// docs/plans.md: the plan dialect for authors, held to the catalog the
// validator runs on.

use chopin_mcp::dialect::{self, AttributeType, Content, Placement};

fn read(path: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    fs::read_to_string(format!("{root}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The page's component sections: `### `Name`` headings, each with its
/// text up to the next heading.
fn component_sections(page: &str) -> Vec<(String, String)> {
    let mut sections = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in page.lines() {
        if line.starts_with("#") {
            sections.extend(current.take());
            let name = line
                .strip_prefix("### `")
                .and_then(|rest| rest.strip_suffix('`'));
            current = name.map(|name| (name.to_owned(), String::new()));
        } else if let Some((_, text)) = &mut current {
            text.push_str(line);
            text.push('\n');
        }
    }
    sections.extend(current);
    sections
}

/// The list item of `section` that starts with `prefix`, its continuation
/// lines joined to it.
fn line_of(section: &str, prefix: &str, name: &str) -> String {
    let mut lines = section.lines().skip_while(|line| !line.starts_with(prefix));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{name}: no line starting {prefix:?}"));
    lines
        .take_while(|line| line.starts_with("  "))
        .fold(first.to_owned(), |item, line| item + " " + line.trim())
}

fn ticked(name: &str) -> String {
    format!("`{name}`")
}

#[test]
fn the_plans_page_describes_every_component_and_attribute_of_the_catalog() {
    let page = read("docs/plans.md");
    let sections = component_sections(&page);
    let documented: Vec<&str> = sections.iter().map(|(name, _)| name.as_str()).collect();
    let mut catalog: Vec<&str> = dialect::components().iter().map(|c| c.name()).collect();
    let mut sorted = documented.clone();
    sorted.sort_unstable();
    catalog.sort_unstable();
    assert_eq!(sorted, catalog, "docs/plans.md's component sections");
    for (name, section) in &sections {
        let component = dialect::component(name).unwrap();
        // Where it stands.
        let stands = line_of(section, "- **In**:", name);
        for parent in component.parents() {
            assert!(stands.contains(&ticked(parent)), "{name}: {stands}");
        }
        match component.placement() {
            Placement::Text => assert!(stands.contains("inside prose only"), "{name}"),
            Placement::Both => assert!(stands.contains("or inside prose"), "{name}"),
            Placement::Flow => assert!(!stands.contains("prose"), "{name}"),
        }
        // What it holds.
        let holds = line_of(section, "- **Holds**:", name);
        match component.content() {
            Content::Blocks => assert!(holds.contains("Markdown blocks"), "{name}"),
            Content::Phrasing => assert!(holds.contains("inline Markdown"), "{name}"),
            Content::Empty => assert!(holds.contains("nothing"), "{name}"),
            Content::Components(children) => {
                for child in children {
                    assert!(holds.contains(&ticked(child)), "{name}: {holds}");
                }
            }
        }
        // What may not stand inside it: named, or for a long list the few
        // components that may.
        let forbids = component.forbids();
        let said = format!("{stands} {holds}");
        let allowed: Vec<&str> = dialect::components()
            .iter()
            .map(|c| c.name())
            .filter(|other| !forbids.contains(other))
            .collect();
        let named = if allowed.len() < forbids.len() {
            &allowed[..]
        } else {
            forbids
        };
        for other in named {
            assert!(said.contains(&ticked(other)), "{name}: {other} in {said}");
        }
        // Its attributes: a row each, and no row for anything else.
        let rows: Vec<&str> = section
            .lines()
            .filter(|line| line.starts_with("| `"))
            .collect();
        let declared: Vec<_> = component.attributes().collect();
        assert_eq!(rows.len(), declared.len(), "{name}: {rows:?}");
        if declared.is_empty() {
            assert!(section.contains("No attributes."), "{name}");
        }
        for attribute in declared {
            let cell = format!("| `{}` | ", attribute.name());
            let row = rows
                .iter()
                .find(|row| row.starts_with(&cell))
                .unwrap_or_else(|| panic!("{name}: no row for {}", attribute.name()));
            let need = if component.mints_id() && attribute.name() == "id" {
                "minted"
            } else if attribute.required() {
                "required"
            } else {
                "optional"
            };
            assert!(row[cell.len()..].starts_with(need), "{name}: {row}");
            let value = row[cell.len()..].split(" | ").nth(1).unwrap_or_default();
            match attribute.value() {
                AttributeType::Id => assert!(value.contains("a ULID"), "{row}"),
                AttributeType::Reference(max) => assert!(
                    value.contains(&format!("a reference, at most {max} characters")),
                    "{row}"
                ),
                AttributeType::Text(max) => assert!(
                    value.contains(&format!("text, at most {max} characters")),
                    "{row}"
                ),
                AttributeType::Integer(min, max) => {
                    assert!(value.contains(&format!("from {min} to {max}")), "{row}");
                }
                AttributeType::Enum(values) => {
                    for allowed in values {
                        assert!(value.contains(&ticked(allowed)), "{row}: {allowed}");
                    }
                }
            }
            assert_eq!(
                value.contains("may be blank"),
                attribute.may_be_blank(),
                "{row}"
            );
        }
    }
}

#[test]
fn the_plans_page_complete_plan_is_clean_and_mints_what_the_page_says() {
    let page = read("docs/plans.md");
    let section = &page[page.find("## A complete plan").expect("the section")..];
    let start = section.find("```mdx\n").expect("an mdx block") + 7;
    let len = section[start..].find("\n```\n").expect("the block ends") + 1;
    let plan = &section[start..start + len];
    let report = dialect::check(plan, &dialect::SequentialIds::new(0));
    assert_eq!(report.issues, [], "the page's complete plan");
    // It uses every component but those that record what happened after
    // it was written (answers) or point outside it (an experiment).
    for component in dialect::components() {
        if !["Answer", "Previous", "Experiment"].contains(&component.name()) {
            assert!(
                plan.contains(&format!("<{}", component.name())),
                "{}",
                component.name()
            );
        }
    }
    assert!(
        section.contains(&format!("mints {} ids", report.minted)),
        "the page says how many ids fmt mints ({})",
        report.minted
    );
}

/// The user-facing pages cite only files that are in the repository: a
/// link to a Markdown file resolves from the page's folder, and no page
/// names a spec that lives elsewhere (an upper-case `NAME.md`).
#[test]
fn the_readme_and_docs_cite_only_files_in_the_repository() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<String> = [
        "README.md",
        "BENCHMARKS.md",
        "dialect/README.md",
        "dialect/fuzz/README.md",
        "fuzz/README.md",
    ]
    .map(str::to_owned)
    .to_vec();
    for entry in fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    for page in &pages {
        let text = read(page);
        let folder = root.join(page).parent().unwrap().to_path_buf();
        for link in text.split("](").skip(1) {
            let target = link.split([')', '#']).next().unwrap_or_default();
            if target.ends_with(".md") && !target.contains("://") {
                assert!(folder.join(target).exists(), "{page} links to {target}");
            }
        }
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || "._/-".contains(c))) {
            let Some(stem) = word.strip_suffix(".md") else {
                continue;
            };
            let name = stem.rsplit('/').next().unwrap_or_default();
            if !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                let found = [root.join(word), folder.join(word)]
                    .iter()
                    .any(|path| path.exists());
                assert!(found, "{page} cites {word}, which is not in the repository");
            }
        }
    }
}
