//! `prepareUpdate` (SURFACE.md §11): update_document's arguments prepared
//! as the endpoint prepares them for its update effect, for a host that
//! stores an update outside the endpoint (as Chopin's update module
//! exports one). Ids are minted from the system clock and randomness, as
//! the package's endpoints mint them.

use chopin_mcp::{PreparedUpdate, SystemIds, prepare_update};

/// The prepared update for `arguments` (the JSON text of update_document's
/// arguments object) as JSON: `{"input": {id, revision, plan,
/// idempotencyKey, fingerprint}}` with the canonical plan, `{"issues":
/// [...]}` for a plan that is not clean, or `null` where the endpoint
/// answers `update_document requires a valid revision and plan`.
pub fn prepared(arguments: &str) -> String {
    // Written out, so that the input keeps its documented key order.
    let member = |key: &str, value: serde_json::Result<String>| {
        value.map_or_else(
            |_| "null".to_owned(),
            |json| format!("{{\"{key}\":{json}}}"),
        )
    };
    match prepare_update(arguments, &SystemIds) {
        Some(PreparedUpdate::Update(input)) => member("input", serde_json::to_string(&input)),
        Some(PreparedUpdate::Issues(issues)) => member("issues", serde_json::to_string(&issues)),
        None => "null".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_arguments_are_null_and_a_clean_plan_is_an_input() {
        assert_eq!(prepared("{}"), "null");
        assert_eq!(prepared("not json"), "null");
        let text = prepared(r##"{"id":"a","revision":0,"plan":"# A\n","idempotencyKey":"k"}"##);
        assert!(
            text.starts_with(
                r##"{"input":{"id":"a","revision":0,"plan":"# A\n","idempotencyKey":"k","fingerprint":""##
            ),
            "{text}"
        );
    }
}
