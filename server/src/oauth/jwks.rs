//! A JSON Web Key Set (RFC 7517) as the server uses it: signing keys only,
//! each checked and turned into a verification key once, when the set is
//! fetched; and the choice of the key a token names (AUTH.md §2).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// More entries than this and the whole document is refused.
pub const MAX_KEYS: usize = 64;
/// RSA moduli from 2048 to 8192 bits (what ring verifies); others are skipped.
const RSA_BYTES: std::ops::RangeInclusive<usize> = 256..=1024;

/// The signature algorithms accepted: never `none`, never HMAC.
pub fn algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        _ => return None,
    })
}

/// A key's type, with the curve where there is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl KeyType {
    /// The type of key an algorithm verifies with.
    pub fn of(algorithm: Algorithm) -> Option<KeyType> {
        Some(match algorithm {
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => KeyType::Rsa,
            Algorithm::ES256 => KeyType::P256,
            Algorithm::ES384 => KeyType::P384,
            Algorithm::EdDSA => KeyType::Ed25519,
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => return None,
        })
    }

    /// The JWK `kty`.
    fn kty(self) -> &'static str {
        match self {
            KeyType::Rsa => "RSA",
            KeyType::P256 | KeyType::P384 => "EC",
            KeyType::Ed25519 => "OKP",
        }
    }
}

/// One signing key of the set.
pub struct Key {
    pub kid: Option<String>,
    pub kind: KeyType,
    /// The JWK's `alg`, when it names one.
    pub alg: Option<Algorithm>,
    pub verifier: DecodingKey,
    /// What identifies the key across fetches: SHA-256 of its type, `kid`
    /// and public components. A cached token verified with a key whose id
    /// left the set is dropped.
    pub id: [u8; 32],
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("kind", &self.kind)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

/// The signing keys of one fetched JWKS.
#[derive(Debug, Default)]
pub struct KeySet {
    pub keys: Vec<Key>,
    /// Entries of the document that were not usable signing keys.
    pub skipped: usize,
}

#[derive(Deserialize)]
struct Document {
    keys: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawKey {
    kty: String,
    kid: Option<String>,
    #[serde(rename = "use")]
    usage: Option<String>,
    alg: Option<String>,
    crv: Option<String>,
    n: Option<String>,
    e: Option<String>,
    x: Option<String>,
    y: Option<String>,
}

/// Why no key verifies a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoKey {
    /// The token's `kid` is not in the set (a refetch may find it).
    UnknownKid,
    /// The key with that `kid` is of another type or algorithm.
    Mismatch,
    /// No `kid`, and the set does not hold exactly one compatible key.
    Ambiguous,
}

impl KeySet {
    /// Parses a JWKS document. Entries that are not usable signing keys
    /// (`use` other than `sig`, unknown `kty`, curve or `alg`, bad
    /// components, an RSA modulus outside 2048–8192 bits) are skipped; a
    /// document that is not a key set, or has more than [`MAX_KEYS`]
    /// entries, is refused.
    pub fn parse(body: &[u8]) -> Result<KeySet, String> {
        let document: Document =
            serde_json::from_slice(body).map_err(|e| format!("not a JSON Web Key Set: {e}"))?;
        if document.keys.len() > MAX_KEYS {
            return Err(format!(
                "{} keys, more than the {MAX_KEYS} accepted",
                document.keys.len()
            ));
        }
        let mut set = KeySet::default();
        for entry in document.keys {
            match serde_json::from_value::<RawKey>(entry)
                .ok()
                .and_then(|raw| key(&raw))
            {
                Some(key) => set.keys.push(key),
                None => set.skipped += 1,
            }
        }
        Ok(set)
    }

