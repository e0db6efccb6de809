//! The OAuth flags of `chopin-mcp-server` (AUTH.md §2), parsed beside the
//! others in [`crate::options`].

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

/// The OAuth flags seen so far.
#[derive(Debug, Default)]
pub struct Flags {
    issuer: Option<String>,
    resource: Option<String>,
    audiences: Vec<String>,
    read_scope: Option<String>,
    create_scope: Option<String>,
    write_scope: Option<String>,
    caller_claim: Option<String>,
    introspect: bool,
    client_id: Option<String>,
    secret_file: Option<PathBuf>,
    /// Any flag other than `--oauth-issuer` given (they need it).
    others: Option<&'static str>,
}

impl Flags {
    /// Takes `flag` if it is an OAuth flag (reading its value with
    /// `value`); `Ok(false)` if it is not one.
    pub fn take(
        &mut self,
        flag: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        let name: &'static str = match flag {
            "--oauth-issuer" => {
                self.issuer = Some(value()?);
                return Ok(true);
            }
            "--resource" => {
                self.resource = Some(value()?);
                "--resource"
            }
            "--oauth-audience" => {
                let audience = value()?;
                if audience.is_empty() {
                    return Err("--oauth-audience: an audience is a non-empty string".to_owned());
                }
                self.audiences.push(audience);
                "--oauth-audience"
            }
            "--oauth-read-scope" => {
                self.read_scope = Some(value()?);
                "--oauth-read-scope"
            }
            "--oauth-create-scope" => {
                self.create_scope = Some(value()?);
                "--oauth-create-scope"
            }
            "--oauth-write-scope" => {
                self.write_scope = Some(value()?);
                "--oauth-write-scope"
            }
            "--oauth-caller-claim" => {
                let claim = value()?;
                if claim.is_empty() {
                    return Err("--oauth-caller-claim: the claim name must not be empty".to_owned());
                }
                self.caller_claim = Some(claim);
                "--oauth-caller-claim"
            }
            "--oauth-introspect" => {
                self.introspect = true;
                "--oauth-introspect"
            }
            "--oauth-client-id" => {
                self.client_id = Some(value()?);
                "--oauth-client-id"
            }
            "--oauth-client-secret-file" => {
                self.secret_file = Some(PathBuf::from(value()?));
                "--oauth-client-secret-file"
            }
            _ => return Ok(false),
        };
        self.others.get_or_insert(name);
        Ok(true)
    }

    /// The settings, once every flag is read.
    pub fn finish(self) -> Result<Option<Settings>, String> {
        let Some(issuer) = self.issuer else {
            return match self.others {
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

    fn parse(args: &[&str]) -> Result<Option<Settings>, String> {
        let mut flags = Flags::default();
        let mut args = args.iter().map(|s| s.to_string());
        while let Some(flag) = args.next() {
            let value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
            assert!(flags.take(&flag, value)?, "{flag}");
        }
        flags.finish()
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
