//! Canonicalization (DIALECT.md §10): a minimal edit that inserts
//! ` id="<ULID>"` right after the tag name of every element that needs an id.

use super::catalog;
use super::tree::{Attr, AttrValue, Kind, Tree};
use crate::IdSource;

/// Mints ids into `tree` (as each element's first attribute) and returns the
/// canonical plan and the number of ids minted.
pub(crate) fn canonicalize(plan: &str, tree: &mut Tree, ids: &dyn IdSource) -> (String, usize) {
    // Every element anywhere (inside unknown components, below too-deep
    // nodes): the arena holds them all, so no walk is needed.
    let mut sites: Vec<(usize, usize)> = tree
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let el = n.kind.element()?;
            let name = el.name.as_deref()?;
            let has_id = el.attrs.iter().any(|a| a.name() == Some("id"));
            (catalog::mints_id(name) && !has_id).then_some((el.name_end, i))
        })
        .collect();
    sites.sort_unstable();
    let mut out = String::with_capacity(plan.len() + 32 * sites.len());
    let mut copied = 0;
    for &(at, node) in &sites {
        let id = ids.mint().to_string();
        out.push_str(plan.get(copied..at).unwrap_or(""));
        out.push_str(" id=\"");
        out.push_str(&id);
        out.push('"');
        copied = at;
        if let Kind::FlowElement(el) | Kind::TextElement(el) = &mut tree.nodes[node].kind {
            el.attrs.insert(
                0,
                Attr::Named {
                    name: "id".to_owned(),
                    value: AttrValue::String(id),
                },
            );
        }
    }
    out.push_str(plan.get(copied..).unwrap_or(""));
    (out, sites.len())
}
