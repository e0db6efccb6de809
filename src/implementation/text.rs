//! The text rules the model shares: not blank within a length (DIALECT.md
//! §1.3's blank, lengths in scalar values), and a run's pull-request URLs.

use chopin_dialect::is_js_whitespace;

/// Whether `value` has at most `max` scalar values and is not blank.
pub(crate) fn not_blank_within(value: &str, max: usize) -> bool {
    let fits = value.len() <= max || value.chars().nth(max).is_none();
    fits && value.chars().any(|c| !is_js_whitespace(c))
}

/// Whether `url` is exactly `https://github.com/<repository>/pull/<n>`
/// with `n` in `[1-9][0-9]*`, and an optional `/` after it (§1.2).
pub(crate) fn is_pull_request_of(url: &str, repository: &str) -> bool {
    let Some(rest) = url
        .strip_prefix("https://github.com/")
        .and_then(|rest| rest.strip_prefix(repository))
        .and_then(|rest| rest.strip_prefix("/pull/"))
    else {
        return false;
    };
    let number = rest.strip_suffix('/').unwrap_or(rest);
    let bytes = number.as_bytes();
    matches!(bytes.first(), Some(b'1'..=b'9')) && bytes.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_request_urls_name_the_run_repository_exactly() {
        let repository = "githubnext/chopin";
        for url in [
            "https://github.com/githubnext/chopin/pull/1",
            "https://github.com/githubnext/chopin/pull/90/",
        ] {
            assert!(is_pull_request_of(url, repository), "{url}");
        }
        for url in [
            "https://github.com/githubnext/chopin/pull/0",
            "https://github.com/githubnext/chopin/pull/01",
            "https://github.com/githubnext/chopin/pull/",
            "https://github.com/githubnext/chopin/pull/1//",
            "https://github.com/githubnext/chopin/pull/1?x",
            "https://github.com/githubnext/chopinx/pull/1",
            "https://github.com/elsewhere/other/pull/9",
            "http://github.com/githubnext/chopin/pull/1",
            "https://github.com/githubnext/chopin/issues/1",
            "https://github.com/githubnext/chopin/pull/1٣",
        ] {
            assert!(!is_pull_request_of(url, repository), "{url}");
        }
    }
}
