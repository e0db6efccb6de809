//! The OAuth flags of `chopin-mcp-server` (AUTH.md §2), read by clap beside
//! the others of [`crate::options`]; [`Flags::finish`] checks that they go
//! together.

use std::path::PathBuf;

/// What the OAuth flags ask for; `None` in the options without
/// `--oauth-issuer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `--oauth-issuer`, as given (compared byte for byte).
    pub issuer: String,
    /// `--resource`: the canonical URI of this MCP endpoint.
    pub resource: String,
    /// `--oauth-audience` values; empty means "the resource".
    pub audiences: Vec<String>,
    /// `--oauth-read-scope` and `--oauth-create-scope`; `None`: the
    /// endpoint's defaults.
    pub scopes: Option<(String, String)>,
    /// `--oauth-write-scope`; `None`: the endpoint's default.
    pub write_scope: Option<String>,
    /// `--oauth-caller-claim` (default `sub`).
    pub caller_claim: String,
    /// `--oauth-introspect` with its client id and secret file.
    pub introspect: Option<Introspect>,
}

#[derive(Clone, PartialEq, Eq)]
pub struct Introspect {
    pub client_id: String,
    pub secret_file: PathBuf,
}

// The secret file's path is no secret, but keep Debug output minimal.
impl std::fmt::Debug for Introspect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspect")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl Settings {
    /// The accepted audiences: the `--oauth-audience` values, else the
    /// resource.
    pub fn audiences(&self) -> Vec<String> {
        if self.audiences.is_empty() {
            vec![self.resource.clone()]
        } else {
            self.audiences.clone()
        }
    }
}

/// The OAuth flags as clap reads them, under their own `--help` heading.
#[derive(Debug, Default, clap::Args)]
#[command(next_help_heading = "OAuth (sign in with an identity provider; chopin-mcp-server only)")]
pub struct Flags {
    /// the authorization server's issuer (https, or http on loopback);
    /// turns OAuth on (no token is generated then; --token still works
    /// beside it)
    #[arg(
        long = "oauth-issuer",
        value_name = "URL",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    issuer: Option<String>,
    /// `--resource`: the canonical URL of this endpoint (the help text is
    /// the attribute's, so that its example URL reads as typed).
    #[arg(
        long,
        value_name = "URL",
        allow_hyphen_values = true,
        help = "the canonical URL of this endpoint, e.g. https://mcp.example.com/mcp\n\
                (needed with --oauth-issuer; published at\n\
                /.well-known/oauth-protected-resource/mcp)"
    )]
    resource: Option<String>,
    /// an accepted token audience (repeatable; default: the resource)
    #[arg(long = "oauth-audience", value_name = "A", value_parser = audience, allow_hyphen_values = true)]
    audiences: Vec<String>,
    /// the read scope (default chopin:read)
    #[arg(
        long = "oauth-read-scope",
        value_name = "S",
        allow_hyphen_values = true
    )]
    read_scope: Option<String>,
    /// the create scope (default chopin:create)
    #[arg(
        long = "oauth-create-scope",
        value_name = "S",
        allow_hyphen_values = true
    )]
    create_scope: Option<String>,
    /// the write scope of update, rename, archive and restore (default
    /// chopin:write)
    #[arg(
        long = "oauth-write-scope",
        value_name = "S",
        allow_hyphen_values = true,
        verbatim_doc_comment
    )]
    write_scope: Option<String>,
    /// the claim naming the caller (default sub); grant repositories to its
    /// values with --grant
    #[arg(long = "oauth-caller-claim", value_name = "NAME", value_parser = caller_claim, allow_hyphen_values = true, verbatim_doc_comment)]
    caller_claim: Option<String>,
    /// also accept opaque tokens, checked at the issuer's introspection
    /// endpoint, with the two below
    #[arg(long = "oauth-introspect", verbatim_doc_comment)]
    introspect: bool,
    /// this server's client id at the issuer
    #[arg(
        long = "oauth-client-id",
        value_name = "ID",
        allow_hyphen_values = true
    )]
    client_id: Option<String>,
    /// a file holding its client secret
    #[arg(
        long = "oauth-client-secret-file",
        value_name = "FILE",
        allow_hyphen_values = true
    )]
    secret_file: Option<PathBuf>,
}

/// `--oauth-audience A`: not empty.
fn audience(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("--oauth-audience: an audience is a non-empty string".to_owned());
    }
    Ok(text.to_owned())
}

/// `--oauth-caller-claim NAME`: not empty.
fn caller_claim(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("--oauth-caller-claim: the claim name must not be empty".to_owned());
    }
    Ok(text.to_owned())
}

