//! TLS to PostgreSQL with libpq's meanings for the `--db` URL's `sslmode`
//! and `sslrootcert`, on rustls (ring as its crypto provider).
//!
//! | `sslmode` | TLS | verified |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it | nothing; the chain when `sslrootcert` is given (as libpq) |
//! | `require` | always | nothing; the chain when `sslrootcert` is given (as libpq: then as `verify-ca`) |
//! | `verify-ca` | always | the chain, against `sslrootcert` |
//! | `verify-full` | always | the chain and the host name |
//!
//! `sslrootcert=PATH` is a PEM file of one or more CA certificates;
//! `sslrootcert=system` is the platform's roots (rustls-native-certs: the
//! OS's CA bundle, which `SSL_CERT_FILE`/`SSL_CERT_DIR` may name), and, as in
//! libpq 16, implies `verify-full` and refuses a weaker mode, since any
//! public CA could otherwise vouch for any server. Only the URL counts: no
//! `~/.postgresql/root.crt`, no `PG*` environment. The host name of the URL
//! is always sent as SNI (an IP address has none, RFC 6066), also with
//! `hostaddr`. Client certificates and revocation lists (`sslcert`,
//! `sslkey`, `sslcrl`, …) are refused for now.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_cert_signed_by_trust_anchor};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// `sslmode`, as libpq spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<SslMode, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            // libpq's `allow` tries plaintext first: a downgrade by design.
            "allow" => {
                return Err("sslmode=allow is not supported (use prefer, require, \
                            verify-ca or verify-full)"
                    .to_owned());
            }
            other => {
                return Err(format!(
                    "sslmode={other:?} is not one of disable, prefer, require, verify-ca, \
                     verify-full"
                ));
            }
        })
    }

    /// As libpq spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// `sslrootcert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootCert {
    None,
    File(PathBuf),
    System,
}

/// What the URL asks of TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    pub mode: SslMode,
    pub root: RootCert,
}

/// How much of the server's certificate is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Nothing,
    Chain,
    ChainAndName,
}

/// The URL keys this module reads; tokio-postgres never sees them.
pub const KEYS: &[&str] = &[
    "sslmode",
    "sslrootcert",
    "sslsni",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcrl",
    "sslcrldir",
    "sslcertmode",
];

