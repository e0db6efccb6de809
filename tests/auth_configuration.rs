//! AUTH.md §1.1 and §1.3: OAuth settings the endpoint cannot serve with are
//! `ConfigError`s, and a token's scopes are read into `Granted` by the
//! configured names.

use chopin_mcp::{Config, ConfigError, Endpoint, Granted};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://login.example.com";

fn error(config: Config) -> ConfigError {
    Endpoint::new(config).expect_err("refused")
}

#[test]
fn the_resource_is_https_or_loopback_http_with_a_path() {
    for resource in [
        "https://mcp.example.com",
        "https://mcp.example.com/",
        "http://mcp.example.com/mcp",
        "https://mcp.example.com/mcp?tenant=1",
        "https://mcp.example.com/mcp#top",
        "https://user@mcp.example.com/mcp",
        "mcp.example.com/mcp",
        "https://mcp.example.com/m\"cp",
        "",
    ] {
        assert_eq!(
            error(Config::new().oauth(resource, ISSUER)),
            ConfigError::BadResource,
            "{resource:?}"
        );
    }
    for resource in [
        RESOURCE,
        "http://127.0.0.1:8080/mcp",
        "http://localhost/mcp",
        "http://[::1]:1/mcp",
    ] {
        assert!(
            Endpoint::new(Config::new().oauth(resource, ISSUER)).is_ok(),
            "{resource}"
        );
    }
}

#[test]
fn the_issuer_is_https_or_loopback_http() {
    for issuer in [
        "http://login.example.com",
        "https://login.example.com?x",
        "https://login.example.com#f",
        "login.example.com",
        "",
    ] {
        assert_eq!(
            error(Config::new().oauth(RESOURCE, issuer)),
            ConfigError::BadIssuer,
            "{issuer:?}"
        );
    }
    assert!(Endpoint::new(Config::new().oauth(RESOURCE, "http://127.0.0.1:9000")).is_ok());
    assert!(
        Endpoint::new(Config::new().oauth(RESOURCE, "https://login.example.com/tenant/v2.0"))
            .is_ok()
    );
}

#[test]
fn scope_names_follow_rfc_6749() {
    for (read, create) in [
        ("", "c"),
        ("r", ""),
        ("a b", "c"),
        ("r", "c\""),
        ("r", "c\\"),
        ("r", "é"),
    ] {
        assert!(
            matches!(
                error(Config::new().scopes(read, create)),
                ConfigError::BadScope(_)
            ),
            "{read:?} {create:?}"
        );
    }
    assert!(matches!(
        error(Config::new().scopes("same", "same")),
        ConfigError::BadScope(_)
    ));
    for write in ["", "w x", "w\"", "é", "chopin:read", "chopin:create"] {
        assert!(
            matches!(
                error(Config::new().write_scope(write)),
                ConfigError::BadScope(_)
            ),
            "{write:?}"
        );
    }
    assert!(matches!(
        error(Config::new().scopes("r", "c").write_scope("c")),
        ConfigError::BadScope(_)
    ));
    let refused = error(Config::new().scopes("r", "c d"));
    assert_eq!(refused, ConfigError::BadScope("create scope"));
    assert!(refused.to_string().contains("create scope"));
    let refused = error(Config::new().write_scope("w x"));
    assert_eq!(refused, ConfigError::BadScope("write scope"));
}

#[test]
fn a_metadata_url_that_would_break_the_challenge_is_refused() {
    assert_eq!(
        error(
            Config::new()
                .oauth(RESOURCE, ISSUER)
                .resource_metadata("https://x/\"")
        ),
        ConfigError::BadHeaderValue("resource_metadata")
    );
}

#[test]
fn scopes_are_read_from_a_scope_string_or_a_list_of_names() {
    let endpoint = Endpoint::new(Config::new()).unwrap();
    let scopes = endpoint.scopes();
    assert_eq!(
        (scopes.read(), scopes.create(), scopes.write()),
        ("chopin:read", "chopin:create", "chopin:write")
    );
    assert_eq!(
        scopes.of_scope("chopin:read"),
        Granted::new(true, false, false)
    );
    assert_eq!(
        scopes.of_scope("openid chopin:create chopin:read"),
        Granted::new(true, true, false)
    );
    assert_eq!(
        scopes.of_scope("chopin:write openid chopin:create chopin:read"),
        Granted::ALL
    );
    assert_eq!(scopes.of_scope(""), Granted::NONE);
    assert_eq!(scopes.of_scope("chopin:readx chopin"), Granted::NONE);
    assert_eq!(
        scopes.of_names(["chopin:create"]),
        Granted::new(false, true, false)
    );
    assert_eq!(
        scopes.of_names(["chopin:write"]),
        Granted::new(false, false, true)
    );
    let renamed = Endpoint::new(
        Config::new()
            .scopes("Plans.Read", "Plans.Create")
            .write_scope("Plans.Write"),
    )
    .unwrap();
    assert_eq!(
        renamed
            .scopes()
            .of_scope("Plans.Read chopin:create chopin:write Plans.Write"),
        Granted::new(true, false, true)
    );
    assert_eq!(renamed.scopes().write(), "Plans.Write");
    assert!(Granted::ALL.read() && Granted::ALL.create() && Granted::ALL.write());
    assert!(!Granted::NONE.read() && !Granted::NONE.create() && !Granted::NONE.write());
}