    /// The key that verifies a token signed with `alg`, named by `kid`.
    ///
    /// With a `kid`: the key of that `kid` whose type and `alg` fit. Without
    /// one: the one key of the right `kty` whose `alg` is absent or equal,
    /// when there is exactly one.
    pub fn select(&self, kid: Option<&str>, alg: Algorithm) -> Result<&Key, NoKey> {
        let Some(kind) = KeyType::of(alg) else {
            return Err(NoKey::Mismatch);
        };
        let fits = |key: &&Key| key.kind == kind && key.alg.is_none_or(|a| a == alg);
        match kid {
            Some(kid) => {
                let mut named = self
                    .keys
                    .iter()
                    .filter(|key| key.kid.as_deref() == Some(kid))
                    .peekable();
                if named.peek().is_none() {
                    return Err(NoKey::UnknownKid);
                }
                named.find(fits).ok_or(NoKey::Mismatch)
            }
            None => {
                // Compatible by `kty` (AUTH.md §2), so two EC keys of
                // different curves are two candidates.
                let mut candidates = self
                    .keys
                    .iter()
                    .filter(|key| key.kind.kty() == kind.kty() && key.alg.is_none_or(|a| a == alg));
                match (candidates.next(), candidates.next()) {
                    (Some(key), None) if key.kind == kind => Ok(key),
                    (Some(_), None) => Err(NoKey::Mismatch),
                    _ => Err(NoKey::Ambiguous),
                }
            }
        }
    }

    /// Whether a key of this id is in the set.
    pub fn holds(&self, id: &[u8; 32]) -> bool {
        self.keys.iter().any(|key| &key.id == id)
    }
}

/// A usable signing key from a JWK, or `None`.
fn key(raw: &RawKey) -> Option<Key> {
    if raw.usage.as_deref().is_some_and(|usage| usage != "sig") {
        return None;
    }
    let alg = match raw.alg.as_deref() {
        None => None,
        Some(name) => Some(algorithm(name)?),
    };
    let decode = |text: &Option<String>| {
        let text = text.as_deref()?;
        URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).ok()
    };
    let (kind, verifier) = match (raw.kty.as_str(), raw.crv.as_deref()) {
        ("RSA", _) => {
            let n = decode(&raw.n)?;
            let e = decode(&raw.e)?;
            let n = strip_zeros(&n);
            let e = strip_zeros(&e);
            if !RSA_BYTES.contains(&n.len()) || e.is_empty() || e.len() > 4 {
                return None;
            }
            (KeyType::Rsa, DecodingKey::from_rsa_raw_components(n, e))
        }
        ("EC", Some(curve @ ("P-256" | "P-384"))) => {
            let (kind, size) = if curve == "P-256" {
                (KeyType::P256, 32)
            } else {
                (KeyType::P384, 48)
            };
            let (x, y) = (decode(&raw.x)?, decode(&raw.y)?);
            if x.len() != size || y.len() != size {
                return None;
            }
            let verifier = DecodingKey::from_ec_components(raw.x.as_deref()?, raw.y.as_deref()?);
            (kind, verifier.ok()?)
        }
        ("OKP", Some("Ed25519")) => {
            if decode(&raw.x)?.len() != 32 {
                return None;
            }
            let verifier = DecodingKey::from_ed_components(raw.x.as_deref()?.trim_end_matches('='));
            (KeyType::Ed25519, verifier.ok()?)
        }
        _ => return None,
    };
    if alg.is_some_and(|alg| KeyType::of(alg) != Some(kind)) {
        return None;
    }
    let mut id = Sha256::new();
    for part in [
        Some(kind.kty()),
        raw.crv.as_deref(),
        raw.kid.as_deref(),
        raw.n.as_deref(),
        raw.e.as_deref(),
        raw.x.as_deref(),
        raw.y.as_deref(),
    ] {
        let part = part.unwrap_or("");
        id.update((part.len() as u64).to_be_bytes());
        id.update(part.as_bytes());
    }
    Some(Key {
        kid: raw.kid.clone(),
        kind,
        alg,
        verifier,
        id: id.finalize().into(),
    })
}