impl Tls {
    /// From the URL's TLS keys (`(key, decoded value)`, later ones win, as
    /// in libpq).
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Tls, String> {
        let mut mode = None;
        let mut root = RootCert::None;
        for (key, value) in pairs {
            match key.as_str() {
                "sslmode" => mode = Some(SslMode::parse(value)?),
                "sslrootcert" if value.is_empty() => {
                    return Err("sslrootcert is empty (give a PEM file or system)".to_owned());
                }
                "sslrootcert" if value == "system" => root = RootCert::System,
                "sslrootcert" => root = RootCert::File(PathBuf::from(value)),
                // SNI is always sent.
                "sslsni" if value == "1" => {}
                "sslsni" => {
                    return Err(format!(
                        "sslsni={value:?}: this server always sends the host name (SNI)"
                    ));
                }
                // What a client certificate would need: refused rather than
                // silently ignored.
                "sslcertmode" if value == "disable" || value == "allow" => {}
                other => {
                    return Err(format!(
                        "{other} is not supported yet (no client certificates or revocation \
                         lists; sslmode and sslrootcert are)"
                    ));
                }
            }
        }
        let mode = match (mode, &root) {
            // libpq 16: system roots mean verify-full.
            (None, RootCert::System) => SslMode::VerifyFull,
            (None, _) => SslMode::Prefer,
            (Some(mode), RootCert::System) if mode != SslMode::VerifyFull => {
                return Err(format!(
                    "sslmode={} may not be used with sslrootcert=system: any public CA \
                     would do (use sslmode=verify-full)",
                    mode.as_str()
                ));
            }
            (Some(mode), _) => mode,
        };
        if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) && root == RootCert::None {
            return Err(format!(
                "sslmode={} needs sslrootcert=PATH (a PEM file of CA certificates) or \
                 sslrootcert=system (~/.postgresql/root.crt is not read)",
                mode.as_str()
            ));
        }
        Ok(Tls { mode, root })
    }

    fn check(&self) -> Check {
        match (self.mode, &self.root) {
            (SslMode::VerifyFull, _) => Check::ChainAndName,
            (SslMode::VerifyCa, _) => Check::Chain,
            (_, RootCert::None) => Check::Nothing,
            // libpq verifies the chain whenever a root certificate is given.
            (_, _) => Check::Chain,
        }
    }

    /// How this is described at start (no secrets: a path at most).
    pub fn describe(&self) -> String {
        let root = match &self.root {
            RootCert::None => String::new(),
            RootCert::File(path) => format!(", sslrootcert={}", path.display()),
            RootCert::System => ", sslrootcert=system".to_owned(),
        };
        let checked = match (self.mode, self.check()) {
            (SslMode::Disable, _) => "no TLS",
            (_, Check::Nothing) => "TLS, the certificate not verified",
            (_, Check::Chain) => "TLS, the certificate's chain verified",
            (_, Check::ChainAndName) => "TLS, the certificate's chain and host name verified",
        };
        let when = if self.mode == SslMode::Prefer {
            " when the server offers it"
        } else {
            ""
        };
        format!("sslmode={}{root}: {checked}{when}", self.mode.as_str())
    }

    /// The rustls configuration, reading the CA file or the platform's
    /// roots now; `None` for `disable`.
    pub fn client_config(&self) -> Result<Option<ClientConfig>, String> {
        if self.mode == SslMode::Disable {
            return Ok(None);
        }
        let provider = provider();
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?;
        let verifier: Arc<dyn ServerCertVerifier> = match self.check() {
            Check::Nothing => Arc::new(WithoutName {
                roots: None,
                provider: Arc::clone(&provider),
            }),
            Check::Chain => Arc::new(WithoutName {
                roots: Some(Arc::new(self.roots()?)),
                provider: Arc::clone(&provider),
            }),
            Check::ChainAndName => WebPkiServerVerifier::builder_with_provider(
                Arc::new(self.roots()?),
                Arc::clone(&provider),
            )
            .build()
            .map_err(|e| format!("TLS: {e}"))?,
        };
        let mut config = builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        config.enable_sni = true;
        Ok(Some(config))
    }

    fn roots(&self) -> Result<RootCertStore, String> {
        let mut roots = RootCertStore::empty();
        match &self.root {
            RootCert::None => {}
            RootCert::File(path) => {
                let pem = std::fs::read(path)
                    .map_err(|e| format!("sslrootcert={}: cannot read it: {e}", path.display()))?;
                let mut found = 0;
                for cert in CertificateDer::pem_slice_iter(&pem) {
                    let cert = cert.map_err(|e| {
                        format!("sslrootcert={}: not PEM certificates: {e}", path.display())
                    })?;
                    roots.add(cert).map_err(|e| {
                        format!("sslrootcert={}: not a CA certificate: {e}", path.display())
                    })?;
                    found += 1;
                }
                if found == 0 {
                    return Err(format!(
                        "sslrootcert={}: holds no PEM certificate",
                        path.display()
                    ));
                }
            }
            RootCert::System => {
                let loaded = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(loaded.certs);
                if added == 0 {
                    let why: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
                    return Err(format!(
                        "sslrootcert=system: the platform has no CA certificates{}{}",
                        if why.is_empty() { "" } else { ": " },
                        why.join("; ")
                    ));
                }
            }
        }
        Ok(roots)
    }
}

/// The process's rustls crypto provider when one was installed (the
/// server's `main` installs ring's), else ring's: one provider either way.
fn provider() -> Arc<CryptoProvider> {
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The verifiers libpq's weaker modes need; `verify-full` is rustls's own
/// `WebPkiServerVerifier`. Either way the handshake's signatures are checked
/// against the presented certificate.
#[derive(Debug)]
struct WithoutName {
    /// `None`: `prefer`/`require` without `sslrootcert`, encryption without
    /// authentication of the server, as in libpq. `Some`: `verify-ca` (and
    /// `require`/`prefer` with `sslrootcert`), the chain up to one of these
    /// roots, whatever names the certificate holds.
    roots: Option<Arc<RootCertStore>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for WithoutName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let cert = ParsedCertificate::try_from(end_entity)?;
            verify_server_cert_signed_by_trust_anchor(
                &cert,
                roots,
                intermediates,
                now,
                self.provider.signature_verification_algorithms.all,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
