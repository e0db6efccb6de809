//! `list_documents`: the documents of one repository.

use std::borrow::Cow;

#[cfg(doc)]
use super::DocumentSummary;
use super::Frame;
use crate::json::{self, Level, Raw, WriteJson};

pub(crate) const DEFINITION: &str = r#"{"name":"list_documents","title":"List plan documents","description":"List Chopin documents available in a repository.","inputSchema":{"type":"object","properties":{"repository":{"type":"string","pattern":"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$"}},"required":["repository"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"documents":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"}},"required":["id","title"],"additionalProperties":false}}},"required":["documents"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#;

pub(crate) const INVALID: crate::jsonrpc::RpcError = crate::jsonrpc::RpcError {
    code: -32602,
    message: "list_documents requires a repository",
};

/// The repository named by exactly `{repository}`, if it is a valid one.
pub(crate) fn arguments(raw: Raw<'_>) -> Option<Cow<'_, str>> {
    let members = json::members(raw, ["repository"])?;
    let repository = json::string(members.values[0]?)?;
    (!members.other && is_repository(&repository)).then_some(repository)
}

/// `owner/name` as GitHub allows them: the owner 1–39 letters, digits and
/// single inner hyphens; the name 1–100 of `[A-Za-z0-9._-]`, not `.` or `..`.
/// (The advertised pattern uses lookarounds; these are the same conditions.)
pub fn is_repository(text: &str) -> bool {
    let Some((owner, name)) = text.split_once('/') else {
        return false;
    };
    let owner_ok = (1..=39).contains(&owner.len())
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !owner.starts_with('-')
        && !owner.ends_with('-')
        && !owner.contains("--");
    let name_ok = (1..=100).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && name != "."
        && name != "..";
    owner_ok && name_ok
}

/// `{"documents":[…]}`.
struct Listing<'a, T>(&'a [T]);

impl<T: WriteJson> WriteJson for Listing<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>, level: Level) {
        json::object(out, level, &[("documents", &self.0)]);
    }

    fn len_hint(&self) -> usize {
        json::object_len_hint(&[("documents", &self.0)])
    }
}

/// Appends the result for the host's answer: owned summaries
/// ([`DocumentSummary`]) or borrowed ones.
pub(crate) fn write_result<T: WriteJson>(out: &mut Vec<u8>, frame: Frame<'_>, documents: &[T]) {
    super::write_text_result(out, frame, &Listing(documents), false);
}

#[cfg(test)]
mod tests {
    use super::is_repository;

    #[test]
    fn repositories_follow_the_advertised_pattern() {
        for valid in [
            "githubnext/chopin",
            "a/b",
            "a-b/.github",
            "a/...",
            &format!("{}/x", "a".repeat(39)),
        ] {
            assert!(is_repository(valid), "{valid}");
        }
        for invalid in [
            "./chopin",
            "owner/..",
            "owner/.",
            "-a/b",
            "a-/b",
            "a--b/c",
            "a/b/c",
            "a",
            "/b",
            "a/",
            &format!("{}/x", "a".repeat(40)),
            &format!("a/{}", "b".repeat(101)),
            "a/b c",
            "ä/b",
        ] {
            assert!(!is_repository(invalid), "{invalid}");
        }
    }
}