/// Big-endian integer bytes without leading zeros.
fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rsa(kid: Option<&str>, alg: Option<&str>) -> serde_json::Value {
        let n = URL_SAFE_NO_PAD.encode([0xc5u8; 256]);
        let mut key = serde_json::json!({"kty": "RSA", "n": n, "e": "AQAB"});
        if let Some(kid) = kid {
            key["kid"] = kid.into();
        }
        if let Some(alg) = alg {
            key["alg"] = alg.into();
        }
        key
    }

    fn ec(kid: &str) -> serde_json::Value {
        // Components of the right size (the point is not checked until use).
        let c = URL_SAFE_NO_PAD.encode([7u8; 32]);
        serde_json::json!({"kty": "EC", "crv": "P-256", "kid": kid, "x": c, "y": c})
    }

    fn set(keys: Vec<serde_json::Value>) -> KeySet {
        KeySet::parse(serde_json::json!({ "keys": keys }).to_string().as_bytes()).unwrap()
    }

    #[test]
    fn unusable_entries_are_skipped() {
        let small = serde_json::json!({"kty": "RSA", "kid": "small", "n": URL_SAFE_NO_PAD.encode([1u8; 128]), "e": "AQAB"});
        let enc = {
            let mut key = rsa(Some("enc"), None);
            key["use"] = "enc".into();
            key
        };
        let hmac = serde_json::json!({"kty": "oct", "kid": "h", "k": "c2VjcmV0"});
        let wrong_alg = rsa(Some("w"), Some("ES256"));
        let keys = set(vec![
            rsa(Some("a"), None),
            small,
            enc,
            hmac,
            wrong_alg,
            serde_json::json!(7),
        ]);
        assert_eq!(keys.keys.len(), 1);
        assert_eq!(keys.skipped, 5);
    }

    #[test]
    fn too_many_keys_or_no_key_set_is_refused() {
        let many: Vec<_> = (0..=MAX_KEYS)
            .map(|i| rsa(Some(&i.to_string()), None))
            .collect();
        assert!(KeySet::parse(serde_json::json!({ "keys": many }).to_string().as_bytes()).is_err());
        assert!(KeySet::parse(b"{}").is_err());
        assert!(KeySet::parse(b"not json").is_err());
    }

    #[test]
    fn a_kid_selects_its_key_if_it_fits() {
        let keys = set(vec![rsa(Some("a"), Some("RS256")), ec("e")]);
        assert_eq!(
            keys.select(Some("a"), Algorithm::RS256)
                .unwrap()
                .kid
                .as_deref(),
            Some("a")
        );
        assert_eq!(
            keys.select(Some("a"), Algorithm::PS256).unwrap_err(),
            NoKey::Mismatch
        );
        assert_eq!(
            keys.select(Some("a"), Algorithm::ES256).unwrap_err(),
            NoKey::Mismatch
        );
        assert_eq!(
            keys.select(Some("e"), Algorithm::ES256).unwrap().kind,
            KeyType::P256
        );
        assert_eq!(
            keys.select(Some("zz"), Algorithm::RS256).unwrap_err(),
            NoKey::UnknownKid
        );
        assert_eq!(
            keys.select(Some("a"), Algorithm::HS256).unwrap_err(),
            NoKey::Mismatch
        );
    }

    #[test]
    fn no_kid_needs_exactly_one_compatible_key() {
        let one = set(vec![rsa(Some("a"), None), ec("e")]);
        assert!(one.select(None, Algorithm::RS256).is_ok());
        assert!(one.select(None, Algorithm::ES256).is_ok());
        let two = set(vec![rsa(Some("a"), None), rsa(Some("b"), None)]);
        assert_eq!(
            two.select(None, Algorithm::RS256).unwrap_err(),
            NoKey::Ambiguous
        );
        // An alg that differs makes the other key incompatible.
        let pinned = set(vec![
            rsa(Some("a"), Some("RS256")),
            rsa(Some("b"), Some("PS256")),
        ]);
        assert_eq!(
            pinned
                .select(None, Algorithm::PS256)
                .unwrap()
                .kid
                .as_deref(),
            Some("b")
        );
    }

    #[test]
    fn key_ids_change_with_the_key() {
        let a = set(vec![rsa(Some("a"), None)]);
        let again = set(vec![rsa(Some("a"), None)]);
        let b = set(vec![rsa(Some("b"), None)]);
        assert!(again.holds(&a.keys[0].id));
        assert!(!b.holds(&a.keys[0].id));
    }
}
