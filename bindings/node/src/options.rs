//! The endpoint settings the package passes in, as one JSON object, read
//! into a [`Config`].
//!
//! The JavaScript side checks each option's type and says which one is
//! wrong; what it cannot judge (an OAuth resource that is not a URL, a scope
//! name with a space) is the crate's [`ConfigError`], raised here.

use chopin_mcp::{Config, ConfigError, Endpoint, ProtocolVersion};
use serde::Deserialize;

/// The settings, as `index.d.ts` names them (`EndpointOptions`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Options {
    #[serde(default)]
    create: bool,
    #[serde(default)]
    update: bool,
    #[serde(default)]
    rename: bool,
    #[serde(default)]
    archive: bool,
    #[serde(default)]
    restore: bool,
    #[serde(default)]
    invoke: bool,
    #[serde(default)]
    upload: bool,
    /// `"all"`: the eight implementation tools; `"read"`:
    /// `read_implementation` alone.
    implementations: Option<String>,
    body_budget: Option<usize>,
    server_name: Option<String>,
    server_version: Option<String>,
    server_title: Option<String>,
    instructions: Option<String>,
    #[serde(default)]
    allowed_origins: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
    #[serde(default)]
    loopback_hosts: bool,
    protocol_versions: Option<Vec<String>>,
    cache_ttl_ms: Option<u64>,
    oauth: Option<OAuth>,
    scopes: Option<ScopeNames>,
    resource_metadata: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuth {
    resource: String,
    issuer: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScopeNames {
    read: String,
    create: String,
    write: Option<String>,
}

/// Why the settings cannot make an endpoint: the message says which.
#[derive(Debug, PartialEq, Eq)]
pub struct BadOptions(pub String);

impl From<ConfigError> for BadOptions {
    fn from(error: ConfigError) -> Self {
        BadOptions(error.to_string())
    }
}

/// Builds the endpoint the settings describe.
pub(crate) fn endpoint(json: &str) -> Result<Endpoint, BadOptions> {
    let options: Options =
        serde_json::from_str(json).map_err(|error| BadOptions(error.to_string()))?;
    Ok(Endpoint::new(options.into_config()?)?)
}

impl Options {
    fn into_config(self) -> Result<Config, BadOptions> {
        let mut config = Config::new();
        if self.create {
            config = config.enable_creation();
        }
        if self.update {
            config = config.enable_update();
        }
        if self.rename {
            config = config.enable_rename();
        }
        if self.archive {
            config = config.enable_archive();
        }
        if self.restore {
            config = config.enable_restore();
        }
        if self.invoke {
            config = config.enable_planner();
        }
        if self.upload {
            config = config.enable_upload();
        }
        match self.implementations.as_deref() {
            None => {}
            Some("all") => config = config.enable_implementations(),
            Some("read") => config = config.enable_implementation_reads(),
            Some(other) => {
                return Err(BadOptions(format!(
                    "implementations: {other:?} is not \"all\" or \"read\""
                )));
            }
        }
        if let Some(bytes) = self.body_budget {
            config = config.body_budget(bytes);
        }
        if let Some(name) = self.server_name {
            config = config.server_name(name);
        }
        if let Some(version) = self.server_version {
            config = config.server_version(version);
        }
        if let Some(title) = self.server_title {
            config = config.server_title(title);
        }
        // SURFACE.md §10: by default, the instructions generated from the
        // offered tools' descriptions (the tools are enabled above).
        let text = match self.instructions {
            Some(text) => text,
            None => config.generated_instructions(),
        };
        config = config.instructions(text);
        for origin in self.allowed_origins {
            // Web `Headers` join repeated lines with ", ", and the package
            // splits a joined `Origin` back into its lines (which the
            // endpoint refuses): an allowed origin with a comma could never
            // match, so it is refused here rather than silently useless.
            if origin.contains(',') {
                return Err(BadOptions(format!(
                    "allowedOrigins: {origin:?} holds a comma, which no origin does"
                )));
            }
            config = config.allow_origin(origin);
        }
        for host in self.allowed_hosts.into_iter().flatten() {
            if host.contains(',') || host.is_empty() {
                return Err(BadOptions(format!(
                    "allowedHosts: {host:?} is not a host name"
                )));
            }
            config = config.allow_host(host);
        }
        if self.loopback_hosts {
            config = config.allow_loopback_hosts();
        }
        if let Some(names) = self.protocol_versions {
            let versions = names
                .iter()
                .map(|name| {
                    ProtocolVersion::parse(name.as_bytes()).ok_or_else(|| {
                        BadOptions(format!(
                            "protocolVersions: {name:?} is not a protocol version this endpoint knows ({})",
                            known_versions()
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            config = config.protocol_versions(versions);
        }
        if let Some(milliseconds) = self.cache_ttl_ms {
            config = config.cache_ttl_ms(milliseconds);
        }
        if let Some(OAuth { resource, issuer }) = self.oauth {
            config = config.oauth(resource, issuer);
        }
        if let Some(ScopeNames {
            read,
            create,
            write,
        }) = self.scopes
        {
            config = config.scopes(read, create);
            if let Some(write) = write {
                config = config.write_scope(write);
            }
        }
        if let Some(url) = self.resource_metadata {
            config = config.resource_metadata(url);
        }
        Ok(config)
    }
}

/// The protocol versions the crate implements, comma-separated.
pub(crate) fn known_versions() -> String {
    let names: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_options_is_the_crate_s_default_read_only_endpoint() {
        let endpoint = endpoint("{}").unwrap();
        assert_eq!(endpoint.body_budget(), chopin_mcp::READ_ONLY_BUDGET);
    }

    #[test]
    fn creation_raises_the_budget_unless_one_is_given() {
        assert_eq!(
            endpoint(r#"{"create":true}"#).unwrap().body_budget(),
            chopin_mcp::CREATION_BUDGET
        );
        assert_eq!(
            endpoint(r#"{"create":true,"bodyBudget":10}"#)
                .unwrap()
                .body_budget(),
            10
        );
    }

    #[test]
    fn each_write_tool_is_offered_on_its_own_and_update_raises_the_budget() {
        for (json, budget) in [
            (r#"{"update":true}"#, chopin_mcp::CREATION_BUDGET),
            (r#"{"rename":true}"#, chopin_mcp::READ_ONLY_BUDGET),
            (r#"{"restore":true}"#, chopin_mcp::READ_ONLY_BUDGET),
            (
                r#"{"archive":true,"restore":true}"#,
                chopin_mcp::READ_ONLY_BUDGET,
            ),
        ] {
            assert_eq!(endpoint(json).unwrap().body_budget(), budget, "{json}");
        }
    }

    #[test]
    fn each_bad_setting_is_refused_with_what_is_wrong() {
        for (json, says) in [
            (r#"{"crate":true}"#, "unknown field `crate`"),
            (r#"{"bodyBudget":0}"#, "at least 1 byte"),
            (r#"{"bodyBudget":-1}"#, "invalid value"),
            (
                r#"{"protocolVersions":[]}"#,
                "at least one protocol version",
            ),
            (r#"{"protocolVersions":["2025-01-01"]}"#, "2025-01-01"),
            (r#"{"allowedOrigins":["https://a, https://b"]}"#, "comma"),
            (r#"{"allowedOrigins":[""]}"#, "allow_origin"),
            (r#"{"allowedHosts":["a,b"]}"#, "allowedHosts"),
            (
                r#"{"oauth":{"resource":"ftp://x/mcp","issuer":"https://i"}}"#,
                "resource must be",
            ),
            (r#"{"scopes":{"read":"a b","create":"c"}}"#, "scope token"),
            (
                r#"{"scopes":{"read":"r","create":"c","write":"r"}}"#,
                "write scope",
            ),
            (r#"{"archive":true}"#, "only together with restore_document"),
            (r#"{"cacheTtlMs":9007199254740992}"#, "cache lifetime"),
        ] {
            let BadOptions(message) = endpoint(json).unwrap_err();
            assert!(message.contains(says), "{json}: {message}");
        }
    }
}