impl Flags {
    /// The first flag given that needs `--oauth-issuer`, in the order
    /// `--help` lists them.
    fn other(&self) -> Option<&'static str> {
        [
            (self.resource.is_some(), "--resource"),
            (!self.audiences.is_empty(), "--oauth-audience"),
            (self.read_scope.is_some(), "--oauth-read-scope"),
            (self.create_scope.is_some(), "--oauth-create-scope"),
            (self.write_scope.is_some(), "--oauth-write-scope"),
            (self.caller_claim.is_some(), "--oauth-caller-claim"),
            (self.introspect, "--oauth-introspect"),
            (self.client_id.is_some(), "--oauth-client-id"),
            (self.secret_file.is_some(), "--oauth-client-secret-file"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The settings, once every flag is read.
    pub fn finish(self) -> Result<Option<Settings>, String> {
        let others = self.other();
        let Some(issuer) = self.issuer else {
            return match others {
                Some(flag) => Err(format!("{flag} needs --oauth-issuer")),
                None => Ok(None),
            };
        };
        let resource = self
            .resource
            .ok_or("--oauth-issuer needs --resource (the URL of this MCP endpoint)")?;
        let introspect = match (self.introspect, self.client_id, self.secret_file) {
            (false, None, None) => None,
            (true, Some(client_id), Some(secret_file)) => Some(Introspect {
                client_id,
                secret_file,
            }),
            (true, _, _) => {
                return Err(
                    "--oauth-introspect needs --oauth-client-id and --oauth-client-secret-file"
                        .to_owned(),
                );
            }
            (false, _, _) => {
                return Err(
                    "--oauth-client-id and --oauth-client-secret-file are for --oauth-introspect"
                        .to_owned(),
                );
            }
        };
        let scopes = match (self.read_scope, self.create_scope) {
            (None, None) => None,
            (read, create) => Some((
                read.unwrap_or_else(|| "chopin:read".to_owned()),
                create.unwrap_or_else(|| "chopin:create".to_owned()),
            )),
        };
        Ok(Some(Settings {
            issuer,
            resource,
            audiences: self.audiences,
            scopes,
            write_scope: self.write_scope,
            caller_claim: self.caller_claim.unwrap_or_else(|| "sub".to_owned()),
            introspect,
        }))
    }
}

/// Reads the client secret: the file's content without a final line end.
/// Errors name the file, never its content.
pub fn read_secret(path: &std::path::Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the client secret file {}: {e}", path.display()))?;
    let secret = text.strip_suffix('\n').unwrap_or(&text);
    let secret = secret.strip_suffix('\r').unwrap_or(secret);
    if secret.is_empty() {
        return Err(format!(
            "the client secret file {} is empty",
            path.display()
        ));
    }
    Ok(secret.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The OAuth flags alone, as clap reads them beside the others.
    #[derive(clap::Parser)]
    struct OAuthOnly {
        #[command(flatten)]
        flags: Flags,
    }

    fn parse(args: &[&str]) -> Result<Option<Settings>, String> {
        use clap::Parser;
        let args = std::iter::once("chopin-mcp-server").chain(args.iter().copied());
        let only = OAuthOnly::try_parse_from(args).map_err(|e| e.to_string())?;
        only.flags.finish()
    }

    #[test]
    fn oauth_needs_an_issuer_and_a_resource() {
        assert_eq!(parse(&[]), Ok(None));
        assert!(
            parse(&["--resource", "https://m/mcp"])
                .unwrap_err()
                .contains("--oauth-issuer")
        );
        assert!(
            parse(&["--oauth-issuer", "https://as"])
                .unwrap_err()
                .contains("--resource")
        );
        let settings = parse(&[
            "--oauth-issuer",
            "https://as",
            "--resource",
            "https://m/mcp",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(settings.audiences(), ["https://m/mcp"]);
        assert_eq!(settings.caller_claim, "sub");
        assert_eq!(settings.scopes, None);
        assert_eq!(settings.write_scope, None);
        assert_eq!(settings.introspect, None);
    }

    #[test]
    fn introspection_needs_its_client() {
        let base = [
            "--oauth-issuer",
            "https://as",
            "--resource",
            "https://m/mcp",
        ];
        let with = |more: &[&str]| parse(&[&base[..], more].concat());
        assert!(with(&["--oauth-introspect"]).is_err());
        assert!(with(&["--oauth-client-id", "c"]).is_err());
        let settings = with(&[
            "--oauth-introspect",
            "--oauth-client-id",
            "c",
            "--oauth-client-secret-file",
            "/s",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(settings.introspect.unwrap().client_id, "c");
        assert!(with(&["--oauth-caller-claim", ""]).is_err());
        let audiences = with(&["--oauth-audience", "a", "--oauth-audience", "b"])
            .unwrap()
            .unwrap();
        assert_eq!(audiences.audiences(), ["a", "b"]);
    }
}
