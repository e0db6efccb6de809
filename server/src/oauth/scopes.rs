//! The scopes a token grants, as the endpoint's two scopes (AUTH.md §1.2).

use serde_json::Value;

/// The endpoint's scopes a token carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Grant {
    pub read: bool,
    pub create: bool,
}

impl Grant {
    pub const ALL: Grant = Grant {
        read: true,
        create: true,
    };
}

/// The configured names of the read and create scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeNames {
    pub read: String,
    pub create: String,
}

impl Default for ScopeNames {
    fn default() -> Self {
        ScopeNames {
            read: "chopin:read".to_owned(),
            create: "chopin:create".to_owned(),
        }
    }
}

impl ScopeNames {
    /// The grant of a `scope` claim (space-separated), else of `scp` (a
    /// string or an array of strings); `scope` wins when both are present.
    pub fn grant(&self, scope: Option<&Value>, scp: Option<&Value>) -> Grant {
        let mut grant = Grant::default();
        let mut note = |name: &str| {
            grant.read |= name == self.read;
            grant.create |= name == self.create;
        };
        match (scope, scp) {
            (Some(Value::String(text)), _) | (None, Some(Value::String(text))) => {
                text.split(' ').for_each(&mut note);
            }
            (None, Some(Value::Array(names))) => {
                names.iter().filter_map(Value::as_str).for_each(&mut note);
            }
            _ => {}
        }
        grant
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scope_wins_over_scp() {
        let names = ScopeNames::default();
        let read = Grant {
            read: true,
            create: false,
        };
        assert_eq!(names.grant(Some(&json!("openid chopin:read")), None), read);
        assert_eq!(
            names.grant(Some(&json!("chopin:read chopin:create")), None),
            Grant::ALL
        );
        assert_eq!(names.grant(None, Some(&json!(["chopin:read"]))), read);
        assert_eq!(
            names.grant(None, Some(&json!("chopin:create chopin:read"))),
            Grant::ALL
        );
        assert_eq!(
            names.grant(Some(&json!("chopin:read")), Some(&json!(["chopin:create"]))),
            read
        );
        assert_eq!(
            names.grant(Some(&json!("chopin:readx")), None),
            Grant::default()
        );
        assert_eq!(
            names.grant(Some(&json!(7)), Some(&json!("chopin:read"))),
            Grant::default()
        );
    }
}
