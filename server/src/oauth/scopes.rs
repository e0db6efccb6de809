//! The scopes a token grants, read with the endpoint's scope names
//! ([`chopin_mcp::Scopes`]) from its `scope` or `scp` member (AUTH.md §2).

use chopin_mcp::{Granted, Scopes};
use serde_json::Value;

/// The grant of a `scope` member (space-separated), else of `scp` (a string
/// or an array of strings); `scope` wins when both are present.
pub fn granted(scopes: &Scopes, scope: Option<&Value>, scp: Option<&Value>) -> Granted {
    match (scope, scp) {
        (Some(Value::String(text)), _) | (None, Some(Value::String(text))) => scopes.of_scope(text),
        (None, Some(Value::Array(names))) => {
            scopes.of_names(names.iter().filter_map(Value::as_str))
        }
        _ => Granted::NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scope_wins_over_scp() {
        let endpoint = chopin_mcp::Endpoint::new(chopin_mcp::Config::new()).unwrap();
        let names = endpoint.scopes();
        let grant =
            |scope: Option<Value>, scp: Option<Value>| granted(names, scope.as_ref(), scp.as_ref());
        let read = Granted::new(true, false, false);
        let read_create = Granted::new(true, true, false);
        assert_eq!(grant(Some(json!("openid chopin:read")), None), read);
        assert_eq!(
            grant(Some(json!("chopin:read chopin:create")), None),
            read_create
        );
        assert_eq!(
            grant(Some(json!("chopin:write chopin:read chopin:create")), None),
            Granted::ALL
        );
        assert_eq!(grant(None, Some(json!(["chopin:read"]))), read);
        assert_eq!(
            grant(None, Some(json!("chopin:create chopin:read"))),
            read_create
        );
        assert_eq!(
            grant(Some(json!("chopin:read")), Some(json!(["chopin:create"]))),
            read
        );
        assert_eq!(grant(Some(json!("chopin:readx")), None), Granted::NONE);
        assert_eq!(
            grant(Some(json!(7)), Some(json!("chopin:read"))),
            Granted::NONE
        );
    }
}
