//! Links, images and footnote identifiers (§9.3–§9.6).

use super::{Walk, attr};
use crate::is_js_whitespace;
use crate::patterns::{has_scheme, is_hidden, is_hosted_image};
use crate::tree::{Kind, NodeId};

impl Walk<'_> {
    pub(super) fn link(&mut self, url: &str, path: usize, at: NodeId) {
        if !has_scheme(url) {
            return;
        }
        match url::Url::parse(url) {
            Err(_) => self.issue("bad-link", "Link is not a valid URL".to_owned(), path, at),
            Ok(u) => {
                let scheme = u.scheme();
                if scheme != "https" && scheme != "mailto" {
                    self.issue(
                        "bad-link-protocol",
                        format!("`{scheme}:` links are not allowed"),
                        path,
                        at,
                    );
                }
            }
        }
    }

    pub(super) fn image(&mut self, url: &str, path: usize, at: NodeId) {
        if is_hosted_image(url) {
            return;
        }
        match url::Url::parse(url) {
            Err(_) => self.issue(
                "bad-image",
                "Image must be an absolute URL or a Chopin-hosted /images/ path".to_owned(),
                path,
                at,
            ),
            Ok(u) => {
                if u.scheme() != "https" {
                    self.issue(
                        "bad-image-protocol",
                        format!("`{}:` images are not allowed", u.scheme()),
                        path,
                        at,
                    );
                }
            }
        }
    }

    /// §9.6 for one node (into the deferred issues).
    pub(super) fn introduced_url(&mut self, f: usize) {
        let id = self.frames[f].node;
        let tree = self.tree;
        let found = match &tree.node(id).kind {
            Kind::Link { url } => Some((url.as_str(), true)),
            Kind::Image { url } => Some((url.as_str(), false)),
            Kind::FlowElement(el) | Kind::TextElement(el)
                if el.name.as_deref() == Some("Image") =>
            {
                attr(el, "src").map(|s| (s, false))
            }
            _ => None,
        };
        if let Some((url, link)) = found {
            if let Some(message) = introduced_url(url, link) {
                self.deferred_issue(
                    if link { "bad-link" } else { "bad-image" },
                    message.to_owned(),
                    f,
                    id,
                );
            }
        }
    }
}

pub(super) fn introduced_url(url: &str, link: bool) -> Option<&'static str> {
    if url.chars().any(is_hidden) {
        return Some(if link {
            "Link contains hidden or control characters"
        } else {
            "Image URL contains hidden or control characters"
        });
    }
    if url.starts_with(is_js_whitespace) || url.ends_with(is_js_whitespace) {
        return Some(if link {
            "Link cannot start or end with whitespace"
        } else {
            "Image URL cannot start or end with whitespace"
        });
    }
    if !has_scheme(url) {
        let squeezed: String = url.chars().filter(|&c| !is_js_whitespace(c)).collect();
        if has_scheme(&squeezed) {
            return Some(if link {
                "Link hides a protocol behind whitespace"
            } else {
                "Image URL hides a protocol behind whitespace"
            });
        }
        if link && (url.starts_with("//") || url.contains('\\')) {
            return Some("Link without a protocol must stay in the repository");
        }
    }
    None
}

/// §9.3: micromark's label normalization, then a full case round trip.
pub(crate) fn footnote_identifier(label: &str) -> String {
    let mut collapsed = String::with_capacity(label.len());
    let mut in_ws = false;
    for c in label.chars() {
        if matches!(c, '\t' | '\n' | '\r' | ' ') {
            if !in_ws {
                collapsed.push(' ');
            }
            in_ws = true;
        } else {
            collapsed.push(c);
            in_ws = false;
        }
    }
    let trimmed = collapsed.strip_prefix(' ').unwrap_or(&collapsed);
    let trimmed = trimmed.strip_suffix(' ').unwrap_or(trimmed);
    trimmed.to_lowercase().to_uppercase()
}
