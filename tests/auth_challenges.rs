//! AUTH.md §1.1: the three 401/403 challenges, their parameters, and the
//! JSON-RPC bodies of every 401, 403 and 503, in every `Config`.

mod common;

use chopin_mcp::Config;
use common::{Request, Step, call, creation, endpoint_with, ping};
use serde_json::json;

const RESOURCE: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://login.example.com";
const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const UNAUTHORIZED: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"unauthorized"}}"#;

fn oauth() -> Config {
    Config::new().oauth(RESOURCE, ISSUER).enable_creation()
}

fn ping_as(authorization: Option<&str>) -> Request {
    let request = Request::post(&ping(json!(1)));
    match authorization {
        Some(value) => request.header("authorization", value),
        None => request.without("authorization"),
    }
}

#[test]
fn no_credentials_get_a_challenge_without_an_error() {
    for authorization in [None, Some("Basic YWxsb3dlZA=="), Some("Bearerallowed")] {
        let (reply, transcript) = ping_as(authorization).exchange(&endpoint_with(oauth()));
        assert_eq!(reply.status, 401, "{authorization:?}");
        assert_eq!(
            reply.header("www-authenticate").unwrap(),
            format!(r#"Bearer resource_metadata="{PRM}", scope="chopin:read""#),
            "{authorization:?}"
        );
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.text(), UNAUTHORIZED);
        assert_eq!(transcript, [Step::Authenticate, Step::Respond(401)]);
    }
}

#[test]
fn a_refused_bearer_token_is_invalid_token() {
    // Unknown, empty, and malformed credentials alike (the host refused them).
    for authorization in [
        "Bearer unknown",
        "Bearer ",
        "Bearer",
        "bearer a b c",
        "BEARER \"x\"",
    ] {
        let (reply, _) = ping_as(Some(authorization)).exchange(&endpoint_with(oauth()));
        assert_eq!(reply.status, 401, "{authorization:?}");
        assert_eq!(
            reply.header("www-authenticate").unwrap(),
            format!(
                r#"Bearer error="invalid_token", resource_metadata="{PRM}", scope="chopin:read""#
            ),
            "{authorization:?}"
        );
        assert_eq!(reply.text(), UNAUTHORIZED);
    }
}

#[test]
fn a_401_names_the_read_scope_only_whatever_the_request() {
    let create =
        Request::post(&call(json!(1), "create_document", creation())).without("authorization");
    let (reply, _) = create.exchange(&endpoint_with(oauth()));
    assert_eq!(reply.status, 401);
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .ends_with(r#"scope="chopin:read""#)
    );
    assert!(
        !reply
            .header("www-authenticate")
            .unwrap()
            .contains("chopin:create")
    );
}

#[test]
fn a_missing_scope_is_403_naming_every_scope_the_request_needs() {
    let create = Request::post(&call(json!("c-1"), "create_document", creation()))
        .header("authorization", "Bearer reader");
    let (reply, transcript) = create.exchange(&endpoint_with(oauth()));
    assert_eq!(reply.status, 403);
    assert_eq!(
        reply.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="chopin:read chopin:create", resource_metadata="{PRM}""#
        )
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":"c-1","error":{"code":-32000,"message":"insufficient scope"}}"#
    );
    assert_eq!(transcript, [Step::Authenticate, Step::Respond(403)]);

    let list = Request::post(&ping(json!(9))).header("authorization", "Bearer creator");
    let (reply, _) = list.exchange(&endpoint_with(oauth()));
    assert_eq!(reply.status, 403);
    assert_eq!(
        reply.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer error="insufficient_scope", scope="chopin:read", resource_metadata="{PRM}""#
        )
    );
    assert_eq!(
        reply.text(),
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"insufficient scope"}}"#
    );
}

#[test]
fn renamed_scopes_appear_in_every_challenge() {
    let config = oauth().scopes("api://chopin/Plans.Read", "api://chopin/Plans.Create");
    let (reply, _) = ping_as(None).exchange(&endpoint_with(config.clone()));
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .ends_with(r#"scope="api://chopin/Plans.Read""#)
    );
    let create = Request::post(&call(json!(1), "create_document", creation()))
        .header("authorization", "Bearer reader");
    let (reply, _) = create.exchange(&endpoint_with(config));
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"scope="api://chopin/Plans.Read api://chopin/Plans.Create""#)
    );
}

#[test]
fn an_explicit_metadata_url_wins_over_the_path_suffixed_one() {
    let elsewhere = "https://docs.example.com/prm.json";
    let config = oauth().resource_metadata(elsewhere);
    let (reply, _) = ping_as(Some("Bearer unknown")).exchange(&endpoint_with(config));
    assert_eq!(
        reply.header("www-authenticate").unwrap(),
        format!(
            r#"Bearer error="invalid_token", resource_metadata="{elsewhere}", scope="chopin:read""#
        )
    );
}

#[test]
fn without_oauth_settings_only_the_error_and_the_body_differ() {
    // Parameters appear only when configured: never `scope=""`.
    let (reply, _) = ping_as(None).exchange(&endpoint_with(Config::new()));
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    assert_eq!(reply.text(), UNAUTHORIZED);
    let (reply, _) = ping_as(Some("Bearer unknown")).exchange(&endpoint_with(Config::new()));
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"Bearer error="invalid_token""#)
    );
    let config = Config::new().resource_metadata("https://chopin.test/meta");
    let (reply, _) = ping_as(None).exchange(&endpoint_with(config));
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"Bearer resource_metadata="https://chopin.test/meta""#)
    );
    // A plain Config still refuses missing scopes, naming the default names.
    let create = Request::post(&call(json!(1), "create_document", creation()))
        .header("authorization", "Bearer reader");
    let (reply, _) = create.exchange(&endpoint_with(Config::new().enable_creation()));
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"Bearer error="insufficient_scope", scope="chopin:read chopin:create""#)
    );
}

#[test]
fn no_refusal_names_a_document_or_a_token() {
    let document = common::seed_document();
    for request in [
        ping_as(Some("Bearer unknown-secret-token")),
        Request::post(&call(json!(1), "read_document", json!({"id": document.id})))
            .header("authorization", "Bearer creator"),
        ping_as(Some("Bearer down")),
    ] {
        let (reply, _) = request.exchange(&endpoint_with(oauth()));
        assert!([401, 403, 503].contains(&reply.status));
        let all = format!("{:?} {}", reply.headers, reply.text());
        for secret in [
            &*document.id,
            &*document.title,
            "unknown-secret-token",
            "creator",
            "down",
        ] {
            assert!(
                !all.contains(secret),
                "{} reveals {secret:?}: {all}",
                reply.status
            );
        }
    }
}

#[test]
fn refusals_carry_the_cors_grant() {
    let origin = "https://app.example";
    for (token, status) in [("unknown", 401), ("creator", 403), ("down", 503)] {
        let request = Request::post(&ping(json!(1)))
            .header("authorization", &format!("Bearer {token}"))
            .header("origin", origin);
        let (reply, _) = request.exchange(&endpoint_with(oauth().allow_origin(origin)));
        assert_eq!(reply.status, status);
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
        assert!(
            reply
                .header("access-control-expose-headers")
                .unwrap()
                .contains("www-authenticate")
        );
    }
}
